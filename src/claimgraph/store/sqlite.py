"""SqliteStore: the production Store on stdlib sqlite3 (docs/store.md).

Statements live in ``sqlite_sql``, the schema and migrations in ``sqlite_schema``, and the
connection's guarantees (choke points, re-entrant transactions) in ``sqlite_db``; this module
maps protocol methods onto them and shapes rows exactly as ``store.memory`` does.

Hydration is the hot path of the write path (every fact read embeds two entities), so
entities are cached in-process. Our own entity writes evict; a rollback or another process's
commit (seen through ``PRAGMA data_version``) clears the cache before the next read.
"""

from __future__ import annotations

import json
import operator
import sqlite3
from pathlib import Path

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import CONTEXT_HEAD_FIELDS, EPISODE_FIELDS
from claimgraph.store import records as rec
from claimgraph.store import sqlite_schema as schema
from claimgraph.store import sqlite_sql as q
from claimgraph.store.records import Record
from claimgraph.store.sql import SqlStore, entity_copy, entity_from_row, fact_end_ids
from claimgraph.store.sqlite_curation import SqliteCuration
from claimgraph.store.sqlite_db import SqliteDb
from claimgraph.store.sqlite_purge import SqlitePurge

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any, Iterable, Iterator, Mapping, Sequence
    from claimgraph.store.sql_dialect import Row, SqlDialect

_ENTITY_CACHE_MAX = 50_000
SEARCH_INDEXES = ("fact_fts", "entity_fts", "episode_fts", "fact_words")


#: A search key row's (valid, -t_valid): the order before the literal.
_time_key = operator.itemgetter(0, 1)


