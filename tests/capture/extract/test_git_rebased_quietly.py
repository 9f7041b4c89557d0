"""A quiet rebasing pull after a push refused as behind, and ``gh pr create`` as proof that the
branch checked out went up (issue 22): the git state never lists an id a rebase replaced, and
does not call a push unknown that gh's PR shows went up."""

from __future__ import annotations

from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import Session

REFUSED = ("To github.com:me/shop.git\n"
           " ! [rejected]        feat/x -> feat/x (fetch first)\n"
           "error: failed to push some refs to 'github.com:me/shop.git'")
PUSHED = ("To github.com:me/shop.git\n"
          "   c5c5c5c..{new}  feat/x -> feat/x")


def _state(session: Session) -> str:
    view = SessionView.of(session.transcript(), None)
    return {c["subject"]: c["object"] for c in git_state_candidates(view)}["shop"]


def _behind(session: Session, refusal: str = REFUSED) -> None:
    """feat/x with one commit pushed and a second one a push refused as behind."""
    session.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    session.bash("git commit -m a", output="[feat/x 1111111] docs: first\n 1 file changed")
    session.bash("git push -u origin feat/x", output="To github.com:me/shop.git\n"
                 " * [new branch]      feat/x -> feat/x")
    session.bash("git commit -m b", output="[feat/x 2222222] docs: second\n 1 file changed")
    session.bash("git push origin feat/x 2>&1 | tail -3", output=refusal)


def test_a_quiet_rebase_then_a_push_range_names_the_new_id():
    session = Session()
    _behind(session)
    session.bash("git pull --rebase -q", output="")
    session.bash("git push origin feat/x 2>&1 | tail -2", output=PUSHED.format(new="3333333"))
    text = _state(session)
    assert "2222222" not in text
    assert "1111111" in text and "3333333" in text and "pushed to github.com/me/shop" in text


def test_a_quiet_rebase_then_a_log_names_the_new_id():
    session = Session()
    _behind(session)
    session.bash("git pull --rebase --autostash -q 2>&1 | tail -3; git log --oneline -3",
                 output="Created autostash: 9999999\nApplied autostash.\n"
                        "3333333 docs: second\nc5c5c5c fix: theirs\n1111111 docs: first")
    text = _state(session)
    assert "2222222" not in text and "3333333" in text and "1111111" in text


def test_a_quiet_rebase_nothing_names_again_is_not_listed_under_its_old_id():
    session = Session()
    _behind(session)
    session.bash("git pull --rebase -q", output="")
    text = _state(session)
    assert "2222222" not in text
    assert "1111111" in text  # pushed before the pull: on the branch it rebased onto


def test_a_quiet_rebase_with_no_refused_push_before_changes_nothing():
    session = Session()
    _behind(session, refusal="To github.com:me/shop.git\n"
                             " ! [remote rejected] feat/x -> feat/x (protected branch hook "
                             "declined)")
    session.bash("git pull --rebase -q", output="")
    assert "2222222" in _state(session)


def test_a_rebasing_pull_that_failed_changes_nothing():
    session = Session()
    _behind(session)
    session.bash("git pull --rebase -q 2>&1 | tail -3; git status -s",
                 output="error: cannot pull with rebase: You have unstaged changes.\n"
                        "error: Please commit or stash them.\n M a.py")
    assert "2222222" in _state(session)


def test_gh_pr_create_that_printed_its_url_proves_the_branch_went_up():
    session = Session()
    session.bash("git checkout -b feat/y", output="Switched to a new branch 'feat/y'")
    session.bash("git commit -q -m a", output="")
    session.bash("git push -q -u origin feat/y 2>&1 | tail -2; gh pr create --title T --body x",
                 output="Warning: 2 uncommitted changes\nhttps://github.com/me/shop/pull/7")
    text = _state(session)
    assert "push outcome unknown" not in text
    assert "pushed (PR #7 was opened from it)" in text


