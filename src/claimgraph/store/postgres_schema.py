"""The PostgreSQL schema, its forward migrations, and the version check that guards opening.

The same tables as SQLite (``sqlite_schema``), in the connection's current schema (set
``options=-csearch_path=...`` in the URL to keep a store in its own). Text that is sorted
or compared is ``COLLATE "C"``: byte order, as SQLite and the memory backend sort, whatever
the database's locale. Full-text search is ``pg_trgm`` (trigram GIN indexes, ``ILIKE``): the
same substring semantics as SQLite's FTS5 trigram tokenizer, so "auth" finds
``AuthService`` on every backend (a tsvector index splits words and would not).

The version lives in ``claimgraph_meta``; ``MIGRATIONS[i]`` takes a store from version i to
i + 1 and every pending step runs in ONE transaction under a transaction-scoped advisory
lock, so two processes opening a new store at once migrate it once. A store written by a
newer claimgraph is refused before anything is changed.
"""

from __future__ import annotations

from typing import Any, Sequence

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.store import sql_dialect
from claimgraph.store.sqlite_schema import READS_OLDER, future_format

C = 'COLLATE "C"'
#: pg_advisory_xact_lock key for migrations (any fixed 64-bit number of our own).
MIGRATION_LOCK = 0x434C4752_4D494752

BASELINE: tuple[str, ...] = (
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"""CREATE TABLE entities (
        pk BIGSERIAL PRIMARY KEY, id TEXT {C} NOT NULL UNIQUE, name TEXT {C} NOT NULL,
        norm TEXT {C} NOT NULL, type TEXT {C}, scope TEXT {C} NOT NULL,
        aliases TEXT NOT NULL DEFAULT '[]', search_text TEXT NOT NULL DEFAULT '')""",
    "CREATE INDEX entities_scope_name ON entities(scope, name)",
    "CREATE INDEX entities_norm ON entities(norm)",
    "CREATE INDEX entities_search ON entities USING gin (search_text gin_trgm_ops)",
    f"""CREATE TABLE entity_aliases (
        entity_id TEXT {C} NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        alias TEXT {C} NOT NULL, norm TEXT {C} NOT NULL, PRIMARY KEY (entity_id, alias))""",
    "CREATE INDEX entity_aliases_norm ON entity_aliases(norm)",
    f"""CREATE TABLE facts (
        pk BIGSERIAL PRIMARY KEY, id TEXT {C} NOT NULL UNIQUE,
        subject_id TEXT {C} NOT NULL REFERENCES entities(id), predicate TEXT {C} NOT NULL,
        object_kind TEXT {C} NOT NULL, object_ref_id TEXT {C} REFERENCES entities(id),
        object_lit TEXT {C}, t_valid BIGINT NOT NULL, t_invalid BIGINT,
        recorded_at BIGINT NOT NULL, last_reinforced_at BIGINT,
        confidence DOUBLE PRECISION NOT NULL, epistemic TEXT {C} NOT NULL,
        scope TEXT {C} NOT NULL, source_type TEXT {C} NOT NULL, episode TEXT {C},
        invalidation_reason TEXT, invalidation_kind TEXT, successor TEXT {C},
        evidence TEXT NOT NULL DEFAULT '[]', dormant_since BIGINT)""",
    "CREATE INDEX facts_subject_predicate ON facts(subject_id, predicate, t_valid)",
    "CREATE INDEX facts_object_ref ON facts(object_ref_id)",
    "CREATE INDEX facts_episode ON facts(episode)",
    "CREATE INDEX facts_predicate ON facts(predicate)",
    "CREATE INDEX facts_t_invalid ON facts(t_invalid)",
    "CREATE INDEX facts_dormant ON facts(dormant_since) WHERE dormant_since IS NOT NULL",
    "CREATE INDEX facts_literal ON facts USING gin (object_lit gin_trgm_ops)",
    f"""CREATE TABLE conflict_links (
        fact_id TEXT {C} NOT NULL REFERENCES facts(id), other_id TEXT {C} NOT NULL,
        PRIMARY KEY (fact_id, other_id))""",
    "CREATE INDEX conflict_links_other ON conflict_links(other_id)",
    f"""CREATE TABLE episodes (
        pk BIGSERIAL PRIMARY KEY, id TEXT {C} NOT NULL UNIQUE, source_type TEXT {C},
        ref TEXT {C} UNIQUE, summary TEXT, opened_at BIGINT, closed_at BIGINT,
        evidence TEXT {C})""",
    "CREATE INDEX episodes_summary ON episodes USING gin (summary gin_trgm_ops)",
    f"""CREATE TABLE predicates (
        id TEXT {C} PRIMARY KEY, category TEXT {C}, status TEXT {C}, row TEXT NOT NULL)""",
    f"CREATE TABLE marks (key TEXT {C} PRIMARY KEY, value TEXT NOT NULL)",
    f"""CREATE TABLE audit_verdicts (
        fact_id TEXT {C} NOT NULL REFERENCES facts(id), evidence TEXT {C} NOT NULL, file TEXT,
        verdict TEXT {C} NOT NULL, reason TEXT, content_hash TEXT, checked_at BIGINT NOT NULL,
        details TEXT NOT NULL DEFAULT '{{}}', PRIMARY KEY (fact_id, evidence))""",
    "CREATE INDEX audit_verdicts_verdict ON audit_verdicts(verdict)",
    f"""CREATE TABLE leases (
        name TEXT {C} PRIMARY KEY, holder TEXT NOT NULL)""",
)

