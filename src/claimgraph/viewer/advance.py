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
"""

from __future__ import annotations

import bisect
from contextlib import nullcontext
from typing import Any, Callable, Iterable, Mapping

from claimgraph.core.briefing import scopes
from claimgraph.logic.briefing_sections import (
    SECTION_KEYS, Narrowing, head_of, horizon, order_key, placement)
from claimgraph.store.fast_paths import FactTouches, Snapshots
from claimgraph.viewer import project as pages
from claimgraph.viewer.source import Source

#: A write that touched more facts than this is followed by a whole placement (a curator run
#: that decays thousands: one walk costs less than thousands of binary searches).
PATCH_LIMIT = 2_000


def placed(src: Source, project_id: str, base: Mapping[str, Any] | None) -> dict[str, Any]:
    """The project's placement now: ``base`` advanced when it can be, else placed whole."""
    if base is not None:
        advanced = advance(src, project_id, base)
        if advanced is not None:
            return advanced
    return pages.placement(src, project_id, Narrowing())


def advance(src: Source, project_id: str, base: Mapping[str, Any]) -> dict[str, Any] | None:
    """``base`` (a whole placement) placed again at the present where the writes since it
    touched it, or None when that would not be exact (module docstring)."""
    if base.get("mark") is None:
        return None
    with src.shell() as sh:
        store: Any = sh.store
        if not isinstance(store, FactTouches):
            return None
        with store.reading() if isinstance(store, Snapshots) else nullcontext():
            now = sh.now()
            if now < base["now"] or (base["until"] is not None and now >= base["until"]):
                return None
            mark = store.touch_mark()
            touched = ([] if mark == base["mark"]
                       else store.touched_since(base["mark"], PATCH_LIMIT))
            if touched is None:
                return None
            wanted = scopes(project_id)
            suspect = set(store.suspect_fact_ids())
            pairs = pages.open_pairs(store, wanted, suspect, now)
            open_ids = {f["id"] for pair in pairs for f in pair.values()}
            changed = set(touched) | (open_ids ^ base["open_ids"])
            found = {f["id"]: f for f in store.get_facts_by_ids(sorted(changed))
                     if f["scope"] in wanted}
            until, levels = horizon([head_of(f) for f in found.values()], now,
                                    src.half_life_days, base["levels"])
            if levels != base["levels"]:
                return None  # a new level a fading fact may decay past: placed whole
            until = _earlier(base["until"], until)
            probe = Probe(store)
            moved = replace(base["placed"], changed, found, now, suspect, open_ids, probe,
                            src.half_life_days)
            made = {"now": now, "pairs": pairs, "placed": moved, "mark": mark,
                    "until": until, "levels": levels, "open_ids": open_ids,
                    "predicates": (sorted(store.predicate_usage()) if touched
                                   else base["predicates"]), "block": None}
            known = {fid: f for fid, f in base.get("read", {}).items() if fid not in changed}
            made["block"] = pages.block_of(store, made, project_id, src, known)
    return made


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


def narrowed(src: Source, project_id: str, narrowing: Narrowing, whole: Mapping[str, Any],
             base: Mapping[str, Any] | None) -> dict[str, Any]:
    """The placement under a page's filters: the whole placement kept to the facts the filters
    match. The matching ids come from one indexed read where the store answers it, kept with
    the write counter they were read at and advanced by matching the touched facts again;
    a store without that read is placed again under the filters."""
    with src.shell() as sh:
        store = sh.store
        matching = getattr(store, "narrowed_fact_ids", None)
        if matching is None:
            return pages.placement(src, project_id, narrowing)
        wanted = scopes(project_id)
        keep = _kept(store, wanted, narrowing, base)
    return {**whole, "block": None, "keep": keep, "placed": kept_to(whole["placed"], keep[1])}


def _kept(store: Any, wanted: list[str], narrowing: Narrowing,
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


def kept_to(placed_whole: Mapping[str, Any], keep: Iterable[str]) -> dict[str, Any]:
    keep = keep if isinstance(keep, (set, frozenset)) else set(keep)
    ids = {key: [fid for fid in found if fid in keep] for key, found in placed_whole["ids"].items()}
    return {"counts": {key: len(ids.get(key, ())) for key in placed_whole["counts"]}, "ids": ids,
            "reasons": {fid: why for fid, why in placed_whole["reasons"].items() if fid in keep}}


def _earlier(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)
