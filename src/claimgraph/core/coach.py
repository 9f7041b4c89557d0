"""The coach (docs/mcp.md): search the task, then let ``logic.coach`` pick what to push.

Used by ``claimgraph coach``, the memory_coach tool and the UserPromptSubmit hook, which runs on
every prompt: so this module imports only our store-facing code and the standard library, and
asks the store little beyond the scoped search. Open conflicts are looked for around the hits
only: a conflict link always joins two facts about the same subject (the write path and the
curator's sweep compare a subject's own facts), so the hits' own links plus the facts of the top
hits' subjects hold the pairs touching them — two indexed reads, where listing every flagged
fact in the store would scan it whole on each prompt.
"""

from __future__ import annotations

from typing import Any, Collection

from claimgraph.logic.safe_render import fact_held
from claimgraph.core.recall import scoped_search
from claimgraph.core.shell import Shell
from claimgraph.logic import coach as C
from claimgraph.logic.conflicts import open_conflicts
from claimgraph.logic.recall import in_scopes

#: Full-text hits per token: the coach runs on every prompt and pushes at most 3 of a kind.
COACH_FTS_LIMIT = 10
#: Conflicts are looked for around the subjects of this many top hits.
CONFLICT_SUBJECT_HITS = 10


def coach(sh: Shell, task: str, scopes: Collection[str] | None) -> dict[str, Any]:
    """{task, query, push, commitments, hazards, conflicts, briefing} for one task."""
    query = C.coach_query(task)
    if not query:
        return _result(task, query, C.select([], [], set()))
    # Without the episode neighbourhood: the coach pushes standing rules into the agent's
    # prompt on the task's own words; a neighbour's borrowed context is not a reason to push,
    # nor is a member of a category the task names (a rule about football for "sports").
    found = scoped_search(sh, query, scopes, fts_limit=COACH_FTS_LIMIT, neighbours=False,
                          categories=False)
    matched = {e["id"] for e in found["matched_entities"]}
    hits = [f for f in found["facts"] if not fact_held(f)]  # held for review: never pushed
    selection = C.select(hits, pairs_around(sh, hits, scopes, sh.now()), matched)
    return _result(task, query, selection)


def pairs_around(sh: Shell, hits: list[dict[str, Any]], scopes: Collection[str] | None,
                 at: int) -> list[dict[str, Any]]:
    """Open conflict pairs with a side among the hits, newer side first: the hits' own links,
    and the facts about the top hits' subjects (where a hit's newer rival lives)."""
    subjects = sorted({f["subject"]["id"] for f in hits[:CONFLICT_SUBJECT_HITS]})
    around = in_scopes(sh.store.get_facts_for(subjects, "out"), scopes) if subjects else []
    known = {f["id"]: f for f in [*around, *hits]}
    flagged = [f for f in known.values() if f.get("conflicts")]
    missing = sorted({cid for f in flagged for cid in f["conflicts"]} - known.keys())
    known.update((f["id"], f) for f in sh.store.get_facts_by_ids(missing))
    return open_conflicts(flagged, known, at)


def _result(task: str, query: str, selection: dict[str, Any]) -> dict[str, Any]:
    return {"task": task, "query": query, **selection, "briefing": C.briefing(selection)}
