"""Time travel: what a project's memory believed at any instant of its timeline.

The timeline's instants are the moments something changed: a fact's valid time began or ended.
What was believed at an instant is exactly ``claimgraph facts --scope P --as-of T`` (the same
filter and order, ``core.reads.believed``), over the project's scope and the user scope, read
from the store once. The slider moves over the instants, not over clock time, so a burst of
changes in one afternoon is as easy to step through as a quiet month.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Iterable, Mapping

from claimgraph.core.context import scopes
from claimgraph.core.reads import believed
from claimgraph.logic.retrieval import fact_filter
from claimgraph.logic.timeutil import from_iso
from claimgraph.errors import ClaimgraphError
from claimgraph.viewer.source import BadRequest, NotFound, Source

MAX_INSTANTS = 1_000
MAX_SHOWN = 200
SPARK_POINTS = 200
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


def instants(facts: Iterable[Mapping[str, Any]], now: int) -> list[int]:
    """Every instant at which a fact began or stopped being valid, up to now, and now."""
    found = {t for f in facts for t in (f.get("t_valid"), f.get("t_invalid"))
             if t is not None and t <= now}
    return sorted(found | {now})


def thinned(points: list[int], keep: int, limit: int = MAX_INSTANTS) -> list[int]:
    """At most ``limit`` instants, evenly spread, always with the first, last and ``keep``."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    picked = {points[round(i * step)] for i in range(limit)}
    return sorted(picked | {keep})


def believed_counts(facts: Iterable[Mapping[str, Any]], points: list[int]) -> list[int]:
    """How many facts were valid at each instant (a sweep over begin and end times)."""
    begins = sorted(f["t_valid"] for f in facts if f.get("t_valid") is not None)
    ends = sorted(f["t_invalid"] for f in facts if f.get("t_invalid") is not None)
    return [bisect_right(begins, t) - bisect_right(ends, t) for t in points]


def sparkline(points: list[int], counts: list[int]) -> str:
    """An SVG polyline's points: the number believed over the timeline, left to right."""
    if not points:
        return ""
    step = max(1, len(points) // SPARK_POINTS)
    pairs = list(zip(points, counts))[::step]
    top = max([1, *counts])
    width = max(1, len(pairs) - 1)
    return " ".join(f"{round(i * SPARK_WIDTH / width)},{round(SPARK_HEIGHT - c * SPARK_HEIGHT / top)}"
                    for i, (_, c) in enumerate(pairs))


def as_of(src: Source, project_id: str, at_text: str | None) -> dict[str, Any]:
    at_given = parse_at(at_text)
    with src.shell() as sh:
        now = sh.now()
        wanted = scopes(project_id)
        facts = sh.store.select_facts(scopes=wanted)
    if not any(f["scope"] == project_id for f in facts):
        raise NotFound(f"no project {project_id!r} in this store")
    at = now if at_given is None else min(at_given, now)
    keep = fact_filter(at=at, half_life_days=src.half_life_days)
    shown = believed(facts, wanted, keep, at, src.half_life_days)
    points = thinned(instants(facts, now), at)
    previous = max((t for t in points if t < at), default=None)
    return {"project": project_id, "now": now, "at": at, "facts": shown[:MAX_SHOWN],
            "total": len(shown), "instants": points, "index": _index(points, at),
            "changes": changes(facts, previous, at), "previous": previous,
            "spark": sparkline(points, believed_counts(facts, points)),
            "spark_size": (SPARK_WIDTH, SPARK_HEIGHT)}


def _index(points: list[int], at: int) -> int:
    """The slider's position: the last instant at or before ``at``."""
    return max(0, bisect_right(points, at) - 1)


def changes(facts: Iterable[Mapping[str, Any]], since: int | None,
            at: int) -> dict[str, list[Mapping[str, Any]]]:
    """Facts that began, and that ended, after the previous instant and up to ``at``."""
    def within(t: int | None) -> bool:
        return t is not None and (since is None or t > since) and t <= at
    facts = list(facts)
    began = [f for f in facts if within(f.get("t_valid"))]
    ended = [f for f in facts if within(f.get("t_invalid"))]
    return {"began": began[:MAX_SHOWN], "ended": ended[:MAX_SHOWN]}
