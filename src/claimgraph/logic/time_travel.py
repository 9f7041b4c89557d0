"""What time travel reads of a scope, defined over facts read whole (``Store.valid_times`` and
``Store.believed_at`` answer the same with SQL, on SQLite and PostgreSQL; the viewer's time
travel page reads through them, so a project of 100,000 facts is never read whole).

- ``valid_times``: every fact's begin, and every end, each sorted: the timeline's instants and
  how many facts were valid at each (``viewer.timeline``); and of the facts that can be
  believed (neither forgotten nor dormant) each begin ("held_from") and, for those that
  ended, the later of begin and end ("held_until"), each sorted: how many were believed at
  any instant is then two binary searches (``believed_count``), not a walk of the facts;
- ``believed_at``: how many facts were believed at an instant and the first ``limit`` of them
  in ``claimgraph facts --as-of`` order (``logic.retrieval.most_useful_first``), and the facts
  that began and ended after ``since`` up to that instant (oldest first, ``limit`` each).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Iterable, Mapping

from claimgraph.logic import retrieval as R
from claimgraph.logic.model import FORGOTTEN

Fact = Mapping[str, Any]


def valid_times(facts: Iterable[Fact]) -> dict[str, list[int]]:
    facts = list(facts)
    held = [f for f in facts if f.get("t_valid") is not None and believable(f)]
    return {"begins": sorted(f["t_valid"] for f in facts if f.get("t_valid") is not None),
            "ends": sorted(f["t_invalid"] for f in facts if f.get("t_invalid") is not None),
            "held_from": sorted(f["t_valid"] for f in held),
            "held_until": sorted(max(f["t_valid"], f["t_invalid"]) for f in held
                                 if f.get("t_invalid") is not None)}


def believable(fact: Fact) -> bool:
    """Neither forgotten (never valid) nor dormant: believed wherever its valid time holds."""
    return fact.get("invalidation_kind") != FORGOTTEN and fact.get("dormant_since") is None


def believed_count(times: Mapping[str, list[int]], at: int) -> int:
    """``believed_at``'s total from ``valid_times``: the believable facts begun by ``at``,
    less those whose valid time had also ended by then (both by ``at``: the later of the two
    by ``at``), so an end recorded before its begin is counted as the filter counts it."""
    return (bisect_right(times["held_from"], at) - bisect_right(times["held_until"], at))


def believed_at(facts: Iterable[Fact], at: int, since: int | None, limit: int,
                half_life_days: float) -> dict[str, Any]:
    facts = sorted(facts, key=lambda f: (f["t_valid"], f["id"]))
    keep = R.fact_filter(at=at, half_life_days=half_life_days)
    kept = [R.with_effective_confidence(f, at, half_life_days) for f in facts
            if keep(f) and f.get("dormant_since") is None]
    ordered = R.most_useful_first(kept)

    def within(t: int | None) -> bool:
        return t is not None and (since is None or t > since) and t <= at

    return {"total": len(ordered), "ids": [f["id"] for f in ordered[:limit]],
            "began": [f["id"] for f in facts if within(f.get("t_valid"))][:limit],
            "ended": [f["id"] for f in facts if within(f.get("t_invalid"))][:limit]}
