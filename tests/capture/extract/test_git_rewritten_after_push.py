"""A commit a rewrite (amend, rebase) gave a new id after a push had carried it (issue 22): the
state says so, and that the new id never went up, instead of a bare "not pushed" (a plain
push of it is refused: the remote holds the earlier id)."""

from __future__ import annotations

from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import Session


def _state(session: Session) -> str:
    view = SessionView.of(session.transcript(), None)
    return {c["subject"]: c["object"] for c in git_state_candidates(view)}["shop"]


def _pushed(session: Session) -> None:
    session.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    session.bash("git commit -m a", output="[feat/x 1111111] docs: first\n 1 file changed")
    session.bash("git push -u origin feat/x", output="To github.com:me/shop.git\n"
                 " * [new branch]      feat/x -> feat/x")


def test_an_amend_after_the_push_is_told_as_rewritten():
    session = Session()
    _pushed(session)
    session.bash("git commit --amend --no-edit",
                 output="[feat/x 2222222] docs: first\n 1 file changed")
    text = _state(session)
    assert "2222222" in text and "1111111" not in text
    assert "1 rewritten (new id) after a push to github.com/me/shop had carried it" in text
    assert "not pushed since: the remote holds its earlier id" in text


def test_the_rewrite_pushed_again_is_pushed():
    session = Session()
    _pushed(session)
    session.bash("git commit --amend --no-edit",
                 output="[feat/x 2222222] docs: first\n 1 file changed")
    session.bash("git push -f", output="To github.com:me/shop.git\n"
                 " + 1111111...2222222 feat/x -> feat/x (forced update)")
    text = _state(session)
    assert "rewritten" not in text
    assert "pushed to github.com/me/shop (forced)" in text


def test_an_amend_of_a_commit_never_pushed_is_plainly_not_pushed():
    session = Session()
    session.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    session.bash("git commit -m a", output="[feat/x 1111111] docs: first\n 1 file changed")
    session.bash("git commit --amend --no-edit",
                 output="[feat/x 2222222] docs: first\n 1 file changed")
    text = _state(session)
    assert "rewritten" not in text and "; not pushed" in text


def test_commits_a_log_listed_under_the_pushed_head_then_rebased():
    """The session never printed the commits' own lines: a log of the branch showed them,
    a push sent that head up, and a rebase printed them again under new ids."""
    session = Session()
    session.bash("git log --oneline -3", output="bbbbbbb feat: two\naaaaaaa feat: one\n"
                 "0000000 chore: base")
    session.bash("git push origin main", output="To github.com:me/shop.git\n"
                 "   0000000..bbbbbbb  main -> main")
    session.bash("git rebase --exec 'git commit --amend --no-edit --reset-author' HEAD~2",
                 output="Rebasing (1/2)\n[detached HEAD ccccccc] feat: one\n"
                        "Rebasing (2/2)\n[detached HEAD ddddddd] feat: two\n"
                        "Successfully rebased and updated refs/heads/main.")
    session.bash("git push --force-with-lease origin main", error=True,
                 output="To github.com:me/shop.git\n"
                        " ! [remote rejected] main -> main (protected branch hook declined)\n"
                        "error: failed to push some refs to 'github.com:me/shop.git'")
    text = _state(session)
    assert "2 commits on branch `main`: ccccccc, ddddddd" in text
    assert "2 rewritten (new ids) after a push to github.com/me/shop had carried them" in text


def test_a_log_not_headed_by_the_pushed_commit_proves_nothing():
    session = Session()
    session.bash("git log --oneline -3", output="bbbbbbb feat: two\naaaaaaa feat: one\n"
                 "0000000 chore: base")
    session.bash("git push origin main", output="To github.com:me/shop.git\n"
                 "   0000000..9999999  main -> main")
    session.bash("git rebase -i HEAD~2",
                 output="Rebasing (1/2)\n[detached HEAD ccccccc] feat: one\n"
                        "Rebasing (2/2)\n[detached HEAD ddddddd] feat: two\n"
                        "Successfully rebased and updated refs/heads/main.")
    text = _state(session)
    assert "rewritten" not in text


def test_a_new_commit_beside_the_rewritten_one_is_counted_apart():
    session = Session()
    _pushed(session)
    session.bash("git commit --amend --no-edit",
                 output="[feat/x 2222222] docs: first\n 1 file changed")
    session.bash("git commit -m b", output="[feat/x 3333333] docs: second\n 1 file changed")
    text = _state(session)
    assert "2 commits on branch `feat/x`: 2222222, 3333333" in text
    assert "1 rewritten (new id)" in text and "1 other not pushed" in text


def test_a_later_commit_with_the_subject_of_one_a_reset_dropped_is_another_commit():
    session = Session()
    _pushed(session)
    session.bash("git reset --hard HEAD~1", output="HEAD is now at 0000000 chore: base")
    session.bash("git commit -m a", output="[feat/x 4444444] docs: first\n 1 file changed")
    text = _state(session)
    assert "rewritten" not in text and "4444444" in text
