"""SQL text for PostgresStore, built by pure functions that return ``(sql, params)`` plans.

The twin of ``sqlite_sql``: the same queries, in PostgreSQL's dialect (``%s`` parameters, lists
as arrays through ``= ANY(%s::text[])``, ``NULLS FIRST`` where SQLite sorts NULL first by nature,
trigram ``ILIKE`` where SQLite uses FTS5).
"""

from __future__ import annotations

import re

from typing import Any, Sequence

from claimgraph.logic.model import FACT_FIELDS, FACT_HEAD_FIELDS, FACT_HEAD_FIELDS_NO_ENDS

Plan = tuple[str, list[Any]]

_FACT_COLUMNS = {
    "subject": "f.subject_id",
    "object_ref": "f.object_ref_id",
    "conflicts": ("(SELECT coalesce(json_agg(c.other_id), '[]'::json) FROM conflict_links c "
                  "WHERE c.fact_id = f.id)"),
}
FACT_SELECT = ("SELECT " + ", ".join(_FACT_COLUMNS.get(n, f"f.{n}") for n in FACT_FIELDS)
               + " FROM facts f")
FACT_ORDER = " ORDER BY f.t_valid, f.id"
#: FACT_HEAD_FIELDS only (``Store.get_fact_heads_for``): index-only over the end indexes.
FACT_HEAD_SELECT = ("SELECT " + ", ".join(_FACT_COLUMNS.get(n, f"f.{n}") for n in FACT_HEAD_FIELDS)
                    + " FROM facts f")
FACT_HEAD_NO_ENDS_SELECT = ("SELECT " + ", ".join(f"f.{n}" for n in FACT_HEAD_FIELDS_NO_ENDS)
                            + " FROM facts f")

INSERT_COLUMNS = ("id", "subject_id", "predicate", "object_kind", "object_ref_id", "object_lit",
                  "t_valid", "t_invalid", "recorded_at", "last_reinforced_at", "confidence",
                  "epistemic", "scope", "source_type", "episode", "invalidation_reason",
                  "invalidation_kind", "successor", "evidence", "dormant_since")
INSERT_FACT = (f"INSERT INTO facts ({', '.join(INSERT_COLUMNS)}) "
               f"VALUES ({', '.join(['%s'] * len(INSERT_COLUMNS))})")
INSERT_LINK = ("INSERT INTO conflict_links (fact_id, other_id) VALUES (%s, %s)"
               " ON CONFLICT DO NOTHING")
DELETE_LINK = "DELETE FROM conflict_links WHERE fact_id = %s AND other_id = %s"

SET_DORMANT = ("UPDATE facts SET dormant_since = %s WHERE id = ANY(%s::text[])"
               " AND dormant_since IS NULL")
REVIVE = "UPDATE facts SET dormant_since = NULL WHERE id = ANY(%s::text[]) AND dormant_since IS NOT NULL"
DORMANT_IDS = "SELECT id FROM facts WHERE dormant_since IS NOT NULL ORDER BY id"

AUDIT_SELECT = ("SELECT fact_id, evidence, file, verdict, reason, content_hash, checked_at, details"
                " FROM audit_verdicts")
AUDIT_ORDER = " ORDER BY fact_id, evidence"
UPSERT_AUDIT = (
    "INSERT INTO audit_verdicts (fact_id, evidence, file, verdict, reason, content_hash,"
    " checked_at, details) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (fact_id, evidence) DO UPDATE SET file = excluded.file,"
    " verdict = excluded.verdict, reason = excluded.reason,"
    " content_hash = excluded.content_hash, checked_at = excluded.checked_at,"
    " details = excluded.details")
SUSPECT_IDS = ("SELECT DISTINCT fact_id FROM audit_verdicts WHERE verdict = ANY(%s::text[])"
               " ORDER BY fact_id")
