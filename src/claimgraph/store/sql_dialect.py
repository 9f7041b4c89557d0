"""What a SQL backend supplies to ``store.sql.SqlStore``, and the SQL text both dialects share.

``SqlStore`` holds the read and write logic once; a backend hands it a *dialect*: a module of
statements under fixed names (``sqlite_sql``, ``postgres_sql``) and a connection
(``SqlConnection``). Statements that differ only in their placeholders are written here once
with ``?`` and used as they are by SQLite; PostgreSQL's module turns them into ``%s``
(``postgres_sql.pg``). Parameters are positional tuples, or a dict where a statement names a
value twice (SQLite ``:name``, PostgreSQL ``%(name)s``). A list travels as ONE parameter that
``SqlDialect.id_list`` builds (a JSON text for SQLite's ``json_each``, an array for
PostgreSQL's ``= ANY``). docs/store.md, "Adding a store backend", walks through it.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any, Iterable, Iterator, Mapping, Protocol, Sequence, Union

from claimgraph.logic.model import FACT_FIELDS, FACT_HEAD_FIELDS, FACT_HEAD_FIELDS_NO_ENDS
from claimgraph.store import records as rec
from claimgraph.store.records import Record

#: A row as a driver returns it.
Row = tuple[Any, ...]
#: Statement parameters: positional, or by name.
Params = Union[Sequence[Any], Mapping[str, Any]]
#: A statement and its parameters.
Plan = tuple[str, Any]


class SqlConnection(Protocol):
    """The choke points a backend's connection offers (``sqlite_db``, ``postgres_db``)."""

    depth: int

    def rows(self, sql: str, params: Params = ()) -> list[Row]: ...

    def one(self, sql: str, params: Params = ()) -> Row | None: ...

    def run(self, sql: str, params: Params = ()) -> int: ...

    def many(self, sql: str, rows: Sequence[Params]) -> None: ...

    def uncounted(self, sql: str, params: Params = ()) -> int: ...

    def transaction(self) -> AbstractContextManager[None]: ...

    def atomic(self, can_fail_midway: bool = True) -> AbstractContextManager[None]: ...

    def close(self) -> None: ...


class SqlDialect(Protocol):
    """The statements a backend's SQL module defines under these names (see the module
    docstring for the parameter conventions; ``sqlite_sql`` documents each one)."""

    GET_MARK: str
    SET_MARK: str
    LIST_MARKS: str
    DELETE_MARKS: str
    INSERT_ENTITY: str
    UPDATE_ENTITY: str
    INSERT_ALIAS: str
    DELETE_ALIASES: str
    DELETE_ENTITY: str
    ENTITY_BY_ID: str
    ENTITY_BY_NAME: str
    ENTITIES_BY_IDS: str
    LIST_ENTITIES: str
    FIND_ENTITIES: str
    FIND_ENTITIES_MANY: str
    REPOINT_FACTS: str
    INSERT_FACT: str
    FACT_EXISTS: str
    INSERT_LINK: str
    DELETE_LINK: str
    REPOINT_PREDICATE: str
    INVALIDATE: str
    REINFORCE: str
    FACT_SELECT: str
    FACT_ORDER: str
    FACT_HEAD_SELECT: str
    FACT_HEAD_NO_ENDS_SELECT: str
    SET_DORMANT: str
    REVIVE: str
    DORMANT_IDS: str
    UPSERT_AUDIT: str
    AUDIT_SELECT: str
    AUDIT_OF_FACTS: str
    SUSPECT_IDS: str
    SCOPE_COUNTS: str
    SCOPE_SUSPECTS: str
    ENTITY_USAGE: str
    INSERT_EPISODE: str
    EPISODE_EXISTS: str
    EPISODE_BY_ID: str
    EPISODE_BY_REF: str
    EPISODES_IN_ORDER: str
    CLOSE_EPISODE: str
    UPDATE_EPISODE: str
    DELETE_EPISODES: str
    GET_PREDICATE: str
    LIST_PREDICATES: str
    UPSERT_PREDICATE: str
    DELETE_FACT_AUDITS: str
    DELETE_FACT_LINKS: str
    DELETE_FACTS: str
    HAS_WORDS: str

    def id_list(self, values: Sequence[str]) -> Any: ...

    def facts_touching(self, entity_ids: Sequence[str], direction: str,
                       predicates: Sequence[str] | None, select: str = ...,
                       order: str = ...) -> Plan: ...

    def select_facts(self, lists: dict[str, Sequence[str] | None], source_type: str | None,
                     recorded_before: int | None, conflicted: bool, valid_cheap: bool,
                     with_evidence: bool = False) -> Plan: ...


