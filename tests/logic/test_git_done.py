"""What of a settled git end state is still open (logic/git_done.py): finished states are
left out, mixed ones cut to their open part, and whatever the record cannot settle kept."""

from __future__ import annotations

import pytest

from claimgraph.logic import git_done as gd
from claimgraph.logic import git_state as gs

URL = "github.com:me/shop.git"


def _state(*groups: tuple[str, str, bool], subject: str = "", **fields) -> gs.EndState:
    """Commits (branch, hash, pushed by a push git showed), one per line, in order; each with
    ``subject`` (none by default: git's commit line was not seen, only a push)."""
    state = gs.EndState(**fields)
    for line, (branch, hash_, pushed) in enumerate(groups, 1):
        state.commits.append(gs.Commit(branch, hash_, subject, line, since=line))
        if pushed:
            state.pushed[hash_] = (URL, line + 10, False)
    return state


def test_main_line_pushed_with_a_settled_tree_is_finished():
    assert gd.open_part(_state(("main", "aaaa111", True), branch="main"), True) is None
    assert gd.open_part(_state(("master", "aaaa111", True)), True) is None


def test_a_finished_branch_whose_one_commit_tells_the_change_is_kept_whole():
    told = _state(("main", "aaaa111", True), subject="docs: move every page under docs/")
    assert gd.open_part(told, True) is told
    two = _state(("main", "aaaa111", True), ("main", "bbbb222", True), subject="wip")
    assert gd.open_part(two, True) is None  # several: no subject is shown, nothing to tell


@pytest.mark.parametrize("state", [
    _state(("main", "aaaa111", False)),  # not pushed
    _state(("main", "aaaa111", True), ("main", "bbbb222", False)),  # the last not pushed
    _state(("feat/x", "aaaa111", True)),  # pushed, its merge still to come
    _state(("detached HEAD", "aaaa111", True)),
    _state(("", "aaaa111", True)),  # a branch never named
    _state(("main", "aaaa111", True), dirty=True),
    _state(("main", "aaaa111", True), notes=["1 file edited after the last commit"]),
    _state(("feat/x", "aaaa111", True), tags={"v1": ["created"]}),  # nothing of it done
    _state(("main", "aaaa111", True), said={"main": "`main` and `origin/main` had diverged"}),
    _state(("main", "aaaa111", True), branch="feat/next"),  # the checkout left elsewhere
])
def test_anything_left_open_or_unsettled_keeps_the_state_whole(state):
    assert gd.open_part(state, True) is state


def test_a_main_line_the_person_said_they_pushed_is_finished():
    state = _state(("main", "aaaa111", False), ("main", "bbbb222", False))
    state.pushed["aaaa111"] = state.pushed["bbbb222"] = ("", 5, False)  # "you said so"
    assert gd.open_part(state, True) is None


def test_the_persons_push_leaves_a_feature_branch_or_edits_after_it_open():
    feature = _state(("feat/x", "aaaa111", False))
    feature.pushed["aaaa111"] = ("", 5, False)
    assert gd.open_part(feature, True) is feature  # its merge is still to come
    edited = _state(("main", "aaaa111", False), notes=["1 file edited after the last commit"])
    edited.pushed["aaaa111"] = ("", 5, False)
    assert gd.open_part(edited, True) is edited
    later = _state(("main", "aaaa111", False), ("main", "bbbb222", False))
    later.pushed["aaaa111"] = ("", 5, False)  # said before the second commit
    assert gd.open_part(later, True) is later


@pytest.mark.parametrize("branch, done", [
    ("dev", True), ("development", True), ("develop", True), ("feat/dev", False),
    ("devel-x", False), ("release", False),
])
def test_an_integration_branch_is_a_main_line(branch, done):
    state = _state((branch, "aaaa111", True), ("feat/y", "bbbb222", False), branch="feat/y")
    left = gd.open_part(state, True)
    assert left is not None
    assert ([c.hash for c in left.commits] == ["bbbb222"]) is done


def test_a_push_known_only_from_a_pull_request_opened_is_not_one_git_showed():
    state = _state(("develop", "aaaa111", False))
    state.pushed["aaaa111"] = ("pr #12", 5, False)  # gh opened PR #12 from the branch
    assert gd.open_part(state, True) is state


def test_another_repository_needs_a_clean_status_after_its_last_commit():
    assert gd.open_part(_state(("main", "aaaa111", True)), False) is not None
    assert gd.open_part(_state(("main", "aaaa111", True), dirty=False), False) is None


def test_a_push_of_the_main_line_alone_is_finished_a_feature_branch_is_not():
    assert gd.open_part(gs.EndState(branch_pushes=[("main", "main", "cccc333", 4)]), True) \
        is None
    feature = gs.EndState(branch_pushes=[("feat/x", "feat/x", None, 4)])
    assert gd.open_part(feature, True) is feature


def test_a_mixed_state_keeps_only_its_open_branches():
    state = _state(("main", "aaaa111", True), ("feat/x", "bbbb222", False), branch="feat/x")
    state.branch_pushes.append(("main", "main", "aaaa111", 11))
    left = gd.open_part(state, True)
    assert left is not None and left is not state
    assert [c.hash for c in left.commits] == ["bbbb222"] and left.branch_pushes == []
    text = gs.describe(left, "2026-01-02")
    assert "bbbb222" in text and "not pushed" in text and "`feat/x` at the end" in text
    assert "aaaa111" not in text and "`main`" not in text
    assert [c.hash for c in state.commits] == ["aaaa111", "bbbb222"]  # the original untouched