SCOPE_COUNTS = ("SELECT scope, count(*), count(*) FILTER (WHERE t_invalid IS NULL),"
                " count(*) FILTER (WHERE t_invalid IS NULL AND dormant_since IS NOT NULL),"
                " max(recorded_at) FROM facts GROUP BY scope ORDER BY scope")
SCOPE_SUSPECTS = ("SELECT f.scope, count(DISTINCT f.id) FROM audit_verdicts a"
                  " JOIN facts f ON f.id = a.fact_id WHERE f.t_invalid IS NULL"
                  " AND a.verdict = ANY(%s::text[]) GROUP BY f.scope")

ENTITY_SELECT = "SELECT id, name, type, scope, aliases FROM entities"
ENTITY_ORDER = " ORDER BY name, id"
INSERT_ENTITY = ("INSERT INTO entities (id, name, norm, type, scope, aliases, search_text)"
                 " VALUES (%s, %s, %s, %s, %s, %s, %s)")
INSERT_ALIAS = ("INSERT INTO entity_aliases (entity_id, alias, norm) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING")
FIND_ENTITIES = (ENTITY_SELECT + " WHERE pk IN (SELECT pk FROM entities WHERE norm = %(n)s UNION"
                 " SELECT e.pk FROM entity_aliases a JOIN entities e ON e.id = a.entity_id"
                 " WHERE a.norm = %(n)s) AND (%(s)s::text IS NULL OR scope = %(s)s)"
                 + ENTITY_ORDER)

EPISODE_SELECT = "SELECT id, source_type, ref, summary, opened_at, closed_at, evidence FROM episodes"
INSERT_EPISODE = ("INSERT INTO episodes (id, source_type, ref, summary, opened_at, closed_at,"
                  " evidence) VALUES (%s, %s, %s, %s, %s, %s, %s)")

ENTITY_USAGE = """SELECT id, count(*) FROM (
    SELECT subject_id AS id FROM facts UNION ALL
    SELECT object_ref_id FROM facts WHERE object_ref_id IS NOT NULL AND object_ref_id <> subject_id
    ) used GROUP BY id"""

SEARCH_ENTITIES = (ENTITY_SELECT + " WHERE search_text ILIKE %(p)s" + ENTITY_ORDER
                   + " LIMIT %(n)s")
#: Facts named by the text, their subject or their object; each route bounded before the final
#: sort, as in SQLite (a common word on a million facts costs a bounded amount of work).
SEARCH_FACTS = (
    "WITH named AS (SELECT id FROM entities WHERE search_text ILIKE %(p)s LIMIT %(n)s * 10),"
    " hits AS ((SELECT pk FROM facts WHERE object_lit ILIKE %(p)s ORDER BY pk DESC"
    " LIMIT %(n)s * 10)"
    " UNION (SELECT pk FROM facts WHERE subject_id IN (SELECT id FROM named) LIMIT %(n)s * 10)"
    " UNION (SELECT pk FROM facts WHERE object_ref_id IN (SELECT id FROM named)"
    " LIMIT %(n)s * 10)) "
    + FACT_SELECT + " WHERE f.pk IN (SELECT pk FROM hits)"
    " ORDER BY f.t_invalid IS NOT NULL, f.t_valid DESC, f.id LIMIT %(n)s")
SEARCH_EPISODES = (EPISODE_SELECT + " WHERE summary ILIKE %(p)s"
                   " ORDER BY opened_at IS NULL, opened_at DESC, id LIMIT %(n)s")


#: How many facts hold a word (%(q)s: one word's tsquery), counted up to %(n)s (a GIN bitmap
#: walk that stops at the budget: ``logic.query_words.within_budget`` decides from it).
WORD_COUNT = ("SELECT count(*) FROM (SELECT 1 FROM facts"
              " WHERE words @@ to_tsquery('english'::regconfig, %(q)s) LIMIT %(n)s) c")
