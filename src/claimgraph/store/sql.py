"""SqlStore: the Store protocol's reads and writes, once, for every SQL backend.

``SqliteStore`` and ``PostgresStore`` differ in their SQL dialect (``SqlDialect``: a module of
statements under fixed names), their connection (``SqlConnection``) and a few hooks: SQLite
caches entities in-process and indexes new text just before COMMIT; PostgreSQL keeps no cache
(other people's processes change its rows) and stores an entity's search text in a column.
Everything a caller can observe (the rows' shapes, the order, the refusals) is decided here,
so the two backends cannot drift apart (docs/store.md, "Adding a store backend").
"""

from __future__ import annotations

import json
from collections import Counter
from abc import abstractmethod

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.logic.model import (
    AUDIT_FIELDS, ENTITY_FIELDS, EPISODE_FIELDS, FACT_FIELDS, FACT_HEAD_FIELDS,
    FACT_HEAD_FIELDS_NO_ENDS, SUSPECT_VERDICTS,
)
from claimgraph.logic.names import normalize_entity_name
from claimgraph.store import records as rec
from claimgraph.store import sql_dialect as common
from claimgraph.store.bulk import collector_paused
from claimgraph.store.derived import StoreDefaults
from claimgraph.store.records import Record

#: A mark's text: ``json.dumps``'s, without its check for a value that contains itself (a
#: mark is plain data; one that did would still fail, by recursion). The outbox mark holds a
#: batch's every fact row, and the check kept a note of each of them (~5 ms for 20k).
_MARK_TEXT = json.JSONEncoder(check_circular=False).encode
TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any, Iterable, Iterator, Mapping, Sequence
    from claimgraph.store.sql_dialect import Plan, Row, SqlConnection, SqlDialect