# --- statements both dialects write alike (``?`` placeholders) ------------------------------
GET_MARK = "SELECT value FROM marks WHERE key = ?"
FACT_EXISTS = "SELECT 1 FROM facts WHERE id = ?"
ENTITY_SELECT = "SELECT id, name, type, scope, aliases FROM entities"
ENTITY_ORDER = " ORDER BY name, id"
ENTITY_BY_ID = ENTITY_SELECT + " WHERE id = ?"
ENTITY_BY_NAME = ENTITY_SELECT + " WHERE scope = ? AND name = ? ORDER BY id LIMIT 1"
DELETE_ALIASES = "DELETE FROM entity_aliases WHERE entity_id = ?"
DELETE_ENTITY = "DELETE FROM entities WHERE id = ?"
FACT_ORDER = " ORDER BY f.t_valid, f.id"
REPOINT_PREDICATE = "UPDATE facts SET predicate = ? WHERE predicate = ?"
INVALIDATE = ("UPDATE facts SET t_invalid = ?, invalidation_kind = ?, invalidation_reason = ?,"
              " successor = ? WHERE id = ?")
REINFORCE = ("UPDATE facts SET last_reinforced_at = ?, confidence = ?,"
             " source_type = coalesce(?, source_type) WHERE id = ?")
AUDIT_SELECT = ("SELECT fact_id, evidence, file, verdict, reason, content_hash, checked_at, details"
                " FROM audit_verdicts")
AUDIT_ORDER = " ORDER BY fact_id, evidence"
EPISODE_SELECT = "SELECT id, source_type, ref, summary, opened_at, closed_at, evidence FROM episodes"
EPISODE_EXISTS = "SELECT 1 FROM episodes WHERE id = ?"
EPISODE_BY_ID = EPISODE_SELECT + " WHERE id = ?"
EPISODE_BY_REF = EPISODE_SELECT + " WHERE ref = ?"
INSERT_EPISODE = ("INSERT INTO episodes (id, source_type, ref, summary, opened_at, closed_at,"
                  " evidence) VALUES (?, ?, ?, ?, ?, ?, ?)")
CLOSE_EPISODE = "UPDATE episodes SET summary = ?, closed_at = ? WHERE id = ?"
UPDATE_EPISODE = "UPDATE episodes SET summary = ?, evidence = ? WHERE id = ?"
GET_PREDICATE = "SELECT row FROM predicates WHERE id = ?"
DELETE_LINK = "DELETE FROM conflict_links WHERE fact_id = ? AND other_id = ?"
PREDICATE_USAGE = "SELECT predicate, count(*) FROM facts GROUP BY predicate"
ENTITY_USAGE = """SELECT id, count(*) FROM (
    SELECT subject_id AS id FROM facts UNION ALL
    SELECT object_ref_id FROM facts WHERE object_ref_id IS NOT NULL AND object_ref_id <> subject_id
    ) used GROUP BY id"""
STATS_COUNTS = ("SELECT (SELECT count(*) FROM entities), (SELECT count(*) FROM facts),"
                " (SELECT count(*) FROM facts WHERE t_invalid IS NULL),"
                " (SELECT count(*) FROM episodes)")
PREDICATE_STATUSES = "SELECT status, count(*) FROM predicates GROUP BY status"
IS_EMPTY = ("SELECT NOT (EXISTS (SELECT 1 FROM entities) OR EXISTS (SELECT 1 FROM facts)"
            " OR EXISTS (SELECT 1 FROM episodes))")
#: Named: a dialect's placeholders for ``:f`` and ``:t``.
REPOINT_FACTS = ("UPDATE facts SET subject_id = CASE WHEN subject_id = :f THEN :t ELSE subject_id"
                 " END, object_ref_id = CASE WHEN object_ref_id = :f THEN :t ELSE object_ref_id"
                 " END WHERE subject_id = :f OR object_ref_id = :f")
UPDATE_ENTITY = ("UPDATE entities SET name = :name, norm = :norm, type = :type,"
                 " aliases = :aliases{extra} WHERE id = :id")

