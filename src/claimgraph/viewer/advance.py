"""A project's placement brought up to date after a write by placing again only what it touched.

``viewer.project.placement`` places every fact of a project at one instant: at 100,000 facts
one walk of them all (1-2 s on a loaded machine). The store records which facts each write
touched (``Store.touched_since``, format 7: a fact's row, its audit verdicts, its conflict
links, its subject's or object's name), so the placement made at a touch mark is advanced
to the present by taking those facts out of their sections and putting each back where
``logic.briefing_sections.placement`` places it now, at the place its order key says (a
binary search over the section, reading the few neighbours it compares with). The rest keep
their places, which is exact while the instant stays before the placement's horizon
(``logic.briefing_sections.horizon``: nothing starts or stops being valid, no change leaves
the window, no two ranked facts trade places): past it, or when a write touched more than
``PATCH_LIMIT`` facts, or a fact that never fades brings a new confidence level, the
project is placed whole again, as before.

A narrowed placement (the page's filters) is the whole placement kept to the ids the filters
match; that id set is kept too and advanced the same way (a touched fact is matched again).

The pieces are here; ``viewer.project`` (``placed``, ``advanced``, ``narrowed``) reads the
store and puts them together.
"""

from __future__ import annotations

import bisect
from contextlib import nullcontext
from typing import Any, Callable, Iterable, Mapping

from claimgraph.logic.briefing_sections import SECTION_KEYS, Narrowing, order_key, placement
from claimgraph.store.fast_paths import FactTouches, Snapshots

#: A write that touched more facts than this is followed by a whole placement (a curator run
#: that decays thousands: one walk costs less than thousands of binary searches).
PATCH_LIMIT = 2_000


class Probe:
    """Facts read by id for the binary searches, each once."""

    def __init__(self, store: Any, known: Mapping[str, Any] | None = None) -> None:
        self.store, self.known = store, dict(known or {})

    def __call__(self, fact_id: str) -> Mapping[str, Any]:
        fact: Mapping[str, Any] | None = self.known.get(fact_id)
        if fact is None:
            fact = self.known[fact_id] = self.store.get_facts_by_ids([fact_id])[0]
        return fact


def replace(placed_before: Mapping[str, Any], changed: set[str], found: Mapping[str, Any],
            now: int, suspect: set[str], open_ids: set[str], probe: Probe,
            half_life_days: float) -> dict[str, Any]:
    """A placement's {counts, ids, reasons} with the ``changed`` ids taken out and those of
    them ``found`` (read whole now; a deleted fact is not) put back where they belong now."""
    reasons = {fid: why for fid, why in placed_before["reasons"].items() if fid not in changed}
    ids = {key: (found_ids if changed.isdisjoint(found_ids)
                 else [fid for fid in found_ids if fid not in changed])
           for key, found_ids in placed_before["ids"].items()}
    arriving: dict[str, list[tuple[tuple[Any, ...], str]]] = {}
    for fid, fact in found.items():
        where = placement(fact, now, suspect, open_ids)
        if where is None:
            continue
        section, reason = where
        if reason:
            reasons[fid] = reason
        arriving.setdefault(section, []).append(
            (order_key(section, fact, reason, now, half_life_days), fid))
    probe.known.update(found)
    for section, keyed in arriving.items():
        def key(fid: str, section: str = section) -> tuple[Any, ...]:
            return order_key(section, probe(fid), reasons.get(fid), now, half_life_days)
        ids[section] = _inserted(list(ids.get(section, [])), sorted(keyed), key)
    return {"counts": {key: len(ids.get(key, ())) for key in SECTION_KEYS}, "ids": ids,
            "reasons": reasons}


def _inserted(ordered: list[str], keyed: list[tuple[tuple[Any, ...], str]],
              key: Callable[[str], tuple[Any, ...]]) -> list[str]:
    """``ordered`` (in key order) with each (key, id) of ``keyed`` (sorted) put in its place."""
    lo = 0
    for item_key, fid in keyed:
        lo = bisect.bisect_left(ordered, item_key, lo, key=key)
        ordered.insert(lo, fid)
        lo += 1
    return ordered


def kept(store: Any, wanted: list[str], narrowing: Narrowing,
          base: Mapping[str, Any] | None) -> tuple[Any, frozenset[str]]:
    """(touch mark, ids the filters keep), advanced from ``base``'s when it can be."""
    touches = isinstance(store, FactTouches)
    with store.reading() if isinstance(store, Snapshots) else nullcontext():
        mark = store.touch_mark() if touches else None
        before = (base or {}).get("keep")
        if touches and before is not None and before[0] is not None:
            touched = store.touched_since(before[0], PATCH_LIMIT)
            if touched is not None:
                keep = set(before[1]) - set(touched)
                keep.update(f["id"] for f in store.get_facts_by_ids(sorted(touched))
                            if f["scope"] in wanted and narrowing.matches(f))
                return mark, frozenset(keep)
        return mark, frozenset(store.narrowed_fact_ids(wanted, narrowing))


def kept_to(placed_whole: Mapping[str, Any], keep: Iterable[str],
            before: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``placed_whole`` kept to the ids in ``keep``. ``before``: the last narrowed placement
    of the same filters ({placed, keep, cut_from}); a section whose whole list is the very
    one it was cut from (``replace`` leaves a section no write touched as it was) and holds
    no id whose keeping changed is taken from it as it was, the rest filtered again."""
    keep = keep if isinstance(keep, (set, frozenset)) else set(keep)
    moved: frozenset[str] | None = None
    cut_from: Mapping[str, Any] = {}
    earlier: Mapping[str, Any] = {}
    if before is not None and before.get("cut_from") is not None:
        moved = frozenset(keep).symmetric_difference(before["keep"][1])
        cut_from, earlier = before["cut_from"], before["placed"]["ids"]
    ids = {}
    whole: Mapping[str, list[str]] = placed_whole["ids"]
    for key, found in whole.items():
        if (moved is not None and cut_from.get(key) is found
                and (not moved or moved.isdisjoint(found))):
            ids[key] = earlier[key]
        else:
            ids[key] = list(filter(keep.__contains__, found))
    return {"counts": {key: len(ids.get(key, ())) for key in placed_whole["counts"]}, "ids": ids,
            "reasons": {fid: why for fid, why in placed_whole["reasons"].items() if fid in keep}}


def earlier(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)