class SqlStore(StoreDefaults):
    """The shared body of the SQL stores; a backend sets ``_db`` and ``_q`` and its hooks."""

    path: str
    _db: SqlConnection
    _q: SqlDialect
    #: The driver's integrity error (a taken id, a missing entity).
    _integrity_error: type[Exception]
    #: A sections module (``sqlite_sections``, ``postgres_sections``) for the viewer's reads.
    _sections_module: str
    _words_known: bool | None = None

    # --- hooks a backend may override --------------------------------------------------------
    def _refresh(self) -> None:
        """Before a read: drop what another process may have changed (SQLite's cache)."""

    def _entity_out(self, row: Row) -> Record:
        """An entity row as handed to a caller (SQLite remembers it)."""
        return entity_from_row(row)

    def _entity_map(self, rows: list[Row]) -> Mapping[str, Record]:
        """The entities the ends of these fact rows (FACT_FIELDS order) name, by id, for
        hydration; an end whose row is gone is left out (hydrated as a dangling entity)."""
        return self._entities_by_id(fact_end_ids(rows))

    def _entities_written(self, ids: Iterable[str]) -> None:
        """Entities were inserted or changed in the open transaction."""

    def _entity_deleted(self, entity_id: str) -> None:
        """An entity is about to be deleted in the open transaction."""

    def _facts_coming(self) -> None:
        """Facts are about to be inserted in the open transaction."""

    def _before_read_of_new_text(self) -> None:
        """A text search inside a transaction must see what it wrote."""

    def _before_delete(self) -> None:
        """Inside a purge's transaction, before any row goes."""

    def _prepare_math(self) -> None:
        """Before a statement that computes effective confidence."""

    @abstractmethod
    def _format(self) -> int:
        """The store format ``stats`` reports."""

    # --- transactions and marks --------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """Outermost: one transaction, rolled back on any exception. Inner: join."""
        return self._db.transaction()

    def get_mark(self, key: str) -> Any:
        row = self._db.one(self._q.GET_MARK, (key,))
        return None if row is None else json.loads(row[0])

    def set_mark(self, key: str, value: Any) -> None:
        with self._db.transaction():
            self._db.uncounted(self._q.SET_MARK, (key, _MARK_TEXT(value)))

    def write_count(self) -> int:
        return rec.write_count(self.get_mark(rec.WRITES_MARK))

    def list_marks(self, prefix: str = "") -> dict[str, Any]:
        rows = self._db.rows(self._q.LIST_MARKS, (prefix,))
        return {key: json.loads(value) for key, value in rows}

    def delete_marks(self, keys: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(keys) or []))
        if not wanted:
            return 0
        with self._db.transaction():
            self._before_delete()
            return self._db.uncounted(self._q.DELETE_MARKS,
                                      (self._q.id_list(wanted), rec.WRITES_MARK))

    # --- entities ----------------------------------------------------------------------------
    def insert_entity(self, entity: Record) -> Record:
        row = rec.entity_record(entity)
        try:
            with self._db.atomic(can_fail_midway=False):
                self._db.run(self._q.INSERT_ENTITY, _entity_params(row))
                self._write_aliases(row["id"], row["aliases"], fresh=True)
                self._entities_written([row["id"]])
        except self._integrity_error:
            raise rec.exists("entity", row["id"]) from None
        return entity_copy(row)

    def insert_entities(self, entities: Iterable[Record]) -> list[Record]:
        """One executemany per table (a savepoint inside a caller's block)."""
        rows = [rec.entity_record(e) for e in entities]
        if not rows:
            return []
        aliases = [(r["id"], a, normalize_entity_name(a)) for r in rows for a in r["aliases"]]
        try:
            with self._db.atomic(can_fail_midway=len(rows) > 1):
                self._db.many(self._q.INSERT_ENTITY, [_entity_params(r) for r in rows])
                if aliases:
                    self._db.many(self._q.INSERT_ALIAS, aliases)
                self._entities_written(r["id"] for r in rows)
        except self._integrity_error:
            raise rec.exists("entity", self._taken_entity_id(rows)) from None
        return [entity_copy(r) for r in rows]

    def _taken_entity_id(self, rows: list[Record]) -> str:
        """The first id of ``rows`` that the store (or an earlier row) already holds."""
        seen: set[str] = set()
        for row in rows:
            if row["id"] in seen or self._fetch_entity(row["id"]) is not None:
                return str(row["id"])
            seen.add(row["id"])
        return str(rows[0]["id"])

    def _write_aliases(self, entity_id: str, aliases: Sequence[str], fresh: bool = False) -> None:
        """Alias rows are derived from the entity's list (for normalized lookup); rewrite them."""
        if not fresh:
            self._db.run(self._q.DELETE_ALIASES, (entity_id,))
        if aliases:
            self._db.many(self._q.INSERT_ALIAS,
                          [(entity_id, a, normalize_entity_name(a)) for a in aliases])

    def get_entity(self, name: str, scope: str) -> Record | None:
        self._refresh()
        row = self._db.one(self._q.ENTITY_BY_NAME, (scope, name))
        return self._entity_out(row) if row else None

    def get_entity_by_id(self, entity_id: str) -> Record | None:
        self._refresh()
        found = self._lookup_entity(entity_id)
        return entity_copy(found) if found else None

    def _lookup_entity(self, entity_id: str) -> Record | None:
        """One entity by id, as hydration finds it (SQLite: from its cache)."""
        return self._fetch_entity(entity_id)

    def _fetch_entity(self, entity_id: str) -> Record | None:
        row = self._db.one(self._q.ENTITY_BY_ID, (entity_id,))
        return entity_from_row(row) if row else None

    def _entities_by_id(self, ids: Iterable[str]) -> dict[str, Record]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        rows = self._db.rows(self._q.ENTITIES_BY_IDS, (self._q.id_list(wanted),))
        return {r[0]: entity_from_row(r) for r in rows}

    def find_entities(self, name: str, scope: str | None) -> list[Record]:
        self._refresh()
        rows = self._db.rows(self._q.FIND_ENTITIES, {"n": normalize_entity_name(name), "s": scope})
        return [self._entity_out(r) for r in rows]

    def find_entities_many(self, names: Iterable[str],
                           scope: str | None) -> dict[str, list[Record]]:
        """One query for every name (a batch resolves all its names up front)."""
        self._refresh()
        norms = {name: normalize_entity_name(name) for name in set(names)}
        by_norm: dict[str, list[Row]] = {}
        if norms:
            wanted = self._q.id_list(sorted(set(norms.values())))
            for norm, *row in self._db.rows(self._q.FIND_ENTITIES_MANY, {"w": wanted, "s": scope}):
                by_norm.setdefault(norm, []).append(tuple(row))
        for found in by_norm.values():
            found.sort(key=lambda row: (row[1], row[0]))  # ENTITY_ORDER: name, then id
        return {name: [self._entity_out(r) for r in by_norm.get(norm, ())]
                for name, norm in norms.items()}

    def update_entity(self, entity_id: str, *, name: str | None = None, type: str | None = None,
                      add_aliases: Sequence[str] = (),
                      remove_aliases: Sequence[str] = ()) -> Record:
        with self._db.atomic(can_fail_midway=False):
            row = self._fetch_entity(entity_id)
            if row is None:
                raise rec.not_found("entity", entity_id)
            row.update(name=name or row["name"], type=type or row["type"],
                       aliases=rec.merge_aliases(row["aliases"], add_aliases, remove_aliases))
            self._entities_written([entity_id])
            self._db.run(self._q.UPDATE_ENTITY, _entity_params(row))
            self._write_aliases(entity_id, row["aliases"])
        return entity_copy(row)

    def repoint_facts(self, from_id: str, to_id: str) -> int:
        with self._db.atomic(can_fail_midway=False):
            if self._fetch_entity(to_id) is None:
                raise rec.not_found("entity", to_id)
            return self._db.run(self._q.REPOINT_FACTS, {"f": from_id, "t": to_id})

    def delete_entity(self, entity_id: str) -> None:
        try:
            with self._db.atomic(can_fail_midway=False):
                self._entity_deleted(entity_id)
                self._db.run(self._q.DELETE_ENTITY, (entity_id,))
        except self._integrity_error:
            raise rec.entity_in_use(entity_id) from None

    def list_entities(self, type: str | None = None, scope: str | None = None) -> list[Record]:
        rows = self._db.rows(self._q.LIST_ENTITIES, {"t": type, "s": scope})
        return [entity_from_row(r) for r in rows]

    # --- facts -------------------------------------------------------------------------------
    def insert_facts(self, facts: Iterable[Record]) -> None:
        """One executemany in one transaction (a savepoint inside a caller's block)."""
        batch = list(facts)
        params = [common.fact_params(f) for f in batch]
        if not params:
            return
        links = [(f["id"], other) for f in batch if f.get("conflicts")
                 for other in sorted(set(f["conflicts"]))]
        try:
            self._insert_fact_params(params, links)
        except self._integrity_error as error:
            raise self._fact_batch_error(batch, error) from None

    def insert_fact_rows(self, rows: Sequence[list[Any]], guarded: bool = True) -> None:
        """``insert_facts`` for facts given as their rows (``store.fact_rows``): the batch
        ingest's plain inserts, whose parameters are taken from the row in one C call.
        ``guarded`` False: the caller's transaction is the unit (``Store.insert_fact_rows``)."""
        from claimgraph.store import fact_rows  # only writes get here
        from claimgraph.logic.oplog import row_fact
        if not rows:
            return
        for row in rows:
            fact_rows.check_fact_row(row)
        params = [fact_rows.row_params(row) for row in rows]
        at, conflicts = fact_rows.ID, fact_rows.CONFLICTS
        links = [(row[at], other) for row in rows if row[conflicts]
                 for other in sorted(set(row[conflicts]))]
        try:
            self._insert_fact_params(params, links, guarded)
        except self._integrity_error as error:
            raise self._fact_batch_error([row_fact(list(row)) for row in rows],
                                         error) from None

    def _insert_fact_params(self, params: list[Any], links: list[tuple[str, str]],
                            guarded: bool = True) -> None:
        """The facts' and their conflict links' inserts, all or none (a savepoint inside a
        caller's block, or the caller's whole transaction when not ``guarded``): what
        ``insert_facts`` and ``insert_fact_rows`` share."""
        with self._db.atomic(can_fail_midway=len(params) > 1, guarded=guarded):
            self._facts_coming()
            if len(params) == 1:
                self._db.run(self._q.INSERT_FACT, params[0])
            else:
                self._db.many(self._q.INSERT_FACT, params)
            if links:
                self._db.many(self._q.INSERT_LINK, links)

    def _fact_batch_error(self, batch: list[Record], error: Exception) -> ClaimgraphError:
        """Name the offending fact: a taken id, or an entity that does not exist."""
        seen: set[str] = set()
        for fact in batch:
            if fact["id"] in seen or self._db.one(self._q.FACT_EXISTS, (fact["id"],)):
                return rec.exists("fact", fact["id"])
            seen.add(fact["id"])
            for ref in (rec.ref_id(fact["subject"]), rec.ref_id(fact.get("object_ref"))):
                if ref is not None and self._fetch_entity(ref) is None:
                    return rec.not_found("entity", ref)
        return ClaimgraphError("invalid-fact",
                               f"the store refused a fact: {common.first_line(error)}",
                               hint="build facts with logic.facts before storing them")

    def get_facts_by_ids(self, ids: Iterable[str]) -> list[Record]:
        wanted = rec.as_list(ids) or []
        plan = self._q.select_facts({"id": sorted(set(wanted))}, None, None, False, False)
        return rec.in_asked_order(wanted, {f["id"]: f for f in self._facts(plan)})

    def get_facts_for(self, entity_ids: Iterable[str], direction: str = "out",
                      predicates: Iterable[str] | None = None) -> list[Record]:
        rec.check_direction(direction)
        ids = sorted(set(entity_ids))
        if not ids:
            return []
        return self._facts(self._q.facts_touching(ids, direction, rec.as_list(predicates)))

    def get_fact_heads_for(self, entity_ids: Iterable[str], direction: str = "out", *,
                           ends: bool = True) -> list[Record]:
        rec.check_direction(direction)
        ids = sorted(set(entity_ids))
        if not ids:
            return []
        self._refresh()
        fields, select = ((FACT_HEAD_FIELDS, self._q.FACT_HEAD_SELECT) if ends
                          else (FACT_HEAD_FIELDS_NO_ENDS, self._q.FACT_HEAD_NO_ENDS_SELECT))
        rows = self._db.rows(*self._q.facts_touching(ids, direction, None, select, ""))
        return [dict(zip(fields, row)) for row in rows]

    def select_facts(self, *, ids: Iterable[str] | None = None, source_type: str | None = None,
                     predicates: Iterable[str] | None = None, scopes: Iterable[str] | None = None,
                     episodes: Iterable[str] | None = None, recorded_before: int | None = None,
                     conflicted: bool = False, valid_cheap: bool = False,
                     with_evidence: bool = False, valid_at: int | None = None) -> list[Record]:
        lists = {"id": rec.as_list(ids), "predicate": rec.as_list(predicates),
                 "scope": rec.as_list(scopes), "episode": rec.as_list(episodes)}
        return self._facts(self._q.select_facts(lists, source_type, recorded_before,
                                                conflicted, valid_cheap, with_evidence,
                                                valid_at))

    def all_facts(self) -> list[Record]:
        """Ties on ``recorded_at`` (a batch writes many facts in one millisecond) go by write
        order (``pk``), not by the random id: the same capture dumps in the same order."""
        return self._facts((self._q.FACT_SELECT + " ORDER BY f.recorded_at, f.pk", []))

    def repoint_predicate(self, from_id: str, to_id: str) -> int:
        with self._db.transaction():
            return self._db.run(self._q.REPOINT_PREDICATE, (to_id, from_id))

    def invalidate(self, fact_id: str, at: int, kind: str | None = None,
                   reason: str | None = None, successor: str | None = None) -> None:
        self._update_fact(self._q.INVALIDATE, (at, kind, reason, successor, fact_id), fact_id)

    def reinforce(self, fact_id: str, at: int, confidence: float,
                  source_type: str | None = None) -> None:
        self._update_fact(self._q.REINFORCE, (at, float(confidence), source_type, fact_id),
                          fact_id)

    def _update_fact(self, sql: str, params: tuple[Any, ...], fact_id: str) -> None:
        with self._db.transaction():
            if not self._db.run(sql, params):
                raise rec.not_found("fact", fact_id)

    def link_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        self._edit_links(self._q.INSERT_LINK, fact_id, ids)

    def unlink_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        self._edit_links(self._q.DELETE_LINK, fact_id, ids)

    def _edit_links(self, sql: str, fact_id: str, ids: Iterable[str]) -> None:
        others = list(ids)
        with self._db.atomic(can_fail_midway=False):
            if not self._db.one(self._q.FACT_EXISTS, (fact_id,)):
                raise rec.not_found("fact", fact_id)
            if others:
                self._db.many(sql, [(fact_id, other) for other in others])

    def _facts(self, plan: Plan) -> list[Record]:
        """The plan's fact rows (FACT_FIELDS order), hydrated; the collector paused over the
        fetch too (its 100k row tuples, ``store.bulk``)."""
        self._refresh()
        with collector_paused():
            return self._hydrate(self._db.rows(*plan))

    def _hydrate(self, rows: list[Row]) -> list[Record]:
        return facts_from_rows(rows, self._entity_map(rows))

    # --- curation state ----------------------------------------------------------------------
    def set_dormant(self, ids: Iterable[str], at: int) -> int:
        return self._mark_dormancy(self._q.SET_DORMANT, ids, (int(at),))

    def revive(self, ids: Iterable[str]) -> int:
        return self._mark_dormancy(self._q.REVIVE, ids, ())

    def _mark_dormancy(self, sql: str, ids: Iterable[str], first: tuple[Any, ...]) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        if not wanted:
            return 0
        with self._db.transaction():
            return self._db.run(sql, (*first, self._q.id_list(wanted)))

    def dormant_fact_ids(self) -> list[str]:
        return list(common.each_value(self._db.rows(self._q.DORMANT_IDS)))

    def record_audit(self, rows: Iterable[Record]) -> None:
        batch = [rec.audit_record(r) for r in rows]
        if not batch:
            return
        params = [(*(r[f] for f in AUDIT_FIELDS[:-1]), json.dumps(r["details"], sort_keys=True))
                  for r in batch]
        try:
            with self._db.atomic(can_fail_midway=len(params) > 1):
                self._db.many(self._q.UPSERT_AUDIT, params)
        except self._integrity_error:
            known = {f["id"] for f in self.get_facts_by_ids(sorted({r["fact_id"] for r in batch}))}
            missing = next((r["fact_id"] for r in batch if r["fact_id"] not in known), None)
            raise rec.not_found("fact", missing or batch[0]["fact_id"]) from None

    def get_audit(self, fact_ids: Iterable[str] | None = None) -> list[Record]:
        wanted = rec.as_list(fact_ids)
        if wanted is None:
            rows = self._db.rows(common.AUDIT_SELECT + common.AUDIT_ORDER)
        elif not wanted:
            return []
        else:
            rows = self._db.rows(self._q.AUDIT_OF_FACTS, (self._q.id_list(sorted(set(wanted))),))
        return [audit_from_row(r) for r in rows]

    def suspect_fact_ids(self) -> list[str]:
        return list(common.each_value(
            self._db.rows(self._q.SUSPECT_IDS, (self._q.id_list(list(SUSPECT_VERDICTS)),))))

    def scope_counts(self) -> dict[str, Record]:
        self._refresh()
        verdicts = (self._q.id_list(list(SUSPECT_VERDICTS)),)
        suspect = {r[0]: r[1] for r in self._db.rows(self._q.SCOPE_SUSPECTS, verdicts)}
        return {scope: rec.scope_count_record(total, valid, dormant, suspect.get(scope, 0), last)
                for scope, total, valid, dormant, last in self._db.rows(self._q.SCOPE_COUNTS)}

    # --- the viewer's reads in SQL (``ContextSections`` in store.base) -----------------------
    def context_sections(self, scopes: Iterable[str], now: int, *,
                         windows: Mapping[str, tuple[int, int]], open_ids: Iterable[str] = (),
                         narrowing: Any = None,
                         half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                         told: Iterable[str] | None = None) -> dict[str, Any]:
        """A project page's sections in one query: what ``logic.briefing_sections.sections_of``
        answers over the scopes' facts read whole (``open_ids``: the members of open
        conflicts), without reading them: {counts, ids, reasons}. ``told``: the scopes'
        ``told_as_state_ids`` when the caller has them already (else read here)."""
        # Imported here: only the viewer asks, and every command's startup imports this module.
        from claimgraph.logic.briefing_sections import SECTION_KEYS, Narrowing
        wanted = sorted(set(scopes))
        counts = dict.fromkeys(SECTION_KEYS, 0)
        ids: dict[str, list[str]] = {key: [] for key in windows}
        reasons: dict[str, str] = {}
        if not wanted:
            return {"counts": counts, "ids": ids, "reasons": reasons}
        self._refresh()
        self._prepare_math()
        if told is None:
            told = self.told_as_state_ids(wanted)
        plan = self._sections().context_sections(wanted, now, half_life_days,
                                                 sorted(set(open_ids)), windows,
                                                 narrowing or Narrowing(), sorted(set(told)))
        for section, fact_id, reason, total, chosen in self._db.rows(*plan):
            if not chosen:
                counts[section] = total
                continue
            ids.setdefault(section, []).append(fact_id)
            if reason:
                reasons[fact_id] = reason
        return {"counts": counts, "ids": ids, "reasons": reasons}

    def told_as_state_ids(self, scopes: Iterable[str]) -> set[str]:
        """Ids of the scopes' stances that ``logic.briefing.told_as_state`` tells as a fact of
        their date, not as a standing decision: one read of what the definition needs of each
        stance (a fraction of the scopes' facts), judged by the definition itself in Python
        (``sql_dialect.told_as_state_ids``; docs/viewer.md says why not in SQL)."""
        self._refresh()
        sql, params = self._sections().stance_inputs(sorted(set(scopes)))
        return common.told_as_state_ids(self._db.rows(sql, params))

    def valid_times(self, scopes: Iterable[str]) -> dict[str, list[int]]:
        """Every begin and every end of validity of the scopes' facts, and the believable
        ones' begins and ends (``logic.time_travel.valid_times``), each sorted; read as each
        distinct instant and how many facts have it."""
        begins, ends, held_until, params = self._sections().valid_times(sorted(set(scopes)))
        self._refresh()
        starts = self._db.rows(begins, params)
        return {"begins": _repeated((t, n) for t, n, _ in starts),
                "ends": _repeated(self._db.rows(ends, params)),
                "held_from": _repeated((t, held) for t, _, held in starts),
                "held_until": _repeated(self._db.rows(held_until, params))}

    def believed_at(self, scopes: Iterable[str], at: int, *, since: int | None, limit: int,
                    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                    count: bool = True) -> dict[str, Any]:
        """``logic.time_travel.believed_at`` without reading the scopes' facts: {total, ids,
        began, ended}; ``count=False``: total None, for a reader that counts from
        ``valid_times`` (``logic.time_travel.believed_count``: one walk of the scopes'
        rows fewer)."""
        (counted, first, began, ended), params = self._sections().believed_at(
            sorted(set(scopes)), at, since, limit, half_life_days)
        self._refresh()
        self._prepare_math()
        total = self._db.one(counted, params) if count else None
        return {"total": (total[0] if total else 0) if count else None,
                "ids": list(common.each_value(self._db.rows(first, params))),
                "began": list(common.each_value(self._db.rows(began, params))),
                "ended": list(common.each_value(self._db.rows(ended, params)))}

    def _sections(self) -> Any:
        import importlib  # the viewer's statements load only when the viewer asks
        return importlib.import_module(self._sections_module)

    def narrowed_fact_ids(self, scopes: Iterable[str], narrowing: Any) -> set[str]:
        """Ids of the scopes' facts that ``narrowing`` keeps (the viewer's filters), in one
        read, so a filtered project page cuts the placement down instead of placing again."""
        self._refresh()
        sql, params = self._sections().narrowed_ids(sorted(set(scopes)), narrowing)
        return {row[0] for row in self._db.rows(sql, params)}

    def held_candidate_ids(self, scopes: Iterable[str] | None = None,
                           at: int | None = None) -> set[str]:
        """Ids of the live facts (of ``scopes``, or all; no end recorded, or with ``at`` none
        before it) that ``logic.safe_render.fact_held`` may hold (``may_be_held`` over their
        shown words), found in SQL: the review reads only these whole and judges them,
        instead of every live fact of the store."""
        self._refresh()
        sql, params = self._sections().held_candidates(
            None if scopes is None else sorted(set(scopes)), at)
        return {row[0] for row in self._db.rows(sql, params)}

    # --- usage -------------------------------------------------------------------------------
    def touch_mark(self) -> tuple[int, int]:
        """Where the record of touches stands now, for ``touched_since`` (the write counter,
        and on SQLite the largest fact rowid)."""
        return (self.write_count(), 0)

    def touched_since(self, mark: Sequence[int], limit: int) -> list[str] | None:
        """Ids of the facts written (inserted, changed, audited, linked, renamed) by the
        transactions after ``mark`` (``touch_mark``): a project's placement made at the mark
        stays exact once these are placed again (docs/viewer.md, "After a write"). None when
        more than ``limit`` were, when a fact was deleted (a purge keeps no purged id, so the
        caller places whole), or when the store predates format 7."""
        found = self._db.one(self._q.HAS_TOUCHES)
        if found is None or not found[0]:
            return None
        rows = self._db.rows(self._q.TOUCHED_SINCE, (int(mark[0]), int(limit) + 1))
        ids = [r[0] for r in rows]
        return None if len(ids) > limit or common.DELETED_TOUCH in ids else ids

    def placement_heads(self, scopes: Iterable[str]) -> list[tuple[Any, ...]]:
        """(id, t_valid, t_invalid, confidence, recorded_at, last_reinforced_at, epistemic,
        source_type, predicate, dormant_since, told as a state) of every fact in the scopes
        (``logic.briefing_sections.head_of``), in one walk of them that reads each stance's
        object and evidence too, for ``logic.briefing.told_as_state`` to judge in Python."""
        plans = self._sections()
        return [head for scope in sorted(set(scopes))
                for head in common.heads_of_rows(self._stream(*plans.placement_heads(scope)))]

    def _stream(self, sql: str, params: Any) -> Iterator[Row]:
        """A read's rows, a batch at a time where the dialect can (SQLite), else all at once."""
        return iter(self._db.rows(sql, params))

    def predicate_usage(self) -> dict[str, int]:
        return rec.counted((r[0], r[1]) for r in self._db.rows(common.PREDICATE_USAGE))

    def entity_usage(self) -> dict[str, int]:
        return rec.counted((r[0], r[1]) for r in self._db.rows(self._q.ENTITY_USAGE))

    # --- episodes ----------------------------------------------------------------------------
    def open_episode(self, episode: Record) -> Record:
        row = rec.episode_record(episode)
        with self._db.atomic(can_fail_midway=False):
            if self._db.one(self._q.EPISODE_EXISTS, (row["id"],)):
                raise rec.exists("episode", row["id"])
            try:
                with self._db.atomic(can_fail_midway=False):
                    self._db.run(self._q.INSERT_EPISODE, [row[f] for f in EPISODE_FIELDS])
            except self._integrity_error:
                raise rec.exists("episode", row["id"], ref=row["ref"]) from None
        return row

    def close_episode(self, episode_id: str, summary: str | None, at: int) -> None:
        with self._db.transaction():
            if not self._db.run(self._q.CLOSE_EPISODE, (summary, at, episode_id)):
                raise rec.not_found("episode", episode_id)

    def get_episode(self, episode_id: str) -> Record | None:
        return self._episode(self._q.EPISODE_BY_ID, episode_id)

    def get_episode_by_ref(self, ref: str) -> Record | None:
        return self._episode(self._q.EPISODE_BY_REF, ref)

    def _episode(self, sql: str, key: str) -> Record | None:
        row = self._db.one(sql, (key,))
        return dict(zip(EPISODE_FIELDS, row)) if row else None

    def list_episodes(self) -> list[Record]:
        return [dict(zip(EPISODE_FIELDS, r)) for r in self._db.rows(self._q.EPISODES_IN_ORDER)]

    # --- predicates --------------------------------------------------------------------------
    def get_predicate(self, pred_id: str) -> Record | None:
        row = self._db.one(self._q.GET_PREDICATE, (pred_id,))
        return _json_record(row[0]) if row else None

    def list_predicates(self, category: str | None = None,
                        status: str | None = None) -> list[Record]:
        rows = self._db.rows(self._q.LIST_PREDICATES, {"c": category, "s": status})
        return [_json_record(r[0]) for r in rows]

    def register_predicate(self, row: Record) -> None:
        with self._db.atomic(can_fail_midway=False):
            merged = rec.registered_predicate(self.get_predicate(str(row.get("id") or "")), row)
            self._db.run(self._q.UPSERT_PREDICATE, (merged["id"], merged["category"],
                                                    merged["status"], json.dumps(merged)))

    # --- search's word index, neighbours, stats ----------------------------------------------
    def episode_neighbours(self, ids: Iterable[str],
                           span: int) -> list[tuple[str, int, Record, bool]]:
        wanted = sorted(set(ids))
        if not wanted or span < 1:
            return []
        self._refresh()
        rows = self._db.rows(self._q.EPISODE_NEIGHBOURS,
                             {"ids": self._q.id_list(wanted), "span": int(span),
                              "asking": "%" + rec.ASKS + "%"})
        return [(str(r[0]), int(r[1]), dict(zip(FACT_HEAD_FIELDS, r[3:])), bool(r[2]))
                for r in rows]

    def episode_members(self, ids: Iterable[str], cap: int,
                        among: Iterable[str] | None = None, *,
                        episodes: Mapping[str, str | None] | None = None
                        ) -> list[tuple[str, str]]:
        wanted = sorted(set(ids))
        if not wanted or cap < 1:
            return []
        self._refresh()
        if among is not None:
            return self._episode_members_among(wanted, cap, set(among), episodes or {})
        given = sorted(str(r[0]) for r in self._db.rows(self._q.EPISODES_OF,
                                                        {"ids": self._q.id_list(wanted)}))
        out: list[tuple[str, str]] = []
        for episode in given:
            rows = self._db.rows(self._q.EPISODE_FACT_IDS,
                                 {"episode": episode, "cap": int(cap) + 1})
            if len(rows) <= cap:
                out.extend((str(r[0]), episode) for r in rows)
        return out

    def _episode_members_among(self, wanted: list[str], cap: int, among: set[str],
                               known: Mapping[str, str | None]) -> list[tuple[str, str]]:
        """``episode_members`` kept to ``among``, without reading the episodes' other facts:
        first the given facts' episodes of at most ``cap`` facts, each counted on the
        episode index alone, up to ``cap + 1`` entries (one read); only if there are any,
        the episodes of ``among`` and the given facts in one read by id. An episode that
        holds fewer than two of ``among`` lends nothing and is left out. The first read is
        of a few facts, the second of hundreds (every candidate of a search): a store of a
        few large episodes skips it. Episodes ``known`` already (by id) are not read: when
        the given facts' are all known, the first read starts from their episodes; the
        second skips them where the backend reads in id order (their rows' order is the
        order episode shares are summed in, and a sum of floats depends on it)."""
        cap_row = int(cap) + 1
        if all(fact_id in known for fact_id in wanted):
            lent = sorted({str(e) for e in (known[i] for i in wanted) if e is not None})
            small = {str(r[0]) for r in self._db.rows(
                self._q.SMALL_EPISODES_AMONG, {"ids": self._q.id_list(lent), "cap": cap_row})
                } if lent else set()
        else:
            small = {str(r[0]) for r in self._db.rows(
                self._q.SMALL_EPISODES_OF, {"ids": self._q.id_list(wanted), "cap": cap_row})}
        if not small:
            return []
        pool = sorted(among.union(wanted))
        in_order = self._q.FACTS_EPISODES_IN_ID_ORDER
        unread = [fact_id for fact_id in pool if fact_id not in known] if in_order else pool
        read = {str(r[0]): str(r[1]) for r in self._db.rows(
            self._q.FACTS_EPISODES, {"ids": self._q.id_list(unread)})} if unread else {}
        # In the pool's order, as one read of them all gives it (or as the server gave it).
        episode_of = {fact_id: str(episode) for fact_id in pool
                      for episode in (known[fact_id] if fact_id in known else read.get(fact_id),)
                      if episode is not None} if in_order else read
        shared = Counter(episode for fact_id, episode in episode_of.items() if fact_id in among)
        return [(fact_id, episode) for fact_id, episode in episode_of.items()
                if episode in small and shared[episode] >= 2 and fact_id in among]

    def _has_words(self) -> bool:
        """Whether the store has the word index (format 6); a reader may open format 4 or 5."""
        if self._words_known is None:
            found = self._db.one(self._q.HAS_WORDS)
            self._words_known = bool(found and found[0])
        return self._words_known

    def stats(self) -> dict[str, Any]:
        entities, total, closed, episodes = self._db.one(common.STATS_COUNTS) or (0, 0, 0, 0)
        statuses = {r[0]: r[1] for r in self._db.rows(common.PREDICATE_STATUSES)}
        return rec.stats_record(self._format(), entities, total, total - closed, episodes,
                                statuses)

    def is_empty(self) -> bool:
        found = self._db.one(common.IS_EMPTY)
        return bool(found and found[0])

    # --- purge: the one supported way rows leave the store (docs/forget-and-purge.md) --------
    def delete_facts(self, ids: Iterable[str]) -> int:
        """Facts with their conflict links (either side) and audit verdicts."""
        wanted = sorted(set(rec.as_list(ids) or []))
        if not wanted:
            return 0
        listed = self._q.id_list(wanted)
        with self._db.atomic(can_fail_midway=False):
            self._before_delete()
            self._db.run(self._q.DELETE_FACT_AUDITS, (listed,))
            self._db.run(self._q.DELETE_FACT_LINKS, {"w": listed})
            deleted = self._db.run(self._q.DELETE_FACTS, (listed,))
            # Their ids leave the touches too (their links and verdicts touched them): a
            # deletion is recorded as the touch of no id, DELETED_TOUCH.
            self._db.run(self._q.DELETE_TOUCHES, (listed,))
            return deleted

    def delete_episodes(self, ids: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        if not wanted:
            return 0
        with self._db.transaction():
            self._before_delete()
            return self._db.run(self._q.DELETE_EPISODES, (self._q.id_list(wanted),))

    def update_episode(self, episode_id: str, *, summary: str | None,
                       evidence: str | None) -> None:
        with self._db.transaction():
            self._before_delete()
            if not self._db.run(self._q.UPDATE_EPISODE, (summary, evidence, episode_id)):
                raise rec.not_found("episode", episode_id)


def _entity_params(row: Record) -> dict[str, Any]:
    return common.entity_params(row, normalize_entity_name(row["name"]),
                                "\x1f".join([row["name"], *row["aliases"]]))


def fact_end_ids(rows: Sequence[Row]) -> set[str]:
    """The entity ids the fact rows (FACT_FIELDS order) name as subject or object."""
    ids = {row[_SUBJECT_AT] for row in rows}
    ids.update(row[_OBJECT_REF_AT] for row in rows)
    ids.discard(None)  # a literal fact's object_ref
    return ids


_SUBJECT_AT, _OBJECT_REF_AT = FACT_FIELDS.index("subject"), FACT_FIELDS.index("object_ref")
_LINKS_AT, _EVIDENCE_AT = FACT_FIELDS.index("conflicts"), FACT_FIELDS.index("evidence")


def facts_from_rows(rows: Iterable[Row], entities: Mapping[str, Record]) -> list[Record]:
    """Fact rows (FACT_FIELDS order; links and evidence as JSON text) as facts, their ends
    hydrated from ``entities`` (by id; an id it lacks: a dangling entity), each end a copy of
    its own. One loop with no call per field, the collector paused (``store.bulk``): a
    whole-store read builds 100k facts here (issue 29)."""
    found = entities.get
    loads = json.loads
    facts = []
    with collector_paused():
        for row in rows:
            fact = dict(zip(FACT_FIELDS, row))
            end = row[_SUBJECT_AT]
            entity = found(end)
            fact["subject"] = (dict(entity, aliases=list(entity["aliases"])) if entity
                               else rec.dangling_entity(end))
            end = row[_OBJECT_REF_AT]
            if end is not None:
                entity = found(end)
                fact["object_ref"] = (dict(entity, aliases=list(entity["aliases"])) if entity
                                      else rec.dangling_entity(end))
            links, evidence = row[_LINKS_AT], row[_EVIDENCE_AT]
            fact["conflicts"] = sorted(loads(links)) if links != "[]" else []
            fact["evidence"] = loads(evidence) if evidence != "[]" else []
            facts.append(fact)
    return facts


def entity_from_row(row: Row) -> Record:
    entity = dict(zip(ENTITY_FIELDS, row))
    entity["aliases"] = json.loads(entity["aliases"])
    return entity


def audit_from_row(row: Row) -> Record:
    out = dict(zip(AUDIT_FIELDS, row))
    out["details"] = json.loads(out["details"])
    return out


def entity_copy(row: Record) -> Record:
    return dict(row, aliases=list(row["aliases"]))


def _json_record(text: str) -> Record:
    found: Record = json.loads(text)
    return found


def _repeated(rows: Iterable[Row]) -> list[int]:
    """Rows (value, how many) as the sorted list that holds each value that many times."""
    values: list[int] = []
    for value, count in rows:
        values += [value] * count
    return values
