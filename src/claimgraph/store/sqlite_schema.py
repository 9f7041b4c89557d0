"""The SQLite schema, its forward migrations, and the checks that guard opening a file.

The schema version is ``PRAGMA user_version`` (readable before any table is trusted);
``MIGRATIONS[i]`` takes a database from version i to i+1, and every pending step runs in ONE
transaction, so a failure leaves the file exactly as it was. Version 1 is the baseline;
version 2 adds the dormant fact state and the audit verdicts (``DECAY_AND_AUDIT``); version 3
adds the indexes that keep per-project reads and decay's candidates off full scans
(``READ_INDEXES``); version 4 makes the subject and object indexes cover a fact's head, so
search ranks a popular entity's thousands of facts without reading their rows (``HEAD_INDEXES``);
version 5 makes ``marks`` an ordinary rowid table, so a large mark never slows reading another
(``MARKS_TABLE``); version 6 adds the word index (``WORD_INDEX``); version 7 records which facts
each write touched (``FACT_TOUCHES``); version 8 lets search's candidate keys share pages
(``SEARCH_KEYS``). A reader also accepts a store one step behind when that
step changed nothing it reads (``READS_OLDER``).

Full-text search uses FTS5's ``trigram`` tokenizer: it matches any substring of three or
more characters, case-insensitively, so "auth" finds ``AuthService``, "core" finds
``claimgraph.core`` and "service" finds ``auth-service`` — what a reader of code names expects,
and exactly the memory backend's substring semantics. (unicode61 with tokenchars "-_." would
keep ``auth-service`` whole, so neither half of it would ever match.)

The write path must not maintain these indexes from triggers: an FTS5 write inside a trigger
(or after a savepoint) flushes FTS5's pending data on every row, measured ten times slower
(25k vs 140k rows/s). SqliteStore therefore indexes what a transaction inserted or changed —
new literal facts, new or edited entities — with two or three set-based statements just
before COMMIT (and before any search inside the transaction), so the index never lags a
committed row. Rare writes keep triggers: entity deletion and episode summaries.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.store import sql_dialect

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Sequence

#: Marks a SQLite file as ours ("CLGR"), so we never migrate another program's database.
APPLICATION_ID = 0x434C4752

BASELINE: tuple[str, ...] = (
    """CREATE TABLE entities (
        pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
        norm TEXT NOT NULL, type TEXT, scope TEXT NOT NULL, aliases TEXT NOT NULL DEFAULT '[]')""",
    "CREATE INDEX entities_scope_name ON entities(scope, name)",
    "CREATE INDEX entities_norm ON entities(norm)",
    """CREATE TABLE entity_aliases (
        entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        alias TEXT NOT NULL, norm TEXT NOT NULL, PRIMARY KEY (entity_id, alias)) WITHOUT ROWID""",
    "CREATE INDEX entity_aliases_norm ON entity_aliases(norm)",
    """CREATE TABLE facts (
        pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
        subject_id TEXT NOT NULL REFERENCES entities(id), predicate TEXT NOT NULL,
        object_kind TEXT NOT NULL, object_ref_id TEXT REFERENCES entities(id), object_lit TEXT,
        t_valid INTEGER NOT NULL, t_invalid INTEGER, recorded_at INTEGER NOT NULL,
        last_reinforced_at INTEGER, confidence REAL NOT NULL, epistemic TEXT NOT NULL,
        scope TEXT NOT NULL, source_type TEXT NOT NULL, episode TEXT,
        invalidation_reason TEXT, invalidation_kind TEXT, successor TEXT,
        evidence TEXT NOT NULL DEFAULT '[]')""",
    "CREATE INDEX facts_subject_predicate ON facts(subject_id, predicate, t_valid)",
    "CREATE INDEX facts_object_ref ON facts(object_ref_id)",
    "CREATE INDEX facts_episode ON facts(episode)",
    "CREATE INDEX facts_predicate ON facts(predicate)",
    "CREATE INDEX facts_t_invalid ON facts(t_invalid)",
    """CREATE TABLE conflict_links (
        fact_id TEXT NOT NULL REFERENCES facts(id), other_id TEXT NOT NULL,
        PRIMARY KEY (fact_id, other_id)) WITHOUT ROWID""",
    """CREATE TABLE episodes (
        pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, source_type TEXT, ref TEXT,
        summary TEXT, opened_at INTEGER, closed_at INTEGER, evidence TEXT)""",
    "CREATE UNIQUE INDEX episodes_ref ON episodes(ref)",
    """CREATE TABLE predicates (
        id TEXT PRIMARY KEY, category TEXT, status TEXT, row TEXT NOT NULL) WITHOUT ROWID""",
    "CREATE TABLE marks (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "CREATE VIRTUAL TABLE entity_fts USING fts5(text, tokenize='trigram')",
    """CREATE VIRTUAL TABLE fact_fts USING fts5(
        object_lit, content='facts', content_rowid='pk', tokenize='trigram')""",
    """CREATE VIRTUAL TABLE episode_fts USING fts5(
        summary, content='episodes', content_rowid='pk', tokenize='trigram')""",
    """CREATE TRIGGER entities_fts_delete AFTER DELETE ON entities BEGIN
        DELETE FROM entity_fts WHERE rowid = old.pk; END""",
    """CREATE TRIGGER facts_fts_update AFTER UPDATE OF object_lit ON facts BEGIN
        INSERT INTO fact_fts(fact_fts, rowid, object_lit)
            SELECT 'delete', old.pk, old.object_lit WHERE old.object_lit IS NOT NULL;
        INSERT INTO fact_fts(rowid, object_lit)
            SELECT new.pk, new.object_lit WHERE new.object_lit IS NOT NULL; END""",
    """CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts WHEN old.object_lit IS NOT NULL BEGIN
        INSERT INTO fact_fts(fact_fts, rowid, object_lit) VALUES ('delete', old.pk, old.object_lit);
        END""",
    """CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes WHEN new.summary IS NOT NULL
        BEGIN INSERT INTO episode_fts(rowid, summary) VALUES (new.pk, new.summary); END""",
    """CREATE TRIGGER episodes_fts_update AFTER UPDATE OF summary ON episodes BEGIN
        INSERT INTO episode_fts(episode_fts, rowid, summary)
            SELECT 'delete', old.pk, old.summary WHERE old.summary IS NOT NULL;
        INSERT INTO episode_fts(rowid, summary)
            SELECT new.pk, new.summary WHERE new.summary IS NOT NULL; END""",
    """CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes WHEN old.summary IS NOT NULL
        BEGIN INSERT INTO episode_fts(episode_fts, rowid, summary)
            VALUES ('delete', old.pk, old.summary); END""",
    f"PRAGMA application_id = {APPLICATION_ID}",
)

#: Version 2: the curator's decay and audit stages (docs/curator.md). ``dormant_since`` marks a
#: valid fact whose effective confidence fell below the dormancy threshold (NULL = active); the
#: partial index keeps "which facts are dormant" cheap while almost every fact is active.
#: ``audit_verdicts`` keeps the latest claim-vs-evidence verdict per (fact, citation) with the
#: cited file's content hash, so an unchanged file is not re-judged.
DECAY_AND_AUDIT: tuple[str, ...] = (
    "ALTER TABLE facts ADD COLUMN dormant_since INTEGER",
    "CREATE INDEX facts_dormant ON facts(dormant_since) WHERE dormant_since IS NOT NULL",
    """CREATE TABLE audit_verdicts (
        fact_id TEXT NOT NULL REFERENCES facts(id), evidence TEXT NOT NULL, file TEXT,
        verdict TEXT NOT NULL, reason TEXT, content_hash TEXT, checked_at INTEGER NOT NULL,
        details TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (fact_id, evidence)) WITHOUT ROWID""",
    "CREATE INDEX audit_verdicts_verdict ON audit_verdicts(verdict)",
)

#: Version 3: three reads that scanned every fact. ``facts_scope``: a project's memory (context,
#: ``facts`` without an entity, the viewer) is one scope's valid facts. ``facts_valid_recorded``
#: replaces ``facts_t_invalid`` (its prefix serves the same "valid facts" reads) and gives
#: decay its candidates, the valid facts recorded before a cutoff, as one index range.
#: ``facts_cited`` (partial: only facts with evidence) gives the audit the facts that cite
#: something without reading the ones that cite nothing.
READ_INDEXES = sql_dialect.READ_INDEXES

#: Version 4: search ranks the facts of the entities a query names, and of their neighbours,
#: on their heads (``Store.get_fact_heads_for``): a library named by every module reaches
#: thousands of facts, and reading each row was a random page read per fact. Both end indexes
#: now carry the head, so those reads never touch the table. Each keeps its old key order
#: (``pk`` is the rowid, the old tie-breaker), so a ``LIMIT`` without ``ORDER BY`` over them
#: (search's bounded candidate routes) returns the same rows as before. The object index is
#: partial: a literal fact has no object to look up (and ``object_ref_id = ?`` implies it).
HEAD_INDEXES = sql_dialect.head_indexes(
    "(subject_id, predicate, t_valid, pk, object_ref_id, " + sql_dialect.HEAD_REST + ")",
    "(object_ref_id, pk, subject_id, t_valid, " + sql_dialect.HEAD_REST + ")")

#: Version 5: ``marks`` was a WITHOUT ROWID table, where every row lives in the key's b-tree.
#: To find a key SQLite compares it with the cells on its path, and a cell whose row overflows
#: its page is read WHOLE for that comparison: the oplog's outbox (the last transaction's
#: effects, megabytes after a big batch) made every mark lookup copy it (3 ms per lookup for
#: 8 MB). As a rowid table the key lives in its own small index and a row's overflow is read
#: only when that row's value is asked for.
MARKS_TABLE: tuple[str, ...] = (
    "CREATE TABLE marks_by_rowid (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO marks_by_rowid (key, value) SELECT key, value FROM marks",
    "DROP TABLE marks",
    "ALTER TABLE marks_by_rowid RENAME TO marks",
)

#: Version 6: search ranks a fact's words. ``fact_words`` indexes the same literal objects as
#: ``fact_fts`` through FTS5's porter tokenizer (English stems: "painting" finds "painted"),
#: so a question in plain words is ranked by BM25 over whole words; the trigram index stays for
#: identifiers and substrings. New facts are indexed with the transaction's other index work
#: (``SqliteStore._index_pending``); the triggers keep edits and deletes in step. The upgrade
#: builds the index from the facts (docs/store.md).
WORD_INDEX: tuple[str, ...] = (
    """CREATE VIRTUAL TABLE fact_words USING fts5(
        object_lit, content='facts', content_rowid='pk',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER facts_words_update AFTER UPDATE OF object_lit ON facts BEGIN
        INSERT INTO fact_words(fact_words, rowid, object_lit)
            SELECT 'delete', old.pk, old.object_lit WHERE old.object_lit IS NOT NULL;
        INSERT INTO fact_words(rowid, object_lit)
            SELECT new.pk, new.object_lit WHERE new.object_lit IS NOT NULL; END""",
    """CREATE TRIGGER facts_words_delete AFTER DELETE ON facts WHEN old.object_lit IS NOT NULL
        BEGIN INSERT INTO fact_words(fact_words, rowid, object_lit)
            VALUES ('delete', old.pk, old.object_lit); END""",
    "INSERT INTO fact_words(fact_words) VALUES ('rebuild')",
)

#: Version 7: which facts each write touched, by the write counter's value after it
#: (``fact_touches``: one row per fact, the last write that touched it). The viewer keeps a
#: project's placement and, after a write, places again only the facts touched since
#: (docs/viewer.md, "After a write"). Triggers, not the write path, keep it: every way a fact's
#: place can change (its row, its audit verdicts, its conflict links, its subject's or
#: object's name) is one of them, whoever writes. Additive: nothing else reads the table.
FACT_TOUCHES = sql_dialect.fact_touches_sqlite()

#: Version 8: search's candidate keys (``sqlite_sql.search_keys``) from fewer pages. A fresh
#: process meets every page a statement touches for the first time (~3 µs each at 100k facts,
#: against ~1 µs of work on a page already read), and the key statement read about one random
#: page per candidate: a full-text hit's row, a named entity's probe of each end index.
#: ``facts_text_keys`` holds what a full-text hit's key needs (valid, valid time) for the
#: facts the full-text index holds, in pk order: ~250 a page instead of ~13 rows, so the newest
#: hits share its pages (the literal and id are read only for the facts tied at the cut, as the
#: entity routes' keys already are). ``entities.ends`` says at which ends of a fact an entity
#: has ever been (1 subject, 2 object): a named entity is looked up only in the end indexes
#: that can hold it (most entities are only ever subjects, or only objects). A bit once set
#: stays set (a fact deleted or moved later leaves it: a probe that finds nothing, as before),
#: so a clear bit always means no fact; new facts set theirs with the transaction's other
#: index work (``SqliteStore._index_pending``), a moved end (an entity merge) by trigger.
SEARCH_KEYS: tuple[str, ...] = (
    "CREATE INDEX facts_text_keys ON facts(pk, t_invalid, t_valid) WHERE object_lit IS NOT NULL",
    "ALTER TABLE entities ADD COLUMN ends INTEGER NOT NULL DEFAULT 0",
    "UPDATE entities SET ends = EXISTS (SELECT 1 FROM facts f WHERE f.subject_id = entities.id)"
    " | 2 * EXISTS (SELECT 1 FROM facts f WHERE f.object_ref_id = entities.id)",
    "CREATE TRIGGER facts_ends_moved AFTER UPDATE OF subject_id, object_ref_id ON facts BEGIN"
    " UPDATE entities SET ends = ends | 1 WHERE id = new.subject_id AND ends & 1 = 0;"
    " UPDATE entities SET ends = ends | 2 WHERE id = new.object_ref_id AND ends & 2 = 0; END",
)

#: MIGRATIONS[i] moves a database from schema version i to i + 1.
MIGRATIONS: tuple[tuple[str, ...], ...] = (BASELINE, DECAY_AND_AUDIT, READ_INDEXES, HEAD_INDEXES,
                                           MARKS_TABLE, WORD_INDEX, FACT_TOUCHES, SEARCH_KEYS)
assert len(MIGRATIONS) == STORE_FORMAT, "every store format needs its migration step"

_SQLITE_MAGIC = b"SQLite format 3\x00"


def migrate(conn: sqlite3.Connection, where: str,
            steps: Sequence[Sequence[str]] = MIGRATIONS) -> int:
    """Bring the schema to ``len(steps)`` in one transaction; return the version reached."""
    target = len(steps)
    if schema_version(conn, where, target) == target:
        return target
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = schema_version(conn, where, target)
        for step in steps[current:]:
            for statement in step:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {target}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return target


#: Formats a reader accepts below its own, by the format it reads: format 5 only rebuilt a
#: table's storage (the same columns, the same answers), so a reader needs no upgrade for it and
#: the SessionStart hook keeps giving context until the first write upgrades the store. Format 6
#: only added the word index: a reader of an older store ranks by the trigram index alone.
#: Format 7 only added ``fact_touches``: a reader of an older store places a project whole.
#: Format 8 only added search's keys: a reader of an older store reads them the longer way.
READS_OLDER = {8: 4, 7: 4, 6: 4, 5: 4}


def require_current(conn: sqlite3.Connection, where: str, target: int = STORE_FORMAT) -> None:
    """A reader's check: the schema must already be ``target``, or a format ``target`` reads
    the same way (``READS_OLDER``): readers never migrate."""
    found = schema_version(conn, where, target)
    if found == 0:
        raise ClaimgraphError(
            "store-empty", f"{where} is not an initialized claimgraph store yet",
            hint="run `claimgraph init` (with write permission) to create it", path=where)
    if found < READS_OLDER.get(target, target):
        raise ClaimgraphError(
            "store-needs-upgrade", f"{where} has store format {found}; this claimgraph reads "
            f"format {target}, and a read never migrates a store",
            hint="run `claimgraph init` with write permission: it upgrades the store in place",
            path=where, found=found, supported=target)


#: The version, the owner and whether anything is in the file, read as ONE statement (one
#: snapshot): read one by one, another process's first migration could commit in between, and
#: a new store looked like "tables but no version", a database that is not ours.
_HEADER = ("SELECT (SELECT user_version FROM pragma_user_version),"
           " (SELECT application_id FROM pragma_application_id),"
           " EXISTS (SELECT 1 FROM sqlite_master)")


def schema_version(conn: sqlite3.Connection, where: str, supported: int = STORE_FORMAT) -> int:
    """The stored version; refuse a future one and a database that is not ours."""
    version, app, has_tables = conn.execute(_HEADER).fetchone()
    if version > supported:
        raise future_format(where, version, supported)
    if version == 0 and has_tables:
        raise ClaimgraphError(
            "not-a-store", f"{where} is a SQLite database, but not a claimgraph store",
            hint="point --db (or CLAIMGRAPH_DB) at a claimgraph store or a new path", path=where)
    if version and app != APPLICATION_ID:
        raise ClaimgraphError(
            "not-a-store", f"{where} belongs to another program (application id {app})",
            hint="point --db (or CLAIMGRAPH_DB) at a claimgraph store or a new path", path=where)
    return int(version)


def future_format(where: str, found: int, supported: int = STORE_FORMAT) -> ClaimgraphError:
    """A newer claimgraph wrote this; reading it could lose data, so refuse."""
    return ClaimgraphError(
        "future-format",
        f"{where} has store format {found}, but this claimgraph reads format {supported} at most",
        hint="upgrade claimgraph (pip install -U claimgraph) to open this store",
        path=where, found=found, supported=supported)


def check_file(path: Path) -> bytes:
    """Refuse a file that is not SQLite, or is shorter than its own header says, before use;
    return its 100-byte header (empty for a missing or empty file).

    SQLite only notices truncation when it reads a missing page, possibly deep inside a
    write; the header's page count (valid when its change counter matches) catches it up
    front. With a live WAL the main file may lag legitimately, so the size test is skipped.
    """
    if _size(path) == 0:
        return b""
    with path.open("rb") as handle:
        header = handle.read(100)
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise corrupt(path, "it is not a SQLite database")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    counter_valid = header[24:28] == header[92:96]
    wal_live = _size(Path(f"{path}-wal")) > 0
    if counter_valid and not wal_live and _size(path) < pages * page_size:
        raise corrupt(path, "it is truncated")
    return header


def _size(path: Path) -> int:
    """A file's size, 0 when it is not there: another process's last connection may delete
    the WAL (or a creator not have made the file yet) between any two looks at it."""
    try:
        return path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):  # what Path.exists() also calls absent
        return 0


def stamped_ours(header: bytes) -> bool:
    """Whether a file's header (``check_file``'s, read without SQLite or locks) carries our
    application id. A store's header is stamped by its first migration and never changes
    back, so this is enough to know the file is ours; a file without it (new, or another
    program's) needs a real look inside."""
    return (len(header) == 100 and header.startswith(_SQLITE_MAGIC)
            and int.from_bytes(header[68:72], "big") == APPLICATION_ID)


def corrupt(path: Path | str, why: str) -> ClaimgraphError:
    """The one refusal for a damaged store file: say which file and what to do."""
    return ClaimgraphError(
        "corrupt-store", f"cannot read the store {path}: {why}",
        hint=("restore it from a backup or a dump (claimgraph load), or move it aside "
              "to start a fresh store"), path=str(path))

