"""Gather what the compiled context needs from the store, then let ``logic.context`` decide.

Used by ``claimgraph context`` and by the SessionStart hook, which the agent waits for at every
start: so this imports no CLI, config or logging machinery, and its cost must not grow with the
store. It asks for light rows of the project's and the user's facts, the conflict-linked ones,
and which facts the audit found suspect; then reads whole only the shortlist the block can show
(plus, rarely, a successor that lives in another scope).

Suspect facts (their cited code no longer backs them) and dormant ones are left out: the agent
should not start a session believing either. Conflict links to facts outside the two scopes are
not shown (the other side belongs to another project).
"""

from __future__ import annotations

from typing import Any

from claimgraph.logic import context as compiled
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.logic.conflicts import open_conflicts
from claimgraph.logic.context_shortlist import shortlist
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.safe_render import fact_held
from claimgraph.store.base import Store

USER_SCOPE = "user"


def gather(store: Store, project_id: str, now: int,
           half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
    """{facts, conflicts, successors}: facts valid now or superseded within the window, minus
    suspects — every one ``logic.context.plan`` can show, on a store with 100k facts too.

    A store that answers ``select_context_heads`` (SQLite) is asked for light rows first and
    only the shortlist that ``plan`` could show is read whole (``logic.context_shortlist``
    says why that gives the same block); any other store is read whole, as before."""
    wanted = scopes(project_id)
    heads_of = getattr(store, "select_context_heads", None)
    if heads_of is None:
        return gather_from(store, store.select_facts(scopes=wanted), now)
    linked = store.select_facts(scopes=wanted, conflicted=True)
    ends = {f["id"] for f in linked} | {other for f in linked for other in f["conflicts"]}
    suspect = set(store.suspect_fact_ids())
    heads = heads_of(wanted, compiled.window_start(now))
    chosen = shortlist(heads, ends, suspect, now, half_life_days)
    facts = sorted(store.get_facts_by_ids(sorted(chosen)),
                   key=lambda f: (f["t_valid"], f["id"]))
    return gather_from(store, facts, now, suspect)


def gather_from(store: Store, scope_facts: list[dict[str, Any]], now: int,
                suspect: set[str] | None = None) -> dict[str, Any]:
    """``gather`` over facts already read from the two scopes (the viewer reads them once and
    shows what the context leaves out beside what it keeps)."""
    if suspect is None:
        suspect = set(store.suspect_fact_ids())
    facts = [f for f in scope_facts  # held facts wait for review (logic.safe_render)
             if f["id"] not in suspect and f.get("dormant_since") is None and not fact_held(f)
             and (fact_valid_at(f, now) or compiled.recently_superseded(f, now))]
    valid = [f for f in facts if fact_valid_at(f, now)]
    return {"facts": facts, "conflicts": open_conflicts(valid, {}, now),
            "successors": _missing_successors(store, facts)}


def scopes(project_id: str) -> list[str]:
    return sorted({project_id, USER_SCOPE})


def _missing_successors(store: Store, facts: list[dict[str, Any]]) -> dict[str, Any]:
    """Successors named by recent changes but not among ``facts`` (another scope, dormant or
    suspect): shown as the new value of a change, never as facts of their own."""
    have = {f["id"] for f in facts}
    wanted = sorted({succ for f in facts if f.get("t_invalid") is not None
                     for succ in [compiled.supersession_successor(f)[1]]
                     if succ and succ not in have})
    return {f["id"]: f for f in store.get_facts_by_ids(wanted) if not fact_held(f)} \
        if wanted else {}


def compile_for(store: Store, project_id: str, now: int,
                budget_chars: int = compiled.DEFAULT_BUDGET_CHARS,
                half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
    """{project, as_of, text, chars, sections}: the block for ``project_id`` as of ``now``."""
    found = gather(store, project_id, now, half_life_days)
    sections = compiled.plan(found["facts"], found["conflicts"], now, half_life_days,
                             found["successors"])
    rendered = compiled.render(sections, now, project_id, budget_chars)
    return {"project": project_id, "as_of": now, **rendered}
