"""A finished git state is not a standing fact (issue 22): what of a repository's or a pull
request's end state is still left to act on.

``git_state`` tells where the session left the work in git: the commits it made per branch
and whether a push took them up, tags, the branch checked out, uncommitted work; a pull
request opened, merged or closed. Once everything such a state names is done -- the commits
on the repository's main line and pushed, as git's own output showed, nothing uncommitted --
the next agent has nothing to do with it, and a line in its context about it is noise. Only
what is still open is worth a line: commits not pushed, or on a branch of their own (waiting
for a pull request or a merge), a push whose outcome never showed, branches that diverged,
uncommitted edits, a pull request still open.

Read from the structure ``git_state`` settled, never from the fact's wording, and only where
the record can tell:

- a pull request merged or closed, as gh or git showed it, is done; one the person said was
  merged or closed is kept as it is (the person's word, not git's output), and so is one
  still open. A finished one whose title the record showed is kept: the title says what the
  project now holds (the rubric's "K for that content"), and on held-out sessions those
  titles were what the labellers wanted remembered -- unless another fact of the session
  already tells the same change in the same words (``carried``: a fix commit's lesson ends
  in the fix's subject), when the title is no longer the only place it is said;
- a branch's commits are done when the branch is one of the names a main line goes by
  (``MAIN_LINES``: the default branch's, and an integration branch such as ``dev``), a push
  carried every one of them -- one git showed, or the person's own push they reported (they
  are the one who knows; a push known only from a pull request gh opened is neither) -- and
  no later status showed them diverged; a push of such a branch with no commit of the
  session's is done too. A commit on any other branch, on a detached HEAD or on a branch
  never named waits for a merge: open (``git_state.settle`` has already moved onto the main
  line the commits a merge into it, or git's ``branch -d``, showed landed there);
- a tag is done once pushed (or deleted); one only created is open;
- uncommitted work (a status, or edits after the last commit) makes the state one to keep
  whole, and so does a checkout left on another branch than the main line when all else is
  done: neither is settled by a push;
- "nothing uncommitted" must be shown: for the project's own checkout the session's edits
  are held against its last commit (``git_observed``); for another repository only a clean
  ``git status`` after the last commit shows it.

A finished branch whose one commit's subject the fact shows (``git_state`` shows a subject
only for a branch's single commit: the whole change made there) is kept whole for the same
reason as a titled pull request: what is dropped is a finished state that names nothing but
commit ids (or a subject another fact of the session tells, as for a title). A state with
both is cut to its open part, with its context (the branch checked out).

A finished state is still the end of a state told before: "PR #5 was merged" replaces the
"PR #5 was opened" an earlier session (or an earlier part of this one) stored, which would
otherwise stand as current. So a finished state is not dropped here but marked; the capture
pass writes it only when the store holds a current state of the same subject to replace.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from claimgraph.logic.git_state import MAIN_LINES, EndState, PullRequest, git_showed_push

#: The key under which ``git_state`` hands a candidate's settled state to the screen
#: (``capture/extract/git_done.py``), which takes it off before anything else sees it.
FIELD = "git_settled"
#: The key the screen sets on a finished state: written only where it replaces a state of
#: the same subject the store holds (``capture/finished_states.py``), which takes it off.
FINISHED = "finished_state"
_DONE_PR = ("MERGED", "CLOSED")
#: What a tag's last step must be for nothing to be left to do with it (``EndState.tags``).
_TAG_DONE = frozenset({"pushed", "deleted", "deleted on the remote"})


@dataclass(frozen=True)
class Settled:
    """What the git rule settled for one fact: the repository's end state (its fact) or one
    pull request (its own fact), the date the fact names, and whether the session's edits
    were held against the last commit (the project's own checkout)."""

    date: str
    state: EndState | None = None
    pr: PullRequest | None = None
    edits_checked: bool = False


def pr_done(pr: PullRequest, elsewhere: Sequence[str] = ()) -> bool:
    """The pull request was merged or closed, as gh or git showed it, and its title (when
    the record showed one) is no longer news: another fact of the session tells the same
    change (``carried``). A title no other fact tells says what the project now holds, so
    that fact stays -- unless the pull request was closed without a merge: then the project
    holds nothing of it, and its title tells a change that never landed."""
    if pr.only_replaces:
        return True  # another session's pull request: only ever the end of its stored state
    return pr.state in _DONE_PR and not pr.reported and (
        pr.state == "CLOSED" or not pr.title or carried(pr.title, elsewhere))


def pr_told(pr: PullRequest) -> list[str]:
    """The title whose being told by another fact finished the pull request (``pr_done``):
    none for one closed unmerged, which is finished whatever its title."""
    return [pr.title] if pr.title and pr.state != "CLOSED" and not pr.only_replaces else []


def carried(told: str, elsewhere: Iterable[str]) -> bool:
    """Whether a title or a commit subject is told by one of ``elsewhere`` (the other facts
    the session yields): its words after a conventional prefix ("fix(ci): ") and before a
    pull request's number ("(#12)"), at least ``CARRIED_WORDS`` of them, in order, in one
    text (case and punctuation aside). A fix commit's lesson ends in the subject of the fix
    it learnt from ("… Fix: add new files before the diff"): the finished pull request of the same
    change then says nothing the lesson does not."""
    words = _words(_CONVENTIONAL.sub("", told.strip()))
    if len(words.split()) < CARRIED_WORDS:
        return False
    return any(f" {words} " in f" {_words(text)} " for text in elsewhere)


#: the fewest words of a title that, found in another fact, make it the same change
CARRIED_WORDS = 4
_CONVENTIONAL = re.compile(r"^[\w-]+(?:\([^)]*\))?!?:\s*|\s*\(#\d+\)\s*$")
_EDGE = "\"'`*_()[]{}<>.,;:!?"


def _words(text: str) -> str:
    """The text's words in order, lower case, without the punctuation around each (a
    hyphen or a dot inside a word stays: ``v2-beta`` is not ``v2``)."""
    return " ".join(word for raw in text.lower().split() if (word := raw.strip(_EDGE)))


def open_part(state: EndState, edits_checked: bool,
              elsewhere: Sequence[str] = ()) -> EndState | None:
    """The part of ``state`` still open: None when nothing is, ``state`` itself when all of
    it is or the record cannot tell, else a copy holding only the open branches and tags.
    ``elsewhere``: the session's other facts, which may already tell a finished branch's
    change (``carried``)."""
    if state.dirty or state.notes:
        return state
    done = {branch for branch in _branches(state) if _branch_done(state, branch)}
    if any(_tells_change(state, branch, elsewhere) for branch in done):
        return state
    tags_done = {tag for tag, what in state.tags.items() if what[-1] in _TAG_DONE}
    if not done and not tags_done:
        return state
    if done == _branches(state) and tags_done == set(state.tags):
        settled_tree = edits_checked or state.dirty is False
        on_main = state.branch is None or state.branch in done \
            or state.branch in MAIN_LINES or state.branch in state.deleted \
            or _lands_on_main_line(state, state.branch)
        return None if settled_tree and on_main else state
    return dataclasses.replace(
        state, commits=[c for c in state.commits if c.branch not in done],
        branch_pushes=[p for p in state.branch_pushes if p[0] not in done],
        unseen_pushes=[p for p in state.unseen_pushes if p[0] not in done],
        tags={tag: what for tag, what in state.tags.items() if tag not in tags_done})


def _branches(state: EndState) -> set[str]:
    """Every branch the state names: those committed to and those pushed."""
    return {c.branch for c in state.commits} | {p[0] for p in state.branch_pushes}


def subjects_told(state: EndState) -> list[str]:
    """The subjects a state's fact shows: each branch's one commit's."""
    return [made[0].subject for branch in _branches(state)
            if len(made := [c for c in state.commits if c.branch == branch]) == 1
            and made[0].subject]


def _tells_change(state: EndState, branch: str, elsewhere: Sequence[str]) -> bool:
    """The fact shows what was done on ``branch`` and no other fact tells it: its one
    commit's subject (``git_state`` names a subject only when a branch has a single
    commit)."""
    made = [c for c in state.commits if c.branch == branch]
    return len(made) == 1 and bool(made[0].subject) and not carried(made[0].subject,
                                                                     elsewhere)


def _branch_done(state: EndState, branch: str) -> bool:
    """The branch is a main line and every commit of the session's on it went up: by a push
    git showed (a push that names where it went), or by the person's own push they reported
    ("I pushed": they are the one who knows; a push known only from a pull request gh opened
    from the branch is neither). All pushed, a later push whose outcome never showed leaves
    nothing behind."""
    if branch in state.said or not (branch in MAIN_LINES or _lands_on_main_line(state, branch)):
        return False
    made = [c for c in state.commits if c.branch == branch]
    return all(c.key in state.pushed and _went_up(state.pushed[c.key][0]) for c in made)


def _lands_on_main_line(state: EndState, branch: str | None) -> bool:
    """The last push git showed of ``branch`` sent it to a main line of the remote under
    another name (``git push origin release-prep:main``), after every commit the session
    made on it: what they carried is on the remote's main line, as if the branch were named
    so. A branch never pushed, or whose last push went to a branch of another name, is not."""
    pushes = [(line, dst) for src, dst, _, line in state.branch_pushes if src == branch]
    if not pushes:
        return False
    last, dst = max(pushes)
    return dst.removeprefix("refs/heads/") in MAIN_LINES and all(
        c.since < last for c in state.commits if c.branch == branch)


def _went_up(url: str) -> bool:
    """A push git showed, or the person's report of their own ("" : no remote named)."""
    return url == "" or git_showed_push(url)
