"""Lines of git work the shell reader cannot take apart, and a "HEAD is now at …" that moves
nothing checked out here (issue 22): the state agrees with what git printed last."""

from __future__ import annotations

from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import Session

#: a PowerShell here-string whose message holds a quote the shell reader cannot pair
UNREADABLE = ("git add docs/notes.md\ngit commit -q -m @'\ndocs: the reviewer's notes\n'@\n"
              "git push origin dev 2>&1 | Select-Object -Last 2")


def _state(session: Session) -> str:
    view = SessionView.of(session.transcript(), None)
    return {c["subject"]: c["object"] for c in git_state_candidates(view)}["shop"]


def _committed(session: Session) -> None:
    session.bash("git checkout -b dev", output="Switched to a new branch 'dev'")
    session.bash("git commit -m a", output="[dev 1111111] docs: first\n 1 file changed")
    session.bash("git push -u origin dev", output="To github.com:me/shop.git\n"
                 " * [new branch]      dev -> dev")
    session.bash("git commit -m b", output="[dev 2222222] docs: second\n 1 file changed")


def test_a_push_only_the_output_shows_counts_and_the_count_is_a_lower_bound():
    session = Session()
    _committed(session)
    session.bash(UNREADABLE, output="To github.com:me/shop.git\n"
                 "   2222222..3333333  dev -> dev")
    text = _state(session)
    assert "at least 2 commits on branch `dev`: 1111111, 2222222" in text
    assert "pushed to github.com/me/shop" in text and "not pushed" not in text


def test_an_unreadable_push_to_a_remote_the_session_never_used_is_not_taken():
    session = Session()
    _committed(session)
    session.bash(UNREADABLE, output="To github.com:someone/else.git\n"
                 "   2222222..3333333  dev -> dev")
    text = _state(session)
    assert "at least" not in text
    assert "1 later not pushed" in text


def test_an_unreadable_line_that_failed_proves_nothing():
    session = Session()
    _committed(session)
    session.bash(UNREADABLE, error=True, output="To github.com:me/shop.git\n"
                 "   2222222..3333333  dev -> dev\nExit code 1")
    assert "1 later not pushed" in _state(session)


def test_a_new_worktree_head_rewrites_nothing_here():
    session = Session()
    _committed(session)
    session.bash("git worktree add ../review 1111111",
                 output="Preparing worktree (detached HEAD 1111111)\n"
                        "HEAD is now at 1111111 docs: first")
    text = _state(session)
    assert "2 commits on branch `dev`: 1111111, 2222222" in text
    assert "1 later not pushed" in text


def test_a_checkout_beside_a_new_worktree_rewrites_nothing():
    session = Session()
    _committed(session)
    session.bash("git checkout main", output="Switched to branch 'main'")
    session.bash("git checkout dev && git worktree add ../review 1111111",
                 output="Switched to branch 'dev'\nPreparing worktree (detached HEAD 1111111)\n"
                        "HEAD is now at 1111111 docs: first")
    assert "2 commits on branch `dev`: 1111111, 2222222" in _state(session)


def test_a_reset_still_rewrites():
    session = Session()
    _committed(session)
    session.bash("git reset --hard 1111111 && git worktree list",
                 output="HEAD is now at 1111111 docs: first\n/home/dev/shop 1111111 [dev]")
    assert "2222222" not in _state(session)


def test_a_commit_whose_summary_never_showed_makes_the_count_a_lower_bound():
    session = Session()
    _committed(session)
    session.bash("git commit -m c", output="ok 3333333")  # a wrapper's rewrite of git's line
    text = _state(session)
    assert "at least 2 commits on branch `dev`: 1111111, 2222222" in text


def test_a_commit_with_no_result_makes_the_count_a_lower_bound():
    session = Session()
    _committed(session)
    session.tool("Bash", {"command": "git commit -m c"}, answered=False)
    assert "at least 2 commits on branch `dev`" in _state(session)


def test_a_commit_that_made_nothing_leaves_the_count_exact():
    session = Session()
    _committed(session)
    session.bash("git commit -m c || true",
                 output="On branch dev\nnothing to commit, working tree clean")
    session.bash("git commit --dry-run -m d", output="On branch dev\nChanges to be committed:")
    text = _state(session)
    assert "at least" not in text and "2 commits on branch `dev`" in text
