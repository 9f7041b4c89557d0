"""PostgresStore: the Store protocol on a PostgreSQL server, for a team's shared memory.

Statements live in ``postgres_sql``, the schema in ``postgres_schema``, the connection's
guarantees in ``postgres_db``; this module maps protocol methods onto them and shapes rows
exactly as ``store.memory`` and ``store.sqlite`` do (the contract suite runs against all).
Entities are hydrated with one batched query per read (other people's processes change
them, so there is no in-process cache to go stale).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.logic.model import (
    AUDIT_FIELDS, ENTITY_FIELDS, EPISODE_FIELDS, FACT_FIELDS, FACT_HEAD_FIELDS,
    FACT_HEAD_FIELDS_NO_ENDS, SUSPECT_VERDICTS,
)
from claimgraph.logic.names import normalize_entity_name
from claimgraph.store import postgres_schema as schema
from claimgraph.store import postgres_sql as q
from claimgraph.store import records as rec
from claimgraph.store.postgres_db import IntegrityError, PostgresDb, redact_url
from claimgraph.store.postgres_purge import PostgresPurge
from claimgraph.store.records import Record


class PostgresStore(PostgresPurge):
    """A claimgraph store in a PostgreSQL database (``postgresql://…``)."""

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.url = url
        self.path = redact_url(url)
        self._db = PostgresDb(url)
        try:
            if read_only:
                schema.require_current(self._db, self.path)
            else:
                schema.migrate(self._db, self.path)
        except BaseException:
            self._db.close()
            raise

    # --- transactions and marks ------------------------------------------------------
    def transaction(self) -> Any:
        return self._db.transaction()

    def get_mark(self, key: str) -> Any:
        row = self._db.one("SELECT value FROM marks WHERE key = %s", (key,))
        return None if row is None else json.loads(row[0])

    def set_mark(self, key: str, value: Any) -> None:
        self._db.run("INSERT INTO marks (key, value) VALUES (%s, %s) ON CONFLICT (key)"
                     " DO UPDATE SET value = excluded.value", (key, json.dumps(value)),
                     counted=False)

    def write_count(self) -> int:
        return rec.write_count(self.get_mark(rec.WRITES_MARK))

    # --- entities --------------------------------------------------------------------
    def insert_entity(self, entity: Record) -> Record:
        row = rec.entity_record(entity)
        with self._db.atomic():
            try:
                self._db.run(q.INSERT_ENTITY, (
                    row["id"], row["name"], normalize_entity_name(row["name"]), row["type"],
                    row["scope"], json.dumps(row["aliases"]),
                    q.search_text(row["name"], row["aliases"])))
            except IntegrityError:
                raise rec.exists("entity", row["id"]) from None
            self._write_aliases(row["id"], row["aliases"], fresh=True)
        return _entity_copy(row)

    def insert_entities(self, entities: Iterable[Record]) -> list[Record]:
        """One insert per entity (a batch's new entities are few beside its facts)."""
        with self._db.atomic():
            return [self.insert_entity(entity) for entity in entities]

    def _write_aliases(self, entity_id: str, aliases: Sequence[str], fresh: bool = False) -> None:
        if not fresh:
            self._db.run("DELETE FROM entity_aliases WHERE entity_id = %s", (entity_id,))
        if aliases:
            self._db.many(q.INSERT_ALIAS,
                          [(entity_id, a, normalize_entity_name(a)) for a in aliases])

    def get_entity(self, name: str, scope: str) -> Record | None:
        row = self._db.one(q.ENTITY_SELECT + " WHERE scope = %s AND name = %s ORDER BY id LIMIT 1",
                           (scope, name))
        return _entity_from_row(row) if row else None

    def get_entity_by_id(self, entity_id: str) -> Record | None:
        row = self._db.one(q.ENTITY_SELECT + " WHERE id = %s", (entity_id,))
        return _entity_from_row(row) if row else None

    def find_entities(self, name: str, scope: str | None) -> list[Record]:
        rows = self._db.rows(q.FIND_ENTITIES, {"n": normalize_entity_name(name), "s": scope})
        return [_entity_from_row(r) for r in rows]

    def find_entities_many(self, names: Iterable[str],
                           scope: str | None) -> dict[str, list[Record]]:
        return {name: self.find_entities(name, scope) for name in set(names)}

    def update_entity(self, entity_id: str, *, name: str | None = None, type: str | None = None,
                      add_aliases: Sequence[str] = (), remove_aliases: Sequence[str] = ()) -> Record:
        with self._db.atomic():
            row = self.get_entity_by_id(entity_id)
            if row is None:
                raise rec.not_found("entity", entity_id)
            row.update(name=name or row["name"], type=type or row["type"],
                       aliases=rec.merge_aliases(row["aliases"], add_aliases, remove_aliases))
            self._db.run("UPDATE entities SET name = %s, norm = %s, type = %s, aliases = %s,"
                         " search_text = %s WHERE id = %s",
                         (row["name"], normalize_entity_name(row["name"]), row["type"],
                          json.dumps(row["aliases"]), q.search_text(row["name"], row["aliases"]),
                          entity_id))
            self._write_aliases(entity_id, row["aliases"])
        return _entity_copy(row)

    def repoint_facts(self, from_id: str, to_id: str) -> int:
        with self._db.atomic():
            if self.get_entity_by_id(to_id) is None:
                raise rec.not_found("entity", to_id)
            return self._db.run(
                "UPDATE facts SET subject_id = CASE WHEN subject_id = %(f)s THEN %(t)s"
                " ELSE subject_id END, object_ref_id = CASE WHEN object_ref_id = %(f)s"
                " THEN %(t)s ELSE object_ref_id END"
                " WHERE subject_id = %(f)s OR object_ref_id = %(f)s", {"f": from_id, "t": to_id})

    def delete_entity(self, entity_id: str) -> None:
        try:
            with self._db.atomic():
                self._db.run("DELETE FROM entities WHERE id = %s", (entity_id,))
        except IntegrityError:
            raise rec.entity_in_use(entity_id) from None

    def list_entities(self, type: str | None = None, scope: str | None = None) -> list[Record]:
        rows = self._db.rows(q.ENTITY_SELECT + " WHERE (%(t)s::text IS NULL OR type = %(t)s)"
                             " AND (%(s)s::text IS NULL OR scope = %(s)s)" + q.ENTITY_ORDER,
                             {"t": type, "s": scope})
        return [_entity_from_row(r) for r in rows]

    def _entities_by_id(self, ids: Iterable[str]) -> dict[str, Record]:
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        rows = self._db.rows(q.ENTITY_SELECT + " WHERE id = ANY(%s::text[])", (wanted,))
        return {r[0]: _entity_from_row(r) for r in rows}

    # --- facts -----------------------------------------------------------------------
    def insert_fact(self, fact: Record) -> None:
        self.insert_facts((fact,))

    def insert_facts(self, facts: Iterable[Record]) -> None:
        batch = list(facts)
        if not batch:
            return
        params = [_fact_params(f) for f in batch]
        links = [(f["id"], other) for f in batch for other in sorted(set(f.get("conflicts") or ()))]
        try:
            with self._db.atomic():
                self._db.many(q.INSERT_FACT, params)
                if links:
                    self._db.many(q.INSERT_LINK, links)
        except IntegrityError:
            raise self._fact_batch_error(batch) from None

    def _fact_batch_error(self, batch: list[Record]) -> Exception:
        seen: set[str] = set()
        for fact in batch:
            if fact["id"] in seen or self._db.one("SELECT 1 FROM facts WHERE id = %s",
                                                  (fact["id"],)):
                return rec.exists("fact", fact["id"])
            seen.add(fact["id"])
            for ref in (rec.ref_id(fact["subject"]), rec.ref_id(fact.get("object_ref"))):
                if ref is not None and self.get_entity_by_id(ref) is None:
                    return rec.not_found("entity", ref)
        return ClaimgraphError("invalid-fact", "the store refused a fact",
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
        fields, select = ((FACT_HEAD_FIELDS, q.FACT_HEAD_SELECT) if ends
                          else (FACT_HEAD_FIELDS_NO_ENDS, q.FACT_HEAD_NO_ENDS_SELECT))
        rows = self._db.rows(*q.facts_touching(ids, direction, None, select, ""))
        return [dict(zip(fields, row)) for row in rows]

    def select_facts(self, *, ids: Iterable[str] | None = None, source_type: str | None = None,
                     predicates: Iterable[str] | None = None, scopes: Iterable[str] | None = None,
                     episodes: Iterable[str] | None = None, recorded_before: int | None = None,
                     conflicted: bool = False, valid_cheap: bool = False,
                     with_evidence: bool = False) -> list[Record]:
        lists = {"id": rec.as_list(ids), "predicate": rec.as_list(predicates),
                 "scope": rec.as_list(scopes), "episode": rec.as_list(episodes)}
        return self._facts(q.select_facts(lists, source_type, recorded_before, conflicted,
                                          valid_cheap, with_evidence))

    def get_history(self, entity_id: str, predicate: str) -> list[Record]:
        return self.get_facts(entity_id, "out", [predicate])

    def all_facts(self) -> list[Record]:
        return self._facts((q.FACT_SELECT + " ORDER BY f.recorded_at, f.id", []))

    def repoint_predicate(self, from_id: str, to_id: str) -> int:
        return self._db.run("UPDATE facts SET predicate = %s WHERE predicate = %s", (to_id, from_id))

    def invalidate(self, fact_id: str, at: int, kind: str | None = None,
                   reason: str | None = None, successor: str | None = None) -> None:
        self._update_fact("t_invalid = %s, invalidation_kind = %s, invalidation_reason = %s,"
                          " successor = %s", (at, kind, reason, successor), fact_id)

    def reinforce(self, fact_id: str, at: int, confidence: float,
                  source_type: str | None = None) -> None:
        self._update_fact("last_reinforced_at = %s, confidence = %s,"
                          " source_type = coalesce(%s, source_type)",
                          (at, float(confidence), source_type), fact_id)

    def _update_fact(self, assignments: str, params: tuple, fact_id: str) -> None:
        if not self._db.run(f"UPDATE facts SET {assignments} WHERE id = %s", (*params, fact_id)):
            raise rec.not_found("fact", fact_id)

    def link_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        self._edit_links(q.INSERT_LINK, fact_id, ids)

    def unlink_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        self._edit_links(q.DELETE_LINK, fact_id, ids)

    def _edit_links(self, sql: str, fact_id: str, ids: Iterable[str]) -> None:
        others = list(ids)
        with self._db.atomic():
            if not self._db.one("SELECT 1 FROM facts WHERE id = %s", (fact_id,)):
                raise rec.not_found("fact", fact_id)
            if others:
                self._db.many(sql, [(fact_id, other) for other in others])

    def _facts(self, plan: q.Plan) -> list[Record]:
        rows = self._db.rows(*plan)
        refs = {r[1] for r in rows} | {r[4] for r in rows if r[4] is not None}
        entities = self._entities_by_id(refs)
        return [self._fact(row, entities) for row in rows]

    def _fact(self, row: tuple, entities: dict[str, Record]) -> Record:
        fact = dict(zip(FACT_FIELDS, row))
        fact["subject"] = _hydrated(entities, fact["subject"])
        if fact["object_ref"] is not None:
            fact["object_ref"] = _hydrated(entities, fact["object_ref"])
        fact["conflicts"] = sorted(fact["conflicts"] or [])
        fact["evidence"] = json.loads(fact["evidence"]) if fact["evidence"] != "[]" else []
        return fact

    # --- curation state ----------------------------------------------------------------
    def set_dormant(self, ids: Iterable[str], at: int) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        return self._db.run(q.SET_DORMANT, (int(at), wanted)) if wanted else 0

    def revive(self, ids: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        return self._db.run(q.REVIVE, (wanted,)) if wanted else 0

    def dormant_fact_ids(self) -> list[str]:
        return [r[0] for r in self._db.rows(q.DORMANT_IDS)]

    def record_audit(self, rows: Iterable[Record]) -> None:
        batch = [rec.audit_record(r) for r in rows]
        if not batch:
            return
        params = [(*(r[f] for f in AUDIT_FIELDS[:-1]), json.dumps(r["details"], sort_keys=True))
                  for r in batch]
        try:
            with self._db.atomic():
                self._db.many(q.UPSERT_AUDIT, params)
        except IntegrityError:
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
            rows = self._db.rows(q.AUDIT_SELECT + " WHERE fact_id = ANY(%s::text[])"
                                 + q.AUDIT_ORDER, (sorted(set(wanted)),))
        return [_audit_from_row(r) for r in rows]

    def context_sections(self, scopes: Iterable[str], now: int, *,
                         windows: Mapping[str, tuple[int, int]], open_ids: Iterable[str] = (),
                         narrowing: Any = None,
                         half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
        """``SqliteStore.context_sections`` in PostgreSQL: {counts, ids, reasons}."""
        # Imported here: only the viewer asks, and every command's startup imports this module.
        from claimgraph.logic.briefing_sections import SECTION_KEYS, Narrowing
        from claimgraph.store import postgres_sections as sections_sql
        wanted = sorted(set(scopes))
        narrowing = narrowing or Narrowing()
        counts = dict.fromkeys(SECTION_KEYS, 0)
        ids: dict[str, list[str]] = {key: [] for key in windows}
        reasons: dict[str, str] = {}
        if not wanted:
            return {"counts": counts, "ids": ids, "reasons": reasons}
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

    def valid_times(self, scopes: Iterable[str]) -> dict[str, list[int]]:
        """``SqliteStore.valid_times`` in PostgreSQL."""
        from claimgraph.store import postgres_sections as sections_sql
        begins, ends, params = sections_sql.valid_times(sorted(set(scopes)))
        return {"begins": [r[0] for r in self._db.rows(begins, params)],
                "ends": [r[0] for r in self._db.rows(ends, params)]}

    def believed_at(self, scopes: Iterable[str], at: int, *, since: int | None, limit: int,
                    half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
        """``SqliteStore.believed_at`` in PostgreSQL."""
        from claimgraph.store import postgres_sections as sections_sql
        (count, first, began, ended), params = sections_sql.believed_at(
            sorted(set(scopes)), at, since, limit, half_life_days)
        return {"total": self._db.one(count, params)[0],
                "ids": [r[0] for r in self._db.rows(first, params)],
                "began": [r[0] for r in self._db.rows(began, params)],
                "ended": [r[0] for r in self._db.rows(ended, params)]}

    def suspect_fact_ids(self) -> list[str]:
        return [r[0] for r in self._db.rows(q.SUSPECT_IDS, (list(SUSPECT_VERDICTS),))]

    def scope_counts(self) -> dict[str, Record]:
        suspect = dict(self._db.rows(q.SCOPE_SUSPECTS, (list(SUSPECT_VERDICTS),)))
        return {scope: rec.scope_count_record(total, valid, dormant, suspect.get(scope, 0), last)
                for scope, total, valid, dormant, last in self._db.rows(q.SCOPE_COUNTS)}

    # --- usage -----------------------------------------------------------------------
    def predicate_usage(self) -> dict[str, int]:
        return rec.counted(self._db.rows("SELECT predicate, count(*) FROM facts GROUP BY predicate"))

    def entity_usage(self) -> dict[str, int]:
        return rec.counted(self._db.rows(q.ENTITY_USAGE))

    # --- episodes --------------------------------------------------------------------
    def open_episode(self, episode: Record) -> Record:
        row = rec.episode_record(episode)
        with self._db.atomic():
            if self._db.one("SELECT 1 FROM episodes WHERE id = %s", (row["id"],)):
                raise rec.exists("episode", row["id"])
            try:
                with self._db.atomic():
                    self._db.run(q.INSERT_EPISODE, [row[f] for f in EPISODE_FIELDS])
            except IntegrityError:
                raise rec.exists("episode", row["id"], ref=row["ref"]) from None
        return row

    def close_episode(self, episode_id: str, summary: str | None, at: int) -> None:
        if not self._db.run("UPDATE episodes SET summary = %s, closed_at = %s WHERE id = %s",
                            (summary, at, episode_id)):
            raise rec.not_found("episode", episode_id)

    def get_episode(self, episode_id: str) -> Record | None:
        return self._episode(" WHERE id = %s", (episode_id,))

    def get_episode_by_ref(self, ref: str) -> Record | None:
        return self._episode(" WHERE ref = %s", (ref,))

    def _episode(self, where: str, params: tuple) -> Record | None:
        row = self._db.one(q.EPISODE_SELECT + where, params)
        return dict(zip(EPISODE_FIELDS, row)) if row else None

    def list_episodes(self) -> list[Record]:
        rows = self._db.rows(q.EPISODE_SELECT + " ORDER BY opened_at NULLS FIRST, id")
        return [dict(zip(EPISODE_FIELDS, r)) for r in rows]

    # --- predicates ------------------------------------------------------------------
    def get_predicate(self, pred_id: str) -> Record | None:
        row = self._db.one("SELECT row FROM predicates WHERE id = %s", (pred_id,))
        return json.loads(row[0]) if row else None

    def list_predicates(self, category: str | None = None, status: str | None = None) -> list[Record]:
        rows = self._db.rows("SELECT row FROM predicates WHERE (%(c)s::text IS NULL OR category = %(c)s)"
                             " AND (%(s)s::text IS NULL OR status = %(s)s) ORDER BY id",
                             {"c": category, "s": status})
        return [json.loads(r[0]) for r in rows]

    def register_predicate(self, row: Record) -> None:
        with self._db.atomic():
            merged = rec.registered_predicate(self.get_predicate(row.get("id")), row)
            self._db.run("INSERT INTO predicates (id, category, status, row) VALUES (%s, %s, %s, %s)"
                         " ON CONFLICT (id) DO UPDATE SET category = excluded.category,"
                         " status = excluded.status, row = excluded.row",
                         (merged["id"], merged["category"], merged["status"], json.dumps(merged)))

    # --- search and housekeeping -----------------------------------------------------
    def search(self, query: str, limit: int = 50, *,
               heads: bool = False) -> dict[str, list[Record]]:
        """Trigram ILIKE over names/aliases, literals and summaries; the query is one phrase."""
        if not rec.search_text_ok(query):
            return {"entities": [], "facts": [], "episodes": []}
        params = {"p": q.like_pattern(query), "n": limit}
        rows = self._db.rows(q.SEARCH_FACTS, params)
        refs = {r[1] for r in rows} | {r[4] for r in rows if r[4] is not None}
        entities = self._entities_by_id(refs)
        return {
            "entities": [_entity_from_row(r) for r in self._db.rows(q.SEARCH_ENTITIES, params)],
            "facts": _cut([self._fact(r, entities) for r in rows], heads),
            "episodes": [dict(zip(EPISODE_FIELDS, r))
                         for r in self._db.rows(q.SEARCH_EPISODES, params)],
        }

    def search_facts(self, query: str, limit: int = 50, *, heads: bool = False) -> list[Record]:
        """``search``'s facts alone: the entity and episode matches are not run."""
        if not rec.search_text_ok(query):
            return []
        rows = self._db.rows(q.SEARCH_FACTS, {"p": q.like_pattern(query), "n": limit})
        refs = {r[1] for r in rows} | {r[4] for r in rows if r[4] is not None}
        entities = self._entities_by_id(refs)
        return _cut([self._fact(r, entities) for r in rows], heads)

    def rank_words(self, words: Sequence[str], limit: int = 50, *,
                   heads: bool = False) -> list[Record] | None:
        """Open facts holding any of the words ('english' stems), best first by BM25's shape
        (``postgres_sql.words_ranked``: ``ts_rank`` per word times its rarity); None on a
        store that predates the word index (format < 6, read as it is). Words on too many
        facts are left out, as SQLite leaves them (``logic.query_words.within_budget``)."""
        if not self._has_words():
            return None
        from claimgraph.logic import query_words as QW  # search only: not the hook's path

        queries = {w: q.words_query([w]) for w in words if w and w.strip()}
        queries = {w: tsq for w, tsq in queries.items() if tsq}
        if not queries or limit == 0:
            return []
        budget = QW.WORD_POSTINGS_BUDGET + 1
        counts = [(w, self._db.one(q.WORD_COUNT, {"q": tsq, "n": budget})[0])
                  for w, tsq in queries.items()]
        kept = QW.within_budget(counts)
        if not kept:
            return []
        size = self._fact_count()
        df = dict(counts)
        params: dict[str, Any] = {"q": q.words_query(kept), "n": limit}
        for i, word in enumerate(kept):
            params[f"q{i}"], params[f"w{i}"] = queries[word], QW.rarity(size, df[word])
        pks = [r[0] for r in self._db.rows(q.words_ranked(len(kept)), params)]
        if not pks:
            return []
        rows = self._db.rows(q.FACT_SELECT + ", unnest(%(pks)s::bigint[]) WITH ORDINALITY"
                             " AS w(pk, n) WHERE f.pk = w.pk ORDER BY w.n", {"pks": pks})
        refs = {r[1] for r in rows} | {r[4] for r in rows if r[4] is not None}
        entities = self._entities_by_id(refs)
        return _cut([self._fact(r, entities) for r in rows], heads)

    def _fact_count(self) -> int:
        """The facts' number for the rarity weight: the planner's estimate, or a count when
        the table was never analyzed (a new store: small, so the count is cheap)."""
        estimate = self._db.one(q.FACT_COUNT_ESTIMATE)[0]
        return estimate if estimate and estimate > 0 else self._db.one(q.FACT_COUNT)[0]

    def _has_words(self) -> bool:
        """Whether the facts carry the ``words`` column (format 6); a reader may open 4 or 5."""
        known = getattr(self, "_words_known", None)
        if known is None:
            known = self._words_known = bool(self._db.one(q.HAS_WORDS)[0])
        return known

    def stats(self) -> dict[str, Any]:
        counts = self._db.one(
            "SELECT (SELECT count(*) FROM entities), (SELECT count(*) FROM facts),"
            " (SELECT count(*) FROM facts WHERE t_invalid IS NULL), (SELECT count(*) FROM episodes)")
        statuses = dict(self._db.rows("SELECT status, count(*) FROM predicates GROUP BY status"))
        return rec.stats_record(STORE_FORMAT, *counts, statuses)

    def is_empty(self) -> bool:
        return not self._db.one("SELECT EXISTS (SELECT 1 FROM entities)"
                                " OR EXISTS (SELECT 1 FROM facts)"
                                " OR EXISTS (SELECT 1 FROM episodes)")[0]

    def schema_version(self) -> int:
        return schema.stored_version(self._db, self.path)

    def check_integrity(self, quick: bool = True, limit: int = 20) -> list[str]:
        """The server keeps its own pages; a store it serves is as whole as its answers."""
        try:
            self._db.one("SELECT count(*) FROM facts")
        except ClaimgraphError as error:
            return [error.message]
        return []

    def close(self) -> None:
        self._db.close()


def _fact_params(fact: Record) -> tuple:
    rec.check_fact(fact)
    get = fact.get
    evidence = get("evidence")
    return (get("id"), rec.ref_id(get("subject")), get("predicate"), get("object_kind"),
            rec.ref_id(get("object_ref")), get("object_lit"), get("t_valid"), get("t_invalid"),
            get("recorded_at"), get("last_reinforced_at"), float(get("confidence")),
            get("epistemic"), get("scope"), get("source_type"), get("episode"),
            get("invalidation_reason"), get("invalidation_kind"), get("successor"),
            json.dumps(list(evidence)) if evidence else "[]", get("dormant_since"))


def _hydrated(entities: dict[str, Record], entity_id: str) -> Record:
    found = entities.get(entity_id)
    return _entity_copy(found) if found else rec.dangling_entity(entity_id)


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


def _cut(facts: list[Record], heads: bool) -> list[Record]:
    """Search's facts whole, or cut to their heads when the caller ranks first."""
    return [rec.fact_head(f) for f in facts] if heads else facts
