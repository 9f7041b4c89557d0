"""A git or PR state the session changed again is told as it ended (issue 22): the person's
report ("merged", "I pushed"), gh closing or merging, a head branch deleted, a pull that
brought the PR's change in -- and, both ways, words or output that say nothing of it."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.git_reports import Report, reports_in

from .extract_helpers import Session

URL = "https://github.com/me/shop/pull/{}"


def _states(session: Session) -> dict[str, str]:
    """What the git rule says, before the screen of finished states (test_git_done.py)."""
    view = SessionView.of(session.transcript(), None)
    return {c["subject"]: c["object"] for c in git_state_candidates(view)}


def _pr(session: Session, number: int, branch: str, path: str = "src/a.py") -> None:
    """A branch with one commit of ``path``, pushed, and a PR opened from it."""
    session.bash(f"git checkout -b {branch}", output=f"Switched to a new branch '{branch}'")
    session.bash(f"git add {path} && git commit -m x",
                 output=f"[{branch} {number}a2b3c4] feat: {branch}\n 1 file changed")
    session.bash(f"git push -u origin {branch}", output="To github.com:me/shop.git\n"
                 f" * [new branch]      {branch} -> {branch}")
    session.bash('gh pr create --title "T" --body x', output=URL.format(number))


@pytest.mark.parametrize("text, expected", [
    ("merged", [Report("MERGED")]),
    ("looks good, merged - deploy it", [Report("MERGED")]),
    ("PRs merged", [Report("MERGED")]),
    ("ok. #47 has been merged", [Report("MERGED", 47)]),
    ("I merged it", [Report("MERGED")]),
    ("closed the PR", [Report("CLOSED")]),
    ("PR 12 closed", [Report("CLOSED", 12)]),
    ("shop pr merged. deploy it", [Report("MERGED", None, "shop")]),
    ("shop-api PR #3 is merged", [Report("MERGED", 3, "shop-api")]),
    ("never mind, I pushed", [Report("PUSHED")]),
    ("it's in", [Report("MERGED")]),
])
def test_a_report_of_the_persons_is_read(text, expected):
    assert reports_in(text) == expected


@pytest.mark.parametrize("text", [
    "The library merged a fix for this upstream",
    "is it merged?",
    "not merged yet",
    "once it is merged, deploy",
    "we merged the two config files into one",
    "closed",  # an issue, a window: no PR named
    "I closed the terminal",
    "haven't pushed yet",
    "push it",
    "this pr merged",  # which one, the words do not say
    "shop pr pushed",
])
def test_words_that_report_nothing(text):
    assert reports_in(text) == []


def test_the_person_saying_merged_settles_the_one_open_pr():
    session = Session()
    _pr(session, 5, "feat/x")
    session.prompt("merged")
    states = _states(session)
    assert states["shop PR #5"].startswith("PR #5 \"T\" was merged (you said so")
    assert "shop" not in states  # the branch's work is in the base branch now


def test_a_merged_sentence_about_a_library_leaves_the_pr_alone():
    session = Session()
    _pr(session, 5, "feat/x")
    session.prompt("The upstream library merged a fix for the parser bug.")
    states = _states(session)
    assert "was opened from branch `feat/x`" in states["shop PR #5"]
    assert "5a2b3c4" in states["shop"]


def test_merged_with_two_prs_open_tells_neither_as_open():
    session = Session()
    _pr(session, 5, "feat/x")
    _pr(session, 6, "feat/y", "src/b.py")
    session.prompt("merged")
    states = _states(session)
    assert "shop PR #5" not in states and "shop PR #6" not in states


def test_a_numbered_report_settles_that_pr_only():
    session = Session()
    _pr(session, 5, "feat/x")
    _pr(session, 6, "feat/y", "src/b.py")
    session.prompt("#6 has been merged")
    states = _states(session)
    assert "you said so" in states["shop PR #6"]
    assert "was opened" in states["shop PR #5"]


def test_gh_showing_the_pr_open_after_the_report_stands():
    session = Session()
    _pr(session, 5, "feat/x")
    session.prompt("merged")
    session.bash("gh pr view 5 --json state --jq .state", output="OPEN")
    assert "was opened" in _states(session)["shop PR #5"]


def test_the_person_saying_pushed_pushes_the_commits_before_it():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: one\n 1 file changed")
    session.prompt("pushed")
    assert "pushed (you said so)" in _states(session)["shop"]
    session.bash("git commit -m b", output="[main 2222222] feat: two\n 1 file changed")
    text = _states(session)["shop"]
    assert "pushed (you said so) up to 11111111"[:28] in text and "1 later not pushed" in text


def test_gh_pr_close_closes_it():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("gh pr close 5", output="✓ Closed pull request me/shop#5 (T)")
    assert "it was closed unmerged" in _states(session)["shop PR #5"]


def test_gh_pr_merge_without_a_number_merges_the_current_branchs_pr():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("gh pr merge --squash", output="")
    assert _states(session)["shop PR #5"].startswith('PR #5 "T" was merged by squash')


def test_a_state_in_the_agents_own_jq_shape_is_read():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("""gh pr view 5 --json state,mergeable --jq '"PR 5: \\(.state)"'""",
                 output="PR 5: MERGED")
    assert "was merged" in _states(session)["shop PR #5"]


def test_a_jq_shape_with_free_text_fields_is_not_read():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("gh pr view 5 --json state,body --jq '.body'", output="Fixes the MERGED case")
    assert "was opened" in _states(session)["shop PR #5"]


@pytest.mark.parametrize("command, output", [
    ("git push origin --delete feat/x",
     "To github.com:me/shop.git\n - [deleted]         feat/x"),
    ("git fetch --prune",
     "From github.com:me/shop\n - [deleted]         (none)     -> origin/feat/x"),
    ("git checkout main && git branch -d feat/x",
     "Switched to branch 'main'\nDeleted branch feat/x (was 5a2b3c4)."),
])
def test_a_head_branch_deleted_after_the_pr_leaves_its_state_unknown(command, output):
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash(command, output=output)
    assert "shop PR #5" not in _states(session)


def test_a_cleanup_that_git_says_is_not_merged_leaves_the_pr_open():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("git checkout main && git branch -d feat/x",
                 output="Switched to branch 'main'\nwarning: deleting branch 'feat/x' that has "
                 "been merged to\n         'refs/remotes/origin/feat/x', but not yet merged to "
                 "HEAD.\nDeleted branch feat/x (was 5a2b3c4).")
    assert "was opened" in _states(session)["shop PR #5"]


PULL = ("Updating 1111111..2222222\nFast-forward\n CHANGELOG.md | 4 ++++\n {path} | 2 ++\n"
        " 2 files changed, 6 insertions(+)\nSwitched to branch 'main'")


def test_a_pull_that_brings_the_prs_files_in_leaves_its_state_unknown():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("git checkout main && git pull", output=PULL.format(path="src/a.py"))
    assert "shop PR #5" not in _states(session)


def test_a_pull_of_other_files_leaves_the_pr_open():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("git checkout main && git pull", output=PULL.format(path="src/other.py"))
    assert "was opened" in _states(session)["shop PR #5"]


def test_a_diffstat_another_command_of_the_line_printed_is_not_what_the_pull_brought():
    """git prints a pull's diffstat right under "Fast-forward", up to its "N files changed"
    line: a ``git diff --stat`` later on the line lists other files than the pull's."""
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("git checkout main && git pull && git diff --stat HEAD~3",
                 output=PULL.format(path="src/other.py")
                 + "\n src/a.py | 2 ++\n 1 file changed, 2 insertions(+)")
    assert "was opened" in _states(session)["shop PR #5"]


