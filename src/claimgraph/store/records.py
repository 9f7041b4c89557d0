"""Record shaping shared by every backend, so memory and SQLite answer byte-for-byte alike.

Backends differ in how they keep data, never in what a caller gets back: the same field
order, the same defaults, the same sort keys and the same refusals. Anything both backends
must agree on lives here, once.
"""

from __future__ import annotations

import json

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import (
    AUDIT_FIELDS, DEFAULT_SCOPE, ENTITY_FIELDS, EPISODE_FIELDS, FACT_FIELDS, FACT_HEAD_FIELDS,
    PREDICATE_FIELDS, REQUIRED_FACT_FIELDS,
)

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, Sequence

    Record = dict[str, Any]
else:
    Record = dict  # the same at run time (annotations are never evaluated), without typing

#: The trigram index cannot see fewer characters, so neither backend matches them.
MIN_SEARCH_CHARS = 3
DIRECTIONS = ("out", "in", "both")
#: The write counter's mark: bumped by every transaction that changed anything but marks
#: (docs/store.md, "The write counter"); ``Store.write_count`` reads it.
WRITES_MARK = "store:writes"


def write_count(value: Any) -> int:
    """The counter's mark value as a count (0 when the store was never written)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def ref_id(ref: Any) -> str | None:
    """An entity reference given as an entity dict or a bare id -> the id."""
    if isinstance(ref, dict):
        found = ref.get("id")
        return None if found is None else str(found)
    return None if ref is None else str(ref)


def fact_head(fact: Record) -> Record:
    """A whole fact cut to ``FACT_HEAD_FIELDS``, its ends as bare ids (``get_fact_heads_for``'s
    shape), for a backend that reads facts whole anyway."""
    head = {field: fact.get(field) for field in FACT_HEAD_FIELDS}
    head["subject"], head["object_ref"] = ref_id(fact["subject"]), ref_id(fact.get("object_ref"))
    return head


#: A search route's head: a fact head, its literal and its episode (``search_head``).
SEARCH_HEAD_FIELDS = (*FACT_HEAD_FIELDS, "object_lit", "episode")


def search_head(fact: Record) -> Record:
    """``fact_head``, the literal and the episode: what search's word and full-text routes hand
    back as a head (a route tells facts that say the same words apart by nothing else; the
    episode comes with the row, so the episode arm need not read it again by id)."""
    return {**fact_head(fact), "object_lit": fact.get("object_lit"),
            "episode": fact.get("episode")}


def in_asked_order(wanted: Sequence[str], found: Mapping[str, Record]) -> list[Record]:
    """The found records in the order ids were asked for, unknown ids skipped; an id asked
    twice gets a copy the second time (a caller may change one without changing the other)."""
    out: list[Record] = []
    handed: set[str] = set()
    for record_id in (i for i in wanted if i in found):
        if record_id in handed:
            import copy  # an id asked twice is rare: a read does not load copy (and weakref)
            out.append(copy.deepcopy(found[record_id]))
        else:
            out.append(found[record_id])
        handed.add(record_id)
    return out


def as_list(values: Iterable[str] | str | None) -> list[str] | None:
    """Filters take any iterable; a lone string means one value, not its characters."""
    if values is None:
        return None
    if isinstance(values, str):
        return [values]
    return list(values)


def check_direction(direction: str) -> None:
    """Refuse a typo loudly rather than silently returning nothing."""
    if direction not in DIRECTIONS:
        raise ClaimgraphError("invalid-direction", f"unknown direction {direction!r}",
                              hint="use one of: out, in, both", direction=direction)


def check_fact(fact: Mapping[str, Any]) -> None:
    """A raw insert still refuses a fact missing a non-nullable field (docs/data-model.md)."""
    for field in REQUIRED_FACT_FIELDS:
        if fact.get(field) is None:
            raise ClaimgraphError(
                "invalid-fact", f"fact {fact.get('id')!r} has no {field}",
                hint="build facts with logic.facts before storing them",
                fact=fact.get("id"), field=field)


def stored_fact(fact: Mapping[str, Any], checked: bool = False) -> Record:
    """A fact as kept: every field present, entities by id, links sorted and unique.
    ``checked``: a store has just accepted it (the oplog's copy of a batch need not ask again)."""
    if not checked:
        check_fact(fact)
    row = {field: fact.get(field) for field in FACT_FIELDS}
    row["subject"] = ref_id(row["subject"])
    row["object_ref"] = ref_id(row["object_ref"])
    row["confidence"] = float(fact["confidence"])
    row["conflicts"] = sorted(set(fact.get("conflicts") or ()))
    row["evidence"] = list(fact.get("evidence") or ())
    return row


def entity_record(entity: Mapping[str, Any]) -> Record:
    """A complete entity: scope defaults to "project", aliases are a unique list."""
    if not entity.get("id") or not entity.get("name"):
        raise ClaimgraphError("invalid-entity", "an entity needs an id and a name",
                              hint="mint an id (e-<uuid>) and pass the name", entity=dict(entity))
    row = {field: entity.get(field) for field in ENTITY_FIELDS}
    row["scope"] = row["scope"] or DEFAULT_SCOPE
    row["aliases"] = unique(entity.get("aliases") or ())
    return row


def episode_record(episode: Mapping[str, Any]) -> Record:
    """A complete episode with every field present."""
    if not episode.get("id"):
        raise ClaimgraphError("invalid-episode", "an episode needs an id",
                              hint="mint an id (ep-<uuid>)", episode=dict(episode))
    return {field: episode.get(field) for field in EPISODE_FIELDS}


def audit_record(row: Mapping[str, Any]) -> Record:
    """A complete audit verdict row: every field present, ``details`` a JSON-clean dict."""
    for field in ("fact_id", "evidence", "verdict", "checked_at"):
        if row.get(field) is None:
            raise ClaimgraphError("invalid-audit", f"an audit verdict needs {field}",
                                  hint="build rows with core.audit_record", field=field,
                                  fact=row.get("fact_id"))
    out = {field: row.get(field) for field in AUDIT_FIELDS}
    out["checked_at"] = int(row["checked_at"])
    out["details"] = json.loads(json.dumps(row.get("details") or {}, sort_keys=True))
    return out


def audit_order(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """Audit rows: by fact id, then the citation text."""
    return (row["fact_id"], row["evidence"])


def unique(values: Iterable[str]) -> list[str]:
    """Drop repeats, keep first-seen order."""
    return list(dict.fromkeys(values))


def merge_aliases(current: Sequence[str], add: Sequence[str], remove: Sequence[str]) -> list[str]:
    """Adds apply before removes, so adding and removing one alias removes it."""
    gone = set(remove)
    return [alias for alias in unique([*current, *add]) if alias not in gone]


def is_curated(pred_id: str) -> bool:
    """Only ``x/*`` rows are staging rows that registration amends; the rest are reconciled."""
    return not str(pred_id).startswith("x/")


def registered_predicate(old: Mapping[str, Any] | None, row: Mapping[str, Any]) -> Record:
    """Reconcile a curated row (replace whole) or amend a staging row (merge non-None)."""
    if not row.get("id"):
        raise ClaimgraphError("invalid-predicate", "a predicate row needs an id",
                              hint="ids look like ns/name", row=dict(row))
    base = dict(old or {}) if not is_curated(row["id"]) else {}
    base.update({k: v for k, v in row.items() if k in PREDICATE_FIELDS and v is not None})
    cleaned: Record = json.loads(json.dumps({field: base.get(field) for field in PREDICATE_FIELDS}))
    return cleaned


def search_text_ok(query: str) -> bool:
    """Queries too short for the trigram index match nothing, in every backend."""
    return len(query.strip()) >= MIN_SEARCH_CHARS


#: A literal holding it asks a question (``Store.episode_neighbours`` says which neighbours
#: follow one: the fact recorded after a question is likely its answer, docs/search.md).
ASKS = "?"


def asks(fact: Mapping[str, Any]) -> bool:
    """Whether the fact's literal asks a question (holds ``ASKS``), as every backend tells."""
    return ASKS in (fact.get("object_lit") or "")


def fact_order(fact: Mapping[str, Any]) -> tuple[Any, ...]:
    """The protocol's fact order: t_valid, then id."""
    return (fact["t_valid"], fact["id"])


def search_fact_order(fact: Mapping[str, Any]) -> tuple[Any, ...]:
    """Search hits: current beliefs first, newest first, then the literal, then id."""
    return (fact["t_invalid"] is not None, -fact["t_valid"], fact.get("object_lit") or "",
            fact["id"])


def search_episode_order(episode: Mapping[str, Any]) -> tuple[Any, ...]:
    """Search hits: newest episodes first (unknown open time last), then id."""
    opened = episode["opened_at"]
    return (opened is None, -(opened or 0), episode["id"])


def nulls_first(value: Any) -> tuple[Any, ...]:
    """SQLite sorts NULL before any value; Python must agree."""
    return (value is not None, value if value is not None else 0)


def counted(pairs: Iterable[tuple[Any, int]]) -> dict[Any, int]:
    """A count map in a stable key order (None first), so both backends print alike."""
    return dict(sorted(pairs, key=lambda kv: (kv[0] is not None, kv[0] or "")))


def stats_record(fmt: int, entities: int, total: int, valid: int, episodes: int,
                 predicates: dict[Any, int]) -> Record:
    """The shared stats shape (``Store.stats``, ``claimgraph stats``)."""
    return {"format": fmt, "entities": entities,
            "facts": {"total": total, "valid": valid, "invalidated": total - valid},
            "episodes": episodes, "predicates": counted(predicates.items())}


def scope_count_record(total: int, valid: int, dormant: int, suspect: int,
                       last_recorded_at: int | None) -> Record:
    """One scope's counts, the same shape from every backend (``Store.scope_counts``)."""
    return {"total": total, "valid": valid, "dormant": dormant, "suspect": suspect,
            "last_recorded_at": last_recorded_at}


def not_found(kind: str, ident: str) -> ClaimgraphError:
    """The one refusal for a write aimed at a record that is not there."""
    return ClaimgraphError(f"{kind}-not-found", f"no {kind} with id {ident!r}",
                           hint=f"check the id (claimgraph lists {kind}s)", id=ident)


def exists(kind: str, ident: str, **data: Any) -> ClaimgraphError:
    """The one refusal for inserting a record whose identity is taken."""
    return ClaimgraphError(f"{kind}-exists", f"{kind} {ident!r} already exists",
                           hint="ids are minted once; look the record up instead", id=ident, **data)


def entity_in_use(entity_id: str) -> ClaimgraphError:
    """Facts are never deleted, so an entity they name may not be either."""
    return ClaimgraphError("entity-in-use", f"entity {entity_id!r} is still named by facts",
                           hint="repoint its facts (merge) before deleting it", id=entity_id)


def dangling_entity(entity_id: str) -> Record:
    """Hydration of a reference whose entity row is gone: keep the id, blank the rest."""
    return {"id": entity_id, "name": None, "type": None, "scope": None, "aliases": []}