#: Format 3, as in sqlite_schema: a project's valid facts, decay's candidates and the audit's
#: cited facts each read through an index instead of a scan of every fact.
READ_INDEXES = sql_dialect.READ_INDEXES

#: Format 4, as in sqlite_schema: the subject and object indexes carry a fact's head
#: (``INCLUDE``: stored, not keys), so search ranks a popular entity's facts by index-only scans.
HEAD_INDEXES = sql_dialect.head_indexes(
    "(subject_id, predicate, t_valid) INCLUDE (object_ref_id, " + sql_dialect.HEAD_REST + ")",
    "(object_ref_id) INCLUDE (subject_id, t_valid, " + sql_dialect.HEAD_REST + ")")

#: The server schema began at format 2: version 2 is SQLite's baseline plus its decay-and-audit
#: step, in one. Later formats add steps here and in sqlite_schema alike.
#: Format 5 changed only SQLite's marks table (a server stores a large value out of line
#: already), so its step here is empty. Format 6 adds the word index (WORD_INDEX above).
#: Format 6, as in sqlite_schema: a fact's words, for ranking a question in plain words. A
#: stored generated ``tsvector`` with the 'english' configuration (the Snowball English stemmer:
#: the same stems as SQLite's porter tokenizer for ordinary words) beside the trigram index,
#: which stays for identifiers and substrings. Adding the column fills it for every fact.
WORD_INDEX: tuple[str, ...] = (
    "ALTER TABLE facts ADD COLUMN words tsvector GENERATED ALWAYS AS"
    " (to_tsvector('english'::regconfig, coalesce(object_lit, ''))) STORED",
    "CREATE INDEX facts_words ON facts USING gin (words)",
)
#: Format 7, as in sqlite_schema: which facts each write touched (statement triggers).
FACT_TOUCHES = sql_dialect.fact_touches_postgres()
#: Format 8 changed only how SQLite reads search's candidate keys from its pages (a server's
#: pages are in its shared buffers across connections), so its step here is empty.
MIGRATIONS: tuple[tuple[str, ...], ...] = (BASELINE, (), READ_INDEXES, HEAD_INDEXES, (),
                                           WORD_INDEX, FACT_TOUCHES, ())
assert len(MIGRATIONS) == STORE_FORMAT, "every store format needs its migration step"

META = "CREATE TABLE IF NOT EXISTS claimgraph_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


def migrate(db: Any, where: str, steps: Sequence[Sequence[str]] = MIGRATIONS) -> int:
    """Bring the schema to ``len(steps)`` in one transaction; return the version reached."""
    target = len(steps)
    if stored_version(db, where, target) == target:
        return target
    with db.transaction():
        db.run("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        db.run(META)
        current = stored_version(db, where, target)
        for step in steps[current:]:
            for statement in step:
                db.run(statement)
        db.run("INSERT INTO claimgraph_meta (key, value) VALUES ('format', %s)"
               " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(target),))
    return target


def stored_version(db: Any, where: str, supported: int = STORE_FORMAT) -> int:
    """0 for a database without our tables; a future format is refused."""
    exists = db.one("SELECT to_regclass('claimgraph_meta') IS NOT NULL")[0]
    if not exists:
        return 0
    row = db.one("SELECT value FROM claimgraph_meta WHERE key = 'format'")
    version = int(row[0]) if row else 0
    if version > supported:
        raise future_format(where, version, supported)
    return version


def require_current(db: Any, where: str, target: int = STORE_FORMAT) -> None:
    """A reader's check: readers never migrate (an older format that reads the same is
    accepted, as in SQLite)."""
    found = stored_version(db, where, target)
    if found < READS_OLDER.get(target, target):
        raise ClaimgraphError(
            "store-needs-upgrade" if found else "store-empty",
            f"{where} has store format {found}; this claimgraph reads format {target}",
            hint="run `claimgraph init --db <url>` with write permission to create or upgrade it",
            found=found, supported=target)
