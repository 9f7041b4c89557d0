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
  tree: uncommitted work is likely, and the fact says so rather than nothing;
- a one-line ``git log`` of the branch checked out that lists, above a commit the session
  made, commits the tally never saw made (a sub-agent's, the person's): they were made on
  that branch after it, so they are the session's work too, and a push of the branch
  after that log carried them;
- a history rewrite (``git filter-repo``) followed by a forced push: the ids the remote
  held before are gone, and clones made before hold the old history;
- a one-line log of the branch after a rebasing pull that printed nothing (``git pull
  --rebase -q``): a commit of the session's it lists by its subject under another id was
  rebased, and is known by that id from then on;
- a commit whose outcome never showed (the session ended on it) after the branch's
  commits all went up: "pushed" then holds only up to the last commit seen;
- a tag deleted and made again on one line (``git tag -d v1 && git push origin :v1 && git
  tag v1 && git push --tags``): the tally keeps what happened to a tag per line, not in
  the line's order; the commands' order says the tag stands again at the end.

Pure logic: the capture rule (``capture/extract/git_observed.py``) finds the outputs and the
edits; ``revise`` changes the settled ``EndState`` in place before it is described.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimgraph.logic.git_state import (
    Commit, EndState, Observation, branch_in, pushed_to, remote_name, same_commit)

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


@dataclass(frozen=True)
class HeadLog:
    """A one-line ``git log`` of the history of the branch checked out (no other revision
    than a range ending at HEAD, no ``--all``, no ``--reverse``): its line, the folder it
    ran in and what it listed, newest first."""

    line: int
    place: str | None
    listed: tuple[tuple[str, str], ...]
    #: the most commits it was asked to list (``-3``): a listing that long may stop short
    #: of older ones (None: no limit)
    limit: int | None = None


def _branches_at(observations: list[Observation]) -> list[tuple[int, str | None, str]]:
    """(line, folder, branch checked out there after the line) as the commands showed it."""
    found: list[tuple[int, str | None, str]] = []
    for seen in observations:
        on = seen.branch_after or (seen.commits[-1].branch if seen.commits else None) \
            or seen.branch
        if on and on != "detached HEAD":
            found.append((seen.line, seen.place, on))
    return found


def _checked_out(branches: list[tuple[int, str | None, str]], place: str | None,
                 line: int) -> str | None:
    """The branch checked out in ``place`` just before ``line`` (None: not shown)."""
    before = [branch for at, where, branch in branches if at < line and where == place]
    return before[-1] if before else None


def add_logged(state: EndState, logs: list[HeadLog], observations: list[Observation]) -> None:
    """Commits a log of the branch checked out lists above the newest commit of the
    session's it shows: made on that branch after that commit, so during the session, by
    whoever made them (a sub-agent, the person). Nothing when the branch checked out is not
    that commit's, when one of them is a merge, when a pull, merge or rewrite came between
    (they may be someone else's commits brought in), or when a reset or rewrite came after
    the log (what it listed may be gone: ``reset --hard HEAD~1``). A push of the branch
    after the log that git showed carried them."""
    branches = _branches_at(observations)
    for log in logs:
        known = [i for i, (hash_, _) in enumerate(log.listed)
                 if any(c.hash and same_commit(c.hash, hash_) for c in state.commits)]
        if not known or known[0] == 0:
            continue
        above = log.listed[:known[0]]
        mine = next(c for c in state.commits if c.hash and same_commit(c.hash,
                                                                       log.listed[known[0]][0]))
        brought = any(seen.rewrote or seen.pulled for seen in observations
                      if mine.since < seen.line < log.line)
        # a reset or rewrite after the log may have dropped what it listed above
        brought = brought or any(seen.rewrote for seen in observations
                                 if seen.line > log.line and seen.place == log.place)
        if brought or _checked_out(branches, log.place, log.line) != mine.branch \
                or any(subject.startswith("Merge ") for _, subject in above):
            continue
        for hash_, subject in reversed(above):
            if not any(c.hash and same_commit(c.hash, hash_) for c in state.commits):
                state.commits.append(Commit(mine.branch, hash_, subject, log.line,
                                            since=log.line))
                _carried_by_push(state, state.commits[-1], observations, branches)
    state.commits.sort(key=lambda c: c.line)


