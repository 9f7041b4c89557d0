"""The screen that marks finished git states and cuts mixed ones to what is still open
(issue 22; what counts as finished: ``logic/git_done.py``).

``git_state`` hands each of its facts the structure it settled (``logic.git_done.FIELD``);
this screen reads it, never the fact's words: a pull request merged or closed, or a
repository whose every commit is on its main line and pushed with nothing uncommitted, is
marked finished (``logic.git_done.FINISHED``: the capture pass writes it only to replace a
state of the same subject it stored before, ``capture/finished_states.py``); a repository
with open and finished branches is told again with the open ones only, citing their lines.
The field is taken off every candidate here, whatever is decided, so nothing after the
screen sees it.

A finished state with a title (or a commit subject) is left out only when another fact of
the session tells the same change (``logic.git_done.carried``); since a later screen may
still drop that fact, ``still_told`` checks again at the end of the extraction and writes
the state after all when nothing tells it any more.
"""

from __future__ import annotations

import re
from typing import Any

from claimgraph.logic import git_done as gd
from claimgraph.logic import git_state as gs

_CITED_LINE = re.compile(r"^transcript#L(?P<line>\d+):")


def screen_finished(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` with the finished git states marked, the mixed ones cut to their open
    part."""
    elsewhere = [str(found["object"]) for found in candidates
                 if found.get("rule") != _GIT_RULE]
    kept = []
    for found in candidates:
        settled = found.pop(gd.FIELD, None)
        if settled is None:
            kept.append(found)
            continue
        kept.append(_screened(found, settled, elsewhere))
    return kept


def still_told(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` with every finished state left out because another fact told its
    change (``logic.git_done.carried``) written again when no fact left at the end of the
    extraction tells it any more (a later screen dropped the lesson that did). The mark is
    taken off every candidate."""
    marked = [found for found in candidates if _CARRIED in found]
    if not marked:
        return candidates
    others = [str(found["object"]) for found in candidates if found.get("rule") != _GIT_RULE]
    for found in marked:
        if not all(gd.carried(told, others) for told in found.pop(_CARRIED)):
            found.pop(gd.FINISHED, None)
    return candidates


#: the titles or subjects whose being told elsewhere finished a state (``still_told``)
_CARRIED = "git_told_elsewhere"
#: the rule of the git states (``git_state.RULE``): one state never tells another's change
_GIT_RULE = "git-state"


def _screened(found: dict[str, Any], settled: gd.Settled,
              elsewhere: list[str]) -> dict[str, Any]:
    if settled.pr is not None:
        if not gd.pr_done(settled.pr, elsewhere):
            return found
        told = gd.pr_told(settled.pr)
        return {**found, gd.FINISHED: True, **({_CARRIED: told} if told else {})}
    if settled.state is None:
        return found
    left = gd.open_part(settled.state, settled.edits_checked, elsewhere)
    if left is None:
        told = gd.subjects_told(settled.state)
        return {**found, gd.FINISHED: True, **({_CARRIED: told} if told else {})}
    if left is settled.state:
        return found
    text = gs.describe_within(left, settled.date)
    if not text:
        return found  # the open part cannot be told on its own: as it was
    lines = set(left.lines)
    cited = [e for e in found["evidence"]
             if (m := _CITED_LINE.match(str(e))) and int(m["line"]) in lines]
    return {**found, "object": text, "evidence": cited or found["evidence"]}
