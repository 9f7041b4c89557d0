"""Which facts the compiled context can possibly show, chosen from light rows ("heads").

The SessionStart hook compiles the context before the agent's session starts, so its cost
must not grow with the number of facts in a project. ``logic.briefing.plan`` needs every fact it
may show, but it SHOWS only: every standing decision, the open conflicts, the recent changes
of belief, and the strongest few of the ranked sections (``MAX_LESSONS``, ``MAX_FACTS``,
``MAX_STRUCTURE``). This module picks, from heads that carry just what ranking needs, a
shortlist that contains all of those — so ``plan`` over the shortlist gives the same bytes as
``plan`` over the whole scope, and only the shortlist is read whole.

Why the shortlist is exact:
- a ranked section's top N by ``(-effective confidence, subject name, predicate, object,
  id)`` (``logic.briefing.rank_key``: what a fact says breaks ties before its random id) is
  the top N of its pool, and the same key is used here and in ``plan``: the heads carry the
  subject's and the object's names for it;
- "contended" facts leave the ranked pools in ``plan``. Every fact that is linked to a conflict
  (either end of a link) is kept here and left out of the pools here, so the pool here is the
  plan's pool minus some kept facts: its top N plus the kept facts hold the plan's top N.

``lasting_shortlist`` picks one that stays exact at every later instant until the store is
written or an instant it names ("until"), so the curator can store it and the SessionStart
hook render it at its own time (docs/hooks.md, "The stored shortlist"). Why it lasts:
- decay multiplies every fading fact's confidence by the same factor over the same time (one
  half-life), and the rest of the key (what the fact says, then its id) never changes, so the
  order between fading facts never changes: until one of them reaches the floor, where ties
  fall to what the facts say. So a ranked pool keeps the top N of the fading facts (lasting
  until the N-th reaches the floor), the top N of those that never fade (their order is
  fixed), every fact reinforced after the instant (it starts fading later), and, when fewer
  than N fading facts are above the floor, all of those and the first N at the floor (whose
  order, by what they say, is fixed too);
- what starts or stops being valid later (a fact valid from, or ending at, a later instant)
  changes the pools: the earliest such instant ends the shortlist's life.
"""

from __future__ import annotations

import heapq
import math

from claimgraph.logic import briefing as compiled
from claimgraph.logic.confidence import CONFIDENCE_FLOOR, effective_confidences, never_fades
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.logic.trust_tiers import shown

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

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


#: A lasting shortlist ends this long before a fading fact's exact arrival at the floor, so
#: float rounding near that instant can never decide a place.
FLOOR_MARGIN_MS = 60_000


def lasting_shortlist(heads: Iterable[Head], linked: Iterable[str], suspect: Iterable[str],
                      at: int, half_life_days: float) -> tuple[set[str], int | None]:
    """(ids, until): ids holding every fact ``plan`` could show at any instant from ``at`` up
    to (not including) ``until`` (None: no end), while the store is not written. Same inputs
    as ``shortlist``, heads read at ``at`` (module docstring: why it lasts).

    One pass that keeps only what it may return, so the heads can stream from the store: a
    project of a million facts costs the kept ids, not a million rows."""
    suspect, linked = set(suspect), set(linked)
    keep: set[str] = set()
    until = None
    pools = {key: _LastingPool(cap, at, half_life_days)
             for key, cap in compiled.RANKED_CAPS.items()}
    for head in heads:
        if head["id"] in suspect or head.get("dormant_since") is not None:
            continue
        until = _earlier(until, _next_validity_change(head, at))
        place = "keep" if head["id"] in linked else _placement(head, linked, at)
        if place == "keep":
            keep.add(head["id"])
        elif place == "rank":
            pools[compiled.ranked_section(head["predicate"])].offer(head)
    for pool in pools.values():
        ids, ends = pool.result()
        keep.update(ids)
        until = _earlier(until, ends)
    return keep, until


