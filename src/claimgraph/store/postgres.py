"""PostgresStore: the Store protocol on a PostgreSQL server, for a team's shared memory.

The reads and writes are ``store.sql.SqlStore``'s, shared with SQLite; this module gives it
PostgreSQL's statements (``postgres_sql``, ``postgres_sections``), its connection
(``postgres_db``) and schema (``postgres_schema``), and answers search with trigram ``ILIKE``
and ``ts_rank`` where SQLite has FTS5. Entities are hydrated with one batched query per read
(other people's processes change them, so there is no in-process cache to go stale).
"""

from __future__ import annotations

from typing import Any, Sequence

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import EPISODE_FIELDS
from claimgraph.store import postgres_schema as schema
from claimgraph.store import postgres_sql as q
from claimgraph.store import records as rec
from claimgraph.store.postgres_db import IntegrityError, PostgresDb, redact_url
from claimgraph.store.postgres_purge import PostgresPurge
from claimgraph.store.records import Record
from claimgraph.store.sql import SqlStore, entity_from_row

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from claimgraph.store.sql_dialect import SqlDialect


class PostgresStore(PostgresPurge, SqlStore):
    """A claimgraph store in a PostgreSQL database (``postgresql://…``)."""

    _q: SqlDialect = q
    _db: PostgresDb
    _integrity_error = IntegrityError
    _sections_module = "claimgraph.store.postgres_sections"

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

    def _format(self) -> int:
        return STORE_FORMAT

    # --- search ----------------------------------------------------------------------
    def search(self, query: str, limit: int = 50, *,
               heads: bool = False) -> dict[str, list[Record]]:
        """Trigram ILIKE over names/aliases, literals and summaries; the query is one phrase."""
        if not rec.search_text_ok(query):
            return {"entities": [], "facts": [], "episodes": []}
        params = {"p": q.like_pattern(query), "n": limit}
        return {
            "entities": [entity_from_row(r) for r in self._db.rows(q.SEARCH_ENTITIES, params)],
            "facts": _cut(self._hydrate(self._db.rows(q.SEARCH_FACTS, params)), heads),
            "episodes": [dict(zip(EPISODE_FIELDS, r))
                         for r in self._db.rows(q.SEARCH_EPISODES, params)],
        }

    def search_facts(self, query: str, limit: int = 50, *, heads: bool = False) -> list[Record]:
        """``search``'s facts alone: the entity and episode matches are not run."""
        if not rec.search_text_ok(query):
            return []
        rows = self._db.rows(q.SEARCH_FACTS, {"p": q.like_pattern(query), "n": limit})
        return _cut(self._hydrate(rows), heads)

    def rank_words(self, words: Sequence[str], limit: int = 50, *,
                   heads: bool = False, at: int | None = None) -> list[Record] | None:
        """Open facts holding any of the words ('english' stems), best first by BM25's shape
        (``postgres_sql.words_ranked``: ``ts_rank`` per word times its rarity among the open
        facts); None on a store that predates the word index (format < 6, read as it is).
        Words on too many open facts are left out, as SQLite leaves them
        (``logic.query_words.within_budget``)."""
        if not self._has_words():
            return None
        from claimgraph.logic import query_words as QW  # search only: not the hook's path

        queries = {w: q.words_query([w]) for w in words if w and w.strip()}
        queries = {w: tsq for w, tsq in queries.items() if tsq}
        if not queries or limit == 0:
            return []
        budget = QW.WORD_POSTINGS_BUDGET + 1
        counts = [(w, self._count(q.WORD_COUNT, {"q": tsq, "n": budget, "at": at}))
                  for w, tsq in queries.items()]
        kept = QW.within_budget(counts)
        if not kept:
            return []
        size = self._fact_count()
        df = dict(counts)
        params: dict[str, Any] = {"q": q.words_query(kept), "n": limit, "at": at}
        for i, word in enumerate(kept):
            params[f"q{i}"], params[f"w{i}"] = queries[word], QW.rarity(size, df[word])
        pks = [r[0] for r in self._db.rows(q.words_ranked(len(kept)), params)]
        if not pks:
            return []
        rows = self._db.rows(q.FACT_SELECT + ", unnest(%(pks)s::bigint[]) WITH ORDINALITY"
                             " AS w(pk, n) WHERE f.pk = w.pk ORDER BY w.n", {"pks": pks})
        return _cut(self._hydrate(rows), heads)

    def _fact_count(self) -> int:
        """The facts' number for the rarity weight: the planner's estimate, or a count when
        the table was never analyzed (a new store: small, so the count is cheap)."""
        estimate = self._count(q.FACT_COUNT_ESTIMATE)
        return estimate if estimate > 0 else self._count(q.FACT_COUNT)

    def _count(self, sql: str, params: dict[str, Any] | None = None) -> int:
        found = self._db.one(sql, params or ())
        return int(found[0]) if found and found[0] is not None else 0

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


def _cut(facts: list[Record], heads: bool) -> list[Record]:
    """Search's facts whole, or cut to their heads when the caller ranks first."""
    return [rec.search_head(f) for f in facts] if heads else facts
