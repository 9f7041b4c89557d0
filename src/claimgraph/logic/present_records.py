"""How a record is shown outside: as JSON for machines and as one line of text for people.

One encoder for every frontend (the CLI's output, the MCP server's tool results): JSON carries
ISO-8601 times with milliseconds and reduces embedded entities to their names (ids stay
available on the entity records themselves); keys come out in a fixed order, so the same store
always prints the same bytes. Pure: values in, values or text out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from claimgraph.logic.names import object_name
from claimgraph.logic.trust_tiers import TEAMMATE, teammate_label, teammate_writer
from claimgraph.logic.timeutil import to_date, to_iso

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable

#: Integer-millisecond fields that JSON output turns into ISO-8601 text.
TIME_KEYS = frozenset({"t_valid", "t_invalid", "recorded_at", "last_reinforced_at",
                       "opened_at", "closed_at", "as_of", "at", "dormant_since"})
FACT_KEYS = ("id", "subject", "predicate", "object", "object_kind", "t_valid", "t_invalid",
             "recorded_at", "last_reinforced_at", "confidence", "effective_confidence",
             "epistemic", "scope", "source_type", "episode", "conflicts", "invalidation_kind",
             "invalidation_reason", "successor", "evidence", "state", "dormant_since")
SHORT_ID_CHARS = 8


def jsonable(value: Any, key: str | None = None) -> Any:
    """Times under known keys become ISO text; containers are converted all the way down."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [jsonable(v) for v in items]
    if key in TIME_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return to_iso(value)
    return value


def fact_json(fact: Mapping[str, Any]) -> dict[str, Any]:
    """A fact as machines read it: subject and object by name, no hydrated entity maps."""
    flat = {**fact, "subject": (fact.get("subject") or {}).get("name"), "object": object_name(fact)}
    record = {key: flat.get(key) for key in FACT_KEYS}
    if teammate_writer(fact):  # a teammate's fact says whose it is (docs/sync.md)
        record[TEAMMATE] = teammate_label(fact)
    if "effective_confidence" not in fact:
        record.pop("effective_confidence")
    return jsonable(record)


def entity_json(entity: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if entity is None:
        return None
    record = {k: entity.get(k) for k in ("id", "name", "type", "scope", "aliases")}
    if "depth" in entity:
        record["depth"] = entity["depth"]
    return record


def facts_json(facts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [fact_json(f) for f in facts]


def short_id(full: str | None) -> str:
    """``f-1234abcd`` for ``f-1234abcd-...``: enough to tell facts apart and to type back."""
    if not full:
        return "-"
    prefix, sep, rest = full.partition("-")
    return f"{prefix}-{rest[:SHORT_ID_CHARS]}" if sep else full


def show_name(name: Any) -> str:
    """Names with spaces are quoted so the three parts of a fact stay readable."""
    text = "" if name is None else str(name)
    return json.dumps(text, ensure_ascii=False) if (not text or any(c.isspace() for c in text)) else text


#: Namespaces a person never needs to read: the built-in vocabulary's (``core/``) and the
#: extension namespace capture uses (``x/``). A user's own namespace (``team/…``) stays.
_PLAIN_NAMESPACES = ("core/", "x/")


def show_predicate(pred_id: str | None) -> str:
    """Predicates read as plain verbs (``decided-against``, ``convention``); ``--json`` keeps
    the ids."""
    text = pred_id or "?"
    for namespace in _PLAIN_NAMESPACES:
        if text.startswith(namespace):
            return text[len(namespace):]
    return text


def fact_text(fact: Mapping[str, Any]) -> str:
    subject = (fact.get("subject") or {}).get("name")
    return f"{show_name(subject)} {show_predicate(fact.get('predicate'))} {show_name(object_name(fact))}"


def validity(fact: Mapping[str, Any]) -> str:
    start, end = fact.get("t_valid"), fact.get("t_invalid")
    if end is None:
        return f"valid since {to_date(start)}" if start is not None else "valid"
    closed = f"valid {to_date(start)} → {to_date(end)}"
    kind = fact.get("invalidation_kind")
    if kind and fact.get("successor"):
        return f"{closed}, {kind} by {short_id(fact['successor'])}"
    return f"{closed}, {kind}" if kind else closed


def fact_line(fact: Mapping[str, Any]) -> str:
    """``f-1234abcd  api prefers REST  (conf 0.80, valid since 2026-01-01)``"""
    conf = fact.get("effective_confidence", fact.get("confidence")) or 0.0
    details = [f"conf {conf:.2f}", validity(fact)]
    if fact.get("epistemic") == "commitment":
        details.insert(1, "commitment")
    links = fact.get("conflicts") or []
    if links:
        details.append("conflicts with " + ", ".join(short_id(i) for i in links))
    if teammate_writer(fact):
        details.insert(0, "from " + teammate_label(fact))
    return f"{short_id(fact.get('id'))}  {fact_text(fact)}  ({', '.join(details)})"


def entity_line(entity: Mapping[str, Any]) -> str:
    """``e-1234abcd  billing-api  (service, scope project, aka billing)``"""
    details = [d for d in (entity.get("type"), f"scope {entity.get('scope')}") if d]
    if entity.get("aliases"):
        details.append("aka " + ", ".join(entity["aliases"]))
    return f"{short_id(entity.get('id'))}  {show_name(entity.get('name'))}  ({', '.join(details)})"


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"