def test_a_detached_checkout_is_no_branch_and_rewrites_nothing():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: one\n 1 file changed")
    session.bash("git checkout origin/main --detach", output="HEAD is now at 0f0f0f0 older")
    text = _states(session)["shop"]
    assert "1111111" in text and "the checkout was on" not in text


def test_a_pr_opened_in_a_worktree_is_from_the_worktrees_branch():
    session = Session()
    tree = "/home/dev/shop/.worktrees/w"
    session.bash(f"cd {tree} && git commit -m a", output="[feat/w 1111111] feat: w")
    session.bash("cd /home/dev/shop && git checkout main", output="Switched to branch 'main'")
    session.bash(f'cd {tree} && gh pr create --title "T" --body x', output=URL.format(5))
    assert "from branch `feat/w`" in _states(session)["shop PR #5"]


# --- gh pr status, several gh pr view on one line, a PR named by its repository -------------

STATUS = ("\nRelevant pull requests in me/shop\n\nCurrent branch\n  #5  T [feat/x]{state}\n\n"
          "Created by you\n  You have no open pull requests\n\n"
          "Requesting a code review from you\n  You have no pull requests to review\n\n")


@pytest.mark.parametrize("shown, told", [
    (" - Merged", "was merged (seen merged"),
    (" - Closed", "it was closed unmerged"),
    ("\n  ✓ Checks passing - Review required", "was opened"),
])
def test_gh_pr_status_tells_the_state_of_the_prs_it_lists(shown, told):
    session = Session()
    _pr(session, 5, "feat/x")
    session.prompt("merged")  # gh's later word stands over the person's
    session.bash("gh pr status", output=STATUS.format(state=shown))
    assert told in _states(session)["shop PR #5"]


