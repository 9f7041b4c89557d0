"""Which facts the compiled context can possibly show, chosen from light rows ("heads").

The SessionStart hook compiles the context before the agent's session starts, so its cost
must not grow with the number of facts in a project. ``logic.context.plan`` needs every fact it
may show, but it SHOWS only: every standing decision, the open conflicts, the recent changes
of belief, and the strongest few of the ranked sections (``MAX_LESSONS``, ``MAX_FACTS``,
``MAX_STRUCTURE``). This module picks, from heads that carry just what ranking needs, a
shortlist that contains all of those — so ``plan`` over the shortlist gives the same bytes as
``plan`` over the whole scope, and only the shortlist is read whole.

Why the shortlist is exact:
- a ranked section's top N by ``(-effective confidence, subject name, id)`` is the top N of
  its pool, and the same key is used here and in ``plan``;
- "contended" facts leave the ranked pools in ``plan``. Every fact that is linked to a conflict
  (either end of a link) is kept here and left out of the pools here, so the pool here is the
  plan's pool minus some kept facts: its top N plus the kept facts hold the plan's top N.
"""

from __future__ import annotations

import heapq
from typing import Any, Iterable, Mapping

from claimgraph.logic import context as compiled
from claimgraph.logic.confidence import effective_confidences
from claimgraph.logic.context_tiers import shown
from claimgraph.logic.retrieval import fact_valid_at

Head = Mapping[str, Any]


def shortlist(heads: Iterable[Head], linked: Iterable[str], suspect: Iterable[str], now: int,
              half_life_days: float) -> set[str]:
    """Ids of every fact ``plan`` could show, given the heads of the scopes' facts (at least
    those valid now or closed within the window), the ids at either end of a conflict link
    (kept whole when in scope: ``plan`` decides what is contended) and the suspect ids (never
    shown, so they must not take a ranked place)."""
    suspect = set(suspect)
    heads = [h for h in heads if h["id"] not in suspect]
    linked = set(linked) & {h["id"] for h in heads}
    keep = set(linked)
    pools: dict[str, list[Head]] = {key: [] for key in compiled.RANKED_CAPS}
    for head in heads:
        place = _placement(head, linked, now)
        if place == "keep":
            keep.add(head["id"])
        elif place == "rank":
            pools[compiled.ranked_section(head["predicate"])].append(head)
    for key, cap in compiled.RANKED_CAPS.items():
        keep.update(_strongest(pools[key], cap, now, half_life_days))
    return keep


def _placement(head: Head, linked: set[str], now: int) -> str:
    """"keep" (shown whenever it survives ``gather``), "rank" (competes for a ranked section),
    or "skip" (never shown)."""
    if head.get("dormant_since") is not None or not shown(head):
        return "skip"
    if not fact_valid_at(head, now):
        return "keep" if compiled.recently_superseded(head, now) else "skip"
    if compiled.is_standing(head):
        return "keep"
    if head["id"] in linked or head.get("source_type") == "code":
        return "skip"
    return "rank"


def _strongest(pool: list[Head], cap: int, now: int, half_life_days: float) -> list[str]:
    """The ids of the ``cap`` best heads by ``plan``'s own ranking key.

    Only heads at least as confident as the ``cap``-th best can place, so the full key (with
    the name and id tie-breaks) is built for those alone."""
    if not pool or cap <= 0:
        return []
    confidence: dict[str, float] = {}
    effective_confidences(((h["id"], h) for h in pool), now, confidence, half_life_days)
    bar = heapq.nlargest(cap, confidence.values())[-1]
    placing = [h for h in pool if confidence[h["id"]] >= bar]
    placing.sort(key=lambda h: compiled.rank_key(h, confidence[h["id"]]))
    return [h["id"] for h in placing[:cap]]