def add_listed_below(state: EndState, logs: list[HeadLog],
                     observations: list[Observation]) -> None:
    """Commits a log of the branch checked out lists right below a commit of the session's,
    down to the session's commit before it on that branch: made on that branch between the
    two (by a sub-agent, the person), so session work. A log cut at its limit before it
    reaches that earlier commit shows only some of them: the branch's counts are then "at
    least". They went up if the later commit did; none went up otherwise, as no push of
    anything past the earlier one showed between the two. Nothing when the log lists the
    session's commits other than in the tally's order, the branch checked out is not
    theirs, one of them is a merge, or a pull or rewrite came between (they may be someone
    else's)."""
    branches = _branches_at(observations)
    for log in logs:
        for index, (hash_, _) in enumerate(log.listed):
            mine = _known(state, hash_)
            below: list[tuple[str, str]] = []
            end: Commit | None = None
            for listed in log.listed[index + 1:] if mine else ():
                end = _known(state, listed[0])
                if end is not None:
                    break
                below.append(listed)
            if mine is None or not below:
                continue
            made = [c for c in state.commits if c.branch == mine.branch]
            before = made[made.index(mine) - 1] if made.index(mine) else None
            if before is None or (end is not None and end is not before) or (
                    end is None and (log.limit is None or len(log.listed) < log.limit)):
                continue  # below the branch's first commit lies the branch it started from
            if any(subject.startswith("Merge ") for _, subject in below) \
                    or _checked_out(branches, log.place, log.line) != mine.branch \
                    or any((seen.rewrote or seen.pulled) and before.since < seen.line < log.line
                           for seen in observations) \
                    or any(before.line < seen.line < mine.line and _may_carry(seen, before)
                           for seen in observations):
                continue
            at = state.commits.index(mine)
            for lowest, (hash_, subject) in enumerate(reversed(below)):
                # a log cut short before ``before``: more may lie below the lowest it listed
                state.commits.insert(at, Commit(mine.branch, hash_, subject, mine.line,
                                                since=log.line,
                                                gap_before=end is None and lowest == 0))
                at += 1
                if mine.key in state.pushed:
                    state.pushed[hash_] = state.pushed[mine.key]
            if end is None:
                state.at_least.add(mine.branch)


def _known(state: EndState, hash_: str) -> Commit | None:
    return next((c for c in state.commits if c.hash and same_commit(c.hash, hash_)), None)


def _may_carry(seen: Observation, before: Commit) -> bool:
    """The line pushed, or may have pushed (its outcome unseen, the person's word),
    something past ``before``: a push that left a ref at ``before`` itself carried nothing
    made after it."""
    return bool(seen.quiet_pushes or seen.unseen_pushes or seen.reported_push) or any(
        not (update.rejected or update.tag or update.deleted)
        and not (update.new and before.hash and same_commit(update.new, before.hash))
        for push in seen.pushes for update in push.updates)


def _carried_by_push(state: EndState, commit: Commit, observations: list[Observation],
                     branches: list[tuple[int, str | None, str]]) -> None:
    """Mark ``commit`` pushed by the first push of its branch git showed at or after the
    line that listed it, with no rewrite between."""
    for seen in observations:
        if seen.line < commit.since:
            continue
        if seen.rewrote and seen.line > commit.since:
            return
        for push in seen.pushes:
            here = _checked_out(branches, seen.place, seen.line + 1)
            for update in push.updates:
                src = here if update.src == "HEAD" else update.src
                if src == commit.branch and not (update.rejected or update.deleted
                                                 or update.tag):
                    state.pushed[commit.key] = (push.url, push.line, update.forced)
                    return


