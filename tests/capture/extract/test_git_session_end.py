"""What the session's later git output says of the work decides its state (issue 22, s21):
a push to a differently named branch names it; a refused push undone by a reset (or a
``checkout -B``) lists nothing as on the branch or pushed; a call whose outcome never showed
says less, never "pushed"; a log cut short shows where commits may be missing; a commit a
sub-agent reported and git placed on another branch is told, not pushed."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import Session

REMOTE = "To github.com:me/shop.git"


def _states(session: Session) -> dict[str, str]:
    view = SessionView.of(session.transcript(), None)
    return {c["subject"]: c["object"] for c in git_state_candidates(view)}


def _commit(session: Session, hash_: str, subject: str, branch: str = "main", **kw) -> None:
    session.bash(f"git commit -am '{subject}'", output=f"[{branch} {hash_}] {subject}\n"
                                                      " 1 file changed", **kw)


def _two_refused(note: str = "(non-fast-forward)", flag: str = "!",
                 word: str = "rejected") -> Session:
    s = Session()
    _commit(s, "a1b2c3d", "feat: one")
    _commit(s, "b2c3d4e", "feat: two")
    s.bash("git push origin main", error=True,
           output=f"{REMOTE}\n {flag} [{word}]        main -> main {note}\n"
                  "error: failed to push some refs to 'github.com:me/shop.git'")
    return s


# --- a push under another name ------------------------------------------------------------

def _release_pushed_as_main() -> Session:
    s = Session()
    s.bash("git checkout -b release", output="Switched to a new branch 'release'")
    _commit(s, "a1b2c3d", "feat: one", branch="release")
    s.bash("git push origin release", output=f"{REMOTE}\n * [new branch]      release -> release")
    _commit(s, "b2c3d4e", "feat: two", branch="release")
    s.bash("git push origin release:main", output=f"{REMOTE}\n   9f9f9f9..b2c3d4e  release -> main")
    return s


def test_a_branch_pushed_last_under_another_name_names_it():
    text = _states(_release_pushed_as_main())["shop"]
    assert "2 commits on branch `release`" in text
    assert "pushed to github.com/me/shop as `main`" in text


def test_the_other_name_is_kept_when_later_commits_are_not_pushed():
    s = _release_pushed_as_main()
    _commit(s, "c3d4e5f", "feat: three", branch="release")
    text = _states(s)["shop"]
    assert "pushed to github.com/me/shop as `main` up to b2c3d4e, 1 later not pushed" in text


def test_a_branch_pushed_under_its_own_name_last_adds_no_other_name():
    s = Session()
    s.bash("git checkout -b release", output="Switched to a new branch 'release'")
    _commit(s, "a1b2c3d", "feat: one", branch="release")
    s.bash("git push origin release:main", output=f"{REMOTE}\n   9f9f9f9..a1b2c3d  release -> main")
    _commit(s, "b2c3d4e", "feat: two", branch="release")
    s.bash("git push origin release", output=f"{REMOTE}\n * [new branch]      release -> release")
    text = _states(s)["shop"]
    assert "pushed to github.com/me/shop;" in text and " as `" not in text


# --- a refused push, then the branch moved back -------------------------------------------

@pytest.mark.parametrize("note, flag, word", [
    ("(non-fast-forward)", "!", "rejected"),
    ("(fetch first)", "!", "rejected"),
    ("(protected branch hook declined)", "!", "remote rejected"),
    ("(pre-receive hook declined)", "!", "remote rejected"),
])
def test_commits_a_reset_left_behind_after_a_refused_push_are_not_told(note, flag, word):
    s = _two_refused(note, flag, word)
    s.bash("git reset --hard origin/main", output="HEAD is now at 9f9f9f9 base")
    assert "shop" not in _states(s)


def test_a_refused_push_alone_leaves_the_commits_not_pushed():
    text = _states(_two_refused())["shop"]
    assert "2 commits on branch `main`: a1b2c3d, b2c3d4e; not pushed" in text


def test_a_reset_back_some_commits_keeps_those_below_it_never_pushed():
    s = _two_refused()
    s.bash("git reset --hard HEAD~1", output="HEAD is now at a1b2c3d feat: one")
    text = _states(s)["shop"]
    assert "1 commit on branch `main`: a1b2c3d" in text and "b2c3d4e" not in text
    assert "not pushed" in text


def test_a_quiet_reset_still_moves_the_branch():
    s = _two_refused()
    s.bash("git reset -q --hard origin/main")
    assert "shop" not in _states(s)


def test_a_reset_on_a_line_that_failed_later_still_happened():
    s = _two_refused()
    s.bash("git reset --hard origin/main && make test", error=True,
           output="HEAD is now at 9f9f9f9 base\nmake: *** [test] Error 1")
    assert "shop" not in _states(s)


def test_a_failed_line_whose_reset_never_printed_proves_nothing():
    s = _two_refused()
    s.bash("git reset --hard origin/mian", error=True,
           output="fatal: ambiguous argument 'origin/mian': unknown revision")
    assert "2 commits on branch `main`" in _states(s)["shop"]


@pytest.mark.parametrize("command, output", [
    ("git checkout -B main origin/main", "Reset branch 'main'\n"
                                         "Your branch is up to date with 'origin/main'."),
    ("git switch -C main origin/main", "Switched to and reset branch 'main'"),
])
def test_a_checkout_that_resets_the_branch_to_the_remote_leaves_the_commits(command, output):
    s = _two_refused()
    s.bash(command, output=output)
    assert "shop" not in _states(s)


def test_a_checkout_making_a_new_branch_at_a_start_point_loses_nothing():
    s = _two_refused()
    s.bash("git checkout -B keep origin/main", output="Switched to a new branch 'keep'")
    assert "2 commits on branch `main`" in _states(s)["shop"]


def test_a_reset_whose_outcome_never_showed_leaves_the_branch_untold():
    s = _two_refused()
    s.tool("Bash", {"command": "git reset --hard origin/main"}, answered=False)
    assert "shop" not in _states(s)


# --- the last call's outcome never showed -------------------------------------------------

def _one_pushed() -> Session:
    s = Session()
    _commit(s, "a1b2c3d", "feat: one")
    s.bash("git push origin main", output=f"{REMOTE}\n   9f9f9f9..a1b2c3d  main -> main")
    return s


def test_a_last_commit_with_no_result_makes_the_count_a_lower_bound():
    s = _one_pushed()
    s.tool("Bash", {"command": "git commit -am 'feat: two'"}, answered=False)
    text = _states(s)["shop"]
    assert "at least 1 commit" in text
    assert "outcome was never seen" in text


@pytest.mark.parametrize("tool_input, output", [
    ({"command": "git push origin main"}, None),
    ({"command": "git push origin main", "run_in_background": True},
     "Command running in background with ID: q1."),
    ({"command": "git push origin main"}, "[Request interrupted by user for tool use]"),
])
def test_a_last_push_whose_outcome_never_showed_is_not_pushed(tool_input, output):
    s = Session()
    _commit(s, "a1b2c3d", "feat: one")
    s.tool("Bash", tool_input, output=output or "", answered=output is not None)
    text = _states(s)["shop"]
    assert "push outcome unknown" in text
    assert "pushed to" not in text


def test_a_commit_and_push_sent_to_the_background_are_not_pushed():
    s = _one_pushed()
    s.tool("Bash", {"command": "git commit -am 'feat: two' && git push",
                    "run_in_background": True},
           output="Command running in background with ID: q1.")
    text = _states(s)["shop"]
    assert "pushed to github.com/me/shop up to a1b2c3d" in text
    assert "at least 1 commit" in text


# --- a log cut short ----------------------------------------------------------------------

def test_a_log_cut_at_its_limit_shows_where_commits_may_be_missing():
    s = _one_pushed()
    _commit(s, "d4e5f6a", "fix: three")
    s.bash("git log --oneline -2", output="d4e5f6a fix: three\n7c7c7c7 feat: two")
    text = _states(s)["shop"]
    assert "at least 3 commits on branch `main`: a1b2c3d, …, 7c7c7c7, d4e5f6a" in text


def test_a_whole_log_shows_no_gap():
    s = _one_pushed()
    _commit(s, "d4e5f6a", "fix: three")
    s.bash("git log --oneline", output="d4e5f6a fix: three\n7c7c7c7 feat: two\n"
                                       "a1b2c3d feat: one\n9f9f9f9 base")
    text = _states(s)["shop"]
    assert "3 commits on branch `main`: a1b2c3d, 7c7c7c7, d4e5f6a" in text and "…" not in text


# --- a sub-agent's commit on another branch -----------------------------------------------

def _feature_with_helper(report: str) -> Session:
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    _commit(s, "a1b2c3d", "feat: one", branch="feat/x")
    s.tool("Agent", {"description": "write the helper", "prompt": "add the helper"},
           output=report)
    s.bash("git checkout main", output="Switched to branch 'main'")
    s.bash("git log --oneline origin/main..main", output="e5f6a7b feat: helper")
    s.bash("git checkout feat/x", output="Switched to branch 'feat/x'")
    return s


def test_a_commit_a_sub_agent_reported_and_git_placed_is_told_not_pushed():
    text = _states(_feature_with_helper("Done. Commit: `e5f6a7b` (tests pass)."))["shop"]
    assert "1 commit on branch `main`: e5f6a7b \"feat: helper\"; not pushed" in text
    assert "1 commit on branch `feat/x`: a1b2c3d" in text


def test_a_commit_no_sub_agent_reported_is_not_the_sessions():
    text = _states(_feature_with_helper("Done, tests pass."))["shop"]
    assert "e5f6a7b" not in text


def test_a_sub_agent_commit_pushed_after_the_log_is_not_told_as_unpushed():
    s = _feature_with_helper("Done. Commit: `e5f6a7b`.")
    s.bash("git push origin main", output=f"{REMOTE}\n   9f9f9f9..e5f6a7b  main -> main")
    text = _states(s)["shop"]
    assert "commit on branch `main`" not in text  # the branch moved since: not told unpushed


def test_a_commit_whose_push_was_refused_on_its_own_line_then_reset_is_not_told():
    s = Session()
    s.bash("git commit -am 'feat: one' && git push origin main", error=True,
           output="[main a1b2c3d] feat: one\n 1 file changed\n"
                  f"{REMOTE}\n ! [remote rejected] main -> main (protected branch hook declined)\n"
                  "error: failed to push some refs to 'github.com:me/shop.git'")
    assert "a1b2c3d" in _states(s)["shop"]
    s.bash("git fetch origin && git reset --hard origin/main", output="HEAD is now at 9f9f9f9 base")
    assert "shop" not in _states(s)