def _earlier(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _next_validity_change(head: Head, at: int) -> int | None:
    """The first instant after ``at`` at which the fact starts or stops being valid."""
    later = [t for t in (head.get("t_valid"), head.get("t_invalid")) if t is not None and t > at]
    return min(later) if later else None


def _anchor(head: Head) -> int | None:
    recorded = head.get("recorded_at")
    if recorded is None:
        return None
    anchor: int = max(recorded, head.get("last_reinforced_at") or recorded)
    return anchor


class _Worst:
    """A heap entry ordered worst first: the bounded heaps below drop their worst."""

    __slots__ = ("key", "head")

    def __init__(self, key: tuple[Any, ...], head: Head) -> None:
        self.key, self.head = key, head

    def __lt__(self, other: "_Worst") -> bool:
        return other.key < self.key


class _Best:
    """The ``cap`` heads with the smallest ranking keys offered so far."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.heap: list[_Worst] = []

    def offer(self, confidence: float, head: Head) -> None:
        """Offer ``head`` ranked at ``confidence`` (``logic.briefing.rank_key``). A head
        weaker than the worst kept of a full heap is turned away on its confidence alone, so
        the whole key (what the fact says, its id) is built only for heads that may place."""
        if len(self.heap) >= self.cap and -confidence > self.heap[0].key[0]:
            return
        key = compiled.rank_key(head, confidence)
        if len(self.heap) < self.cap:
            heapq.heappush(self.heap, _Worst(key, head))
        elif key < self.heap[0].key:
            heapq.heapreplace(self.heap, _Worst(key, head))

    def heads(self) -> list[Head]:
        """Best first."""
        return [e.head for e in sorted(self.heap, key=lambda e: e.key)]


class _LastingPool:
    """A ranked pool's ids that hold its top ``cap`` at every instant from ``at`` until the
    instant ``result`` names (module docstring): the strongest ``cap`` of the facts that never
    fade, every fact reinforced after ``at``, and the strongest ``cap`` fading facts above the
    floor — or, when fewer are, all of those and the first ``cap`` at the floor."""

    def __init__(self, cap: int, at: int, half_life_days: float) -> None:
        self.cap, self.at, self.half_life_days = cap, at, half_life_days
        self.later: list[str] = []
        self.fixed, self.above, self.floored = _Best(cap), _Best(cap), _Best(cap)
        self.above_count = 0

    def offer(self, head: Head) -> None:
        if self.cap <= 0:
            return
        anchor = _anchor(head)
        if anchor is not None and not never_fades(head) and anchor > self.at:
            self.later.append(head["id"])  # not fading yet (rare: a clock ahead of ours)
            return
        value: dict[str, float] = {}
        effective_confidences([(head["id"], head)], self.at, value, self.half_life_days)
        confidence = value[head["id"]]
        if anchor is None or never_fades(head):
            self.fixed.offer(confidence, head)
        elif confidence > CONFIDENCE_FLOOR:
            self.above_count += 1
            self.above.offer(confidence, head)
        else:
            self.floored.offer(CONFIDENCE_FLOOR, head)

    def result(self) -> tuple[list[str], int | None]:
        ids = self.later + [h["id"] for h in self.fixed.heads()]
        above = self.above.heads()
        ids += [h["id"] for h in above]
        if self.above_count >= self.cap > 0:
            return ids, _floor_reached(above[-1], self.half_life_days)
        return ids + [h["id"] for h in self.floored.heads()], None


def _floor_reached(head: Head, half_life_days: float) -> int:
    """When a fading fact's effective confidence comes down to the floor (less a margin)."""
    periods = math.log2(head["confidence"] / CONFIDENCE_FLOOR)
    anchor = _anchor(head)
    assert anchor is not None  # only a fact with an anchor fades (``offer``)
    return int(anchor + periods * DAY_MS * half_life_days) - FLOOR_MARGIN_MS


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
    the tie-breaks by what the fact says and by id) is built for those alone."""
    if not pool or cap <= 0:
        return []
    confidence: dict[str, float] = {}
    effective_confidences(((h["id"], h) for h in pool), now, confidence, half_life_days)
    bar = heapq.nlargest(cap, confidence.values())[-1]
    placing = [h for h in pool if confidence[h["id"]] >= bar]
    placing.sort(key=lambda h: compiled.rank_key(h, confidence[h["id"]]))
    return [h["id"] for h in placing[:cap]]
