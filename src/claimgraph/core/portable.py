"""Dump and load: the store as JSON lines, for backup, review and moving between machines.

Dumps carry no timestamp of their own and are sorted, so an unchanged store dumps
byte-identically. Times are ISO-8601 with milliseconds. Load validates the WHOLE input
before writing anything, and refuses a non-empty store (docs/store.md). Given the store's
sidecars, a dump also carries the evidence its episodes cite (``dump_evidence``), so a
restored store still shows provenance down to the transcript line.

The capture high-water marks travel too (``mark`` records, keys ``capture:…``): without them a
loaded store would capture every session again from its start, opening a duplicate episode
and reinforcing its facts a second time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from claimgraph import STORE_FORMAT, __version__
from claimgraph.core import dump_evidence as EV
from claimgraph.core import tombstones as T
from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso, to_iso
from claimgraph.sidecar import Sidecars

HEADER_RECORD = "claimgraph-dump"
TOMBSTONE = "tombstone"
KINDS = ("predicate", "entity", "episode", "fact", EV.KIND, "mark", TOMBSTONE)
MARK_PREFIX = "capture:"
EPISODE_TIMES = ("opened_at", "closed_at")
FACT_TIMES = ("t_valid", "t_invalid", "recorded_at", "last_reinforced_at", "dormant_since")


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _with_times(record: dict[str, Any], fields: tuple[str, ...], convert: Any) -> dict[str, Any]:
    return {**record,
            **{f: convert(record[f]) if record.get(f) is not None else None for f in fields}}


def _fact_record(fact: dict[str, Any]) -> dict[str, Any]:
    """Entities are referenced by id; the entity records carry their names."""
    flat = {**fact, "subject": fact["subject"]["id"],
            "object_ref": (fact.get("object_ref") or {}).get("id")}
    flat.pop("effective_confidence", None)
    return {"record": "fact", **_with_times(flat, FACT_TIMES, to_iso)}


def dump_lines(sh: Shell, sidecars: Sidecars | None = None, bundle: Path | None = None,
               missing: list[str] | None = None) -> Iterator[str]:
    """The header, then predicates, entities, episodes, the episodes' evidence (when the
    store's ``sidecars`` are given; into ``bundle`` when given) and facts, each in a stable
    order. Evidence the tier no longer holds is listed in ``missing``."""
    store = sh.store
    yield _line({"record": HEADER_RECORD, "format": STORE_FORMAT, "version": __version__})
    for row in store.list_predicates():
        yield _line({"record": "predicate", **row})
    for entity in sorted(store.list_entities(), key=lambda e: e["id"]):
        yield _line({"record": "entity", **entity, "aliases": sorted(entity.get("aliases") or [])})
    episodes = sorted(store.list_episodes(), key=lambda e: e["id"])
    for episode in episodes:
        yield _line({"record": "episode", **_with_times(episode, EPISODE_TIMES, to_iso)})
    if sidecars is not None:
        names = EV.referenced(episodes)
        for record in EV.evidence_records(names, sidecars, bundle, [] if missing is None
                                          else missing):
            yield _line(record)
    for fact in store.all_facts():  # by recorded_at, then write order: the same every run
        yield _line(_fact_record(fact))
    for key, value in store.list_marks(MARK_PREFIX).items():
        yield _line({"record": "mark", "key": key, "value": value})
    for key, value in T.all_tombstones(store).items():  # what a purge took stays taken
        yield _line({"record": TOMBSTONE, "key": key, "value": value})


def _refuse(type: str, message: str, hint: str, **data: Any) -> ClaimgraphError:
    return ClaimgraphError(type, message, hint=hint, **data)


def _parse(lines: Iterable[str]) -> list[tuple[int, dict[str, Any]]]:
    records = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as err:
            raise _refuse("invalid-dump", f"line {number} is not JSON ({err.msg})",
                          "check the file is a claimgraph dump", line=number) from None
        if not isinstance(record, dict):
            raise _refuse("invalid-dump", f"line {number} is not a JSON object",
                          "check the file is a claimgraph dump", line=number)
        records.append((number, record))
    return records


def _check_header(records: list[tuple[int, dict[str, Any]]]) -> None:
    if not records:
        raise _refuse("empty-dump", "the dump is empty", "dump a store with `claimgraph dump`")
    header = records[0][1]
    fmt = header.get("format")
    if header.get("record") != HEADER_RECORD or not isinstance(fmt, int) or isinstance(fmt, bool):
        raise _refuse("invalid-dump",
                      "the first line is not a claimgraph dump header with an integer format",
                      "check the file is a claimgraph dump")
    if fmt > STORE_FORMAT:
        raise _refuse("future-format",
                      f"the dump is format {fmt}, newer than this claimgraph's format "
                      f"{STORE_FORMAT}",
                      "upgrade claimgraph to load it", format=fmt, supported=STORE_FORMAT)


def _check_kinds(records: list[tuple[int, dict[str, Any]]]) -> None:
    for number, record in records[1:]:
        kind = record.get("record")
        if kind is None:
            pre_alpha = " (its kind sits on \"type\": a pre-alpha dump)" if "type" in record else ""
            raise _refuse("unstamped-record", f"line {number} has no \"record\" kind{pre_alpha}",
                          "re-dump it with a current claimgraph", line=number)
        if kind not in KINDS:
            raise _refuse("unknown-record", f"line {number} has unknown kind {kind!r}",
                          "it may come from a newer claimgraph; upgrade", line=number)


def load_lines(sh: Shell, lines: Iterable[str], sidecars: Sidecars | None = None,
               bundle: Path | None = None) -> dict[str, int]:
    """Restore a dump into an EMPTY store, ids kept, invalidations and conflicts re-applied;
    its evidence goes into ``sidecars``' tier (checked against each name first)."""
    return load_parsed(sh, parse_dump(lines, bundle if sidecars is not None else None,
                                      with_evidence=sidecars is not None), sidecars)


