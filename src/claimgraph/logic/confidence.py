"""Confidence as a view: decay by disuse, and what reinforcement does (REFERENCE §4).

Nothing here is stored; effective confidence is computed at read time from ``now``.
"""

from __future__ import annotations

from claimgraph.logic.model import confidence_ceiling
from claimgraph.logic.timeutil import DAY_MS

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

DEFAULT_HALF_LIFE_DAYS = 90
CONFIDENCE_FLOOR = 0.05


def never_fades(fact: Mapping[str, Any]) -> bool:
    """Commitments and decision records are standing decisions: disuse does not weaken them."""
    return fact.get("epistemic") == "commitment" or fact.get("source_type") == "decision-record"


def effective_confidence(
    fact: Mapping[str, Any],
    now: int,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    floor: float = CONFIDENCE_FLOOR,
) -> float:
    """Stored confidence halved per half-life since the last reinforcement, never below floor.

    An instant before the anchor counts zero periods, so time travel sees the base value.
    """
    conf = fact["confidence"]
    recorded = fact.get("recorded_at")
    if never_fades(fact) or recorded is None:
        return conf
    anchor = max(recorded, fact.get("last_reinforced_at") or recorded)
    periods = max(0.0, (now - anchor) / (DAY_MS * half_life_days))
    return max(floor, conf * 0.5 ** periods)


def effective_confidences(facts: Iterable[tuple[str, Mapping[str, Any]]], now: int,
                          into: dict[str, float],
                          half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                          floor: float = CONFIDENCE_FLOOR) -> None:
    """``effective_confidence`` of each (id, fact) not in ``into`` yet, stored there by id.

    The same arithmetic in one loop: search ranks thousands of facts of a popular entity, and
    a call per fact was most of its Python time."""
    period = DAY_MS * half_life_days
    for fact_id, fact in facts:
        if fact_id in into:
            continue
        conf = fact["confidence"]
        recorded = fact.get("recorded_at")
        if (recorded is None or fact.get("epistemic") == "commitment"
                or fact.get("source_type") == "decision-record"):
            into[fact_id] = conf
            continue
        # max() spelled as conditionals (same picks, same floats): builtin calls were a
        # third of this loop's time.
        reinforced = fact.get("last_reinforced_at") or recorded
        periods = (now - (reinforced if reinforced > recorded else recorded)) / period
        value = conf * 0.5 ** (periods if periods > 0.0 else 0.0)
        into[fact_id] = value if value > floor else floor


def resourced_type(existing_source: str | None, incoming_source: str | None) -> str | None:
    """The source a reinforced fact keeps: the incoming one wins only with a STRICTLY higher ceiling."""
    if incoming_source and confidence_ceiling(incoming_source) > confidence_ceiling(existing_source):
        return incoming_source
    return existing_source


def reinforced_confidence(existing: Mapping[str, Any], incoming_confidence: float,
                          incoming_source: str | None = None) -> float:
    """Reinforcement never lowers a base and never lifts it past the (re)source's ceiling.

    Repetition alone does not raise belief beyond what the source may claim; resetting the
    disuse clock is the reinforcement.
    """
    source = resourced_type(existing.get("source_type"), incoming_source or existing.get("source_type"))
    return max(existing["confidence"], min(confidence_ceiling(source), incoming_confidence))
