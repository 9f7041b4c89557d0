"""What a tool's answer looks like to the agent: compact JSON with ISO-8601 millisecond times.

The CLI's ``--json`` record of a fact carries every field, null or not; an agent pays for each
token of a tool result, so these views drop empty fields and keep the shapes otherwise the
same (``logic.present_records`` is the one encoder of records and times).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from claimgraph.logic.present_records import entity_json, fact_json, jsonable
from claimgraph.logic.safe_render import fact_held

EPISODE_KEYS = ("id", "ref", "source_type", "summary", "opened_at", "closed_at", "evidence")
#: Bookkeeping an agent does not reason with; ``claimgraph facts --json`` has all of it.
DROPPED_FACT_KEYS = ("object_kind", "recorded_at", "last_reinforced_at")


def compact(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record without null, empty-list or empty-text fields."""
    return {k: v for k, v in record.items() if v is not None and v != [] and v != ""}


def fact_view(fact: Mapping[str, Any]) -> dict[str, Any]:
    view = {k: v for k, v in compact(fact_json(fact)).items() if k not in DROPPED_FACT_KEYS}
    if "effective_confidence" in view:
        view.pop("confidence", None)
    for key in ("confidence", "effective_confidence"):
        if isinstance(view.get(key), float):
            view[key] = round(view[key], 3)
    reason = fact_held(fact)
    if reason:  # shown on request, but marked: it is not memory to act on (logic.safe_render)
        view["held_for_review"] = reason
    if fact.get("retrieval_score") is not None:
        view["retrieval_score"] = round(fact["retrieval_score"], 6)
    return view


def facts_view(facts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [fact_view(f) for f in facts]


def entity_view(entity: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if entity is None else compact(entity_json(entity) or {})


def episode_view(episode: Mapping[str, Any]) -> dict[str, Any]:
    return compact(jsonable({k: episode.get(k) for k in EPISODE_KEYS}))


def pair_view(pair: Mapping[str, Any]) -> dict[str, Any]:
    return {"fact": fact_view(pair["fact"]), "candidate": fact_view(pair["candidate"])}


def wire(value: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's answer as it goes out: millisecond times under known keys become ISO text,
    all the way down."""
    shown: dict[str, Any] = jsonable(value)
    return shown