def forced_after_rewrite(state: EndState, observations: list[Observation],
                         rewrites: dict[int, str]) -> None:
    """A note that history was rewritten (``rewrites``: line -> what rewrote it, e.g. "git
    filter-repo removing `secrets/`") and then force-pushed: the remote's old ids are gone
    and every clone made before holds the old history."""
    if not rewrites:
        return
    first = min(rewrites)
    forced: dict[str, list[str]] = {}
    for seen in observations:
        if seen.line <= first:
            continue
        for push in seen.pushes:
            for update in push.updates:
                if update.forced and not (update.rejected or update.tag or update.deleted):
                    forced.setdefault(remote_name(push.url), []).append(update.dst)
    if not forced:
        return
    pushed = "; ".join(f"{', '.join(f'`{b}`' for b in dict.fromkeys(names))} to {url}"
                       for url, names in forced.items())
    how = " and ".join(dict.fromkeys(rewrites[line] for line in sorted(rewrites)))
    state.notes.append(f"history rewritten ({how}) then force-pushed ({pushed}): "
                       "clones made before hold the old commit ids")


def retell_tags(state: EndState, events: list[tuple[int, int, str, str]]) -> None:
    """Tell a tag that was deleted in the order its commands ran (``events``: line, order in
    the line, tag, what happened) when it stands again after its last deletion: "deleted
    then created again then pushed". Only when the events account for exactly what the tally
    holds of the tag."""
    for tag, story in state.tags.items():
        if not any(what.startswith("deleted") for what in story):
            continue
        told = [what for _, _, name, what in sorted(events) if name == tag]
        if sorted(told) != sorted(story):
            continue
        last = max(i for i, what in enumerate(told) if what.startswith("deleted"))
        after = ["created again" if what == "created" else what for what in told[last + 1:]]
        if after:  # deleted last: the tally's story already ends so
            state.tags[tag] = ["deleted", *after]


def rebased_in_log(state: EndState, logs: list[HeadLog],
                   observations: list[Observation]) -> None:
    """After a rebasing pull (``logs``: the logs of the branch checked out a line with one
    ran after it), a commit of the session's on that branch the log does not list by its
    id, whose subject it lists once under an id the session never made, is that commit
    rebased: it takes the new id, and a push of the old one no longer tells."""
    branches = _branches_at(observations)
    for log in logs:
        branch = _checked_out(branches, log.place, log.line)
        subjects = [subject for _, subject in log.listed]
        for index, commit in enumerate(state.commits):
            if commit.branch != branch or not commit.hash or commit.since >= log.line or any(
                    same_commit(commit.hash, hash_) for hash_, _ in log.listed):
                continue
            if subjects.count(commit.subject) != 1:
                continue
            new = log.listed[subjects.index(commit.subject)][0]
            if any(c.hash and same_commit(c.hash, new) for c in state.commits):
                continue
            state.pushed.pop(commit.key, None)
            state.commits[index] = Commit(commit.branch, new, commit.subject, commit.line,
                                          since=log.line)


def unseen_commits(state: EndState, tried: list[tuple[int, str | None]],
                   observations: list[Observation]) -> None:
    """A ``git commit`` whose outcome never showed (``tried``: its line and folder) after
    every commit of the branch checked out went up, and no push of it after: it may have
    made one more, never pushed, so the push clause says how far the push is known to
    reach instead of "pushed"."""
    branches = _branches_at(observations)
    for line, place in tried:
        branch = _checked_out(branches, place, line)
        made = [c for c in state.commits if c.branch == branch]
        if not made or branch is None or branch in state.said or line <= made[-1].line \
                or not all(c.key in state.pushed for c in made) or not made[-1].hash:
            continue
        url, pushed_at, _ = state.pushed[made[-1].key]
        if pushed_at > line or any(at > line and name == branch for name, _, at in state.synced) \
                or any(at > line and src == branch for src, _, _, at in state.branch_pushes):
            continue  # a push (or the person's "I pushed") after it took whatever it made
        to = pushed_to(url)
        state.said[branch] = (f"pushed {to} up to {made[-1].hash[:8]}; a later commit ran "
                              "but its outcome was never seen (it may not be pushed)")
