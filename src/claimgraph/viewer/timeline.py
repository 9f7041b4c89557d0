"""Time travel: what a project's memory believed at any instant of its timeline.

The timeline's instants are the moments something changed: a fact's valid time began or ended.
What was believed at an instant is exactly ``claimgraph facts --scope P --as-of T`` (the same
filter and order, ``core.reads.believed``), over the project's scope and the user scope. A
project may hold 100,000 facts, so the page never reads them all: the store answers the
timeline's begins and ends (``Store.valid_times``: sorted lists of numbers, those of the facts
that can be believed among them, so how many were believed at an instant is two binary
searches, ``logic.time_travel.believed_count``) and the first ``MAX_SHOWN`` believed then, and
what began and ended since the previous instant (``Store.believed_at``); only those facts are
read whole. A store without those queries is read whole and answered by their definitions
(``logic.time_travel``). The slider moves over the
instants, not over clock time, so a burst of changes in one afternoon is as easy to step through as
a quiet month. The sparkline above it is the same count at each of its instants
(``believed_counts``): a dormant or forgotten fact is in neither, so its value where the slider
stands is the count the page shows.

The begins and ends change only when the store does, while every step of the slider asks for
another instant: the viewer keeps them per project and store state (``kept``, as it keeps a
project's placement), so a step reads only what was believed at its instant.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import Any, Callable, Hashable, Mapping

from claimgraph.core.briefing import scopes
from claimgraph.core.reads import with_state
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import time_travel as defined
from claimgraph.logic.retrieval import with_effective_confidence
from claimgraph.logic.timeutil import from_iso
from claimgraph.viewer.source import BadRequest, NotFound, Source

MAX_INSTANTS = 1_000
MAX_SHOWN = 200
SPARK_WIDTH, SPARK_HEIGHT = 600, 40


def parse_at(text: str | None) -> int | None:
    """``at`` as epoch milliseconds or an ISO date/time; anything else is a 400."""
    if not text:
        return None
    raw = text.strip()
    if raw.isdigit():
        if len(raw) > 15:
            raise BadRequest(f"at={raw[:40]!r} is too far in the future")
        return int(raw)
    try:
        return from_iso(raw)
    except ClaimgraphError:
        raise BadRequest(f"at={text[:40]!r} is not a time: give milliseconds since the epoch "
                         "or an ISO date like 2026-01-31") from None


def changes(times: Mapping[str, list[int]]) -> list[int]:
    """Every instant at which a fact began or stopped being valid, sorted, each once: what
    the slider's instants (``instants_until``) need of the times at any ``now``."""
    return sorted({*times["begins"], *times["ends"]})


def instants_until(changed: list[int], now: int) -> list[int]:
    """The changes up to now, and now."""
    found = changed[:bisect_right(changed, now)]
    return found if found and found[-1] == now else [*found, now]


def thinned(points: list[int], keep: int, limit: int = MAX_INSTANTS) -> list[int]:
    """At most ``limit`` instants, evenly spread, always with the first and last, and ``keep``
    (the chosen instant, added where it is not one, so ``limit + 1`` at most: the slider then
    stops on it, and the sparkline has a value exactly there, even before the first change)."""
    if len(points) > limit:
        step = (len(points) - 1) / (limit - 1)  # > 1: the picked indices rise, none twice
        points = [points[round(i * step)] for i in range(limit)]
    spot = bisect_left(points, keep)
    if spot < len(points) and points[spot] == keep:
        return points
    return [*points[:spot], keep, *points[spot:]]


def believed_counts(times: Mapping[str, list[int]], points: list[int]) -> list[int]:
    """How many facts were believed at each instant: the count the page shows for the chosen
    one (``logic.time_travel.believed_count``, the filter of ``claimgraph facts --as-of``:
    neither forgotten nor dormant), so the sparkline and that count never disagree."""
    return [defined.believed_count(times, t) for t in points]