class SqliteStore(SqliteCuration, SqlitePurge, SqlStore):
    """A claimgraph store in one SQLite file (or ``":memory:"``)."""

    _q: SqlDialect = q
    _db: SqliteDb
    _integrity_error = sqlite3.IntegrityError
    _sections_module = "claimgraph.store.sqlite_sections"

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
        self._layout: tuple[bool, bool] | None = None  # (word index, search keys): formats 6, 8
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
            if self._has_keys():
                for mark in q.MARK_NEW_ENDS:
                    self._db.run(mark, (self._unindexed_after,))
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
            self._unindexed_after = int(self._db.value("SELECT coalesce(max(pk), 0) FROM facts"))

    # --- SqlStore hooks -----------------------------------------------------------------
    def _refresh(self) -> None:
        self._db.refresh()

    def _facts_coming(self) -> None:
        self._note_new_facts()

    def _entities_written(self, ids: Iterable[str]) -> None:
        for entity_id in ids:
            self._entities.pop(entity_id, None)
            self._unindexed_entities.add(entity_id)

    def _entity_deleted(self, entity_id: str) -> None:
        self._entities.pop(entity_id, None)

    def _before_read_of_new_text(self) -> None:
        """A search inside a transaction indexes what it wrote first."""
        if self._db.depth:
            self._index_pending()

    def _before_delete(self) -> None:
        """Zero deleted content in place (``sqlite_purge``); a fact's index entry must exist
        before its delete trigger runs."""
        self._secure()
        self._index_pending()

    def _has_words(self) -> bool:
        """Whether the store has the word index (format 6); read with ``_has_keys``."""
        return self._search_layout()[0]

    def _has_keys(self) -> bool:
        """Whether the store has search's keys (format 8: ``sqlite_schema.SEARCH_KEYS``); a
        reader may open an older format, and a test may build a store only part of the way."""
        return self._search_layout()[1]

    def _search_layout(self) -> tuple[bool, bool]:
        if self._layout is None:
            found = self._db.one(q.SEARCH_LAYOUT)
            self._layout = (bool(found and found[0]), bool(found and found[1]))
        return self._layout

    def _prepare_math(self) -> None:
        import math  # a shared library in most builds: loaded by the curation that needs it
        self._db.ensure_function("pow", 2, math.pow)

    def _stream(self, sql: str, params: Any) -> Iterator[Row]:
        return self._db.stream(sql, params)

    def _format(self) -> int:
        return self.schema_version()  # a reader's may lag

    def _entity_out(self, row: Row) -> Record:
        return self._cached_entity(row)

    def _lookup_entity(self, entity_id: str) -> Record | None:
        return self._entity(entity_id)

    def _entity_map(self, rows: list[Row]) -> Mapping[str, Record]:
        return self._entities_named(rows)

    # --- transactions and marks ------------------------------------------------------
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

    # --- the entity cache ------------------------------------------------------------
    def _entity(self, entity_id: str) -> Record | None:
        """The cached entity row (never handed out as is)."""
        row = self._entities.get(entity_id)
        if row is None:
            row = self._fetch_entity(entity_id)
            if row is not None:
                self._remember(row)
        return row

    def _entities_named(self, rows: list[Row]) -> dict[str, Record]:
        """The ends of these fact rows (FACT_FIELDS order) by id: the cached ones, and the
        rest in ONE query (remembered), so hydrating them never asks once per fact. Its own
        map, not the cache: a read that names more entities than the cache holds would have
        the cache emptied under it, and an end whose row is gone is looked for once."""
        cached = self._entities
        found: dict[str, Record] = {}
        missing = []
        for end in fact_end_ids(rows):
            entity = cached.get(end)
            if entity is None:
                missing.append(end)
            else:
                found[end] = entity
        if missing:
            for row in self._db.rows(q.ENTITIES_BY_IDS, (q.id_list(sorted(missing)),)):
                entity = found[row[0]] = entity_from_row(row)
                self._remember(entity)
        return found

    def _cached_entity(self, row: Row) -> Record:
        cached = self._entities.get(row[0])
        if cached is None:
            cached = entity_from_row(row)
            self._remember(cached)
        return entity_copy(cached)

    def _remember(self, entity: Record) -> None:
        if len(self._entities) >= _ENTITY_CACHE_MAX:
            self._entities.clear()
        self._entities[entity["id"]] = entity

    # --- the SessionStart context's reads (``ContextHeads`` in store.base) -------------
    def select_context_heads(self, scopes: Iterable[str], since: int) -> list[Record]:
        """Light rows of the scopes' live facts valid now or closed since ``since`` (the
        SessionStart context's shortlist input: ``logic.briefing_shortlist``)."""
        wanted = sorted(set(scopes))
        if not wanted:
            return []
        self._db.refresh()
        return [dict(zip(CONTEXT_HEAD_FIELDS, row))
                for row in self._db.rows(*q.context_heads(wanted, since))]

    def count_context_heads(self, scopes: Iterable[str], since: int, cap: int) -> int:
        """``len(select_context_heads(scopes, since))`` or more (dormant facts count), but
        never counted past ``cap``: what a live compile would read, learned without reading
        it (the SessionStart hook's guard, ``core.briefing.gather``)."""
        wanted = sorted(set(scopes))
        if not wanted:
            return 0
        self._db.refresh()
        found = self._db.one(*q.context_heads_capped(wanted, since, cap))
        return int(found[0]) if found else 0

    def iter_context_heads(self, scopes: Iterable[str], since: int) -> Iterator[Record]:
        """``select_context_heads`` as a stream (the curator's shortlists stage keeps a few
        hundred of a project's million heads)."""
        wanted = sorted(set(scopes))
        if not wanted:
            return
        self._db.refresh()
        for row in self._db.stream(*q.context_heads(wanted, since)):
            yield dict(zip(CONTEXT_HEAD_FIELDS, row))

    def touch_mark(self) -> tuple[int, int]:
        found = self._db.one(q.TOUCH_MARK)
        return (0, 0) if found is None else (int(found[0]), int(found[1]))

    def touched_since(self, mark: Sequence[int], limit: int) -> list[str] | None:
        """``SqlStore.touched_since``, and the facts inserted since: the rowids above the
        mark's largest (one writer at a time, so a later insert gets a larger rowid; the
        largest deleted and its rowid given again is a deletion, which answers None)."""
        touched = super().touched_since(mark, limit)
        if touched is None:
            return None
        inserted = [r[0] for r in self._db.rows(q.INSERTED_AFTER, (int(mark[1]), limit + 1))]
        ids = list(dict.fromkeys(touched + inserted))
        return None if len(ids) > limit else ids

    # --- search and housekeeping -----------------------------------------------------
    def search(self, query: str, limit: int = 50, *,
               heads: bool = False) -> dict[str, list[Record]]:
        """FTS5 trigram over names/aliases, literals and summaries; the query is one phrase."""
        if not rec.search_text_ok(query):
            return {"entities": [], "facts": [], "episodes": []}
        self._db.refresh()
        self._before_read_of_new_text()
        params = (q.fts_phrase(query), limit)
        rowids = sorted(r[0] for r in self._db.rows(q.ENTITY_MATCHES, params[:1]))
        named = json.dumps(rowids)
        return {
            "entities": [self._cached_entity(r) for r in self._db.rows(
                q.SEARCH_ENTITIES, (named, limit))] if rowids else [],
            "facts": self._search_facts((*params, named), heads),
            "episodes": [dict(zip(EPISODE_FIELDS, r))
                         for r in self._db.rows(q.SEARCH_EPISODES, params)],
        }

    def search_facts(self, query: str, limit: int = 50, *, heads: bool = False) -> list[Record]:
        if not rec.search_text_ok(query):
            return []
        self._db.refresh()
        self._before_read_of_new_text()
        return self._search_facts((q.fts_phrase(query), limit), heads)

    def _search_facts(self, params: tuple[Any, ...], heads: bool = False) -> list[Record]:
        """The candidates' sort keys first, the best ``limit`` of them then read whole or as
        heads (sqlite_sql SEARCH_*); ``params``: the phrase, the limit and, when already
        matched, the entities' rowids. The keys of every route come from one statement
        (``sqlite_sql.search_keys``)."""
        phrase, limit = params[:2]
        values = {"phrase": phrase, "limit": limit}
        named = "match"
        if len(params) == 3:  # matched already: none, or their rowids
            named = "none" if params[2] == "[]" else "given"
            values["named"] = params[2]
        first = self._first_text_hits(phrase, limit)
        texts = "match" if first is None else "given" if first else "none"
        if first:
            values["texts"] = json.dumps(first)
        if (named, texts) == ("none", "none"):
            return []
        statement = q.search_keys_for(named, texts, self._has_keys())
        keys: dict[int, Row] = {  # pk -> its sort key row (pk last); a later row wins
            r[-1]: r for r in self._db.rows(statement, values)}
        if not keys:
            return []
        ranked = self._cut_by_literal(list(keys.values()), limit)
        best = json.dumps([r[-1] for r in ranked])
        if heads:
            rows = self._db.rows(q.SEARCH_HEADS_BY_PK, (best,))
            return [dict(zip(rec.SEARCH_HEAD_FIELDS, r)) for r in rows]
        return self._hydrate(self._db.rows(q.SEARCH_FACTS_BY_PK, (best,)))

    def _cut_by_literal(self, rows: list[Row], limit: int) -> list[Row]:
        """The best ``limit`` key rows (valid, -t_valid, literal, id, pk; all when ``limit`` is
        negative, as SQL's LIMIT -1), in any order (the kept facts are read in the search
        order). A named entity's rows come without their literal and id (None): where the cut
        falls among facts of one valid time, those are read (one read of those few), so the
        literal decides which stay, never the id (but between equal literals)."""
        if limit < 0 or len(rows) <= limit:
            return rows
        if limit == 0:
            return []
        # One sort in C (the same order as a keyed nsmallest, which ran Python per row): the
        # rows tied with the limit-th on (valid, valid time) are one run around it.
        ordered = sorted(rows, key=_time_key)
        edge = _time_key(ordered[limit - 1])
        start, end = limit - 1, limit
        while start and _time_key(ordered[start - 1]) == edge:
            start -= 1
        while end < len(ordered) and _time_key(ordered[end]) == edge:
            end += 1
        if end == limit:
            return ordered[:limit]
        tied = ordered[start:end]
        unread = [r[-1] for r in tied if r[2] is None]
        read: dict[int, tuple[str, str]] = {pk: (text, fact_id) for pk, text, fact_id in (
            self._db.rows(q.CUT_LITERALS, (json.dumps(unread),)) if unread else ())}
        tied.sort(key=lambda r: read.get(r[-1], ("", "")) if r[2] is None else (r[2], r[3]))
        return ordered[:start] + tied[:limit - start]

    def rank_words(self, words: Sequence[str], limit: int = 50, *,
                   heads: bool = False, at: int | None = None) -> list[Record] | None:
        """Open facts whose literal holds any of the words (porter stems), best BM25 first;
        None when the store predates the word index (format < 6, read as it is). Words on
        too many facts are left out (``logic.query_words.within_budget``)."""
        if not self._has_words():
            return None
        wanted = [w for w in words if w and w.strip()]
        if not wanted or limit == 0:
            return []
        self._db.refresh()
        self._before_read_of_new_text()
        from claimgraph.logic import query_words as QW  # search only: not the hook's path

        quoted = json.dumps([q.words_match([w]) for w in wanted])
        counts = self._db.rows(q.WORD_COUNTS, (quoted, QW.WORD_POSTINGS_BUDGET + 1))
        wanted = QW.within_budget([(w, r[0]) for w, r in zip(wanted, counts)])
        if not wanted:
            return []
        hits = [self._db.rows(q.word_hits(self._has_keys()), (q.words_match([w]), at))
                for w in wanted]
        scores = QW.open_word_scores(hits, self._indexed_words())
        contenders = QW.contenders(scores, limit)
        if not contenders:
            return []
        texts = {pk: (text, fact_id) for pk, text, fact_id in
                 self._db.rows(q.CUT_LITERALS, (json.dumps(contenders),))}
        pks = QW.best_by_score(scores, texts, limit)
        place = {pk: n for n, pk in enumerate(pks)}
        if heads:
            rows = self._db.rows(q.HEADS_BY_PK,
                                 (json.dumps(pks),))
            rows = sorted(rows, key=lambda r: place[r[0]])
            return [dict(zip(rec.SEARCH_HEAD_FIELDS, r[1:])) for r in rows]
        rows = self._db.rows(q.FACTS_BY_PK,
                             (json.dumps(pks),))
        rows = sorted(rows, key=lambda r: place[r[0]])
        return self._hydrate([r[1:] for r in rows])

    def _indexed_words(self) -> int:
        """The rows of the word index, as FTS5's BM25 counted them (``q.WORD_INDEX_AVERAGES``)."""
        found = self._db.one(q.WORD_INDEX_AVERAGES)
        return leading_varint(found[0]) if found and found[0] else 0

    def _first_text_hits(self, phrase: str, limit: int) -> list[int] | None:
        """The rowids of every full-text hit when there are no more than ``limit * 10``, else
        None (the newest that many are then walked back to, in the keys' statement). A phrase
        of several words usually matches few facts, and then every match is a hit: read
        oldest first, they come about twice as fast as walked back from the newest (a rare
        phrase reads its whole posting lists either way). A single word is walked back to at
        once."""
        cap = limit * 10
        if cap >= 0 and " " in phrase:
            first = self._db.rows(q.SEARCH_FTS_FIRST_PKS, (phrase, cap + 1))
            if len(first) <= cap:
                return [r[0] for r in first]
        return None

    def schema_version(self) -> int:
        """The version stored in the database (``PRAGMA user_version``)."""
        return int(self._db.pragma("user_version"))

    def pragma(self, name: str) -> Any:
        """Read one pragma (tests and diagnostics)."""
        return self._db.pragma(name)

    def close(self) -> None:
        """Close the connection; the last one out folds the WAL back into the file."""
        self._entities.clear()
        self._db.close()


def leading_varint(blob: bytes) -> int:
    """The SQLite varint at the start of ``blob`` (big-endian, seven bits a byte while the
    high bit is set; the ninth byte gives all eight), as FTS5 writes its records."""
    value = 0
    for n, byte in enumerate(blob[:9]):
        if n == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return value