#: How many facts there are, as the planner last counted them (-1 or 0 before the first
#: ANALYZE; the caller counts then): BM25's rarity weight needs the size, not to the row.
FACT_COUNT_ESTIMATE = "SELECT reltuples::bigint FROM pg_class WHERE oid = 'facts'::regclass"
FACT_COUNT = "SELECT count(*) FROM facts WHERE object_lit IS NOT NULL"


def words_ranked(count: int) -> str:
    """The open facts whose words match (%(q)s: the words OR-ed, stemmed by the 'english'
    config), best first, ties by id; at most %(n)s. The score is BM25's shape: each word's
    ``ts_rank`` (its frequency in the text, normalized by the log of the text's length) times
    its rarity weight (%(w0)s, %(w1)s…, one per word's tsquery %(q0)s, %(q1)s…), summed, so
    a rare word outweighs a common one as in SQLite's FTS5 ranking (docs/search.md)."""
    terms = " + ".join(f"%(w{i})s * ts_rank(f.words, to_tsquery('english'::regconfig,"
                       f" %(q{i})s), 1)" for i in range(count))
    return ("SELECT f.pk FROM facts f, to_tsquery('english'::regconfig, %(q)s) AS q"
            " WHERE f.words @@ q AND f.t_invalid IS NULL"
            f" ORDER BY ({terms}) DESC, f.id LIMIT %(n)s")


#: Whether this schema's facts have the word column (format 6).
HAS_WORDS = ("SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema ="
             " current_schema() AND table_name = 'facts' AND column_name = 'words')")


def words_query(words: Sequence[str]) -> str:
    """Words as a tsquery of alternatives; only letters, digits and ``_`` reach it (every
    other character, the operators included, separates words)."""
    parts = [part for word in words for part in re.split(r"[^\w]+", word) if part]
    return " | ".join(dict.fromkeys(parts))


def like_pattern(query: str) -> str:
    """User text as a literal substring for ILIKE: %, _ and the escape are just characters."""
    escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def search_text(name: str, aliases: Sequence[str]) -> str:
    """Name and aliases joined by a character no query holds, so a match never spans two."""
    return "\x1f".join([name, *aliases])


def in_list(column: str, values: Sequence[str], params: list[Any]) -> str:
    if len(values) == 1:
        params.append(values[0])
        return f"{column} = %s"
    params.append(list(values))
    return f"{column} = ANY(%s::text[])"


def facts_touching(entity_ids: Sequence[str], direction: str,
                   predicates: Sequence[str] | None, select: str = FACT_SELECT,
                   order: str = FACT_ORDER) -> Plan:
    """As ``sqlite_sql.facts_touching``: FACT_SELECT, or FACT_HEAD_SELECT with no order."""
    params: list[Any] = []
    sides = {"out": ["f.subject_id"], "in": ["f.object_ref_id"],
             "both": ["f.subject_id", "f.object_ref_id"]}[direction]
    where = ["(" + " OR ".join(in_list(side, entity_ids, params) for side in sides) + ")"]
    if predicates is not None:
        where.append(in_list("f.predicate", predicates, params))
    return select + " WHERE " + " AND ".join(where) + order, params


def select_facts(lists: dict[str, Sequence[str] | None], source_type: str | None,
                 recorded_before: int | None, conflicted: bool, valid_cheap: bool,
                 with_evidence: bool = False) -> Plan:
    params: list[Any] = []
    where = [in_list(f"f.{column}", values, params)
             for column, values in lists.items() if values is not None]
    if source_type is not None:
        where.append("f.source_type = %s")
        params.append(source_type)
    if recorded_before is not None:
        where.append("f.recorded_at < %s")
        params.append(recorded_before)
    if conflicted:
        where.append("f.id IN (SELECT fact_id FROM conflict_links)")
    if valid_cheap:
        where.append("f.t_invalid IS NULL")
    if with_evidence:
        where.append("f.evidence <> '[]'")
    clause = " WHERE " + " AND ".join(where) if where else ""
    return FACT_SELECT + clause + FACT_ORDER, params