def test_gh_pr_create_naming_its_head_proves_nothing_of_the_local_commits():
    session = Session()
    session.bash("git checkout -b feat/y", output="Switched to a new branch 'feat/y'")
    session.bash("git commit -q -m a", output="")
    session.bash("git push -q -u origin feat/y 2>&1 | tail -2; "
                 "gh pr create --head feat/y --title T --body x",
                 output="https://github.com/me/shop/pull/7")
    text = _state(session)
    assert "push outcome unknown" in text and "PR #7 was opened" not in text


def test_a_commit_after_the_pr_was_opened_is_not_pushed_by_it():
    session = Session()
    session.bash("git checkout -b feat/y", output="Switched to a new branch 'feat/y'")
    session.bash("git commit -m a", output="[feat/y 1111111] feat: a\n 1 file changed")
    session.bash("gh pr create --title T --body x", output="https://github.com/me/shop/pull/7")
    session.bash("git commit -m b", output="[feat/y 2222222] feat: b\n 1 file changed")
    text = _state(session)
    assert "pushed (PR #7 was opened from it) up to 11111111"[:45] in text
    assert "1 later not pushed" in text


def _refused_in_the_commit_line(session: Session) -> None:
    """feat/x with one commit pushed quietly (its push printed no ref line), then a commit
    whose line failed on its push, refused as behind: ``git commit … && git push``."""
    session.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    session.bash("git commit -m a", output="[feat/x 1111111] docs: first\n 1 file changed")
    session.bash("git push -q -u origin feat/x", output="")
    session.bash("git commit -m b && git push", error=True,
                 output="Exit code 1\n[feat/x 2222222] docs: second\n 1 file changed\n"
                        + REFUSED)


def test_a_push_refused_in_the_failed_commit_line_makes_the_quiet_rebase_count():
    session = Session()
    _refused_in_the_commit_line(session)
    session.bash("git pull --rebase -q && git push -q", output="")
    text = _state(session)
    assert "2222222" not in text  # the rebase gave it a new id
    assert "1111111" in text  # the quiet push had carried it: on the remote, id kept


def test_rebased_commits_under_a_later_pushed_head_are_counted_without_ids():
    session = Session()
    _refused_in_the_commit_line(session)
    session.bash("git pull --rebase -q && git push -q", output="")
    session.bash("git commit -m c && git push",
                 output="[feat/x 4444444] docs: third\n 1 file changed\n"
                        + PUSHED.format(new="4444444"))
    text = _state(session)
    assert "3 commits on branch `feat/x`" in text
    assert "1111111" in text and "4444444" in text and "1 whose id was not shown" in text
    assert "2222222" not in text and "not pushed" not in text


def test_a_later_commit_nothing_pushed_leaves_the_rebased_ones_uncounted():
    session = Session()
    _refused_in_the_commit_line(session)
    session.bash("git pull --rebase -q", output="")
    session.bash("git commit -m c", output="[feat/x 4444444] docs: third\n 1 file changed")
    text = _state(session)
    assert "2222222" not in text and "4444444" in text


def test_the_commit_a_rebase_continue_printed_is_the_rebased_one_not_one_on_top():
    session = Session()
    session.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    session.bash("git commit -m a", output="[feat/x 1111111] docs: first\n 1 file changed")
    session.bash("git push -u origin feat/x", output="To github.com:me/shop.git\n"
                 " * [new branch]      feat/x -> feat/x")
    session.bash("git fetch origin main && git rebase origin/main", error=True,
                 output="Rebasing (1/1)\nCONFLICT (content): Merge conflict in a.md\n"
                        "error: could not apply 1111111... docs: first")
    session.bash("git add a.md && git rebase --continue",
                 output="[detached HEAD 5555555] docs: first\n 1 file changed\n"
                        "Successfully rebased and updated refs/heads/feat/x.")
    session.bash("git push --force-with-lease", output="To github.com:me/shop.git\n"
                 " + 1111111...5555555 feat/x -> feat/x (forced update)")
    text = _state(session)
    assert "1 commit on branch `feat/x`: 5555555" in text
    assert "not shown" not in text and "1111111" not in text
