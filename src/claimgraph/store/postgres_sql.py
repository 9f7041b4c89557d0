"""SQL text for PostgresStore: the statements ``store.sql.SqlStore`` runs, in PostgreSQL's dialect.

The same queries as ``sqlite_sql`` under the same names (``sql_dialect.SqlDialect``): ``%s``
parameters (the statements both dialects share are written once with ``?`` and converted by
``pg``), lists as arrays through ``= ANY(%s::text[])``, ``NULLS FIRST`` where SQLite sorts NULL
first by nature, upserts as ``ON CONFLICT``, trigram ``ILIKE`` where SQLite uses FTS5.
"""

from __future__ import annotations

import re
from claimgraph.store import sql_dialect as common

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Sequence

    from claimgraph.store.sql_dialect import Plan as Plan

#: Statements written alike in both dialects (``sql_dialect``), exported under the dialect's names.
ENTITY_ORDER = common.ENTITY_ORDER
FACT_ORDER = common.FACT_ORDER


def pg(sql: str) -> str:
    """A statement written with ``?`` and ``:name`` placeholders, in psycopg's ``%s`` and
    ``%(name)s`` (our own statements: no literal holds either)."""
    return re.sub(r"(?<!:):([a-z]\w*)", r"%(\1)s", sql.replace("?", "%s"))


def id_list(values: Sequence[str]) -> list[str]:
    """A list as ONE parameter: an array for ``= ANY(%s::text[])``."""
    return list(values)


FACT_SELECT, FACT_HEAD_SELECT, FACT_HEAD_NO_ENDS_SELECT = common.fact_selects(
    "(SELECT coalesce(json_agg(c.other_id), '[]'::json)::text FROM conflict_links c"
    " WHERE c.fact_id = f.id)")
_ANY = " = ANY(%s::text[])"

(GET_MARK, FACT_EXISTS, ENTITY_BY_ID, ENTITY_BY_NAME, DELETE_ALIASES, DELETE_ENTITY,
 REPOINT_PREDICATE, INVALIDATE, REINFORCE, EPISODE_EXISTS, EPISODE_BY_ID, EPISODE_BY_REF,
 INSERT_EPISODE, CLOSE_EPISODE, UPDATE_EPISODE, GET_PREDICATE, DELETE_LINK, REPOINT_FACTS,
 INSERT_FACT) = (pg(sql) for sql in (
    common.GET_MARK, common.FACT_EXISTS, common.ENTITY_BY_ID, common.ENTITY_BY_NAME,
    common.DELETE_ALIASES, common.DELETE_ENTITY, common.REPOINT_PREDICATE, common.INVALIDATE,
    common.REINFORCE, common.EPISODE_EXISTS, common.EPISODE_BY_ID, common.EPISODE_BY_REF,
    common.INSERT_EPISODE, common.CLOSE_EPISODE, common.UPDATE_EPISODE, common.GET_PREDICATE,
    common.DELETE_LINK, common.REPOINT_FACTS, common.INSERT_FACT))
ENTITY_USAGE = common.ENTITY_USAGE
HAS_TOUCHES = "SELECT to_regclass('fact_touches') IS NOT NULL"
TOUCHED_SINCE = pg(common.TOUCHED_SINCE)
AUDIT_SELECT, EPISODE_SELECT, ENTITY_SELECT = (common.AUDIT_SELECT, common.EPISODE_SELECT,
                                               common.ENTITY_SELECT)

SET_MARK = ("INSERT INTO marks (key, value) VALUES (%s, %s) ON CONFLICT (key)"
            " DO UPDATE SET value = excluded.value")
LIST_MARKS = "SELECT key, value FROM marks WHERE starts_with(key, %s) ORDER BY key"
DELETE_MARKS = "DELETE FROM marks WHERE key" + _ANY + " AND key <> %s"
INSERT_ENTITY = pg("INSERT INTO entities (id, name, norm, type, scope, aliases, search_text)"
                   " VALUES (:id, :name, :norm, :type, :scope, :aliases, :search_text)")
UPDATE_ENTITY = pg(common.UPDATE_ENTITY.format(extra=", search_text = :search_text"))
ENTITIES_BY_IDS = ENTITY_SELECT + " WHERE id" + _ANY
LIST_ENTITIES = (ENTITY_SELECT + " WHERE (%(t)s::text IS NULL OR type = %(t)s)"
                 " AND (%(s)s::text IS NULL OR scope = %(s)s)" + ENTITY_ORDER)