def test_a_tag_pushed_is_done_one_only_created_is_what_is_left():
    pushed = _state(("main", "aaaa111", True), tags={"v1": ["created", "pushed"]})
    assert gd.open_part(pushed, True) is None
    created = _state(("main", "aaaa111", True), tags={"v1": ["created"], "v0": ["pushed"]})
    left = gd.open_part(created, True)
    assert left is not None and left.commits == [] and list(left.tags) == ["v1"]
    assert gs.describe(left, "d") == "Where the session of d left the work in git: tag `v1` created"


@pytest.mark.parametrize("state, reported, done", [
    ("MERGED", False, True), ("CLOSED", False, True), ("OPEN", False, False),
    (None, False, False), (gs.UNKNOWN_STATE, False, False), ("MERGED", True, False),
])
def test_a_pull_request_is_done_when_gh_or_git_showed_it_merged_or_closed(state, reported,
                                                                           done):
    assert gd.pr_done(gs.PullRequest(7, state=state, reported=reported)) is done


@pytest.mark.parametrize("told, text, found", [
    ("fix(ci): add new files before the diff check runs",
     "The check only saw tracked files. Fix: add new files before the diff check runs.",
     True),
    ("Add files first (#15)", "fix: add FILES first!", False),  # 4 words needed
    ("Add the new files first (#15)", "fix: `add` the NEW files first!", True),
    ("fix: change default port to 8080 (#30)",
     "Port 80 needs root. Fix: change default port to 8080", True),
    ("fix: change default port to v2", "change default port to v2-beta", False),
    ("docs: add the metadata protocol", "the metadata protocol was added", False),
])
def test_a_title_is_carried_by_another_fact_holding_its_words_in_order(told, text, found):
    assert gd.carried(told, [text]) is found


def test_a_finished_pull_request_whose_title_another_fact_tells_is_done():
    pr = gs.PullRequest(15, title="fix(ci): add new files before the diff check runs",
                        state="MERGED")
    assert not gd.pr_done(pr)  # its title is the only place that says it
    assert gd.pr_done(pr, ["… Fix: add new files before the diff check runs"])
    said = gs.PullRequest(15, title=pr.title, state="MERGED", reported=True)
    assert not gd.pr_done(said, ["Fix: add new files before the diff check runs"])


def test_a_pull_request_closed_unmerged_is_done_whatever_its_title():
    closed = gs.PullRequest(9, title="feat: try a second cache layer", state="CLOSED")
    assert gd.pr_done(closed)  # the title tells a change the project never took in
    assert gd.pr_told(closed) == []  # finished whatever another fact tells, to the end
    merged = gs.PullRequest(9, title=closed.title, state="MERGED")
    assert gd.pr_told(merged) == [closed.title]
    said = gs.PullRequest(9, title=closed.title, state="CLOSED", reported=True)
    assert not gd.pr_done(said)  # the person's word, not gh's: kept as it is


def _pushed_as(branch: str, *pushes: tuple[str, int], after: int = 0) -> gs.EndState:
    """``branch`` with one commit (line 1, pushed) and the pushes (dst, line) git showed of
    it; ``after``: the line of a second commit made later, when there is one."""
    state = _state((branch, "aaaa111", True), branch=branch)
    if after:
        state.commits.append(gs.Commit(branch, "bbbb222", "", after, since=after))
        state.pushed["bbbb222"] = (URL, after + 10, False)
    state.branch_pushes = [(branch, dst, None, line) for dst, line in pushes]
    return state


def test_a_branch_whose_last_push_went_to_the_remote_main_line_is_finished():
    assert gd.open_part(_pushed_as("release-prep", ("main", 5)), True) is None
    assert gd.open_part(_pushed_as("release-prep", ("release-prep", 3),
                                   ("refs/heads/master", 5)), True) is None


@pytest.mark.parametrize("state", [
    _pushed_as("release-prep", ("release-prep", 5)),  # to a branch of its own: a merge to come
    _pushed_as("release-prep", ("main", 3), ("release-prep", 5)),  # its last push elsewhere
    _pushed_as("release-prep", ("main", 5), after=8),  # a commit made after it went up
    _pushed_as("release-prep", ("staging", 5)),
])
def test_a_branch_not_last_sent_to_a_main_line_stays_open(state):
    assert gd.open_part(state, True) is state


def test_a_finished_main_line_whose_subject_another_fact_tells_is_finished():
    told = _state(("main", "aaaa111", True), subject="fix: key pages by their locale")
    assert gd.open_part(told, True) is told
    assert gd.open_part(told, True, ["Fix: key pages by their locale"]) is None
    assert gd.subjects_told(told) == ["fix: key pages by their locale"]
    open_too = _state(("main", "aaaa111", True), ("feat/x", "bbbb222", False),
                      subject="fix: key pages by their locale")
    left = gd.open_part(open_too, True, ["Fix: key pages by their locale"])
    assert left is not None and [c.hash for c in left.commits] == ["bbbb222"]
