"""The consolidate stage: collapse duplicates, sweep conflict candidates, close episodes.

Planning reads happen without the write lease; each write is a short fenced transaction
(``Fence.writing``) that re-reads what it is about to change, so a capture that committed in
between is never overwritten with a stale plan. A transaction is all-or-nothing: a curator
killed mid-collapse leaves every group of its batch either fully collapsed or untouched.

Nothing here resolves a contradiction: a swept pair becomes an open conflict for a human (or
a later judge). Each unordered pair is swept once ever (store mark ``curator:swept:<a>+<b>``),
so a pair a user unlinked is never linked again. Entity duplicate clusters are only reported:
merging is a human verb (``claimgraph entity merge``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

import structlog

from claimgraph.core.entities import ENTITY_CLUSTERS_MARK
from claimgraph.curator import reads
from claimgraph.curator.judge import CuratorModel, curator_model, judge_conflicts, model_summaries
from claimgraph.curator.scope import WATERMARK, plan_scope
from claimgraph.curator.stage_tools import StageTools
from claimgraph.logic import entities as E
from claimgraph.logic.conflicts import (conflict_candidates, conflict_pair_key,
                                        contradicts_without_judge)
from claimgraph.logic.replacement import replacement_pairs
from claimgraph.logic.retrieval import fact_valid_at

log = structlog.get_logger("claimgraph.curate")
MERGE_KIND = "merge-duplicate"
BATCH = 500
EPISODE_GRACE_MS = 60_000


def consolidate(ctx: StageTools) -> dict[str, Any]:
    """The stage entry: one scope, four steps, then the watermark (only if all went through)."""
    now = ctx.sh.now()
    scope = plan_scope(ctx.sh, now, reads.sweep_predicates(ctx.sh.predicates()))
    ctx.pause("planned")
    scanned = len(scope.facts) if scope.scanned is None else scope.scanned
    counts: dict[str, Any] = {"mode": scope.mode, "facts_scanned": scanned}
    counts["duplicates_invalidated"] = collapse(ctx, scope.facts, now)
    counts.update(sweep(ctx, scope.facts, now) if scope.pool is None
                  else sweep(ctx, scope.pool, now, pooled=True))
    model = curator_model(ctx)
    if model is not None:
        counts.update(judge_conflicts(ctx, model, now))
    counts.update(close_episodes(ctx, now, model))
    count, clusters_mark = report_entity_clusters(ctx, full=scope.mode == "full")
    counts["entity_clusters"] = count
    if not ctx.dry_run:
        with ctx.fence.writing(ctx.sh):
            ctx.sh.store.set_mark(WATERMARK, scope.watermark)
            if clusters_mark is not None:
                ctx.sh.store.set_mark(ENTITY_CLUSTERS_MARK, clusters_mark)
    return {"counts": counts}


def _batches(items: list[Any], size: int = BATCH) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


# --- duplicates --------------------------------------------------------------------------

def collapse(ctx: StageTools, facts: list[dict[str, Any]], now: int) -> int:
    """Keep the earliest of each duplicate group (docs/curator.md); invalidate the rest."""
    plan = E.collapse_plan(facts, now)
    if ctx.dry_run:
        return sum(len(group["invalidate"]) for group in plan)
    done = 0
    for batch in _batches(plan):
        with ctx.fence.writing(ctx.sh):
            done += _collapse_batch(ctx, batch, now)
    return done


def _collapse_batch(ctx: StageTools, batch: list[dict[str, Any]], now: int) -> int:
    """Re-plan from the stored rows inside the transaction: a fact changed since is respected."""
    ids = [fid for group in batch for fid in (group["keep"], *group["invalidate"])]
    done = 0
    for group in E.collapse_plan(ctx.sh.store.get_facts_by_ids(ids), now):
        for fact_id in group["invalidate"]:
            ctx.sh.store.invalidate(fact_id, now, kind=MERGE_KIND, successor=group["keep"],
                                    reason=f"duplicate of {group['keep']}")
            done += 1
        ctx.pause("collapse")
    return done


# --- conflict sweep ----------------------------------------------------------------------

def swept_key(a_id: str, b_id: str) -> str:
    return "curator:swept:" + "+".join(conflict_pair_key(a_id, b_id))


def sweep(ctx: StageTools, facts: list[dict[str, Any]], now: int,
          pooled: bool = False) -> dict[str, int]:
    """Link each new candidate pair as an open conflict, newer → older, once ever: the
    contradictions on their face, and a later session's stance that plausibly replaces an
    earlier one (``logic.replacement``; linked, never invalidated). ``facts``
    may hold more than the pool (an incremental pass's subjects): only seeded subjects count,
    unless ``pooled`` says they were chosen already (``reads.sweep_pool``)."""
    preds = ctx.sh.predicates()
    pool = facts if pooled else _seeded(facts, reads.sweep_predicates(preds)["watched"])
    pairs = [p for p in conflict_candidates(pool, preds, now) if contradicts_without_judge(p)]
    pairs += _new_pairs(pairs, replacement_pairs(pool, now))
    fresh = [p for p in pairs
             if ctx.sh.store.get_mark(swept_key(p["fact"]["id"], p["candidate"]["id"])) is None]
    linked = _already_linked_unmarked(ctx, pool)
    if ctx.dry_run:
        return {"conflicts_linked": len(fresh), "pairs_already_swept": len(pairs) - len(fresh)}
    done = 0
    for batch in _batches(fresh):
        with ctx.fence.writing(ctx.sh):
            done += _link_batch(ctx, batch, now)
    _mark_swept(ctx, linked, now)
    return {"conflicts_linked": done, "pairs_already_swept": len(pairs) - len(fresh)}


def _new_pairs(pairs: list[dict[str, Any]], more: Iterable[dict[str, Any]]
               ) -> list[dict[str, Any]]:
    """``more`` less the unordered pairs ``pairs`` already holds (or repeats within itself)."""
    keys = {conflict_pair_key(p["fact"]["id"], p["candidate"]["id"]) for p in pairs}
    fresh = []
    for pair in more:
        key = conflict_pair_key(pair["fact"]["id"], pair["candidate"]["id"])
        if key not in keys:
            keys.add(key)
            fresh.append(pair)
    return fresh


def _seeded(facts: list[dict[str, Any]], watched: set[str]) -> list[dict[str, Any]]:
    """The facts of subjects with a watched predicate (pairs never cross subjects)."""
    seeded = {(f.get("subject") or {}).get("id") for f in facts if f["predicate"] in watched}
    return [f for f in facts if (f.get("subject") or {}).get("id") in seeded]


def _link_batch(ctx: StageTools, batch: list[dict[str, Any]], now: int) -> int:
    """Inside the transaction: both sides still valid and still unjudged, then link and mark."""
    store, done = ctx.sh.store, 0
    for pair in batch:
        key = swept_key(pair["fact"]["id"], pair["candidate"]["id"])
        current = store.get_facts_by_ids([pair["fact"]["id"], pair["candidate"]["id"]])
        if store.get_mark(key) is None and len(current) == 2 and all(
                fact_valid_at(f, now) for f in current):
            store.link_conflicts(pair["fact"]["id"], [pair["candidate"]["id"]])
            done += 1
        store.set_mark(key, {"reason": pair["reason"], "at": now, "run_id": ctx.run_id})
    return done


def _already_linked_unmarked(ctx: StageTools, facts: list[dict[str, Any]]) -> list[str]:
    """Links made by the write path count as judged too: once unlinked, never re-proposed."""
    keys = {swept_key(f["id"], cid) for f in facts for cid in f.get("conflicts") or ()}
    return sorted(k for k in keys if ctx.sh.store.get_mark(k) is None)


def _mark_swept(ctx: StageTools, keys: list[str], now: int) -> None:
    for batch in _batches(keys):
        with ctx.fence.writing(ctx.sh):
            for key in batch:
                ctx.sh.store.set_mark(key, {"reason": "linked-on-write", "at": now,
                                            "run_id": ctx.run_id})


# --- episodes and entities ---------------------------------------------------------------

def mechanical_summary(episode: dict[str, Any], predicates: Iterable[str]) -> str:
    """``<source-type> episode (<ref>): N facts — n1 pred1, n2 pred2`` (docs/curator.md)."""
    by_predicate = Counter(p.removeprefix("core/") for p in predicates)
    total = sum(by_predicate.values())
    parts = sorted(by_predicate.items(), key=lambda item: (-item[1], item[0]))
    listing = ", ".join(f"{n} {pred}" for pred, n in parts)
    noun = "fact" if total == 1 else "facts"
    return f"{episode['source_type']} episode ({episode['ref']}): {total} {noun} — {listing}"


def close_episodes(ctx: StageTools, now: int,
                   model: CuratorModel | None = None) -> dict[str, int]:
    """Close open episodes with facts, older than a minute (a writer may still be filling a
    younger one; captures close their own). Empty ones stay open (docs/curator.md). With the
    model on, it writes the summaries; those its budget cannot reach stay open for later."""
    open_eps = reads.open_episodes(ctx.sh)
    settled = [e for e in open_eps if (e.get("opened_at") or 0) <= now - EPISODE_GRACE_MS]
    by_episode = reads.predicate_counts(ctx.sh, [e["id"] for e in settled]) if settled else {}
    to_close = [e for e in settled if by_episode.get(e["id"])]
    found = len(to_close)
    summaries, deferred = ({}, set()) if model is None else model_summaries(
        model, to_close, ctx.sh.store.select_facts(episodes=[e["id"] for e in to_close]))
    to_close = [e for e in to_close if e["id"] not in deferred]
    if not ctx.dry_run:
        for batch in _batches(to_close):
            with ctx.fence.writing(ctx.sh):
                _close_batch(ctx, batch, by_episode, summaries, now)
    counts = {"episodes_closed": len(to_close), "episodes_empty": len(settled) - found,
              "episodes_too_young": len(open_eps) - len(settled)}
    if model is not None:
        counts.update(episodes_summarized=len(summaries), episodes_deferred=len(deferred))
    return counts


def _close_batch(ctx: StageTools, batch: list[dict[str, Any]],
                 by_episode: dict[str, Counter[str]], summaries: dict[str, str], now: int) -> None:
    for episode in batch:
        current = ctx.sh.store.get_episode(episode["id"])
        if current is not None and current.get("closed_at") is None:
            summary = (summaries.get(episode["id"])
                       or mechanical_summary(episode, by_episode[episode["id"]].elements()))
            ctx.sh.store.close_episode(episode["id"], summary, now)


def report_entity_clusters(ctx: StageTools, full: bool) -> tuple[int, dict[str, Any] | None]:
    """Report only: a human decides whether two spellings are one thing.

    Incremental when it can be: the mark ``ENTITY_CLUSTERS_MARK`` keeps the clusters' keys and
    where the entity table ended; a pass re-counts only those keys and the keys of entities
    added since. Renames, merges and purges drop the mark (``core.entities``), so the next
    pass counts everything again. Returns the count and the mark to record (None: none)."""
    cursor = reads.entity_cursor(ctx.sh)
    mark = None if full else ctx.sh.store.get_mark(ENTITY_CLUSTERS_MARK)
    keys = None
    if cursor is not None and isinstance(mark, dict) and isinstance(mark.get("cursor"), int):
        keys = reads.changed_name_keys(ctx.sh, mark.get("keys") or [], mark["cursor"])
    clusters = reads.entity_clusters(ctx.sh, keys)
    if clusters:
        log.info("curate.entity-clusters", count=len(clusters), clusters=[
            {"scope": c["scope"], "names": [e["name"] for e in c["entities"]]}
            for c in clusters[:20]])
    if cursor is None:
        return len(clusters), None
    found = [[c["scope"], c["normalized"]] for c in clusters]
    return len(clusters), {"cursor": cursor, "keys": found}