#: A fact's columns as INSERT_FACT lists them (``fact_params`` builds its row).
INSERT_COLUMNS = ("id", "subject_id", "predicate", "object_kind", "object_ref_id", "object_lit",
                  "t_valid", "t_invalid", "recorded_at", "last_reinforced_at", "confidence",
                  "epistemic", "scope", "source_type", "episode", "invalidation_reason",
                  "invalidation_kind", "successor", "evidence", "dormant_since")
INSERT_FACT = (f"INSERT INTO facts ({', '.join(INSERT_COLUMNS)}) "
               f"VALUES ({', '.join('?' * len(INSERT_COLUMNS))})")

#: Format 3 (both schemas): a project's valid facts, decay's candidates and the audit's cited
#: facts each read through an index instead of a scan of every fact (``sqlite_schema`` says why).
READ_INDEXES: tuple[str, ...] = (
    "CREATE INDEX facts_scope ON facts(scope, t_invalid)",
    "DROP INDEX facts_t_invalid",
    "CREATE INDEX facts_valid_recorded ON facts(t_invalid, recorded_at)",
    "CREATE INDEX facts_cited ON facts(t_invalid) WHERE evidence <> '[]'",
)
#: The columns of a fact head (``logic.model.FACT_HEAD_FIELDS``) an index on one end lacks.
HEAD_REST = ("id, scope, confidence, epistemic, source_type, recorded_at, last_reinforced_at,"
             " t_invalid, invalidation_kind, dormant_since")


def fact_selects(links: str) -> tuple[str, str, str]:
    """FACT_SELECT (columns in FACT_FIELDS order, so a row zips straight into a fact dict,
    ``links`` the dialect's JSON text of a fact's conflict links), FACT_HEAD_SELECT
    (``FACT_HEAD_FIELDS``: no links, no evidence) and FACT_HEAD_NO_ENDS_SELECT."""
    columns = {"subject": "f.subject_id", "object_ref": "f.object_ref_id", "conflicts": links}
    def select(fields: Sequence[str]) -> str:
        return "SELECT " + ", ".join(columns.get(n, f"f.{n}") for n in fields) + " FROM facts f"
    return select(FACT_FIELDS), select(FACT_HEAD_FIELDS), select(FACT_HEAD_FIELDS_NO_ENDS)


def touching(entity_ids: Sequence[str], direction: str, in_list: Any,
             params: list[Any]) -> str:
    """The WHERE term for facts with the entities as subject (out), object (in) or either."""
    sides = {"out": ["f.subject_id"], "in": ["f.object_ref_id"],
             "both": ["f.subject_id", "f.object_ref_id"]}[direction]
    return "(" + " OR ".join(in_list(side, entity_ids, params) for side in sides) + ")"


def sql_names(values: Iterable[str]) -> str:
    """A fixed SQL list of constant strings (our own constants, never user input)."""
    return "(" + ", ".join("'" + v.replace("'", "''") + "'" for v in sorted(values)) + ")"


def fact_params(fact: Mapping[str, Any]) -> tuple[Any, ...]:
    """A complete fact (entities as dicts or ids) as INSERT_FACT parameters.

    Built straight from the caller's record: this runs once per fact on the write path.
    """
    rec.check_fact(fact)
    get = fact.get
    evidence = get("evidence")
    return (get("id"), rec.ref_id(get("subject")), get("predicate"), get("object_kind"),
            rec.ref_id(get("object_ref")), get("object_lit"), get("t_valid"), get("t_invalid"),
            get("recorded_at"), get("last_reinforced_at"), float(get("confidence")),
            get("epistemic"), get("scope"), get("source_type"), get("episode"),
            get("invalidation_reason"), get("invalidation_kind"), get("successor"),
            json.dumps(list(evidence)) if evidence else "[]", get("dormant_since"))


def entity_params(row: Record, norm: str, search_text: str) -> dict[str, Any]:
    """INSERT_ENTITY's and UPDATE_ENTITY's named parameters (a dialect uses what it stores)."""
    return {"id": row["id"], "name": row["name"], "norm": norm, "type": row["type"],
            "scope": row["scope"], "aliases": json.dumps(row["aliases"]),
            "search_text": search_text}


def first_line(error: BaseException) -> str:
    """A driver's message cut to its first line (the rest can quote the row)."""
    return (str(error).strip().splitlines() or ["?"])[0]


def each_value(rows: Iterable[Row]) -> Iterator[Any]:
    """The first column of each row."""
    return (row[0] for row in rows)
