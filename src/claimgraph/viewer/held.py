"""Which live facts are held for review, kept between review pages and advanced write by write.

``core.reads.held`` judges the facts that may be held (``logic.safe_render.fact_held``); which
those are, the store finds in SQL (``Store.held_candidate_ids``) by the gate's words in every
live fact's subject, predicate and object: one walk of the whole store, 0.3–1.5 s at 100,000
facts on a loaded two-core machine. Held facts are few and change only when a write touches
them, so the viewer walks once per store file and keeps the ids held (a live fact held by its
words), with the store's touch mark (``Store.touch_mark``, format 7); at the next review it
judges again only the facts written since (``Store.touched_since``: a fact's row, and its
subject's or object's name, which are its words), and walks again only when those are too
many, a fact was deleted, or the store keeps no touches. Whether a kept fact is still valid
at the page's instant (``t_valid`` in the future) is checked on the facts read whole.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from claimgraph.logic.safe_render import fact_held
from claimgraph.store.fast_paths import FactTouches, HeldCandidates
from claimgraph.viewer.source import file_key

#: More facts touched than this since the kept mark: walk again (one SQL walk is cheaper than
#: reading thousands of facts whole).
TOUCH_LIMIT = 2_000


@dataclass(frozen=True)
class _Kept:
    file: tuple[int, int] | None
    mark: tuple[int, int]
    ids: frozenset[str]


def held_ids(facts: list[dict[str, Any]], at: int | None = None) -> set[str]:
    """The live ones held by their words (``reads.held``'s test, less the start of the valid
    time): no end recorded, or with ``at`` none before it (a fact set to end later is held
    until then; ended facts never come back, so ids kept at ``at`` serve every later page)."""
    return {f["id"] for f in facts
            if (f.get("t_invalid") is None or (at is not None and f["t_invalid"] > at))
            and fact_held(f)}


class HeldWatch:
    """The ids of every live fact held for review, of one store, kept at a touch mark."""

    def __init__(self, limit: int = TOUCH_LIMIT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._kept: _Kept | None = None
        self.walks = 0  # how many times the whole store was walked (tests read it)

    def among(self, store: Any, db: Any, at: int | None = None) -> frozenset[str] | None:
        """Ids that include every live fact held for review now (``at``: not ended then),
        read in the caller's snapshot; None for a store that cannot say which facts a write
        touched (the review then asks the store, or judges every live fact)."""
        # ``all`` over the two: each fast path declares its own ``methods``, so to mypy a
        # store narrowed to both cannot exist (``viewer.project.offers``).
        if not all(isinstance(store, path) for path in (FactTouches, HeldCandidates)):
            return None
        mark, file = store.touch_mark(), file_key(db)
        with self._lock:
            kept = self._kept
        if kept is not None and kept.file == file and kept.mark == mark:
            return kept.ids
        touched = (store.touched_since(kept.mark, self.limit)
                   if kept is not None and kept.file == file else None)
        if kept is None or touched is None:
            self.walks += 1
            ids = frozenset(held_ids(store.get_facts_by_ids(sorted(
                store.held_candidate_ids(None, at))), at))
        else:
            again = set(touched)
            ids = frozenset((kept.ids - again)
                            | held_ids(store.get_facts_by_ids(sorted(again)), at))
        with self._lock:  # a slower reader of an older state never replaces a newer one
            now_kept = self._kept
            if now_kept is None or now_kept.file != file or now_kept.mark <= mark:
                self._kept = _Kept(file, mark, ids)
        return ids
