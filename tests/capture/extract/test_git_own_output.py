"""What git printed is read as the outcome of the command that printed it, and a command's
flags as git documents them (review of issue 22's end-state rules): a merge's "Fast-forward"
on a line that also pulled may be the pull's; ``git commit -n`` is ``--no-verify``, not a dry
run; a checkout or switch that failed changed nothing."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session


def _state(session: Session) -> str:
    view = SessionView.of(session.transcript(), ROOT)
    found = [c["object"] for c in git_state_candidates(view) if c["subject"] == "shop"]
    assert len(found) <= 1
    return found[0] if found else ""


def _feature(session: Session) -> None:
    session.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    session.bash("git add src/a.py && git commit -m 'feat: a'",
                 output="[feat/x 1a2b3c4] feat: a\n 1 file changed")


FAST_FORWARD = "Updating 0000aaa..1a2b3c4\nFast-forward\n src/a.py | 1 +\n"


@pytest.mark.parametrize("line, output", [
    # the merge refused, the pull after it fast-forwarded main from the remote
    ("git checkout main && git merge feat/y; git pull",
     "Switched to branch 'main'\nmerge: feat/y - not something we can merge\n" + FAST_FORWARD),
    ("git checkout main && git pull && git merge feat/y",
     "Switched to branch 'main'\n" + FAST_FORWARD + "Already up to date.\n"),
    # another program's output beside it: whose line it is cannot be told
    ("git checkout main && git merge feat/y; ./sync.sh",
     "Switched to branch 'main'\nmerge: feat/y - not something we can merge\nFast-forward\n"),
])
def test_a_merge_outcome_another_command_may_have_printed_is_unknown(line, output):
    s = Session()
    _feature(s)
    s.bash("git checkout -b feat/y", output="Switched to a new branch 'feat/y'")
    s.bash("git add src/b.py && git commit -m 'feat: b'",
           output="[feat/y 2b3c4d5] feat: b\n 1 file changed")
    s.bash(line, output=output)
    text = _state(s)
    assert "1 commit on branch `feat/y`" in text, text  # still waiting on its own branch


def test_a_merge_alone_beside_a_checkout_is_read():
    s = Session()
    _feature(s)
    s.bash("git checkout main && git merge feat/x",
           output="Switched to branch 'main'\n" + FAST_FORWARD)
    assert "1 commit on branch `main`" in _state(s)


def test_a_quiet_commit_with_no_verify_was_made():
    """``-n`` is ``--no-verify``: a quiet commit that skipped the hooks was still made."""
    for flags in ("-q -n", "-qn", "--quiet --no-verify"):
        s = Session()
        s.bash(f"git commit {flags} -m 'feat: a'", output="")
        assert "1 commit on the branch checked out" in _state(s), flags
    s = Session()
    s.bash("git commit --dry-run -q -m 'feat: a'", output="")
    assert _state(s) == ""


def test_a_commit_with_no_verify_whose_outcome_never_showed_may_have_been_made():
    s = Session()
    s.bash("git commit -m 'feat: a'", output="[main 1a2b3c4] feat: a\n 1 file changed")
    s.bash("git push", output="To github.com:me/shop.git\n   0000aaa..1a2b3c4  main -> main")
    pushed = _state(s)
    s.tool("Bash", {"command": "git commit -n -m 'feat: b'"}, answered=False)
    assert _state(s) != pushed  # a commit may have followed the push


@pytest.mark.parametrize("line, output", [
    ("git switch release || true", "fatal: invalid reference: release"),
    ("git checkout -b feat/x 2>&1; git log --oneline -1",
     "fatal: a branch named 'feat/x' already exists\n1a2b3c4 feat: a"),
    ("git switch -c release | cat", "fatal: a branch named 'release' already exists"),
])
def test_a_checkout_that_failed_is_not_where_the_session_ended(line, output):
    s = Session()
    _feature(s)
    s.bash(line, output=output)
    text = _state(s)
    assert "`release`" not in text and "checkout was on `feat/x`" in text, text


def test_a_checkout_that_worked_is_where_the_session_ended():
    s = Session()
    _feature(s)
    s.bash("git switch -c release && git status -sb", output="## release")
    assert "checkout was on `release`" in _state(s)


@pytest.mark.parametrize("words, dry", [
    (("git", "push", "-n"), True), (("git", "push", "-nv", "origin", "x"), True),
    (("git", "push", "--dry-run"), True), (("git", "commit", "-n", "-m", "x"), False),
    (("git", "commit", "-qn", "-m", "x"), False), (("git", "commit", "--dry-run"), True),
    (("git", "add", "-n", "a.py"), True), (("git", "merge", "-n", "x"), False),
    (("git", "push", "--no-verify"), False), (("git", "add", "--", "-n"), False),
])
def test_a_dry_run_is_read_by_each_commands_own_flags(words, dry):
    from claimgraph.capture.extract.git_state import dry_run
    assert dry_run(words) is dry


def test_a_checkout_whose_outcome_is_only_unknown_is_still_taken():
    """Its status not vouched for (a ``;`` after it) but no refusal of git's in the output:
    the quiet commit after it is on the branch it made (the one before would be a guess)."""
    s = Session()
    _feature(s)
    s.bash("git checkout -b feat/y -q && git add src && git checkout pkg.lock 2>/dev/null; "
           "git commit -q -m 'feat: y' 2>&1 | tail -3", output="")
    assert "1 commit on branch `feat/y`" in _state(s)