INSERT_LINK = ("INSERT INTO conflict_links (fact_id, other_id) VALUES (%s, %s)"
               " ON CONFLICT DO NOTHING")

SET_DORMANT = "UPDATE facts SET dormant_since = %s WHERE id" + _ANY + " AND dormant_since IS NULL"
REVIVE = "UPDATE facts SET dormant_since = NULL WHERE id" + _ANY + " AND dormant_since IS NOT NULL"
DORMANT_IDS = "SELECT id FROM facts WHERE dormant_since IS NOT NULL ORDER BY id"

AUDIT_OF_FACTS = AUDIT_SELECT + " WHERE fact_id" + _ANY + common.AUDIT_ORDER
UPSERT_AUDIT = (
    "INSERT INTO audit_verdicts (fact_id, evidence, file, verdict, reason, content_hash,"
    " checked_at, details) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (fact_id, evidence) DO UPDATE SET file = excluded.file,"
    " verdict = excluded.verdict, reason = excluded.reason,"
    " content_hash = excluded.content_hash, checked_at = excluded.checked_at,"
    " details = excluded.details")
SUSPECT_IDS = ("SELECT DISTINCT fact_id FROM audit_verdicts WHERE verdict" + _ANY
               + " ORDER BY fact_id")
SCOPE_COUNTS = ("SELECT scope, count(*), count(*) FILTER (WHERE t_invalid IS NULL),"
                " count(*) FILTER (WHERE t_invalid IS NULL AND dormant_since IS NOT NULL),"
                " max(recorded_at) FROM facts GROUP BY scope ORDER BY scope")
SCOPE_SUSPECTS = ("SELECT f.scope, count(DISTINCT f.id) FROM audit_verdicts a"
                  " JOIN facts f ON f.id = a.fact_id WHERE f.t_invalid IS NULL"
                  " AND a.verdict" + _ANY + " GROUP BY f.scope")

INSERT_ALIAS = ("INSERT INTO entity_aliases (entity_id, alias, norm) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING")
FIND_ENTITIES = (ENTITY_SELECT + " WHERE pk IN (SELECT pk FROM entities WHERE norm = %(n)s UNION"
                 " SELECT e.pk FROM entity_aliases a JOIN entities e ON e.id = a.entity_id"
                 " WHERE a.norm = %(n)s) AND (%(s)s::text IS NULL OR scope = %(s)s)"
                 + ENTITY_ORDER)
#: FIND_ENTITIES for a list of normalized names at once; each row leads with the norm it
#: matched (an entity matching two of them comes twice).
FIND_ENTITIES_MANY = (
    "WITH wanted(norm) AS (SELECT DISTINCT unnest(%(w)s::text[])) "
    "SELECT w.norm, e.id, e.name, e.type, e.scope, e.aliases FROM wanted w "
    "JOIN entities e ON e.norm = w.norm WHERE %(s)s::text IS NULL OR e.scope = %(s)s UNION "
    "SELECT w.norm, e.id, e.name, e.type, e.scope, e.aliases FROM wanted w "
    "JOIN entity_aliases a ON a.norm = w.norm JOIN entities e ON e.id = a.entity_id "
    "WHERE %(s)s::text IS NULL OR e.scope = %(s)s")

EPISODES_IN_ORDER = EPISODE_SELECT + " ORDER BY opened_at NULLS FIRST, id"
DELETE_EPISODES = "DELETE FROM episodes WHERE id" + _ANY
LIST_PREDICATES = ("SELECT row FROM predicates WHERE (%(c)s::text IS NULL OR category = %(c)s)"
                   " AND (%(s)s::text IS NULL OR status = %(s)s) ORDER BY id")
UPSERT_PREDICATE = ("INSERT INTO predicates (id, category, status, row) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (id) DO UPDATE SET category = excluded.category,"
                    " status = excluded.status, row = excluded.row")
DELETE_FACT_AUDITS = "DELETE FROM audit_verdicts WHERE fact_id" + _ANY
DELETE_FACT_LINKS = ("DELETE FROM conflict_links WHERE fact_id = ANY(%(w)s::text[])"
                     " OR other_id = ANY(%(w)s::text[])")