def parse_dump(lines: Iterable[str], bundle: Path | None = None,
               with_evidence: bool = True) -> dict[str, Any]:
    """The WHOLE dump validated, records by kind, evidence texts checked against their names:
    everything that can refuse a dump does so before a store is created or touched."""
    records = _parse(lines)
    _check_header(records)
    _check_kinds(records)
    by_kind: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    for _, record in records[1:]:
        by_kind[record.pop("record")].append(record)
    texts = EV.resolve_texts(by_kind[EV.KIND], bundle) if with_evidence else {}
    return {"by_kind": by_kind, "texts": texts}


def load_parsed(sh: Shell, parsed: dict[str, Any],
                sidecars: Sidecars | None = None) -> dict[str, int]:
    """Fill an EMPTY store from ``parse_dump``'s result."""
    if not sh.store.is_empty():
        raise _refuse("store-not-empty",
                      "the store already holds data; load only fills an empty store",
                      "load into a new --db, or dump this one first")
    by_kind = parsed["by_kind"]
    if sidecars is not None:
        EV.restore(parsed["texts"], sidecars)  # first: a restored episode never lacks its text
    with sh.store.transaction():
        _restore(sh, by_kind)
    sh.forget_predicates()
    return {kind: len(rows) for kind, rows in by_kind.items() if kind != TOMBSTONE or rows}


def _restore(sh: Shell, by_kind: dict[str, list[dict[str, Any]]]) -> None:
    store = sh.store
    for row in by_kind["predicate"]:
        store.register_predicate(row)
    entities = {}
    for entity in by_kind["entity"]:
        entities[entity["id"]] = store.insert_entity(entity)
    for episode in by_kind["episode"]:
        store.open_episode(_with_times(episode, EPISODE_TIMES, from_iso))
    for row in by_kind[TOMBSTONE]:
        if str(row.get("key", "")).startswith(T.TOMBSTONE_PREFIX):
            store.set_mark(row["key"], row.get("value"))
    facts = [f for f in (_with_times(f, FACT_TIMES, from_iso) for f in by_kind["fact"])
             if not _buried(store, f, entities)]
    store.insert_facts([_raw_fact(f, entities) for f in facts])
    for fact in facts:
        if fact.get("t_invalid") is not None:
            store.invalidate(fact["id"], fact["t_invalid"], kind=fact.get("invalidation_kind"),
                             reason=fact.get("invalidation_reason"),
                             successor=fact.get("successor"))
        if fact.get("conflicts"):
            store.link_conflicts(fact["id"], fact["conflicts"])
    for mark in by_kind["mark"]:
        if isinstance(mark.get("key"), str) and mark["key"].startswith(MARK_PREFIX):
            store.set_mark(mark["key"], mark.get("value"))


def _buried(store: Any, fact: dict[str, Any], entities: dict[str, dict[str, Any]]) -> bool:
    """A fact the dump's own tombstones say was purged is never restored."""
    return T.is_buried(store, {**fact, "subject": entities.get(fact["subject"]) or {},
                               "object_ref": entities.get(fact.get("object_ref") or "")})


def _raw_fact(fact: dict[str, Any], entities: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The fact as first asserted: no invalidation, no links (those are re-applied after)."""
    return {**fact, "subject": entities[fact["subject"]],
            "object_ref": entities.get(fact["object_ref"]) if fact.get("object_ref") else None,
            "t_invalid": None, "invalidation_kind": None, "invalidation_reason": None,
            "successor": None, "conflicts": []}
