"""The capture pass leaves out a finished git state and cuts a mixed one to what is still
open (issue 22; capture/extract/git_done.py, logic/git_done.py), from what git showed."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.git_done import screen_finished, still_told
from claimgraph.logic import git_state as gs
from claimgraph.logic.git_done import FIELD, FINISHED, Settled

from .extract_helpers import ROOT, Session

PUSH_MAIN = "To github.com:me/shop.git\n   0000aaa..2b3c4d5  main -> main"


def _states(session: Session) -> dict[str, str]:
    """The states left open (a finished one is marked: the capture pass writes it only to
    replace a stored state, tests/capture/test_finished_states.py)."""
    found = [c for c in session.extract() if c["predicate"] == "x/state"]
    assert not any(FIELD in c for c in found)  # the screen's input never leaves it
    return {c["subject"]: c["object"] for c in found if not c.get(FINISHED)}


def _finished(session: Session) -> set[str]:
    return {c["subject"] for c in session.extract() if c.get(FINISHED)}


def _on_main(session: Session) -> None:
    """Two commits on main: a state with several commits shows their ids, not subjects."""
    session.bash("git add src/a.py && git commit -m 'feat: add a'",
                 output="[main 1a2b3c4] feat: add a\n 1 file changed")
    session.bash("git add src/z.py && git commit -m 'feat: add z'",
                 output="[main 2b3c4d5] feat: add z\n 1 file changed")


def test_commits_on_main_pushed_leave_nothing_to_tell():
    s = Session()
    _on_main(s)
    assert "shop" in _states(s)  # not pushed: open
    assert _finished(s) == set()
    s.bash("git push", output=PUSH_MAIN)
    assert _states(s) == {} and _finished(s) == {"shop"}


def test_a_finished_main_line_whose_one_commit_tells_the_change_is_kept():
    s = Session()
    s.bash("git add docs && git commit -m 'docs: move every page under docs/'",
           output="[main 1a2b3c4] docs: move every page under docs/\n 1 file changed")
    s.bash("git push", output="To github.com:me/shop.git\n   0000aaa..1a2b3c4  main -> main")
    assert "move every page under docs/" in _states(s)["shop"]
    assert _finished(s) == set()


def test_an_edit_after_the_pushed_commit_keeps_the_state():
    s = Session()
    _on_main(s)
    s.bash("git push", output=PUSH_MAIN)
    s.edit(f"{ROOT}/src/b.py", "x = 1", "x = 2")
    assert "likely uncommitted" in _states(s)["shop"]


def test_a_main_line_the_person_said_they_pushed_is_finished():
    s = Session()
    _on_main(s)
    s.said_next("never mind, I pushed")
    assert _states(s) == {} and _finished(s) == {"shop"}
    s.bash("git add src/c.py && git commit -m 'feat: c'",
           output="[main 3c4d5e6] feat: c\n 1 file changed")
    assert "3c4d5e6" in _states(s)["shop"]  # made after the push: open again


def _feature_merged_into_main(s: Session, merge_output: str, merge: str = "git merge feat/x"
                              ) -> None:
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/a.py && git commit -m 'feat: a'",
           output="[feat/x 1a2b3c4] feat: a\n 1 file changed")
    s.bash("git add src/z.py && git commit -m 'feat: z'",
           output="[feat/x 2b3c4d5] feat: z\n 1 file changed")
    s.bash(f"git checkout main && {merge}",
           output="Switched to branch 'main'\n" + merge_output)


FAST_FORWARD = "Updating 0000aaa..2b3c4d5\nFast-forward\n src/a.py | 1 +\n src/z.py | 1 +"


def test_a_feature_branch_merged_into_main_waits_only_for_the_push_of_main():
    s = Session()
    _feature_merged_into_main(s, FAST_FORWARD)
    text = _states(s)["shop"]
    assert "2 commits on branch `main`" in text and "not pushed" in text
    assert "feat/x" not in text  # its work is on main now: nothing left to merge there
    s.bash("git push origin main", output=PUSH_MAIN)
    assert _states(s) == {} and _finished(s) == {"shop"}


def test_a_merge_commit_carries_the_branch_the_same_way():
    s = Session()
    _feature_merged_into_main(s, "Merge made by the 'ort' strategy.\n src/a.py | 1 +",
                              merge="git merge --no-ff -m 'Merge feat/x' feat/x")
    s.bash("git push origin main",
           output="To github.com:me/shop.git\n   0000aaa..7e8f9a0  main -> main")
    assert _states(s) == {} and _finished(s) == {"shop"}


def test_an_earlier_push_of_the_feature_branch_does_not_put_it_on_the_remote_main_line():
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/a.py && git commit -m 'feat: a'",
           output="[feat/x 1a2b3c4] feat: a\n 1 file changed")
    s.bash("git push -u origin feat/x",
           output="To github.com:me/shop.git\n * [new branch]      feat/x -> feat/x")
    s.bash("git checkout main && git merge feat/x",
           output="Switched to branch 'main'\nUpdating 0000aaa..1a2b3c4\nFast-forward")
    text = _states(s)["shop"]
    assert "1 commit on branch `main`" in text and "not pushed" in text


@pytest.mark.parametrize("merge, output", [
    ("git merge feat/x", "Auto-merging src/a.py\nCONFLICT (content): Merge conflict in "
                         "src/a.py\nAutomatic merge failed; fix conflicts"),
    ("git merge --squash feat/x", "Updating 0000aaa..2b3c4d5\nFast-forward\nSquash commit -- "
                                  "not updating HEAD"),
    ("git merge --no-commit feat/x", "Automatic merge went well; stopped before committing"),
])
def test_a_merge_that_made_no_merge_leaves_the_branch_waiting(merge, output):
    s = Session()
    _feature_merged_into_main(s, output, merge=merge)
    text = _states(s)["shop"]
    assert "2 commits on branch `feat/x`" in text and "not pushed" in text


def test_main_merged_into_a_feature_branch_leaves_the_feature_branch_waiting():
    s = Session()
    _on_main(s)
    s.bash("git push", output=PUSH_MAIN)
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/c.py && git commit -m 'feat: c'",
           output="[feat/x 9f8e7d6] feat: c\n 1 file changed")
    s.bash("git merge main", output="Already up to date.")
    text = _states(s)["shop"]
    assert "1 commit on branch `feat/x`" in text and "9f8e7d6" in text
    assert "1a2b3c4" not in text  # main's pushed commits stay main's, finished


def test_commits_made_after_the_merge_stay_on_their_branch():
    s = Session()
    _feature_merged_into_main(s, FAST_FORWARD)
    s.bash("git push origin main", output=PUSH_MAIN)
    s.bash("git checkout feat/x", output="Switched to branch 'feat/x'")
    s.bash("git add src/b.py && git commit -m 'feat: b'",
           output="[feat/x 4d5e6f7] feat: b\n 1 file changed")
    text = _states(s)["shop"]
    assert "1 commit on branch `feat/x`: 4d5e6f7" in text and "not pushed" in text
    assert "1a2b3c4" not in text


def test_a_feature_branch_stays_and_the_pushed_main_line_goes():
    s = Session()
    _on_main(s)
    s.bash("git push", output=PUSH_MAIN)
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/c.py && git commit -m 'feat: c'",
           output="[feat/x 9f8e7d6] feat: c\n 1 file changed")
    text = _states(s)["shop"]
    assert "9f8e7d6" in text and "`feat/x`" in text and "not pushed" in text
    assert "1a2b3c4" not in text and "branch `main`" not in text


def test_a_merged_pull_request_is_left_out_an_open_one_kept():
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/c.py && git commit -m 'feat: c'",
           output="[feat/x 9f8e7d6] feat: c\n 1 file changed")
    s.bash("git push -u origin feat/x",
           output="To github.com:me/shop.git\n * [new branch]      feat/x -> feat/x")
    s.bash('gh pr create --title "Add c" --body x', output="https://github.com/me/shop/pull/5")
    opened = _states(s)
    assert opened["shop PR #5"].startswith('PR #5 "Add c" was opened')
    assert "9f8e7d6" in opened["shop"]
    s.bash("gh pr merge 5 --squash", output="✓ Squashed and merged pull request #5 (Add c)")
    assert _states(s)["shop PR #5"].startswith('PR #5 "Add c" was merged')  # its title tells


def test_a_merged_pull_request_without_a_title_is_left_out():
    s = Session()
    s.bash("gh pr merge 7 --squash", output="✓ Squashed and merged pull request #7")
    assert "shop PR #7" not in _states(s) and "shop PR #7" in _finished(s)


def test_a_titled_pull_request_gh_closed_unmerged_is_finished_to_the_end():
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash('gh pr create --title "Try a second cache layer" --body x',
           output="https://github.com/me/shop/pull/5")
    s.bash("gh pr close 5", output="✓ Closed pull request me/shop#5 (Try a second cache layer)")
    assert "shop PR #5" not in _states(s) and "shop PR #5" in _finished(s)


def test_a_pull_request_the_person_said_was_merged_is_kept():
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash('gh pr create --title "Add c" --body x', output="https://github.com/me/shop/pull/5")
    s.said_next("merged")
    assert "you said so" in _states(s)["shop PR #5"]


@pytest.mark.parametrize("delete, output", [
    ("git branch -D feat/x", "Deleted branch feat/x (was 1a2b3c4)."),  # forced: proves nothing
    ("git branch -d feat/x", "warning: deleting branch 'feat/x' that has been merged to\n"
                             "         'refs/remotes/origin/feat/x', but not yet merged to "
                             "HEAD.\nDeleted branch feat/x (was 1a2b3c4)."),
])
def test_a_branch_deleted_without_gits_word_that_it_is_merged_stays_its_own(delete, output):
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/a.py && git commit -m 'feat: a'",
           output="[feat/x 1a2b3c4] feat: a\n 1 file changed")
    s.bash("git checkout main", output="Switched to branch 'main'")
    s.bash(delete, output=output)
    assert "branch `feat/x` (branch deleted later)" in _states(s)["shop"]


def test_a_branch_deleted_as_merged_into_a_feature_branch_stays_its_own():
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/a.py && git commit -m 'feat: a'",
           output="[feat/x 1a2b3c4] feat: a\n 1 file changed")
    s.bash("git checkout -b feat/y", output="Switched to a new branch 'feat/y'")
    s.bash("git branch -d feat/x", output="Deleted branch feat/x (was 1a2b3c4).")
    assert "branch `feat/x` (branch deleted later)" in _states(s)["shop"]


def test_a_merge_in_the_main_checkout_is_into_its_branch_not_a_worktrees():
    s = Session()
    s.bash("git checkout main", output="Switched to branch 'main'")
    tree = f"{ROOT}/.worktrees/x"
    s.bash(f"git worktree add {tree} -b feat/x", output="Preparing worktree (new branch 'feat/x')")
    s.bash(f"cd {tree} && git add a.py && git commit -m 'feat: a'",
           output="[feat/x 1a2b3c4] feat: a\n 1 file changed")
    s.bash(f"cd {ROOT} && git merge feat/x", output="Updating 0000aaa..1a2b3c4\nFast-forward")
    text = _states(s)["shop"]
    assert "1 commit on branch `main`: 1a2b3c4" in text and "not pushed" in text


def _pushed_feature(s: Session) -> None:
    s.bash("git checkout -b fix/port", output="Switched to a new branch 'fix/port'")
    s.bash("git add src/p.py && git commit -m 'fix: serve on port 8080 by default'",
           output="[fix/port 9f8e7d6] fix: serve on port 8080 by default\n"
                  " 1 file changed")
    s.bash("git push -u origin fix/port",
           output="To github.com:me/shop.git\n * [new branch]      fix/port -> fix/port")


GH = "mcp__plugin_github_github__"
SHOP = {"owner": "me", "repo": "shop"}


def test_a_pull_request_the_github_tools_opened_and_merged_finishes_its_branch():
    s = Session()
    _pushed_feature(s)
    s.tool(f"{GH}create_pull_request",
           {**SHOP, "title": "fix: serve on port 8080 by default", "head": "fix/port",
            "base": "main"},
           output='{"id":"1","url":"https://github.com/me/shop/pull/30"}')
    opened = _states(s)
    assert opened["shop PR #30"].startswith(
        'PR #30 "fix: serve on port 8080 by default" was opened from branch `fix/port`')
    assert "9f8e7d6" in opened["shop"]  # pushed, its pull request still open
    s.tool(f"{GH}merge_pull_request", {**SHOP, "pullNumber": 30, "merge_method": "squash"},
           output='{"sha":"b4bc4e631c612192d7f67655d75ef726e0273b0e","merged":true}')
    merged = _states(s)
    assert "shop" not in merged  # its work is on the main line now, not waiting on `fix/port`
    assert merged["shop PR #30"].startswith(  # its title is told nowhere else: it stays
        'PR #30 "fix: serve on port 8080 by default" was merged by squash as b4bc4e63')


def test_a_github_tool_naming_another_repository_is_not_this_ones():
    s = Session()
    _pushed_feature(s)
    s.tool(f"{GH}create_pull_request",
           {"owner": "me", "repo": "other", "title": "fix: port", "head": "fix/port"},
           output='{"url":"https://github.com/me/other/pull/30"}')
    assert set(_states(s)) == {"shop"}


def _settled_pr(title: str) -> dict:
    found = {"subject": "shop PR #15", "predicate": "x/state", "rule": "git-state",
             "object": f'PR #15 "{title}" was merged by squash', "evidence": []}
    found[FIELD] = Settled("2026-01-02", pr=gs.PullRequest(15, title=title, state="MERGED"))
    return found


def _lesson(text: str) -> dict:
    return {"subject": "shop", "predicate": "core/failure-mode", "rule": "fix-commit",
            "object": text, "evidence": []}


def test_a_finished_pull_request_a_lesson_already_tells_is_left_out_while_the_lesson_stays():
    title = "fix(ci): add new files before the diff check runs"
    lesson = _lesson("`git diff --quiet` skips untracked files. Fix: add new files before "
                     "the diff check runs")
    found = still_told(screen_finished([_settled_pr(title), lesson]))
    assert found[0].get(FINISHED) is True and found[1] is lesson
    assert all("git_told_elsewhere" not in c for c in found)  # the mark is taken off
    alone = still_told(screen_finished([_settled_pr(title)]))
    assert not alone[0].get(FINISHED)  # the title is the only place that says it


def test_a_finished_pull_request_is_written_again_when_the_lesson_telling_it_is_dropped():
    title = "fix(ci): add new files before the diff check runs"
    lesson = _lesson("Fix: add new files before the diff check runs")
    screened = screen_finished([_settled_pr(title), lesson])
    assert screened[0].get(FINISHED) is True
    left = still_told([screened[0]])  # a later screen dropped the lesson
    assert not left[0].get(FINISHED) and "git_told_elsewhere" not in left[0]