DELETE_FACTS = "DELETE FROM facts WHERE id" + _ANY
DELETE_TOUCHES = "DELETE FROM fact_touches WHERE id" + _ANY

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
    " ORDER BY f.t_invalid IS NOT NULL, f.t_valid DESC, coalesce(f.object_lit, '') COLLATE \"C\","
    " f.id LIMIT %(n)s")
SEARCH_EPISODES = (EPISODE_SELECT + " WHERE summary ILIKE %(p)s"
                   " ORDER BY opened_at IS NULL, opened_at DESC, id LIMIT %(n)s")


#: ``Store.episode_neighbours`` (ids as an array, span).
EPISODE_NEIGHBOURS = pg(common.episode_neighbours(" = ANY(:ids::text[])"))
#: ``Store.episode_members`` (ids as an array; then episode, cap).
EPISODES_OF = pg(common.episodes_of(" = ANY(:ids::text[])"))
EPISODE_FACT_IDS = pg(common.EPISODE_FACT_IDS)
FACTS_EPISODES = pg(common.facts_episodes(" = ANY(:ids::text[])"))
SMALL_EPISODES_OF = pg(common.small_episodes_of(" = ANY(:ids::text[])"))
SMALL_EPISODES_AMONG = pg(common.small_episodes_among("unnest(:ids::text[]) AS given(episode)"))
#: The server gives FACTS_EPISODES' rows in its plan's order, which decides the order episode
#: shares are summed in (floats): every candidate's episode is read, known or not.
FACTS_EPISODES_IN_ID_ORDER = False

#: How many open facts hold a word (%(q)s: one word's tsquery), counted up to %(n)s (a GIN
#: bitmap walk that stops at the budget: ``logic.query_words.within_budget`` decides from it,
#: and the word's rarity weight is read from it). Counted: the facts valid at %(at)s (begun,
#: and not ended: NULL, no end recorded), as search keeps them: a word many closed facts
#: hold neither leaves the ranking nor weighs less for them.
WORD_COUNT = ("SELECT count(*) FROM (SELECT 1 FROM facts"
              " WHERE words @@ to_tsquery('english'::regconfig, %(q)s)"
              " AND (t_invalid IS NULL OR t_invalid > %(at)s::bigint)"
              " AND (%(at)s::bigint IS NULL OR t_valid <= %(at)s::bigint) LIMIT %(n)s) c")
#: How many facts there are, as the planner last counted them (-1 or 0 before the first
#: ANALYZE; the caller counts then): BM25's rarity weight needs the size, not to the row.
FACT_COUNT_ESTIMATE = "SELECT reltuples::bigint FROM pg_class WHERE oid = 'facts'::regclass"
FACT_COUNT = "SELECT count(*) FROM facts WHERE object_lit IS NOT NULL"


def words_ranked(count: int) -> str:
    """The open facts whose words match (%(q)s: the words OR-ed, stemmed by the 'english'
    config), best first, ties by the literal in byte order (as SQLite), then id; at most
    %(n)s. The score is BM25's shape: each word's ``ts_rank`` (its frequency in the text,
    normalized by the log of the text's length) times its rarity weight (%(w0)s, %(w1)s…,
    one per word's tsquery %(q0)s, %(q1)s…), summed, so a rare word outweighs a common one
    as in SQLite's FTS5 ranking (docs/search.md)."""
    terms = " + ".join(f"%(w{i})s * ts_rank(f.words, to_tsquery('english'::regconfig,"
                       f" %(q{i})s), 1)" for i in range(count))
    return ("SELECT f.pk FROM facts f, to_tsquery('english'::regconfig, %(q)s) AS q"
            " WHERE f.words @@ q AND (f.t_invalid IS NULL OR f.t_invalid > %(at)s::bigint)"
            " AND (%(at)s::bigint IS NULL OR f.t_valid <= %(at)s::bigint)"
            f" ORDER BY ({terms}) DESC, f.object_lit COLLATE \"C\", f.id LIMIT %(n)s")


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


in_list, facts_touching, select_facts = common.plan_builders(
    "%s", _ANY, id_list, FACT_SELECT, predicate_column="f.predicate", unindexed="")
