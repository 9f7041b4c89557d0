"""The coach (REFERENCE §14): search the task, then let ``logic.coach`` pick what to push.

Used by ``claimgraph coach``, the memory_coach tool and the UserPromptSubmit hook, which runs on
every prompt: so this module imports only our store-facing code and the standard library, and
asks the store three questions — the scoped search and the flagged facts in scope (conflict
links are few; they are read whole rather than chased fact by fact).
"""

from __future__ import annotations

from typing import Any, Collection

from claimgraph.core.recall import scoped_search
from claimgraph.core.shell import Shell
from claimgraph.logic import coach as C
from claimgraph.logic.conflicts import open_conflicts


def coach(sh: Shell, task: str, scopes: Collection[str] | None) -> dict[str, Any]:
    """{task, query, push, commitments, hazards, conflicts, briefing} for one task."""
    query = C.coach_query(task)
    if not query:
        return _result(task, query, C.select([], [], set()))
    found = scoped_search(sh, query, scopes)
    matched = {e["id"] for e in found["matched_entities"]}
    selection = C.select(found["facts"], open_pairs(sh, scopes, sh.now()), matched)
    return _result(task, query, selection)


def open_pairs(sh: Shell, scopes: Collection[str] | None, at: int) -> list[dict[str, Any]]:
    """Open conflict pairs whose flagged (newer) side is in ``scopes``, newer side first."""
    flagged = sh.store.select_facts(conflicted=True, valid_cheap=True,
                                    scopes=sorted(scopes) if scopes is not None else None)
    wanted = sorted({cid for f in flagged for cid in f.get("conflicts") or ()})
    by_id = {f["id"]: f for f in sh.store.get_facts_by_ids(wanted)} if wanted else {}
    return open_conflicts(flagged, by_id, at)


def _result(task: str, query: str, selection: dict[str, Any]) -> dict[str, Any]:
    return {"task": task, "query": query, **selection, "briefing": C.briefing(selection)}
