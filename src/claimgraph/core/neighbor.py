"""Graph neighbourhoods: breadth-first by depth, or a query-guided beam walk (docs/search.md)."""

from __future__ import annotations

from typing import Any

from claimgraph.core import entities as ents
from claimgraph.core.shell import Shell
from claimgraph.core.vocabulary import resolve_predicate
from claimgraph.logic import retrieval as R


def neighbor(sh: Shell, entity: str, *, depth: int = 1, entity_scope: str | None = None,
             predicate: str | None = None, scope: str | None = None, as_of: int | None = None,
             min_confidence: float | None = None, query: str | None = None,
             budget: int = R.WALK_BUDGET, beam: int = R.WALK_BEAM) -> dict[str, Any]:
    """Entities and facts around a root; with a query, a beam walk toward relevant facts."""
    root = ents.require_entity(sh, entity, entity_scope)
    at = sh.now() if as_of is None else as_of
    pred_id = resolve_predicate(sh, predicate, register_new=False)["id"] if predicate else None
    keep = R.fact_filter(at=at, scope=scope, predicate=pred_id, min_confidence=min_confidence,
                         half_life_days=sh.half_life_days)
    if query:
        return _guided_walk(sh, root, keep, at, query, budget, beam)
    state = R.initial_bfs_state(root)
    for level in range(1, max(0, depth) + 1):
        if not state["frontier"]:
            break
        facts = sh.store.get_facts_for(sorted(state["frontier"]), "both")
        state = R.bfs_step(state, facts, keep, level)
    entities = sorted(state["nodes"].values(), key=lambda e: (e["depth"], e["name"], e["id"]))
    facts = [R.with_effective_confidence(f, at, sh.half_life_days)
             for f in sorted(state["edges"].values(), key=lambda f: (f["t_valid"], f["id"]))]
    return {"root": root, "depth": depth, "entities": entities, "facts": facts}


def _guided_walk(sh: Shell, root: dict[str, Any], keep: Any, at: int, query: str,
                 budget: int, beam: int) -> dict[str, Any]:
    """Expand only the best-scoring facts each round, until the budget or max depth is reached."""
    tokens = R.query_tokens(query)
    depth_of = {root["id"]: 0}
    entities = {root["id"]: {**root, "depth": 0}}
    collected: dict[str, dict[str, Any]] = {}
    frontier, depth = {root["id"]}, 0
    while frontier and len(collected) < budget and depth < R.WALK_MAX_DEPTH:
        candidates = [f for f in sh.store.get_facts_for(sorted(frontier), "both") if keep(f)]
        chosen = R.walk_select(candidates, set(collected), tokens, at, beam, sh.half_life_days)
        depth += 1
        frontier = set()
        for fact in chosen:
            collected[fact["id"]] = fact
            for end in (fact.get("subject"), fact.get("object_ref")):
                if end and end["id"] not in depth_of:
                    depth_of[end["id"]] = depth
                    entities[end["id"]] = {**end, "depth": depth}
                    frontier.add(end["id"])
    ranked = sorted(collected.values(),
                    key=lambda f: (-R.walk_score(f, tokens, at, sh.half_life_days),
                                   f["id"]))[:budget]
    return {"root": root, "depth": max(depth_of.values()), "query": query,
            "entities": sorted(entities.values(), key=lambda e: (e["depth"], e["name"])),
            "facts": [R.with_effective_confidence(f, at, sh.half_life_days) for f in ranked]}
