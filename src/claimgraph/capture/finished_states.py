"""A finished git state is written only where it replaces one the store holds (issue 22).

The extractor marks a state with nothing left open (``logic.git_done.FINISHED``: a pull
request merged or closed, a repository whose commits are all on its main line and pushed).
On its own it is noise: nothing in it is for the next agent to act on. Yet ``x/state`` holds
one value per subject, and a state told before -- "PR #5 was opened", "2 commits on `main`,
not pushed", by an earlier session or an earlier part of this one -- stays current until a
later state of the same subject replaces it. So the finished state is kept exactly when the
store holds a current ``x/state`` of its subject in its scope, and left out otherwise. The
mark is taken off either way.
"""

from __future__ import annotations

from typing import Any, Iterable

from claimgraph.core import Shell
from claimgraph.core.entities import resolve_entity
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.git_done import FINISHED


def replacing_only(sh: Shell, candidates: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` without the finished states that replace nothing stored."""
    kept = []
    for found in candidates:
        if FINISHED not in found:
            kept.append(found)
            continue
        found = {key: value for key, value in found.items() if key != FINISHED}
        if _replaces(sh, found):
            kept.append(found)
    return kept


def _replaces(sh: Shell, found: dict[str, Any]) -> bool:
    """The store holds a current fact of the candidate's subject and predicate in its scope."""
    try:
        entity = resolve_entity(sh, str(found["subject"]), found.get("scope"))
    except ClaimgraphError:
        return True  # several entities answer to the name: the write decides, as for any fact
    if entity is None:
        return False
    return any(fact.get("t_invalid") is None
               for fact in sh.store.get_facts(entity["id"], "out", [found["predicate"]]))
