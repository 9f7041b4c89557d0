"""SqliteStore: the production Store on stdlib sqlite3 (DESIGN §3).

Statements live in ``sqlite_sql``, the schema and migrations in ``sqlite_schema``, and the
connection's guarantees (choke points, re-entrant transactions) in ``sqlite_db``; this module
maps protocol methods onto them and shapes rows exactly as ``store.memory`` does.

Hydration is the hot path of the write path (every fact read embeds two entities), so
entities are cached in-process. Our own entity writes evict; a rollback or another process's
commit (seen through ``PRAGMA data_version``) clears the cache before the next read.
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.logic.model import (
    AUDIT_FIELDS, CONTEXT_HEAD_FIELDS, ENTITY_FIELDS, EPISODE_FIELDS, FACT_FIELDS, FACT_HEAD_FIELDS,
    FACT_HEAD_FIELDS_NO_ENDS, SUSPECT_VERDICTS,
)
from claimgraph.logic.names import normalize_entity_name
from claimgraph.store import records as rec
from claimgraph.store import sqlite_schema as schema
from claimgraph.store import sqlite_sql as q
from claimgraph.store.sqlite_curation import SqliteCuration
from claimgraph.store.sqlite_db import SqliteDb
from claimgraph.store.sqlite_purge import SqlitePurge
from claimgraph.store.records import Record

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator, Mapping, Sequence

_ENTITY_CACHE_MAX = 50_000
_SUBJECT_AT, _OBJECT_REF_AT = FACT_FIELDS.index("subject"), FACT_FIELDS.index("object_ref")
SEARCH_INDEXES = ("fact_fts", "entity_fts", "episode_fts", "fact_words")


class SqliteStore(SqliteCuration, SqlitePurge):
    """A claimgraph store in one SQLite file (or ``":memory:"``)."""

    def __init__(self, path: str | Path = ":memory:",
                 migrations: Sequence[Sequence[str]] = schema.MIGRATIONS, *,
                 read_only: bool = False, snapshot_when_full: bool = False) -> None:
        """``read_only`` opens the file for reading only: no journal-mode write, no migration
        (an older format is refused), and any write attempt fails as ``store-read-only``.
        ``snapshot_when_full``: when the disk is too full to open for writing, read the file
        as it is (a reader must survive a full disk)."""
        self.path = str(path)
        self._entities: dict[str, Record] = {}
        self._unindexed_after: int | None = None
        self._unindexed_entities: set[str] = set()
        self._db = SqliteDb(path, migrations, before_commit=self._index_pending,
                            on_stale=self._forget, read_only=read_only,
                            snapshot_when_full=snapshot_when_full)

    def _forget(self, rolled_back: bool) -> None:
        """Cached entities may be stale; after a rollback, so are the pending-index notes."""
        self._entities.clear()
        if rolled_back:
            self._unindexed_after = None
            self._unindexed_entities.clear()

    def _index_pending(self) -> None:
        """Index what this transaction wrote in a few set-based statements (see sqlite_schema)."""
        if self._unindexed_after is not None:
            self._db.run(q.INDEX_NEW_LITERALS, (self._unindexed_after,))
            if self._has_words():
                self._db.run(q.INDEX_NEW_WORDS, (self._unindexed_after,))
            self._unindexed_after = None
        if self._unindexed_entities:
            ids = json.dumps(sorted(self._unindexed_entities))
            self._db.run(q.UNINDEX_ENTITIES, (ids,))
            self._db.run(q.INDEX_ENTITIES, (ids,))
            self._unindexed_entities.clear()

    def _note_new_facts(self) -> None:
        """Remember where this transaction's facts start (new pks are above every pk present
        now; only a purge deletes facts, and never one inserted in its own transaction)."""
        if self._unindexed_after is None:
            self._unindexed_after = self._db.one("SELECT coalesce(max(pk), 0) FROM facts")[0]

    # --- transactions and marks ------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """Outermost: BEGIN IMMEDIATE .. COMMIT, ROLLBACK on any exception. Inner: join."""
        return self._db.transaction()

    def get_mark(self, key: str) -> Any:
        row = self._db.one("SELECT value FROM marks WHERE key = ?", (key,))
        return None if row is None else json.loads(row[0])

    def set_mark(self, key: str, value: Any) -> None:
        with self._db.transaction():
            self._db.uncounted("INSERT OR REPLACE INTO marks (key, value) VALUES (?, ?)",
                               (key, json.dumps(value)))

    def write_count(self) -> int:
        return rec.write_count(self.get_mark(rec.WRITES_MARK))

    def reading(self) -> AbstractContextManager[None]:
        """Several reads from one snapshot (no write may happen inside)."""
        return self._db.reading()

    def check_integrity(self, quick: bool = True, limit: int = 20) -> list[str]:
        """SQLite's own check (``quick_check``: b-trees and pages, linear and cheap;
        ``integrity_check``: also every index against its table); the problems, [] if none."""
        pragma = "quick_check" if quick else "integrity_check"
        try:
            found = [row[0] for row in self._db.rows(f"PRAGMA {pragma}({int(limit)})")]
        except ClaimgraphError as error:
            return [error.message]
        problems = [] if found == ["ok"] else found
        tables = [t for t in SEARCH_INDEXES if t != "fact_words" or self._has_words()]
        for table in () if quick else tables:  # FTS5 checks its own index (format 6: words)
            try:
                self._db.run(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
            except (ClaimgraphError, sqlite3.DatabaseError) as error:
                problems.append(f"search index {table}: {error}")
        return problems

    def list_marks(self, prefix: str = "") -> dict[str, Any]:
        rows = self._db.rows("SELECT key, value FROM marks WHERE substr(key, 1, ?) = ? "
                             "ORDER BY key", (len(prefix), prefix))
        return {key: json.loads(value) for key, value in rows}

    # --- entities --------------------------------------------------------------------
    def insert_entity(self, entity: Record) -> Record:
        row = rec.entity_record(entity)
        with self._db.atomic(can_fail_midway=False):
            try:
                self._db.run(q.INSERT_ENTITY, (
                    row["id"], row["name"], normalize_entity_name(row["name"]), row["type"],
                    row["scope"], json.dumps(row["aliases"])))
            except sqlite3.IntegrityError:
                raise rec.exists("entity", row["id"]) from None
            if row["aliases"]:
                self._write_aliases(row["id"], row["aliases"], fresh=True)
            self._unindexed_entities.add(row["id"])
        return _entity_copy(row)

    def insert_entities(self, entities: Iterable[Record]) -> list[Record]:
        """One executemany per table (a savepoint inside a caller's block)."""
        rows = [rec.entity_record(e) for e in entities]
        params = [(r["id"], r["name"], normalize_entity_name(r["name"]), r["type"], r["scope"],
                   json.dumps(r["aliases"]) if r["aliases"] else "[]") for r in rows]
        aliases = [(r["id"], a, normalize_entity_name(a)) for r in rows for a in r["aliases"]]
        if not rows:
            return []
        try:
            with self._db.atomic(can_fail_midway=len(rows) > 1):
                self._db.many(q.INSERT_ENTITY, params)
                if aliases:
                    self._db.many(q.INSERT_ALIAS, aliases)
                self._unindexed_entities.update(r["id"] for r in rows)
        except sqlite3.IntegrityError:
            raise rec.exists("entity", self._taken_entity_id(rows)) from None
        return [_entity_copy(r) for r in rows]

    def _taken_entity_id(self, rows: list[Record]) -> str:
        """The first id of ``rows`` that the store (or an earlier row) already holds."""
        seen: set[str] = set()
        for row in rows:
            if row["id"] in seen or self._fetch_entity(row["id"]) is not None:
                return row["id"]
            seen.add(row["id"])
        return rows[0]["id"]

    def _write_aliases(self, entity_id: str, aliases: Sequence[str], fresh: bool = False) -> None:
        """Alias rows are derived from the entity's list (for normalized lookup); rewrite them."""
        if not fresh:
            self._db.run("DELETE FROM entity_aliases WHERE entity_id = ?", (entity_id,))
        self._db.many(q.INSERT_ALIAS, [(entity_id, a, normalize_entity_name(a)) for a in aliases])

    def get_entity(self, name: str, scope: str) -> Record | None:
        self._db.refresh()
        row = self._db.one(q.ENTITY_SELECT + " WHERE scope = ? AND name = ? ORDER BY id LIMIT 1",
                           (scope, name))
        return self._cached_entity(row) if row else None

    def get_entity_by_id(self, entity_id: str) -> Record | None:
        self._db.refresh()
        row = self._entity(entity_id)
        return _entity_copy(row) if row else None

    def find_entities(self, name: str, scope: str | None) -> list[Record]:
        self._db.refresh()
        rows = self._db.rows(q.FIND_ENTITIES, (normalize_entity_name(name), scope))
        return [self._cached_entity(r) for r in rows]

    def find_entities_many(self, names: Iterable[str],
                           scope: str | None) -> dict[str, list[Record]]:
        """One query for every name (a batch resolves all its names up front)."""
        self._db.refresh()
        norms = {name: normalize_entity_name(name) for name in set(names)}
        by_norm: dict[str, list[tuple]] = {}
        if norms:
            wanted = json.dumps(sorted(set(norms.values())), ensure_ascii=False)
            for norm, *row in self._db.rows(q.FIND_ENTITIES_MANY, (wanted, scope)):
                by_norm.setdefault(norm, []).append(tuple(row))
        for found in by_norm.values():
            found.sort(key=lambda row: (row[1], row[0]))  # ENTITY_ORDER: name, then id
        return {name: [self._cached_entity(r) for r in by_norm.get(norm, ())]
                for name, norm in norms.items()}

    def update_entity(self, entity_id: str, *, name: str | None = None, type: str | None = None,
                      add_aliases: Sequence[str] = (), remove_aliases: Sequence[str] = ()) -> Record:
        with self._db.atomic(can_fail_midway=False):
            row = self._fetch_entity(entity_id)
            if row is None:
                raise rec.not_found("entity", entity_id)
            row.update(name=name or row["name"], type=type or row["type"],
                       aliases=rec.merge_aliases(row["aliases"], add_aliases, remove_aliases))
            self._entities.pop(entity_id, None)
            self._db.run("UPDATE entities SET name = ?, norm = ?, type = ?, aliases = ?"
                         " WHERE id = ?", (row["name"], normalize_entity_name(row["name"]),
                                           row["type"], json.dumps(row["aliases"]), entity_id))
            self._write_aliases(entity_id, row["aliases"])
            self._unindexed_entities.add(entity_id)
        return _entity_copy(row)

    def repoint_facts(self, from_id: str, to_id: str) -> int:
        with self._db.transaction():
            if self._fetch_entity(to_id) is None:
                raise rec.not_found("entity", to_id)
            return self._db.run(
                "UPDATE facts SET subject_id = CASE WHEN subject_id = ?1 THEN ?2 ELSE subject_id END,"
                " object_ref_id = CASE WHEN object_ref_id = ?1 THEN ?2 ELSE object_ref_id END"
                " WHERE subject_id = ?1 OR object_ref_id = ?1", (from_id, to_id))

    def delete_entity(self, entity_id: str) -> None:
        with self._db.atomic(can_fail_midway=False):
            self._entities.pop(entity_id, None)
            try:
                self._db.run("DELETE FROM entities WHERE id = ?", (entity_id,))
            except sqlite3.IntegrityError:
                raise rec.entity_in_use(entity_id) from None

    def list_entities(self, type: str | None = None, scope: str | None = None) -> list[Record]:
        rows = self._db.rows(q.ENTITY_SELECT + " WHERE (?1 IS NULL OR type = ?1)"
                             " AND (?2 IS NULL OR scope = ?2)" + q.ENTITY_ORDER, (type, scope))
        return [_entity_from_row(r) for r in rows]

    def _entity(self, entity_id: str) -> Record | None:
        """The cached entity row (never handed out as is)."""
        row = self._entities.get(entity_id)
        return row if row is not None else self._fetch_entity(entity_id, cache=True)

    def _fetch_entity(self, entity_id: str, cache: bool = False) -> Record | None:
        row = self._db.one(q.ENTITY_SELECT + " WHERE id = ?", (entity_id,))
        if row is None:
            return None
        entity = _entity_from_row(row)
        if cache:
            self._remember(entity)
        return entity

    def _prefetch_entities(self, rows: list[tuple]) -> list[tuple]:
        """Cache the ends of these fact rows that are not cached yet, in ONE query, so that
        hydrating them does not ask once per fact (rows are FACT_FIELDS-ordered)."""
        missing = {end for row in rows for end in (row[_SUBJECT_AT], row[_OBJECT_REF_AT])
                   if end is not None and end not in self._entities}
        if len(missing) > 1:
            found = self._db.rows(q.ENTITY_SELECT + " WHERE id IN (SELECT value FROM json_each(?))",
                                  (json.dumps(sorted(missing)),))
            for row in found:
                self._remember(_entity_from_row(row))
        return rows

    def _cached_entity(self, row: tuple) -> Record:
        cached = self._entities.get(row[0])
        if cached is None:
            cached = _entity_from_row(row)
            self._remember(cached)
        return _entity_copy(cached)

    def _remember(self, entity: Record) -> None:
        if len(self._entities) >= _ENTITY_CACHE_MAX:
            self._entities.clear()
        self._entities[entity["id"]] = entity

    def _hydrated(self, entity_id: str) -> Record:
        row = self._entity(entity_id)
        return _entity_copy(row) if row else rec.dangling_entity(entity_id)

    # --- facts -----------------------------------------------------------------------
    def insert_fact(self, fact: Record) -> None:
        self.insert_facts((fact,))

    def insert_facts(self, facts: Iterable[Record]) -> None:
        """One executemany in one transaction (a savepoint inside a caller's block)."""
        batch = list(facts)
        params = [q.fact_params(f) for f in batch]
        links = [(f["id"], other) for f in batch for other in set(f.get("conflicts") or ())]
        if not params:
            return
        try:
            with self._db.atomic(can_fail_midway=len(params) > 1):
                self._note_new_facts()
                if len(params) == 1:
                    self._db.run(q.INSERT_FACT, params[0])
                else:
                    self._db.many(q.INSERT_FACT, params)
                if links:
                    self._db.many(q.INSERT_LINK, links)
        except sqlite3.IntegrityError as error:
            raise self._fact_batch_error(batch, error) from None

    def _fact_batch_error(self, batch: list[Record], error: sqlite3.IntegrityError) -> Exception:
        """Name the offending fact: a taken id, or an entity that does not exist."""
        seen: set[str] = set()
        for fact in batch:
            if fact["id"] in seen or self._db.one("SELECT 1 FROM facts WHERE id = ?", (fact["id"],)):
                return rec.exists("fact", fact["id"])
            seen.add(fact["id"])
            for ref in (rec.ref_id(fact["subject"]), rec.ref_id(fact.get("object_ref"))):
                if ref is not None and self._fetch_entity(ref) is None:
                    return rec.not_found("entity", ref)
        return ClaimgraphError("invalid-fact", f"the store refused a fact: {error}",
                               hint="build facts with logic.facts before storing them")

    def get_fact(self, fact_id: str) -> Record | None:
        facts = self.get_facts_by_ids([fact_id])
        return facts[0] if facts else None

    def get_facts_by_ids(self, ids: Iterable[str]) -> list[Record]:
        wanted = rec.as_list(ids) or []
        plan = q.select_facts({"id": sorted(set(wanted))}, None, None, False, False)
        return rec.in_asked_order(wanted, {f["id"]: f for f in self._facts(plan)})

    def get_facts(self, entity_id: str, direction: str = "out",
                  predicates: Iterable[str] | None = None) -> list[Record]:
        return self.get_facts_for([entity_id], direction, predicates)

    def get_facts_for(self, entity_ids: Iterable[str], direction: str = "out",
                      predicates: Iterable[str] | None = None) -> list[Record]:
        rec.check_direction(direction)
        ids = sorted(set(entity_ids))
        return self._facts(q.facts_touching(ids, direction, rec.as_list(predicates))) if ids else []

    def get_fact_heads_for(self, entity_ids: Iterable[str], direction: str = "out", *,
                           ends: bool = True) -> list[Record]:
        rec.check_direction(direction)
        ids = sorted(set(entity_ids))
        if not ids:
            return []
        self._db.refresh()
        fields, select = ((FACT_HEAD_FIELDS, q.FACT_HEAD_SELECT) if ends
                          else (FACT_HEAD_FIELDS_NO_ENDS, q.FACT_HEAD_NO_ENDS_SELECT))
        rows = self._db.rows(*q.facts_touching(ids, direction, None, select, ""))
        return [dict(zip(fields, row)) for row in rows]

    def select_context_heads(self, scopes: Iterable[str], since: int) -> list[Record]:
        """Light rows of the scopes' live facts valid now or closed since ``since`` (the
        SessionStart context's shortlist input: ``logic.briefing_shortlist``)."""
        wanted = sorted(set(scopes))
        if not wanted:
            return []
        self._db.refresh()
        return [dict(zip(CONTEXT_HEAD_FIELDS, row))
                for row in self._db.rows(*q.context_heads(wanted, since))]

    def context_sections(self, scopes: Iterable[str], now: int, *,
                         windows: Mapping[str, tuple[int, int]], open_ids: Iterable[str] = (),
                         narrowing: Any = None,
                         half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
        """A project page's sections in one query: what ``logic.briefing_sections.sections_of``
        answers over the scopes' facts read whole (``open_ids``: the members of open
        conflicts), without reading them: {counts, ids, reasons}."""
        # Imported here: only the viewer asks, and every command's startup imports this module.
        from claimgraph.logic.briefing_sections import SECTION_KEYS, Narrowing
        from claimgraph.store import sqlite_sections as sections_sql
        wanted = sorted(set(scopes))
        narrowing = narrowing or Narrowing()
        counts = dict.fromkeys(SECTION_KEYS, 0)
        ids: dict[str, list[str]] = {key: [] for key in windows}
        reasons: dict[str, str] = {}
        if not wanted:
            return {"counts": counts, "ids": ids, "reasons": reasons}
        self._db.refresh()
        self._db.ensure_function("pow", 2, math.pow)
        plan = sections_sql.context_sections(wanted, now, half_life_days, sorted(set(open_ids)),
                                             windows, narrowing)
        for section, fact_id, reason, total, chosen in self._db.rows(*plan):
            if not chosen:
                counts[section] = total
                continue
            ids.setdefault(section, []).append(fact_id)
            if reason:
                reasons[fact_id] = reason
        return {"counts": counts, "ids": ids, "reasons": reasons}

    def narrowed_fact_ids(self, scopes: Iterable[str], narrowing: Any) -> set[str]:
        """Ids of the scopes' facts that ``narrowing`` keeps (the viewer's filters)."""
        from claimgraph.store import sqlite_sections as sections_sql
        self._db.refresh()
        return {row[0] for row in self._db.rows(*sections_sql.narrowed_ids(sorted(set(scopes)),
                                                                        narrowing))}

    def valid_times(self, scopes: Iterable[str]) -> dict[str, list[int]]:
        """Every begin and every end of validity of the scopes' facts, each sorted
        (``logic.time_travel.valid_times``)."""
        from claimgraph.store import sqlite_sections as sections_sql
        begins, ends, params = sections_sql.valid_times(sorted(set(scopes)))
        self._db.refresh()
        return {"begins": [r[0] for r in self._db.rows(begins, params)],
                "ends": [r[0] for r in self._db.rows(ends, params)]}

    def believed_at(self, scopes: Iterable[str], at: int, *, since: int | None, limit: int,
                    half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
        """``logic.time_travel.believed_at`` without reading the scopes' facts: {total, ids,
        began, ended}."""
        from claimgraph.store import sqlite_sections as sections_sql
        (count, first, began, ended), params = sections_sql.believed_at(
            sorted(set(scopes)), at, since, limit, half_life_days)
        self._db.refresh()
        self._db.ensure_function("pow", 2, math.pow)
        return {"total": self._db.one(count, params)[0],
                "ids": [r[0] for r in self._db.rows(first, params)],
                "began": [r[0] for r in self._db.rows(began, params)],
                "ended": [r[0] for r in self._db.rows(ended, params)]}

    def iter_context_heads(self, scopes: Iterable[str], since: int) -> Iterator[Record]:
        """``select_context_heads`` as a stream (the curator's shortlists stage keeps a few
        hundred of a project's million heads)."""
        wanted = sorted(set(scopes))
        if not wanted:
            return
        self._db.refresh()
        for row in self._db.stream(*q.context_heads(wanted, since)):
            yield dict(zip(CONTEXT_HEAD_FIELDS, row))

    def select_facts(self, *, ids: Iterable[str] | None = None, source_type: str | None = None,
                     predicates: Iterable[str] | None = None, scopes: Iterable[str] | None = None,
                     episodes: Iterable[str] | None = None, recorded_before: int | None = None,
                     conflicted: bool = False, valid_cheap: bool = False,
                     with_evidence: bool = False) -> list[Record]:
        lists = {"id": rec.as_list(ids), "predicate": rec.as_list(predicates),
                 "scope": rec.as_list(scopes), "episode": rec.as_list(episodes)}
        return self._facts(q.select_facts(lists, source_type, recorded_before,
                                          conflicted, valid_cheap, with_evidence))

    def get_history(self, entity_id: str, predicate: str) -> list[Record]:
        return self.get_facts(entity_id, "out", [predicate])

    def all_facts(self) -> list[Record]:
        return self._facts((q.FACT_SELECT + " ORDER BY f.recorded_at, f.id", []))

    def repoint_predicate(self, from_id: str, to_id: str) -> int:
        with self._db.transaction():
            return self._db.run("UPDATE facts SET predicate = ? WHERE predicate = ?", (to_id, from_id))

    def invalidate(self, fact_id: str, at: int, kind: str | None = None,
                   reason: str | None = None, successor: str | None = None) -> None:
        self._update_fact("t_invalid = ?, invalidation_kind = ?, invalidation_reason = ?,"
                          " successor = ?", (at, kind, reason, successor), fact_id)

    def reinforce(self, fact_id: str, at: int, confidence: float,
                  source_type: str | None = None) -> None:
        self._update_fact("last_reinforced_at = ?, confidence = ?,"
                          " source_type = coalesce(?, source_type)",
                          (at, float(confidence), source_type), fact_id)

    def _update_fact(self, assignments: str, params: tuple, fact_id: str) -> None:
        with self._db.transaction():
            if not self._db.run(f"UPDATE facts SET {assignments} WHERE id = ?", (*params, fact_id)):
                raise rec.not_found("fact", fact_id)

    def link_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        self._edit_links(q.INSERT_LINK, fact_id, ids)

    def unlink_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        self._edit_links(q.DELETE_LINK, fact_id, ids)

    def _edit_links(self, sql: str, fact_id: str, ids: Iterable[str]) -> None:
        with self._db.atomic(can_fail_midway=False):
            if not self._db.one("SELECT 1 FROM facts WHERE id = ?", (fact_id,)):
                raise rec.not_found("fact", fact_id)
            self._db.many(sql, [(fact_id, other) for other in ids])

    def _facts(self, plan: q.Plan) -> list[Record]:
        self._db.refresh()
        return [self._fact(row) for row in self._prefetch_entities(self._db.rows(*plan))]

    def _fact(self, row: tuple) -> Record:
        fact = dict(zip(FACT_FIELDS, row))
        fact["subject"] = self._hydrated(fact["subject"])
        if fact["object_ref"] is not None:
            fact["object_ref"] = self._hydrated(fact["object_ref"])
        links, evidence = fact["conflicts"], fact["evidence"]
        fact["conflicts"] = sorted(json.loads(links)) if links != "[]" else []
        fact["evidence"] = json.loads(evidence) if evidence != "[]" else []
        return fact

    # --- curation state ----------------------------------------------------------------
    def set_dormant(self, ids: Iterable[str], at: int) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        if not wanted:
            return 0
        with self._db.transaction():
            return self._db.run(q.SET_DORMANT, (int(at), json.dumps(wanted)))

    def revive(self, ids: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        if not wanted:
            return 0
        with self._db.transaction():
            return self._db.run(q.REVIVE, (json.dumps(wanted),))

    def dormant_fact_ids(self) -> list[str]:
        return [r[0] for r in self._db.rows(q.DORMANT_IDS)]

    def record_audit(self, rows: Iterable[Record]) -> None:
        batch = [rec.audit_record(r) for r in rows]
        if not batch:
            return
        params = [(*(r[f] for f in AUDIT_FIELDS[:-1]), json.dumps(r["details"], sort_keys=True))
                  for r in batch]
        try:
            with self._db.atomic(can_fail_midway=len(params) > 1):
                self._db.many(q.UPSERT_AUDIT, params)
        except sqlite3.IntegrityError:
            known = {f["id"] for f in self.get_facts_by_ids(sorted({r["fact_id"] for r in batch}))}
            missing = next((r["fact_id"] for r in batch if r["fact_id"] not in known), None)
            raise rec.not_found("fact", missing or batch[0]["fact_id"]) from None

    def get_audit(self, fact_ids: Iterable[str] | None = None) -> list[Record]:
        wanted = rec.as_list(fact_ids)
        if wanted is None:
            rows = self._db.rows(q.AUDIT_SELECT + q.AUDIT_ORDER)
        elif not wanted:
            return []
        else:
            rows = self._db.rows(q.AUDIT_SELECT + " WHERE fact_id IN (SELECT value FROM json_each(?))"
                                 + q.AUDIT_ORDER, (json.dumps(sorted(set(wanted))),))
        return [_audit_from_row(r) for r in rows]

    def suspect_fact_ids(self) -> list[str]:
        return [r[0] for r in self._db.rows(q.SUSPECT_IDS, (json.dumps(list(SUSPECT_VERDICTS)),))]

    def scope_counts(self) -> dict[str, Record]:
        self._db.refresh()
        suspect = dict(self._db.rows(q.SCOPE_SUSPECTS, (json.dumps(list(SUSPECT_VERDICTS)),)))
        return {scope: rec.scope_count_record(total, valid, dormant, suspect.get(scope, 0), last)
                for scope, total, valid, dormant, last in self._db.rows(q.SCOPE_COUNTS)}

    # --- usage -----------------------------------------------------------------------
    def predicate_usage(self) -> dict[str, int]:
        return rec.counted(
            self._db.rows("SELECT predicate, count(*) FROM facts GROUP BY predicate"))

    def entity_usage(self) -> dict[str, int]:
        return rec.counted(self._db.rows(q.ENTITY_USAGE))

    # --- episodes --------------------------------------------------------------------
    def open_episode(self, episode: Record) -> Record:
        row = rec.episode_record(episode)
        with self._db.transaction():
            if self._db.one("SELECT 1 FROM episodes WHERE id = ?", (row["id"],)):
                raise rec.exists("episode", row["id"])
            try:
                self._db.run(q.INSERT_EPISODE, [row[f] for f in EPISODE_FIELDS])
            except sqlite3.IntegrityError:
                raise rec.exists("episode", row["id"], ref=row["ref"]) from None
        return row

    def close_episode(self, episode_id: str, summary: str | None, at: int) -> None:
        with self._db.transaction():
            if not self._db.run("UPDATE episodes SET summary = ?, closed_at = ? WHERE id = ?",
                                (summary, at, episode_id)):
                raise rec.not_found("episode", episode_id)

    def get_episode(self, episode_id: str) -> Record | None:
        return self._episode(" WHERE id = ?", (episode_id,))

    def get_episode_by_ref(self, ref: str) -> Record | None:
        return self._episode(" WHERE ref = ?", (ref,))

    def _episode(self, where: str, params: tuple) -> Record | None:
        row = self._db.one(q.EPISODE_SELECT + where, params)
        return dict(zip(EPISODE_FIELDS, row)) if row else None

    def list_episodes(self) -> list[Record]:
        rows = self._db.rows(q.EPISODE_SELECT + " ORDER BY opened_at, id")
        return [dict(zip(EPISODE_FIELDS, r)) for r in rows]

    # --- predicates ------------------------------------------------------------------
    def get_predicate(self, pred_id: str) -> Record | None:
        row = self._db.one("SELECT row FROM predicates WHERE id = ?", (pred_id,))
        return json.loads(row[0]) if row else None

    def list_predicates(self, category: str | None = None, status: str | None = None) -> list[Record]:
        rows = self._db.rows("SELECT row FROM predicates WHERE (?1 IS NULL OR category = ?1)"
                             " AND (?2 IS NULL OR status = ?2) ORDER BY id", (category, status))
        return [json.loads(r[0]) for r in rows]

    def register_predicate(self, row: Record) -> None:
        with self._db.transaction():
            merged = rec.registered_predicate(self.get_predicate(row.get("id")), row)
            self._db.run("INSERT OR REPLACE INTO predicates (id, category, status, row)"
                         " VALUES (?, ?, ?, ?)", (merged["id"], merged["category"],
                                                  merged["status"], json.dumps(merged)))

    # --- search and housekeeping -----------------------------------------------------
    def search(self, query: str, limit: int = 50, *,
               heads: bool = False) -> dict[str, list[Record]]:
        """FTS5 trigram over names/aliases, literals and summaries; the query is one phrase."""
        if not rec.search_text_ok(query):
            return {"entities": [], "facts": [], "episodes": []}
        self._db.refresh()
        if self._db.depth:
            self._index_pending()
        params = (q.fts_phrase(query), limit)
        named = json.dumps(sorted(r[0] for r in self._db.rows(q.ENTITY_MATCHES, params[:1])))
        return {
            "entities": [self._cached_entity(r)
                         for r in self._db.rows(q.SEARCH_ENTITIES, (named, limit))],
            "facts": self._search_facts((*params, named), heads),
            "episodes": [dict(zip(EPISODE_FIELDS, r))
                         for r in self._db.rows(q.SEARCH_EPISODES, params)],
        }

    def search_facts(self, query: str, limit: int = 50, *, heads: bool = False) -> list[Record]:
        if not rec.search_text_ok(query):
            return []
        self._db.refresh()
        if self._db.depth:
            self._index_pending()
        return self._search_facts((q.fts_phrase(query), limit), heads)

    def _search_facts(self, params: tuple, heads: bool = False) -> list[Record]:
        """The candidates' sort keys first, the best ``limit`` of them then read whole or as
        heads (sqlite_sql SEARCH_*); ``params``: the phrase, the limit and, when already
        matched, the entities' rowids."""
        phrase, limit = params[:2]
        named_from = (params[2], limit) if len(params) == 3 else (phrase, limit)
        named = [r[0] for r in self._db.rows(q.named_entity_ids(len(params) == 3), named_from)]
        keys: dict[int, tuple] = {}  # pk -> its sort key row (pk last)
        if named:
            ends = (json.dumps(named), limit)
            for sql in (q.SEARCH_SUBJECT_KEYS, q.SEARCH_OBJECT_KEYS):
                keys.update((r[-1], r) for r in self._db.rows(sql, ends))
        texts = self._text_hits(phrase, limit)
        if texts:
            keys.update((r[-1], r) for r in self._db.rows(q.SEARCH_KEYS_BY_PK,
                                                           (json.dumps(texts), limit)))
        if not keys:
            return []
        ranked = (heapq.nsmallest(limit, keys.values()) if limit >= 0
                  else sorted(keys.values()))  # as SQL's LIMIT -1: all of them
        best = json.dumps([r[-1] for r in ranked])
        if heads:
            rows = self._db.rows(q.SEARCH_HEADS_BY_PK, (best,))
            return [dict(zip(FACT_HEAD_FIELDS, r)) for r in rows]
        rows = self._db.rows(q.SEARCH_FACTS_BY_PK, (best,))
        return [self._fact(r) for r in self._prefetch_entities(rows)]

    def rank_words(self, words: Sequence[str], limit: int = 50, *,
                   heads: bool = False) -> list[Record] | None:
        """Open facts whose literal holds any of the words (porter stems), best BM25 first;
        None when the store predates the word index (format < 6, read as it is). Words on
        too many facts are left out (``logic.query_words.within_budget``)."""
        if not self._has_words():
            return None
        wanted = [w for w in words if w and w.strip()]
        if not wanted or limit == 0:
            return []
        self._db.refresh()
        if self._db.depth:
            self._index_pending()
        from claimgraph.logic import query_words as QW  # search only: not the hook's path

        quoted = json.dumps([q.words_match([w]) for w in wanted])
        counts = self._db.rows(q.WORD_COUNTS, (quoted, QW.WORD_POSTINGS_BUDGET + 1))
        wanted = QW.within_budget([(w, r[0]) for w, r in zip(wanted, counts)])
        if not wanted:
            return []
        pks = [r[0] for r in self._db.rows(q.WORDS_RANKED, (q.words_match(wanted), limit))]
        if not pks:
            return []
        place = {pk: n for n, pk in enumerate(pks)}
        if heads:
            rows = self._db.rows(q.HEADS_BY_PK,
                                 (json.dumps(pks),))
            rows = sorted(rows, key=lambda r: place[r[0]])
            return [dict(zip(FACT_HEAD_FIELDS, r[1:])) for r in rows]
        rows = self._db.rows(q.FACTS_BY_PK,
                             (json.dumps(pks),))
        rows = sorted(rows, key=lambda r: place[r[0]])
        return [self._fact(r) for r in self._prefetch_entities([r[1:] for r in rows])]

    def _has_words(self) -> bool:
        """Whether the store has the word index (format 6); a reader may open format 4 or 5."""
        known = getattr(self, "_words_known", None)
        if known is None:
            known = self._words_known = bool(self._db.one(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'fact_words')")[0])
        return known

    def _text_hits(self, phrase: str, limit: int) -> list[int]:
        """The rowids of the newest ``limit * 10`` full-text hits. A phrase of several words
        usually matches few facts, and then every match is a hit: read oldest first, they
        come about twice as fast as walked back from the newest (a rare phrase reads its
        whole posting lists either way). Only when there are more is the walk back needed."""
        cap = limit * 10
        if cap >= 0 and " " in phrase:
            first = self._db.rows(q.SEARCH_FTS_FIRST_PKS, (phrase, cap + 1))
            if len(first) <= cap:
                return [r[0] for r in first]
        return [r[0] for r in self._db.rows(q.SEARCH_FTS_PKS, (phrase, limit))]

    def stats(self) -> dict[str, Any]:
        counts = self._db.one(
            "SELECT (SELECT count(*) FROM entities), (SELECT count(*) FROM facts),"
            " (SELECT count(*) FROM facts WHERE t_invalid IS NULL), (SELECT count(*) FROM episodes)")
        statuses = dict(self._db.rows("SELECT status, count(*) FROM predicates GROUP BY status"))
        return rec.stats_record(self.schema_version(), *counts, statuses)  # a reader's may lag

    def is_empty(self) -> bool:
        return not self._db.one("SELECT EXISTS (SELECT 1 FROM entities)"
                                " OR EXISTS (SELECT 1 FROM facts)"
                                " OR EXISTS (SELECT 1 FROM episodes)")[0]

    def schema_version(self) -> int:
        """The version stored in the database (``PRAGMA user_version``)."""
        return self._db.pragma("user_version")

    def pragma(self, name: str) -> Any:
        """Read one pragma (tests and diagnostics)."""
        return self._db.pragma(name)

    def close(self) -> None:
        """Close the connection; the last one out folds the WAL back into the file."""
        self._entities.clear()
        self._db.close()


def _entity_from_row(row: tuple) -> Record:
    entity = dict(zip(ENTITY_FIELDS, row))
    entity["aliases"] = json.loads(entity["aliases"])
    return entity


def _audit_from_row(row: tuple) -> Record:
    out = dict(zip(AUDIT_FIELDS, row))
    out["details"] = json.loads(out["details"])
    return out


def _entity_copy(row: Record) -> Record:
    return dict(row, aliases=list(row["aliases"]))
