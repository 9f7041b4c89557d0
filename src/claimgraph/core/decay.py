"""The curator's decay stage: which valid facts have faded into dormancy (docs/curator.md).

Effective confidence stays a VIEW (``logic.confidence.effective_confidence``, computed at read
time from the stored base, the last reinforcement and the half-life); nothing stores a decayed
number, so no fact ever needs rewriting just because time passed. What decay materializes is the
consequence at the run's time ``now``: a valid fact whose effective confidence is below the
dormancy threshold gets ``dormant_since = now``; a dormant fact that no longer qualifies (it was
reinforced, its source became a decision record, the threshold or half-life changed) is revived.
Commitments and decision records never fade, so they are never made dormant. Nothing is deleted:
a dormant fact is left out of default listings and context injection, and is still found by
``facts --all`` and search, with its state shown.

Cheap by construction. A fact cannot fall below the threshold before it has gone unreinforced
for ``half_life * log2(1 / threshold)`` (base confidence is at most 1.0): about 299 days at the
defaults. Only facts recorded before ``now`` minus that age are candidates, so an incremental run
over a young store reads almost nothing. Facts whose valid time has a scheduled end
(``t_invalid`` in the future) are not candidates (the store's cheap validity test is "no
``t_invalid``"); they end on their own.

Writes happen in short transactions of at most ``batch`` facts. Before each, ``fenced()`` must
still say we hold the curation lease, or the pass stops with ``{"status": "lease-lost"}``. Each
transaction re-reads its facts and re-decides, so a capture that reinforced a fact after we
planned is never overruled by a stale plan.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager
from typing import Any, Callable, Iterable, Mapping, Sequence

from claimgraph.core.shell import Shell
from claimgraph.logic.confidence import effective_confidence, never_fades
from claimgraph.logic.timeutil import DAY_MS

DEFAULT_DORMANCY_THRESHOLD = 0.1
DEFAULT_BATCH = 2000
#: No source may claim more than this, so no fact starts above it.
MAX_BASE_CONFIDENCE = 1.0

Transaction = Callable[[], AbstractContextManager[Any]]


def fades_below(fact: Mapping[str, Any], now: int, threshold: float,
                half_life_days: float) -> bool:
    """True when the fact's effective confidence at ``now`` is below the threshold."""
    if never_fades(fact):
        return False
    return effective_confidence(fact, now, half_life_days) < threshold


def valid_now(fact: Mapping[str, Any], now: int) -> bool:
    end = fact.get("t_invalid")
    return end is None or end > now


def decay_plan(facts: Iterable[Mapping[str, Any]], now: int, threshold: float,
               half_life_days: float) -> dict[str, list[str]]:
    """Pure: {dormant: ids to mark, revive: ids to clear}, each sorted.

    A valid active fact below the threshold becomes dormant; a valid dormant fact at or above
    it is revived. Invalidated facts keep whatever state they had: they are history.
    """
    dormant, revive = [], []
    for fact in facts:
        if not valid_now(fact, now):
            continue
        below = fades_below(fact, now, threshold, half_life_days)
        is_dormant = fact.get("dormant_since") is not None
        if below and not is_dormant:
            dormant.append(fact["id"])
        elif is_dormant and not below:
            revive.append(fact["id"])
    return {"dormant": sorted(dormant), "revive": sorted(revive)}


def min_fading_age_ms(threshold: float, half_life_days: float) -> int | None:
    """The youngest anchor age at which any fact could be below the threshold; None = never."""
    if threshold <= 0:
        return None
    if threshold > MAX_BASE_CONFIDENCE:
        return 0
    return max(0, math.floor(DAY_MS * half_life_days * math.log2(MAX_BASE_CONFIDENCE / threshold)))


def decay_pass(sh: Shell, now: int, threshold: float = DEFAULT_DORMANCY_THRESHOLD,
               fenced: Callable[[], bool] = lambda: True, *,
               transaction: Transaction | None = None, batch: int = DEFAULT_BATCH,
               dry_run: bool = False) -> dict[str, Any]:
    """Mark faded valid facts dormant and revive recovered ones; return the counts.

    ``transaction`` opens one write transaction (default ``sh.store.transaction``; the curator
    passes its fenced, write-leased one). ``dry_run`` plans and counts without writing.
    Returns {status: ok | dry-run | lease-lost, candidates, dormant, revived, dormant_total}.
    """
    store = sh.store
    half_life = sh.half_life_days
    begin = transaction or store.transaction
    counts: dict[str, Any] = {"status": "dry-run" if dry_run else "ok", "candidates": 0,
                              "dormant": 0, "revived": 0, "dormant_total": 0}
    age = min_fading_age_ms(threshold, half_life)
    fading = ([] if age is None
              else store.select_facts(valid_cheap=True, recorded_before=now - age + 1))
    already = store.get_facts_by_ids(store.dormant_fact_ids())
    seen = {f["id"] for f in fading}
    candidates = [*fading, *(f for f in already if f["id"] not in seen)]
    counts["candidates"] = len(candidates)
    plan = decay_plan(candidates, now, threshold, half_life)
    if dry_run:
        counts["dormant"], counts["revived"] = len(plan["dormant"]), len(plan["revive"])
        counts["dormant_total"] = len(already) + counts["dormant"] - counts["revived"]
        return counts
    for ids in _chunks(plan["dormant"] + plan["revive"], batch):
        if not fenced():
            return {**counts, "status": "lease-lost"}
        with begin():
            fresh = decay_plan(store.get_facts_by_ids(ids), now, threshold, half_life)
            counts["dormant"] += store.set_dormant(fresh["dormant"], now)
            counts["revived"] += store.revive(fresh["revive"])
    counts["dormant_total"] = len(store.dormant_fact_ids())
    return counts


def _chunks(ids: Sequence[str], size: int) -> Iterable[list[str]]:
    size = max(1, size)
    for start in range(0, len(ids), size):
        yield list(ids[start:start + size])