def spark_x(index: int, stops: int) -> float:
    """Where the ``index``-th of ``stops`` instants sits across the sparkline: where the
    slider's thumb sits on it (both step through the instants, not clock time). Rounded to a
    tenth with halves up, as the page's script places the mark when the slider moves
    (``Math.round``; Python's ``round`` takes halves to even, 56.2 where the script says 56.3)."""
    return math.floor(index * SPARK_WIDTH / max(1, stops - 1) * 10 + 0.5) / 10


def sparkline(counts: list[int]) -> str:
    """An SVG polyline's points: the number believed at every instant of the slider, left to
    right, each at its stop (none left out, so the line has each stop's count)."""
    top = max([1, *counts])
    return " ".join(f"{spark_x(i, len(counts))},{round(SPARK_HEIGHT - c * SPARK_HEIGHT / top, 1)}"
                    for i, c in enumerate(counts))


#: ``kept(key, build)``: the value kept for ``key`` at the store's current state, else
#: ``build()``'s (the viewer's, per store state); ``_unkept`` builds every time.
Kept = Callable[[Hashable, Callable[[], Any]], Any]


def _unkept(key: Hashable, build: Callable[[], Any]) -> Any:
    return build()


def as_of(src: Source, project_id: str, at_text: str | None,
          kept: Kept = _unkept) -> dict[str, Any]:
    at_given = parse_at(at_text)
    with src.shell() as sh:
        now = sh.now()
        if not sh.store.list_entities(scope=project_id):
            raise NotFound(f"no project {project_id!r} in this store")
        wanted = scopes(project_id)
        reader = Reader(sh.store, wanted)

        def timeline() -> tuple[dict[str, list[int]], list[int]]:
            times = reader.valid_times()
            return times, changes(times)
        times, changed = kept(("timeline", project_id), timeline)
        at = now if at_given is None else min(at_given, now)
        points = thinned(instants_until(changed, now), at)
        previous = max((t for t in points if t < at), default=None)
        found = reader.believed_at(at, previous, MAX_SHOWN, src.half_life_days)
        by_id = {f["id"]: f for f in sh.store.get_facts_by_ids(
            sorted({*found["ids"], *found["began"], *found["ended"]}))}
    counts = believed_counts(times, points)
    index = _index(points, at)
    shown = [with_state(with_effective_confidence(by_id[fid], at, src.half_life_days))
             for fid in found["ids"]]
    return {"project": project_id, "now": now, "at": at, "facts": shown,
            "total": counts[index], "instants": points, "index": index,
            "changes": {"began": [by_id[fid] for fid in found["began"]],
                        "ended": [by_id[fid] for fid in found["ended"]]},
            "previous": previous, "counts": counts, "spark": sparkline(counts),
            "spark_at": spark_x(index, len(points)), "spark_size": (SPARK_WIDTH, SPARK_HEIGHT)}


class Reader:
    """The store's own time-travel queries, or their definitions over the scopes read whole
    (once) where a store has none."""

    def __init__(self, store: Any, wanted: list[str]) -> None:
        self.store, self.wanted = store, wanted
        self._facts: list[dict[str, Any]] | None = None

    def _all(self) -> list[dict[str, Any]]:
        if self._facts is None:
            self._facts = self.store.select_facts(scopes=self.wanted)
        return self._facts

    def valid_times(self) -> dict[str, list[int]]:
        if hasattr(self.store, "valid_times"):
            times: dict[str, list[int]] = self.store.valid_times(self.wanted)
            return times
        return defined.valid_times(self._all())

    def believed_at(self, at: int, since: int | None, limit: int,
                    half_life_days: float) -> dict[str, Any]:
        if hasattr(self.store, "believed_at"):  # counted from the timeline (``as_of``)
            believed: dict[str, Any] = self.store.believed_at(
                self.wanted, at, since=since, limit=limit, half_life_days=half_life_days,
                count=False)
            return believed
        return defined.believed_at(self._all(), at, since, limit, half_life_days)


def _index(points: list[int], at: int) -> int:
    """The slider's position: the last instant at or before ``at``."""
    return max(0, bisect_right(points, at) - 1)
