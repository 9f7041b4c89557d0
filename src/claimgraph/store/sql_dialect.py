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

from claimgraph.logic.model import FACT_FIELDS, FACT_HEAD_FIELDS, FACT_HEAD_FIELDS_NO_ENDS
from claimgraph.store import records as rec
from claimgraph.store.records import Record

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence, Union

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

        def atomic(self, can_fail_midway: bool = True,
                   guarded: bool = True) -> AbstractContextManager[None]: ...

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
        EPISODE_NEIGHBOURS: str
        EPISODES_OF: str
        EPISODE_FACT_IDS: str
        FACTS_EPISODES: str
        SMALL_EPISODES_OF: str
        SMALL_EPISODES_AMONG: str
        FACTS_EPISODES_IN_ID_ORDER: bool
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
        HAS_TOUCHES: str
        TOUCHED_SINCE: str
        DELETE_TOUCHES: str

        def id_list(self, values: Sequence[str]) -> Any: ...

        def facts_touching(self, entity_ids: Sequence[str], direction: str,
                           predicates: Sequence[str] | None, select: str = ...,
                           order: str = ...) -> Plan: ...

        def select_facts(self, lists: Mapping[str, Sequence[str] | None], source_type: str | None,
                         recorded_before: int | None, conflicted: bool, valid_cheap: bool,
                         with_evidence: bool = False, valid_at: int | None = None) -> Plan: ...


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
EPISODE_SELECT = ("SELECT id, source_type, ref, summary, opened_at, closed_at, evidence"
                  " FROM episodes")
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
#: Entities, facts, CLOSED facts, episodes. The valid facts are the others: counting every
#: row reads the index's pages alone, counting the open ones (most of a store) steps through
#: each of their entries (~4 ms of `status` at 100k facts, issue 29); the closed are indexed.
STATS_COUNTS = ("SELECT (SELECT count(*) FROM entities), (SELECT count(*) FROM facts),"
                " (SELECT count(*) FROM facts WHERE t_invalid IS NOT NULL),"
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

#: A fact's columns as INSERT_FACT lists them (``fact_params`` builds its row; evidence, the one
#: value stored as JSON text, last: ``store.fact_rows.row_params``).
INSERT_COLUMNS = ("id", "subject_id", "predicate", "object_kind", "object_ref_id", "object_lit",
                  "t_valid", "t_invalid", "recorded_at", "last_reinforced_at", "confidence",
                  "epistemic", "scope", "source_type", "episode", "invalidation_reason",
                  "invalidation_kind", "successor", "dormant_since", "evidence")
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
#: Format 7 (both schemas): ``fact_touches``, which facts each write touched (``sqlite_schema``
#: says why). A touch carries the write counter's value once its transaction commits (the
#: counter moves by one per transaction, just before COMMIT), so a reader that saw the counter
#: at N finds every fact written since in ``writes > N`` (``TOUCHED_SINCE``). SQLite records no
#: touch for an insert (a third of a batch's insert time): one writer at a time gives new rows
#: rowids above any a reader saw, so its reader asks for those as well (``SqliteStore``).
TOUCHES_TABLE = "CREATE TABLE fact_touches (id TEXT {collate} PRIMARY KEY, writes {int} NOT NULL)"
TOUCHES_INDEX = "CREATE INDEX fact_touches_writes ON fact_touches(writes)"
TOUCHED_SINCE = "SELECT id FROM fact_touches WHERE writes > ? ORDER BY writes, id LIMIT ?"
#: SQLite's new facts since a reader's mark: the rowids above the largest it saw.
INSERTED_AFTER = "SELECT id FROM facts WHERE pk > ? ORDER BY pk LIMIT ?"
#: (write counter, largest fact rowid) in one statement (one snapshot).
TOUCH_MARK = ("SELECT coalesce((SELECT CAST(value AS INTEGER) FROM marks"
              " WHERE key = 'store:writes'), 0), coalesce((SELECT max(pk) FROM facts), 0)")
#: What decides how long a project's placement stays exact as time passes
#: (``logic.briefing_sections.horizon``): each fact's times, decay and standing.
#: The touch a fact's deletion leaves: no id (a purge keeps none), only that one happened.
DELETED_TOUCH = ""
_SQLITE_NEXT = ("coalesce((SELECT CAST(value AS INTEGER) FROM marks WHERE key = 'store:writes'),"
                " 0) + 1")
#: (trigger, table, event, (row, column)s): every touch, the fact ids it records (a column of
#: the new or old row, or a deletion's DELETED_TOUCH when the column is None).
_INSERTS = (("facts_touch_insert", "facts", "INSERT", (("new", "id"),)),)
_TOUCHED_BY = (
    ("facts_touch_update", "facts", "UPDATE", (("new", "id"),)),
    ("facts_touch_delete", "facts", "DELETE", (("old", None),)),
    ("audit_touch_insert", "audit_verdicts", "INSERT", (("new", "fact_id"),)),
    ("audit_touch_update", "audit_verdicts", "UPDATE", (("new", "fact_id"), ("old", "fact_id"))),
    ("audit_touch_delete", "audit_verdicts", "DELETE", (("old", "fact_id"),)),
    ("links_touch_insert", "conflict_links", "INSERT", (("new", "fact_id"), ("new", "other_id"))),
    ("links_touch_delete", "conflict_links", "DELETE", (("old", "fact_id"), ("old", "other_id"))),
)


def _value(row: str, column: str | None) -> str:
    return f"'{DELETED_TOUCH}'" if column is None else f"{row}.{column}"


def fact_touches_sqlite() -> tuple[str, ...]:
    """SQLite's format 7: the table and one row trigger per way a fact's place can change
    (but an insert: new facts are the rowids above the last a reader saw)."""
    upsert = " ON CONFLICT (id) DO UPDATE SET writes = excluded.writes"
    steps = [TOUCHES_TABLE.format(collate="", int="INTEGER") + " WITHOUT ROWID", TOUCHES_INDEX]
    for name, table, event, ids in _TOUCHED_BY:
        body = " ".join(f"INSERT INTO fact_touches (id, writes) VALUES ({_value(*i)},"
                        f" {_SQLITE_NEXT}){upsert};" for i in ids)
        steps.append(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {body} END")
    steps.append(
        "CREATE TRIGGER entities_touch_rename AFTER UPDATE OF name ON entities"
        " WHEN old.name IS NOT new.name BEGIN INSERT INTO fact_touches (id, writes)"
        f" SELECT id, {_SQLITE_NEXT} FROM (SELECT id FROM facts WHERE subject_id = new.id"
        " UNION SELECT id FROM facts WHERE object_ref_id = new.id) WHERE true"
        f"{upsert}; END")
    return tuple(steps)


#: PostgreSQL's touch: the counter's row is locked from a transaction's first touch to its
#: commit, so two writers cannot both read N and commit N + 1 and N + 2 (READ COMMITTED).
_PG_TOUCH = """CREATE FUNCTION claimgraph_touch(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    IF cardinality(ids) = 0 THEN RETURN; END IF;
    SELECT CAST(value AS bigint) INTO n FROM marks WHERE key = 'store:writes' FOR UPDATE;
    INSERT INTO fact_touches (id, writes) SELECT DISTINCT t, coalesce(n, 0) + 1
        FROM unnest(ids) AS t WHERE t IS NOT NULL
        ON CONFLICT (id) DO UPDATE SET writes = excluded.writes;
END $$"""


def fact_touches_postgres() -> tuple[str, ...]:
    """PostgreSQL's format 7: the same touches from statement triggers over transition tables
    (one touch per statement, not per row: a batch of 20,000 facts is one)."""
    steps = [TOUCHES_TABLE.format(collate='COLLATE "C"', int="BIGINT"), TOUCHES_INDEX, _PG_TOUCH]
    for name, table, event, ids in _INSERTS + _TOUCHED_BY:
        sides = sorted({row for row, _ in ids})
        refs = " ".join(f"{side.upper()} TABLE AS {side}_rows" for side in sides)
        picks = " UNION ALL ".join(
            f"SELECT {column} FROM {row}_rows" if column else
            f"(SELECT '{DELETED_TOUCH}' FROM {row}_rows LIMIT 1)" for row, column in ids)
        steps.append(f"""CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM claimgraph_touch(ARRAY({picks})); RETURN NULL; END $$""")
        steps.append(f"CREATE TRIGGER {name} AFTER {event} ON {table} REFERENCING {refs}"
                     f" FOR EACH STATEMENT EXECUTE FUNCTION {name}()")
    steps.append("""CREATE FUNCTION entities_touch_rename() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM claimgraph_touch(ARRAY(
    SELECT f.id FROM new_rows n JOIN old_rows o ON o.id = n.id AND o.name IS DISTINCT FROM n.name
    JOIN facts f ON f.subject_id = n.id
    UNION SELECT f.id FROM new_rows n JOIN old_rows o ON o.id = n.id
    AND o.name IS DISTINCT FROM n.name JOIN facts f ON f.object_ref_id = n.id));
RETURN NULL; END $$""")
    steps.append("CREATE TRIGGER entities_touch_rename AFTER UPDATE ON entities REFERENCING"
                 " NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT"
                 " EXECUTE FUNCTION entities_touch_rename()")
    return tuple(steps)


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


def episode_neighbours(ids_term: str) -> str:
    """``Store.episode_neighbours``: (given id, offset, whether the fact recorded right
    before the neighbour, in its episode, has a literal matching ``:asking`` (a LIKE
    pattern: it asks a question, so the neighbour answers it), the neighbour's head in
    ``FACT_HEAD_FIELDS`` order) for the facts of the same episode whose row key lies within
    ``:span`` of a given fact's (``ids_term``: the dialect's test of ``f.id`` against the
    list ``:ids``). The row key is the order the store took the facts in, and the joins walk
    its primary index, a range of a few rows per fact and one row per neighbour."""
    columns = {"subject": "n.subject_id", "object_ref": "n.object_ref_id"}
    head = ", ".join(columns.get(name, f"n.{name}") for name in FACT_HEAD_FIELDS)
    return (f"SELECT f.id, n.pk - f.pk, coalesce(p.object_lit LIKE :asking, false), {head}"
            " FROM facts f JOIN facts n"
            " ON n.pk BETWEEN f.pk - :span AND f.pk + :span AND n.pk <> f.pk"
            " AND n.episode = f.episode"
            " LEFT JOIN facts p ON p.pk = n.pk - 1 AND p.episode = n.episode"
            " WHERE f.id" + ids_term)


def episodes_of(ids_term: str) -> str:
    """``Store.episode_members``' first step: the distinct episodes of the given facts
    (``ids_term``: the dialect's test of ``f.id`` against the list ``:ids``)."""
    return ("SELECT DISTINCT f.episode FROM facts f WHERE f.id" + ids_term
            + " AND f.episode IS NOT NULL")


#: ``Store.episode_members``' second step, per episode: the ids of at most ``:cap`` of its
#: facts (one more than the cap it is asked with: a full answer means too many). The
#: episode index finds them, reading no more than that many entries, in no order.
EPISODE_FACT_IDS = "SELECT id FROM facts WHERE episode = :episode LIMIT :cap"


def facts_episodes(ids_term: str) -> str:
    """``Store.episode_members`` with ``among``: (id, episode) of the facts ``among`` that have
    one (``ids_term``: the dialect's test of ``f.id`` against ``:ids``), one row each through
    the id index."""
    return ("SELECT f.id, f.episode FROM facts f WHERE f.id" + ids_term
            + " AND f.episode IS NOT NULL")


def small_episodes_of(ids_term: str, source: str = "") -> str:
    """``Store.episode_members`` with ``among``, first: the distinct episodes of the given
    facts (``ids_term``: the dialect's test of ``f.id`` against ``:ids``) that hold fewer
    than ``:cap`` facts (one more than the cap asked), on the episode index alone (no fact
    row read): an episode whose first and last row keys lie fewer than ``:cap`` apart (two
    index seeks) is small, any other is counted up to ``:cap`` entries (a session's facts
    are mostly recorded together, a long-lived episode's are far apart). A few given facts
    and their episodes: when none is small, the many facts ``among`` are never looked up."""
    def end(which: str) -> str:
        return f"(SELECT {which}(m.pk) FROM facts m WHERE m.episode = e.episode)"
    source = source or ("SELECT DISTINCT f.episode FROM facts f WHERE f.id" + ids_term
                        + " AND f.episode IS NOT NULL")
    return ("SELECT e.episode FROM (" + source + ") AS e"
            " WHERE CASE WHEN " + end("max") + " - " + end("min") + " < :cap - 1 THEN 1 = 1"
            " ELSE (SELECT count(*) FROM (SELECT 1 FROM facts m WHERE m.episode = e.episode"
            " LIMIT :cap) AS c) < :cap END")


def small_episodes_among(episodes: str) -> str:
    """``small_episodes_of`` starting from the episodes themselves (``episodes``: the
    dialect's rows of the list ``:ids``, here of episode ids, as a column ``episode``): the
    given facts' episodes are known already, so no fact is looked up by id (nor is an
    episode's every fact walked to find it, as a DISTINCT over the episode index would)."""
    return small_episodes_of("", source="SELECT DISTINCT episode FROM " + episodes)


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
            get("recorded_at"), get("last_reinforced_at"), float(fact["confidence"]),
            get("epistemic"), get("scope"), get("source_type"), get("episode"),
            get("invalidation_reason"), get("invalidation_kind"), get("successor"),
            get("dormant_since"), json.dumps(list(evidence)) if evidence else "[]")


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


def fact_filter(lists: Mapping[str, Sequence[str] | None], source_type: str | None,
                recorded_before: int | None, conflicted: bool, valid_cheap: bool,
                with_evidence: bool, valid_at: int | None = None, *, in_list: Any, mark: str,
                unindexed: str = "") -> Plan:
    """``Store.select_facts``' criteria as a WHERE clause (empty: every fact) and its
    parameters; ``mark`` is the dialect's placeholder, ``in_list`` its list term, and
    ``unindexed`` what keeps the planner off the validity index when the link table drives
    the scan (SQLite's unary ``+``).

    ``valid_at`` (no end recorded, or one after the instant) is an OR of two ranges of
    ``t_invalid``. Alone, SQLite reads both from ``facts_valid_recorded``; beside another
    criterion it is kept off that index (``unindexed``), or the planner walks every live fact
    of the store through it: a project's facts come through the scope index
    ``facts_scope(scope, t_invalid)``, the audit's through ``facts_cited``, where the end is
    tested on the index entry."""
    params: list[Any] = []
    where = [in_list(f"f.{column}", values, params)
             for column, values in lists.items() if values is not None]
    for term, value in ((f"f.source_type = {mark}", source_type),
                        (f"f.recorded_at < {mark}", recorded_before)):
        if value is not None:
            where.append(term)
            params.append(value)
    if conflicted:  # driven from the (small) link table through facts' id index
        where.append("f.id IN (SELECT fact_id FROM conflict_links)")
    if valid_cheap:
        where.append((unindexed if conflicted else "") + "f.t_invalid IS NULL")
    if with_evidence:
        where.append("f.evidence <> '[]'")
    if valid_at is not None:  # alone: two ranges of the validity index; else the others' index
        off = unindexed if where else ""
        where.append(f"({off}f.t_invalid IS NULL OR {off}f.t_invalid > {mark})")
        params.append(valid_at)
    return (" WHERE " + " AND ".join(where) if where else ""), params


def narrowed(narrowing: Any, params: dict[str, Any], named: str, text_match: str) -> str:
    """A project page's narrowing (``logic.briefing_sections.Narrowing``) as AND terms;
    ``named`` formats a named placeholder (``":{}"``, ``"%({})s"``), ``text_match`` is the
    dialect's case-blind substring test of ``text`` against the subject and object."""
    where = []
    for field in ("predicate", "epistemic"):
        if getattr(narrowing, field):
            where.append(f"f.{field} = " + named.format(field))
            params[field] = getattr(narrowing, field)
    if narrowing.text:
        where.append(text_match)
        params["text"] = narrowing.text
    return "".join(f" AND {w}" for w in where)


def head_indexes(subject_columns: str, object_columns: str) -> tuple[str, ...]:
    """Format 4 (both schemas): the subject and object indexes carry a fact's head, so search
    ranks a popular entity's facts without reading their rows (``sqlite_schema`` says why);
    the object index is partial (a literal fact has no object to look up)."""
    return ("DROP INDEX facts_subject_predicate",
            f"CREATE INDEX facts_subject_heads ON facts{subject_columns}",
            "DROP INDEX facts_object_ref",
            f"CREATE INDEX facts_object_heads ON facts{object_columns}"
            " WHERE object_ref_id IS NOT NULL")


def facts_touching(entity_ids: Sequence[str], direction: str, predicates: Sequence[str] | None,
                   select: str, order: str, *, in_list: Any, predicate_column: str) -> Plan:
    """Facts with the entities as subject (out), object (in) or either (both), optionally of
    some predicates (``predicate_column``: how the dialect names the column for an "in" or
    "both" walk; SQLite keeps the planner off the predicate index there)."""
    params: list[Any] = []
    where = [touching(entity_ids, direction, in_list, params)]
    if predicates is not None:
        column = "f.predicate" if direction == "out" else predicate_column
        where.append(in_list(column, predicates, params))
    return select + " WHERE " + " AND ".join(where) + order, params


def time_travel(in_scopes: str, believed: str, useful_order: str, named: str, since: str,
                scopes_param: Callable[[Sequence[str]], Any], later: str) -> tuple[Any, Any]:
    """The viewer's time travel (``logic.time_travel``) in a dialect: ``valid_times(scopes)``
    gives three statements, each of distinct instants, sorted, with how many facts have each
    (fewer rows than facts where facts share an instant): every begin (and how many of those
    facts can be believed), every end, and the later of begin and end of each believable fact
    that ended; ``believed_at`` four (the count believed at ``at``, the first ``limit`` of
    them, what began and what ended after ``since`` up to ``at``), each with its parameters;
    built from the dialect's scope test, belief test, order, placeholders, scope list and
    ``later`` (the greater of two numbers, ``{}`` for each)."""
    from claimgraph.logic.confidence import CONFIDENCE_FLOOR
    from claimgraph.logic.model import FORGOTTEN
    from claimgraph.logic.timeutil import DAY_MS
    at, limit = named.format("at"), named.format("limit")
    window = f"({{col}} <= {at} AND ({since} IS NULL OR {{col}} > {since}))"
    believable = (f"coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}'"
                  " AND f.dormant_since IS NULL")
    begins = (f"SELECT f.t_valid, count(*), sum(CASE WHEN {believable} THEN 1 ELSE 0 END)"
              f" FROM facts f WHERE {in_scopes} AND f.t_valid IS NOT NULL GROUP BY f.t_valid"
              " ORDER BY 1")
    ends = (f"SELECT f.t_invalid, count(*) FROM facts f WHERE {in_scopes} AND f.t_invalid"
            " IS NOT NULL GROUP BY f.t_invalid ORDER BY 1")
    held_until = (f"SELECT {later.format('f.t_valid', 'f.t_invalid')} AS t, count(*) FROM"
                  f" facts f WHERE {in_scopes} AND f.t_invalid IS NOT NULL AND f.t_valid IS"
                  f" NOT NULL AND {believable} GROUP BY 1 ORDER BY 1")
    statements = [f"SELECT count(*) FROM facts f WHERE {believed}",
                  f"SELECT f.id FROM facts f WHERE {believed} ORDER BY {useful_order}"
                  f" LIMIT {limit}"] + [
        f"SELECT f.id FROM facts f WHERE {in_scopes} AND {window.format(col=column)}"
        f" ORDER BY f.t_valid, f.id LIMIT {limit}" for column in ("f.t_valid", "f.t_invalid")]

    def valid_times(scopes: Sequence[str]) -> tuple[str, str, str, dict[str, Any]]:
        return begins, ends, held_until, {"scopes": scopes_param(sorted(set(scopes)))}

    def believed_at(scopes: Sequence[str], at: int, since: int | None, limit: int,
                    half_life_days: float) -> tuple[list[str], dict[str, Any]]:
        return list(statements), {
            "scopes": scopes_param(sorted(set(scopes))), "at": at, "floor": CONFIDENCE_FLOOR,
            "period": float(DAY_MS * half_life_days), "since": since, "limit": int(limit)}
    return valid_times, believed_at


if TYPE_CHECKING:
    class InList(Protocol):
        def __call__(self, column: str, values: Sequence[str], params: list[Any]) -> str: ...


    class FactsTouching(Protocol):
        def __call__(self, entity_ids: Sequence[str], direction: str,
                     predicates: Sequence[str] | None, select: str = ...,
                     order: str = ...) -> Plan: ...


    class SelectFacts(Protocol):
        def __call__(self, lists: Mapping[str, Sequence[str] | None], source_type: str | None,
                     recorded_before: int | None, conflicted: bool, valid_cheap: bool,
                     with_evidence: bool = False, valid_at: int | None = None) -> Plan: ...


def plan_builders(mark: str, in_ids: str, id_list: Callable[[Sequence[str]], Any],
                  fact_select: str, predicate_column: str,
                  unindexed: str) -> tuple[InList, FactsTouching, SelectFacts]:
    """A dialect's ``in_list`` (``column = <mark>`` for one value, best for the planner; the
    dialect's list term, ``in_ids``, for several), ``facts_touching`` and ``select_facts``."""
    def in_list(column: str, values: Sequence[str], params: list[Any]) -> str:
        if len(values) == 1:
            params.append(values[0])
            return f"{column} = {mark}"
        params.append(id_list(values))
        return column + in_ids

    def touching_plan(entity_ids: Sequence[str], direction: str,
                      predicates: Sequence[str] | None, select: str = fact_select,
                      order: str = FACT_ORDER) -> Plan:
        return facts_touching(entity_ids, direction, predicates, select, order,
                              in_list=in_list, predicate_column=predicate_column)

    def select_plan(lists: Mapping[str, Sequence[str] | None], source_type: str | None,
                    recorded_before: int | None, conflicted: bool, valid_cheap: bool,
                    with_evidence: bool = False, valid_at: int | None = None) -> Plan:
        clause, params = fact_filter(lists, source_type, recorded_before, conflicted,
                                     valid_cheap, with_evidence, valid_at, in_list=in_list,
                                     mark=mark, unindexed=unindexed)
        return fact_select + clause + FACT_ORDER, params
    return in_list, touching_plan, select_plan


def stance_term() -> str:
    """``logic.briefing.is_stance`` as an SQL term over ``f``."""
    from claimgraph.logic import briefing as compiled
    return ("(f.epistemic = 'commitment' OR f.predicate IN"
            f" {sql_names(compiled.STANCE_PREDICATES)})")


_OBJECT_READ = ("CASE WHEN f.object_kind = 'entity' THEN (SELECT o.name FROM entities o"
                " WHERE o.id = f.object_ref_id) ELSE f.object_lit END")


def stance_inputs(in_scopes: str) -> str:
    """What ``logic.briefing.told_as_state`` reads of each stance in the scopes (``in_scopes``:
    the dialect's scope test): id, class, predicate, source, object kind, the object as a
    person reads it (an entity's name, or the literal) and the evidence (JSON text)."""
    return ("SELECT f.id, f.epistemic, f.predicate, f.source_type, f.object_kind,"
            f" {_OBJECT_READ}, f.evidence FROM facts f WHERE {in_scopes} AND {stance_term()}")


def placement_heads(in_scope: str) -> str:
    """Every fact of one scope (``in_scope``: the dialect's test of ``f.scope``): its id,
    ``logic.briefing_sections.HEAD_COLUMNS``, and for a stance its object kind, object and
    evidence (NULL for any other fact): the one walk that gives the heads and judges the
    stances (``heads_of_rows``)."""
    stance = stance_term()
    return ("SELECT f.id, f.t_valid, f.t_invalid, f.confidence, f.recorded_at,"
            " f.last_reinforced_at, f.epistemic, f.source_type, f.predicate, f.dormant_since,"
            f" CASE WHEN {stance} THEN f.object_kind END,"
            f" CASE WHEN {stance} THEN {_OBJECT_READ} END,"
            f" CASE WHEN {stance} THEN f.evidence END FROM facts f WHERE {in_scope}")


def heads_of_rows(rows: Iterable[Sequence[Any]]) -> Iterator[tuple[Any, ...]]:
    """``placement_heads`` rows as placement heads (``logic.briefing_sections.head_of``: the
    id, the head's columns, told as a state), each stance judged as it comes: a stream of
    rows never holds the walk's objects and evidence all at once."""
    from claimgraph.logic.briefing import told_as_state
    for r in rows:
        yield (*r[:10], r[10] is not None and told_as_state(_stance_fact(*r[6:9], *r[10:13])))


def told_as_state_ids(rows: Iterable[Sequence[Any]]) -> set[str]:
    """The ids of the ``stance_inputs`` rows that ``logic.briefing.told_as_state`` turns away
    from the standing decisions: the definition itself decides, in Python, so the store's
    placement never words the rules (expiring states, requests done once, one change) again
    in SQL (docs/viewer.md)."""
    from claimgraph.logic.briefing import told_as_state
    return {fact_id for fact_id, epistemic, predicate, source, kind, name, evidence in rows
            if told_as_state(_stance_fact(epistemic, source, predicate, kind, name, evidence))}


def _stance_fact(epistemic: str, source: str, predicate: str, kind: str, name: str | None,
                 evidence: str | None) -> dict[str, Any]:
    """What ``told_as_state`` reads of a fact, from a row's columns (evidence as JSON text)."""
    entity = kind == "entity"
    return {"epistemic": epistemic, "predicate": predicate, "source_type": source,
            "object_kind": kind, "object_ref": {"name": name} if entity else None,
            "object_lit": None if entity else name,
            "evidence": json.loads(evidence) if evidence and evidence != "[]" else []}


def section_case(valid: str, changed: str, open_term: str, ranked: str,
                 told: str) -> tuple[str, str]:
    """A project page's section of a fact and why it is left out, as two SQL CASEs
    (``logic.briefing_sections`` is the definition), from the dialect's terms: valid now,
    changed within the window, listed as contended (``logic.briefing.listed_as_contended``),
    the ranked sections' CASE, and ``told``: the fact is a stance told as a state (its id is
    among ``told_as_state_ids``), which is no standing decision."""
    from claimgraph.logic.briefing_sections import DORMANT, FROM_CODE, LEFT_OUT, SUSPECT
    from claimgraph.logic.model import SUSPECT_VERDICTS
    suspect = (f"f.id IN (SELECT fact_id FROM audit_verdicts"
               f" WHERE verdict IN {sql_names(SUSPECT_VERDICTS)})")
    dormant = "f.dormant_since IS NOT NULL"
    standing = f"({stance_term()} AND NOT {told})"
    section = (f"CASE WHEN NOT {valid} THEN"
               f" (CASE WHEN {changed} AND NOT {dormant} AND NOT {suspect} THEN 'changed' END)"
               f" WHEN {dormant} OR {suspect} THEN 'left_out'"
               f" WHEN {open_term} THEN 'conflicts'"
               f" WHEN {standing} THEN 'decisions'"
               " WHEN f.source_type = 'code' OR f.id IN (SELECT fact_id FROM conflict_links)"
               f" THEN 'left_out' ELSE {ranked} END")
    reason = (f"CASE WHEN {dormant} THEN '{DORMANT}' WHEN {suspect} THEN '{SUSPECT}'"
              f" WHEN f.source_type = 'code' THEN '{FROM_CODE}' ELSE '{LEFT_OUT}' END")
    return section, reason


def ranked_section() -> str:
    """The ranked sections' CASE: lessons, structure, the rest current."""
    from claimgraph.logic import briefing as compiled
    return (f"CASE WHEN f.predicate IN {sql_names(compiled.LESSON_PREDICATES)} THEN 'lessons'"
            f" WHEN f.predicate IN {sql_names(compiled.STRUCTURE_PREDICATES)} THEN 'structure'"
            " ELSE 'current' END")



def held_candidates(fold: str, find: str, in_scopes: str | None,
                    live: str = "f.t_invalid IS NULL") -> str:
    """The ids of the live facts (``live``: no end recorded, or the dialect's test of none
    before an instant) whose shown words — the subject's
    name, the predicate, the object's name and the literal — hold what
    ``logic.safe_render.may_be_held`` looks for: the few that ``held_reason`` may hold, so a
    review reads those whole instead of every fact. ``fold`` is the dialect's ASCII-only
    case fold of ``{}``, ``find`` its substring test (``{0}`` in ``{1}``); ``in_scopes`` the
    scope test, or None for every scope. The text is made once per fact (materialized)."""
    from claimgraph.logic import safe_render as words  # only the review asks

    def any_of(found: Sequence[str]) -> str:
        return "(" + " OR ".join(find.format(f"'{w}'", "t") for w in found) + ")"

    text = ("coalesce(s.name, '') || ' ' || f.predicate || ' ' || coalesce(o.name, '')"
            " || ' ' || coalesce(f.object_lit, '')")
    where = live + (f" AND {in_scopes}" if in_scopes else "")
    return (f"WITH shown AS MATERIALIZED (SELECT f.id, {fold.format(text)} AS t FROM facts f"
            " LEFT JOIN entities s ON s.id = f.subject_id"
            " LEFT JOIN entities o ON o.id = f.object_ref_id"
            f" WHERE {where}) SELECT id FROM shown WHERE {any_of(words.FETCH_WORDS)}"
            f" OR ({any_of(words.SECRET_WORDS)} AND {any_of(words.SEND_WORDS)})"
            f" OR {any_of(words.CASE_LOOKALIKES)}")