def test_lines_shaped_like_gh_pr_status_without_its_heading_say_nothing():
    session = Session()
    _pr(session, 5, "feat/x")
    session.bash("gh pr status | tail -3", output="  #5  T [feat/x] - Merged\n")
    assert "was opened" in _states(session)["shop PR #5"]


@pytest.mark.parametrize("command, output", [
    ("""gh pr view 5 --json state,title --jq '"PR5: \\(.state) - \\(.title)"'; """
     """gh pr view 6 --json state --jq '"PR6: \\(.state)"'""", "PR5: MERGED - T\nPR6: OPEN\n"),
    ("gh pr view 5 --json state,number && gh pr view 6 --json state,number",
     '{"number":5,"state":"MERGED"}\n{"number":6,"state":"OPEN"}\n'),
])
def test_two_gh_pr_views_on_one_line_are_each_read_from_their_own_output(command, output):
    session = Session()
    _pr(session, 5, "feat/x")
    _pr(session, 6, "feat/y", "src/b.py")
    session.bash(command, output=output)
    states = _states(session)
    assert "was merged" in states["shop PR #5"] and "was opened" in states["shop PR #6"]


@pytest.mark.parametrize("command, output", [
    ("""gh pr view 5 --json state --jq '"PR6: \\(.state)"'; """  # a line naming the other PR
     """gh pr view 6 --json state --jq '"PR5: \\(.state)"'""", "PR6: MERGED\nPR5: OPEN\n"),
    ("gh pr view 5 --json state; echo ---; gh pr view 6 --json state",
     '{"state":"MERGED"}\n---\n{"state":"OPEN"}\n'),
])
def test_outputs_of_two_views_that_cannot_be_told_apart_say_nothing(command, output):
    session = Session()
    _pr(session, 5, "feat/x")
    _pr(session, 6, "feat/y", "src/b.py")
    session.bash(command, output=output)
    assert "was opened" in _states(session)["shop PR #5"]


def _two_repositories(session: Session) -> None:
    """PR #5 in the project (``shop``), then PR #7 in /home/dev/billing-api, worked in last."""
    _pr(session, 5, "feat/x")
    session.bash("cd /home/dev/billing-api && git commit -m y",
                 output="[feat/z 7a2b3c4] feat: z\n 1 file changed")
    session.bash("cd /home/dev/billing-api && git push -u origin feat/z",
                 output="To github.com:me/billing-api.git\n * [new branch]      feat/z -> feat/z")
    session.bash('cd /home/dev/billing-api && gh pr create --title "Z" --body x',
                 output="https://github.com/me/billing-api/pull/7")


@pytest.mark.parametrize("said, merged, opened", [
    ("shop pr merged", "shop PR #5", "billing-api PR #7"),
    ("billing PR is merged", "billing-api PR #7", "shop PR #5"),
    ("pr merged", "billing-api PR #7", "shop PR #5"),  # none named: the one worked in last
])
def test_a_report_naming_the_pr_by_its_repository_settles_that_repositorys(said, merged, opened):
    session = Session()
    _two_repositories(session)
    session.prompt(said)
    states = _states(session)
    assert "you said so" in states[merged] and "was opened" in states[opened]


@pytest.mark.parametrize("said", ["kitchen pr merged", "this pr merged"])
def test_a_report_naming_no_repository_of_the_session_settles_nothing(said):
    session = Session()
    _two_repositories(session)
    session.prompt(said)
    states = _states(session)
    assert "was opened" in states["shop PR #5"] and "was opened" in states["billing-api PR #7"]


@pytest.mark.parametrize("text", [
    "I pushed the changes manually. continue with the next step",
    "don't worry, I pushed it myself",
    "pushed from my terminal",
    "I manually pushed my commits",
    "we pushed everything by hand",
])
def test_the_person_saying_they_pushed_by_hand_is_a_push_report(text):
    assert reports_in(text) == [Report("PUSHED")]


@pytest.mark.parametrize("text", [
    "I pushed it myself but it failed",
    "did you push it manually?",
    "push it manually",
    "I never pushed it from my terminal",
    "we merged the two branches manually",  # a conflict merged by hand, no PR
    "I manually merged it",
])
def test_by_hand_words_around_no_report_report_nothing(text):
    assert reports_in(text) == []


def test_a_commit_the_person_pushed_by_hand_is_pushed_as_they_said():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: one\n 1 file changed")
    session.prompt("I pushed the changes manually. Continue with the next option.")
    assert "pushed (you said so)" in _states(session)["shop"]
