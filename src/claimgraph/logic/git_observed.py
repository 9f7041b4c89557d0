"""What git itself printed last about a repository, over the tally of the session's commands
(issue 22).

``git_state.settle`` keeps a running tally of the commits and pushes the session's own
commands showed. It goes wrong when something else moved the branch: a sub-agent's commit,
a command the person typed at the prompt, a rebase that rewrote the ids, a remote that moved
on. git's own later words about the branch settle what the tally cannot:

- a ``git status`` that says the branch and its upstream "have diverged" (or ``## x...o/x
  [ahead 1, behind 2]``): which of the session's commits are on the remote is then unknown,
  and the fact says the branches diverged instead of "pushed" or "not pushed";
- one that says the branch is "ahead of 'origin/x' by N commits": its last N commits made
  before that status did not go up, whatever push the tally credited them to;
- the branch checked out at the end, when the harness recorded another: unknown;
- files the session edited after its last commit, with no later status showing a clean
  tree: uncommitted work is likely, and the fact says so rather than nothing.

Pure logic: the capture rule (``capture/extract/git_observed.py``) finds the outputs and the
edits; ``revise`` changes the settled ``EndState`` in place before it is described.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimgraph.logic.git_state import Commit, EndState, branch_in

_DIVERGED = re.compile(r"^Your branch and '(?P<upstream>[^']+)' have diverged,\s*"
                       r"and have (?P<ahead>\d+) and (?P<behind>\d+) different commits? each",
                       re.M)
_IN_STEP = re.compile(r"^Your branch is (?:up to date with|behind) '(?P<upstream>[^']+)'"
                      r"(?: by (?P<behind>\d+) commits?)?", re.M)
_AHEAD = re.compile(r"^Your branch is ahead of '(?P<upstream>[^']+)' by (?P<ahead>\d+) commits?",
                    re.M)
_SHORT = re.compile(r"^## (?P<branch>[^.\s]+(?:\.[^.\s]+)*?)\.\.\.(?P<upstream>\S+) "
                    r"\[(?P<what>(?:ahead|behind) \d+(?:, behind \d+)?)\]\s*$", re.M)
_CLEAN = re.compile(r"^nothing to commit,? \(?working (?:tree|directory) clean", re.M)
#: files named in a fact before "and N more"
MAX_FILES = 3


@dataclass(frozen=True)
class Upstream:
    """A ``git status`` line about a branch and its upstream: how many commits each holds
    that the other lacks."""

    line: int
    branch: str
    upstream: str
    ahead: int
    behind: int

    @property
    def diverged(self) -> bool:
        return self.ahead > 0 and self.behind > 0


def upstream_in(output: str, line: int) -> Upstream | None:
    """What one ``git status`` output says of its branch against its upstream (None: it
    says nothing of one)."""
    short = _SHORT.search(output)
    if short:
        counts = dict(re.findall(r"(ahead|behind) (\d+)", short["what"]))
        ahead, behind = int(counts.get("ahead", 0)), int(counts.get("behind", 0))
        return Upstream(line, short["branch"], short["upstream"], ahead, behind)
    branch = branch_in(output)
    if not branch:
        return None
    diverged = _DIVERGED.search(output)
    if diverged:
        return Upstream(line, branch, diverged["upstream"], int(diverged["ahead"]),
                        int(diverged["behind"]))
    before = _AHEAD.search(output)
    if before:
        return Upstream(line, branch, before["upstream"], int(before["ahead"]), 0)
    step = _IN_STEP.search(output)
    return Upstream(line, branch, step["upstream"], 0, int(step["behind"] or 0)) \
        if step else None


def clean_in(output: str) -> bool:
    """A long ``git status`` saying nothing is left to commit."""
    return bool(_CLEAN.search(output))


def revise(state: EndState, upstreams: list[Upstream], edited: list[tuple[int, str]],
           clean: list[int], end_branch: str | None = None, tried: int = -1) -> None:
    """Let what git printed last decide (module docstring). A branch the harness recorded
    checked out at the end other than the one the commands leave says the checkout moved
    by something the record does not show (a hook, another terminal): the fact then says
    nothing of the branch checked out rather than guess. ``upstreams``: the statuses
    that showed a branch ahead of or diverged from its upstream; ``edited``: (line, path)
    of the session's edits of the repository's files; ``clean``: lines of statuses that
    showed a clean tree; ``end_branch``: the branch the harness recorded checked out at the
    session's end (None: not recorded); ``tried``: the last line of a git command that may
    have committed or set the edits aside (a commit whose outcome never showed, a stash)."""
    for branch in dict.fromkeys(c.branch for c in state.commits):
        made = [c for c in state.commits if c.branch == branch]
        seen = [u for u in upstreams if u.branch == branch and u.line >= made[-1].since]
        if not seen:
            continue
        last = seen[-1]
        if last.diverged:
            state.said[branch] = (f"`{branch}` and `{last.upstream}` had diverged "
                                  f"({last.ahead} and {last.behind} different commits each, "
                                  "git status): which of these are on the remote is unknown")
            continue
        if last.ahead:
            _not_pushed(state, [c for c in made if c.since <= last.line][-last.ahead:], last)
    if end_branch and end_branch != state.branch:
        state.branch = None  # something the record never shows moved it: say nothing of it
    if state.commits and not state.dirty:
        last_commit = max(tried, *(c.line for c in state.commits))
        after = [(line, path) for line, path in edited if line > last_commit]
        if after and not any(line > max(at for at, _ in after) for line in clean):
            state.notes.append(_edited_note([path for _, path in after]))


def _not_pushed(state: EndState, unpushed: list[Commit], status: Upstream) -> None:
    """The commits a status showed ahead of the upstream did not go up by any push before
    it; a push of their branch whose outcome never showed before it is settled (it did not
    carry them)."""
    for commit in unpushed:
        went = state.pushed.get(commit.key)
        if went and went[1] < status.line:
            del state.pushed[commit.key]
    state.unseen_pushes = [(target, at) for target, at in state.unseen_pushes
                           if not (target == status.branch and at < status.line)]


def _edited_note(paths: list[str]) -> str:
    files = list(dict.fromkeys(paths))
    named = ", ".join(f"`{path}`" for path in files[:MAX_FILES])
    more = f" and {len(files) - MAX_FILES} more" if len(files) > MAX_FILES else ""
    count = f"{len(files)} file" + ("s" if len(files) > 1 else "")
    return f"{count} edited after the last commit ({named}{more}), likely uncommitted"
