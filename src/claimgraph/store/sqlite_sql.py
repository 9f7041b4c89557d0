"""SQL text for SqliteStore, built by pure functions that return ``(sql, params)`` plans.

Keeping the statements apart from the code that runs them makes each query readable in one
place and testable without a database. Statement texts come from a small closed set, so
sqlite3's prepared-statement cache serves every call after the first. Lists travel as ONE
JSON parameter (``IN (SELECT value FROM json_each(?))``): any length, no variable limit.
"""

from __future__ import annotations

import json

from claimgraph.logic.model import CONTEXT_HEAD_FIELDS
from claimgraph.store import sql_dialect as common

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Sequence
    from claimgraph.store.sql_dialect import Plan as Plan

#: Statements written alike in both dialects (``sql_dialect``), exported under the dialect's names.
AUDIT_ORDER = common.AUDIT_ORDER
AUDIT_SELECT = common.AUDIT_SELECT
CLOSE_EPISODE = common.CLOSE_EPISODE
DELETE_ALIASES = common.DELETE_ALIASES
DELETE_ENTITY = common.DELETE_ENTITY
DELETE_LINK = common.DELETE_LINK
ENTITY_BY_ID = common.ENTITY_BY_ID
ENTITY_BY_NAME = common.ENTITY_BY_NAME
ENTITY_ORDER = common.ENTITY_ORDER
ENTITY_SELECT = common.ENTITY_SELECT
ENTITY_USAGE = common.ENTITY_USAGE
EPISODE_BY_ID = common.EPISODE_BY_ID
EPISODE_BY_REF = common.EPISODE_BY_REF
EPISODE_EXISTS = common.EPISODE_EXISTS
EPISODE_SELECT = common.EPISODE_SELECT
FACT_EXISTS = common.FACT_EXISTS
FACT_ORDER = common.FACT_ORDER
GET_MARK = common.GET_MARK
HAS_TOUCHES = "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'fact_touches')"
TOUCHED_SINCE, INSERTED_AFTER, TOUCH_MARK = (common.TOUCHED_SINCE, common.INSERTED_AFTER,
                                             common.TOUCH_MARK)
GET_PREDICATE = common.GET_PREDICATE
INSERT_EPISODE = common.INSERT_EPISODE
INSERT_FACT = common.INSERT_FACT
INVALIDATE = common.INVALIDATE
REINFORCE = common.REINFORCE
REPOINT_FACTS = common.REPOINT_FACTS
REPOINT_PREDICATE = common.REPOINT_PREDICATE
UPDATE_EPISODE = common.UPDATE_EPISODE

#: Columns in FACT_FIELDS order, so a row zips straight into a fact dict; the heads
#: (``Store.get_fact_heads_for``) carry no link subquery and no evidence.
FACT_SELECT, FACT_HEAD_SELECT, FACT_HEAD_NO_ENDS_SELECT = common.fact_selects(
    "(SELECT json_group_array(c.other_id) FROM conflict_links c WHERE c.fact_id = f.id)")
#: A list parameter: ``IN (SELECT value FROM json_each(?))`` takes any length, no variable limit.
_IN_IDS = " IN (SELECT value FROM json_each(?))"


def id_list(values: Sequence[str]) -> str:
    """A list as ONE parameter: JSON text for ``json_each``."""
    return json.dumps(list(values))


SET_MARK = "INSERT OR REPLACE INTO marks (key, value) VALUES (?, ?)"
LIST_MARKS = "SELECT key, value FROM marks WHERE substr(key, 1, length(?1)) = ?1 ORDER BY key"
DELETE_MARKS = "DELETE FROM marks WHERE key" + _IN_IDS + " AND key != ?"
UPDATE_ENTITY = common.UPDATE_ENTITY.format(extra="")
ENTITIES_BY_IDS = ENTITY_SELECT + " WHERE id" + _IN_IDS
LIST_ENTITIES = (ENTITY_SELECT + " WHERE (:t IS NULL OR type = :t) AND (:s IS NULL OR scope = :s)"
                 + ENTITY_ORDER)
EPISODES_IN_ORDER = EPISODE_SELECT + " ORDER BY opened_at, id"
DELETE_EPISODES = "DELETE FROM episodes WHERE id" + _IN_IDS
LIST_PREDICATES = ("SELECT row FROM predicates WHERE (:c IS NULL OR category = :c)"
                   " AND (:s IS NULL OR status = :s) ORDER BY id")
UPSERT_PREDICATE = ("INSERT OR REPLACE INTO predicates (id, category, status, row)"
                    " VALUES (?, ?, ?, ?)")
AUDIT_OF_FACTS = AUDIT_SELECT + " WHERE fact_id" + _IN_IDS + AUDIT_ORDER
DELETE_FACT_AUDITS = "DELETE FROM audit_verdicts WHERE fact_id" + _IN_IDS
DELETE_FACT_LINKS = ("DELETE FROM conflict_links WHERE fact_id IN (SELECT value FROM json_each(:w))"
                     " OR other_id IN (SELECT value FROM json_each(:w))")
DELETE_FACTS = "DELETE FROM facts WHERE id" + _IN_IDS
DELETE_TOUCHES = "DELETE FROM fact_touches WHERE id" + _IN_IDS
HAS_WORDS = "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'fact_words')"

INDEX_NEW_LITERALS = ("INSERT INTO fact_fts (rowid, object_lit) SELECT pk, object_lit FROM facts"
                      " WHERE pk > ? AND object_lit IS NOT NULL")
INDEX_NEW_WORDS = ("INSERT INTO fact_words (rowid, object_lit) SELECT pk, object_lit FROM facts"
                   " WHERE pk > ? AND object_lit IS NOT NULL")
#: Format 8: the ends a transaction's new facts put their entities at (``entities.ends``,
#: sqlite_schema.SEARCH_KEYS), one statement per end for the whole transaction.
MARK_NEW_ENDS = tuple(
    f"UPDATE entities SET ends = ends | {bit} WHERE ends & {bit} = 0"
    f" AND id IN (SELECT {end} FROM facts WHERE pk > ?)"
    for bit, end in ((1, "subject_id"), (2, "object_ref_id")))
#: Which of the later formats' search structures the store has (a reader may open format 4):
#: the word index (6) and search's keys (8), in one read of the schema.
SEARCH_LAYOUT = ("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'fact_words'),"
                 " EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'facts_text_keys')")
_SEP = "char(31)"  # joins an entity's name and aliases so a phrase never spans two of them
_DIRTY_ENTITIES = "SELECT value FROM json_each(?)"
UNINDEX_ENTITIES = (f"DELETE FROM entity_fts WHERE rowid IN "
                    f"(SELECT pk FROM entities WHERE id IN ({_DIRTY_ENTITIES}))")
#: In rowid order: FTS5 flushes its pending terms to a new segment whenever a rowid is not above
#: the last one, and the id list would otherwise walk the entities in id (random) order, one
#: segment per entity (7x slower for a batch's 5.5k new entities, and a fragmented index).
INDEX_ENTITIES = (f"INSERT INTO entity_fts (rowid, text) SELECT pk, name || {_SEP} || "
                  f"(SELECT coalesce(group_concat(value, {_SEP}), '') FROM json_each(aliases)) "
                  f"FROM entities WHERE id IN ({_DIRTY_ENTITIES}) ORDER BY pk")
INSERT_LINK = "INSERT OR IGNORE INTO conflict_links (fact_id, other_id) VALUES (?, ?)"

#: Decay's two writes: mark (keeping the first time a fact went dormant) and revive.
SET_DORMANT = "UPDATE facts SET dormant_since = ? WHERE id" + _IN_IDS + " AND dormant_since IS NULL"
REVIVE = ("UPDATE facts SET dormant_since = NULL WHERE id" + _IN_IDS
          + " AND dormant_since IS NOT NULL")
#: "+id": sorting the few dormant ids beats walking the whole id index in order to skip the sort.
DORMANT_IDS = "SELECT id FROM facts WHERE dormant_since IS NOT NULL ORDER BY +id"

UPSERT_AUDIT = ("INSERT OR REPLACE INTO audit_verdicts (fact_id, evidence, file, verdict, reason,"
                " content_hash, checked_at, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
SUSPECT_IDS = ("SELECT DISTINCT fact_id FROM audit_verdicts WHERE verdict IN"
               " (SELECT value FROM json_each(?)) ORDER BY fact_id")

#: Per-scope counts in two passes: one scan of facts, and the suspect ones driven from the
#: (small) verdict table through facts' id index (one query with an IN per row was 2x slower).
SCOPE_COUNTS = ("SELECT scope, count(*), coalesce(sum(t_invalid IS NULL), 0),"
                " coalesce(sum(t_invalid IS NULL AND dormant_since IS NOT NULL), 0),"
                " max(recorded_at) FROM facts GROUP BY scope ORDER BY scope")
SCOPE_SUSPECTS = ("SELECT f.scope, count(DISTINCT f.id) FROM audit_verdicts a"
                  " JOIN facts f ON f.id = a.fact_id WHERE f.t_invalid IS NULL AND a.verdict IN"
                  " (SELECT value FROM json_each(?)) GROUP BY f.scope")

INSERT_ENTITY = ("INSERT INTO entities (id, name, norm, type, scope, aliases)"
                 " VALUES (:id, :name, :norm, :type, :scope, :aliases)")
INSERT_ALIAS = "INSERT OR IGNORE INTO entity_aliases (entity_id, alias, norm) VALUES (?, ?, ?)"
FIND_ENTITIES = (ENTITY_SELECT + " WHERE pk IN (SELECT pk FROM entities WHERE norm = :n UNION "
                 "SELECT e.pk FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
                 "WHERE a.norm = :n) AND (:s IS NULL OR scope = :s)" + ENTITY_ORDER)
#: FIND_ENTITIES for a JSON list of normalized names at once; each row leads with the norm it
#: matched (an entity matching two of them comes twice).
FIND_ENTITIES_MANY = (
    "WITH wanted(norm) AS (SELECT DISTINCT value FROM json_each(:w)) "
    "SELECT w.norm, e.id, e.name, e.type, e.scope, e.aliases FROM wanted w "
    "JOIN entities e ON e.norm = w.norm WHERE :s IS NULL OR e.scope = :s UNION "
    "SELECT w.norm, e.id, e.name, e.type, e.scope, e.aliases FROM wanted w "
    "JOIN entity_aliases a ON a.norm = w.norm JOIN entities e ON e.id = a.entity_id "
    "WHERE :s IS NULL OR e.scope = :s")

ENTITY_MATCHES = "SELECT rowid FROM entity_fts WHERE entity_fts MATCH ?"
#: Entities whose name or alias holds the text; ?1 is ENTITY_MATCHES' rowids as JSON (search
#: reads them once for the entity list and the facts).
SEARCH_ENTITIES = (ENTITY_SELECT + " WHERE pk IN (SELECT value FROM json_each(?1))"
                   + ENTITY_ORDER + " LIMIT ?2")
#: Facts named by the text, their subject or their object. Each route contributes at most
#: ten times the limit (the newest full-text hits; the entities first in the index) BEFORE
#: the final sort, so a common word on a million facts costs a bounded amount of work instead
#: of sorting every match. Only the candidates' sort keys are sorted; the full rows of the
#: ``limit`` kept are read afterwards (SEARCH_FACTS_BY_PK), in the same order. ?1 is the text
#: as an FTS5 phrase (or, for _NAMED_BY_ROWIDS, the matched entities' rowids as JSON, in index
#: order), ?2 the limit.
_SEARCH_ORDER = (" ORDER BY f.t_invalid IS NOT NULL, f.t_valid DESC, coalesce(f.object_lit, ''),"
                 " f.id")
_NAMED_BY_MATCH = ("SELECT e.id FROM entity_fts CROSS JOIN entities e ON e.pk = entity_fts.rowid"
                   " WHERE entity_fts MATCH ?1 ORDER BY entity_fts.rowid LIMIT ?2 * 10")
_NAMED_BY_ROWIDS = ("SELECT e.id FROM json_each(?1) j CROSS JOIN entities e ON e.pk = j.value"
                    " LIMIT ?2 * 10")
#: The three routes (the subject end, the object end, the full text) are each cut apart
#: (``search_keys``) and their keys unioned in Python: one UNION with an IN-list over the union
#: costs about twice as much (temp B-trees) for the same candidates. Each route gives its
#: candidates' sort keys as rows that sort as they are (_SEARCH_ORDER: valid first, newest
#: valid time first, then the literal, then id, so equal times never fall to ids; Python
#: orders str by code point, SQLite's BINARY by UTF-8 bytes: the same order), with the pk
#: last: the entity routes straight from the end indexes (format 4 carries the keys), the
#: full-text route's rowids through the table.
SEARCH_FTS_PKS = ("SELECT rowid FROM fact_fts WHERE fact_fts MATCH ?1"
                  " ORDER BY rowid DESC LIMIT ?2 * 10")
#: The same hits walked oldest first (FTS5's own order, about twice as fast as backwards),
#: ?2 the most wanted: when no more than SEARCH_FTS_PKS keeps match, they are the same set.
SEARCH_FTS_FIRST_PKS = "SELECT rowid FROM fact_fts WHERE fact_fts MATCH ?1 LIMIT ?2"
#: Each route hands back only its own best ``limit`` keys (sorted by SQLite, in C): the best
#: ``limit`` of a union are among the union of each part's best, and turning a row into
#: Python objects costs far more than SQLite's sort of it.
_KEYS = "{t}.t_invalid IS NOT NULL, -{t}.t_valid, coalesce({t}.object_lit, ''), {t}.id, {t}.pk"
_BEST = " ORDER BY 1, 2, 3, 4 LIMIT ?2"
#: A named entity's part reads its end index alone (a row read per fact would cost more than
#: the rest of the search): its keys have no literal (nor id: hundreds of strings a token that
#: only a tie uses), so it gives every fact tied on (valid, valid time) with its ``limit``-th,
#: and ``SqliteStore._cut_by_literal`` reads the literals and ids of the facts tied at the
#: final cut only (CUT_LITERALS).
_NAMED_PART = ("SELECT s.t_invalid IS NOT NULL AS v, -s.t_valid AS t, NULL AS lit, NULL AS id,"
               " s.pk AS pk FROM facts s WHERE s.{end} IN (SELECT id FROM named{only})"
               " LIMIT :limit * 10")
#: Format 8: a full-text hit's key from ``facts_text_keys`` (the facts the full-text index
#: holds, their valid time in pk order: the newest hits share its pages), without the literal
#: and id, as a named entity's part gives it.
_TEXT_PART = ("SELECT f.t_invalid IS NOT NULL AS v, -f.t_valid AS t, NULL AS lit, NULL AS id,"
              " f.pk AS pk FROM hits j CROSS JOIN facts f INDEXED BY facts_text_keys"
              " ON f.pk = j.pk AND f.object_lit IS NOT NULL")
_NAMED_CUT = ("SELECT v, t, lit, id, pk FROM {part} WHERE :limit < 0"
              " OR (SELECT count(*) FROM {part}) <= :limit"
              " OR (v, t) <= (SELECT v, t FROM {part} ORDER BY v, t LIMIT 1 OFFSET :limit - 1)")


def search_keys(named: str, texts: str, keyed: bool = False) -> str:
    """Search's candidate keys for one text in ONE statement: the named entities' subject
    part, their object part, then the full-text part (``SqliteStore._search_facts`` keeps a
    pk's last row: the full-text one, which carries the literal unless ``keyed``). The
    entities and the full-text rowids never come out to Python: read apart, they were
    hundreds of rows a token, encoded as JSON and parsed back (the entities twice), for the
    same keys.

    :phrase is the text as an FTS5 phrase, :limit the limit. ``named``: "match" (the entities
    matched here), "given" (:named, their rowids as JSON in index order) or "none";
    ``texts``: "match" (the newest ten times the limit full-text hits, read here), "given"
    (:texts, the rowids as JSON) or "none". ``keyed``: the store has format 8's keys
    (``sqlite_schema.SEARCH_KEYS``): a named entity is looked up only at the ends it has
    been at, and a hit's key comes from ``facts_text_keys`` without its literal and id, cut
    as the entity parts are (the same candidates and the same best keys either way)."""
    parts = []
    if named != "none":
        source = (_NAMED_BY_ROWIDS.replace("?1", ":named") if named == "given"
                  else _NAMED_BY_MATCH.replace("?1", ":phrase")).replace("?2", ":limit")
        ends = ("", "") if not keyed else (" WHERE ends & 1", " WHERE ends & 2")
        if keyed:
            source = source.replace("SELECT e.id ", "SELECT e.id, e.ends ", 1)
        parts += [f"named AS MATERIALIZED ({source})",
                  f"subj AS MATERIALIZED ({_NAMED_PART.format(end='subject_id', only=ends[0])})",
                  f"obj AS MATERIALIZED ({_NAMED_PART.format(end='object_ref_id', only=ends[1])})"]
    if texts != "none":
        hits = ("SELECT value AS pk FROM json_each(:texts)" if texts == "given" else
                SEARCH_FTS_PKS.replace("SELECT rowid", "SELECT rowid AS pk")
                .replace("?1", ":phrase").replace("?2", ":limit"))
        parts.append(f"hits AS ({hits})")
        if keyed:
            parts.append(f"txt AS MATERIALIZED ({_TEXT_PART})")
    selects = ([_NAMED_CUT.format(part="subj"), _NAMED_CUT.format(part="obj")]
               if named != "none" else [])
    if texts != "none":
        selects.append(_NAMED_CUT.format(part="txt") if keyed else
                       "SELECT * FROM (SELECT " + _KEYS.format(t="f")
                       + " FROM hits j CROSS JOIN facts f ON f.pk = j.pk"
                       + _BEST.replace("?2", ":limit") + ")")
    return "WITH " + ", ".join(parts) + " " + " UNION ALL ".join(selects)


#: The (named, texts, keyed) that ``search_keys`` is asked for; named and texts both "none"
#: reads nothing.
SEARCH_KEY_KINDS = tuple((named, texts, keyed) for named in ("match", "given", "none")
                         for texts in ("match", "given", "none") for keyed in (False, True)
                         if (named, texts) != ("none", "none"))
_SEARCH_KEYS: dict[tuple[str, str, bool], str] = {}


def search_keys_for(named: str, texts: str, keyed: bool) -> str:
    """``search_keys``, each text built when first asked and kept: a search asks for one or
    two of the sixteen, and building them all was ~0.1 ms of every command that loads the
    store (issue 29)."""
    statement = _SEARCH_KEYS.get((named, texts, keyed))
    if statement is None:
        statement = _SEARCH_KEYS[named, texts, keyed] = search_keys(named, texts, keyed)
    return statement


#: The literals and ids of facts tied at search's cut (?1: their pks as JSON).
CUT_LITERALS = ("SELECT f.pk, coalesce(f.object_lit, ''), f.id FROM json_each(?1) j"
                " CROSS JOIN facts f ON f.pk = j.value")
#: The kept facts' full rows (?1: their pks as JSON), in the search order.
SEARCH_FACTS_BY_PK = (FACT_SELECT + " WHERE f.pk IN (SELECT value FROM json_each(?))"
                      + _SEARCH_ORDER)
#: Search's heads carry the literal and the episode too (read with the row anyway): a route
#: tells facts that say the same words apart by nothing else (``logic.retrieval.shared_ranks``),
#: and the episode arm need not read a head's episode again (``Store.episode_members``).
_SEARCH_HEAD_SELECT = FACT_HEAD_SELECT.replace(" FROM facts f",
                                               ", f.object_lit, f.episode FROM facts f")
SEARCH_HEADS_BY_PK = (_SEARCH_HEAD_SELECT + " WHERE f.pk IN (SELECT value FROM json_each(?))"
                      + _SEARCH_ORDER)


#: Whether fact ``f`` is valid at ``?`` (search's instant): begun by then, no end recorded or
#: none by then (NULL: no end recorded only, whenever it began), as search's routes keep facts
#: (``logic.retrieval.valid_facts``; a forgotten fact's end is recorded).
_VALID_AT = "(f.t_invalid IS NULL OR f.t_invalid > ?) AND (? IS NULL OR f.t_valid <= ?)"
_BY_TEXT_KEYS = {True: " INDEXED BY facts_text_keys", False: ""}


def word_hits(keyed: bool) -> str:
    """One word's hits (?1: the quoted word as an FTS5 expression), each with its BM25 rank
    and whether it is valid at ?2 (``_VALID_AT``). ``keyed``: the store has format 8's keys,
    and a hit's end and valid time come from ``facts_text_keys`` alone (a format 6 or 7 store
    reads each hit's row); the literal and id are read only for the few that can make the
    cut (``CUT_LITERALS``). Closed hits come too: their number is what FTS5's rarity weight
    counted (``logic.query_words.open_word_scores`` swaps it for the valid ones')."""
    return ("SELECT f.pk, w.rank, " + _VALID_AT.replace("?", "?2")
            + " FROM (SELECT rowid, rank FROM fact_words WHERE fact_words MATCH ?1) w"
            " CROSS JOIN facts f" + _BY_TEXT_KEYS[keyed]
            + " ON f.pk = w.rowid AND f.object_lit IS NOT NULL")


#: How many facts hold each word (?1: a JSON list of quoted words), counted up to ?2; one
#: row per word, in the list's order (one statement: a word's count is a short index walk).
#: Closed facts count: the budget bounds the work of ranking a word (``word_hits`` scores
#: every hit, closed ones included), and counting the valid ones alone would read a row
#: per hit of every common word (search CPU p95 +10% at 100k facts).
WORD_COUNTS = ("SELECT (SELECT count(*) FROM (SELECT 1 FROM fact_words WHERE fact_words"
               " MATCH j.value LIMIT ?2)) FROM json_each(?1) j ORDER BY j.key")


#: The rows of the word index (N in BM25's rarity weight), from FTS5's own record of them
#: (the first varint of its averages record, block 1 of ``fact_words_data``): counting the
#: rows would read every one.
WORD_INDEX_AVERAGES = "SELECT block FROM fact_words_data WHERE id = 1"
#: Each row leads with its pk (the caller orders by it).
FACTS_BY_PK = ("SELECT f.pk, " + FACT_SELECT.removeprefix("SELECT ")
               + " WHERE f.pk IN (SELECT value FROM json_each(?))")
#: ``Store.episode_neighbours`` (:ids JSON, :span).
EPISODE_NEIGHBOURS = common.episode_neighbours(" IN (SELECT value FROM json_each(:ids))")
#: ``Store.episode_members`` (:ids JSON; then :episode, :cap).
EPISODES_OF = common.episodes_of(" IN (SELECT value FROM json_each(:ids))")
EPISODE_FACT_IDS = common.EPISODE_FACT_IDS
FACTS_EPISODES = common.facts_episodes(" IN (SELECT value FROM json_each(:ids))")
SMALL_EPISODES_OF = common.small_episodes_of(" IN (SELECT value FROM json_each(:ids))")
SMALL_EPISODES_AMONG = common.small_episodes_among(
    "(SELECT value AS episode FROM json_each(:ids)) AS given")
#: FACTS_EPISODES walks the id list sorted (the IN list's ephemeral index, BINARY: code point
#: order, as Python sorts str): rows known already can be put back in their place.
FACTS_EPISODES_IN_ID_ORDER = True
HEADS_BY_PK = ("SELECT f.pk, " + _SEARCH_HEAD_SELECT.removeprefix("SELECT ")
               + " WHERE f.pk IN (SELECT value FROM json_each(?))")


def words_match(words: Sequence[str]) -> str:
    """Words as an FTS5 expression: each a quoted string (so no word is an operator), OR-ed."""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


SEARCH_EPISODES = (EPISODE_SELECT + " WHERE pk IN (SELECT rowid FROM episode_fts "
                   "WHERE episode_fts MATCH ?1)"
                   " ORDER BY opened_at IS NULL, opened_at DESC, id LIMIT ?2")


def fts_phrase(query: str) -> str:
    """User text as ONE quoted FTS5 phrase: AND, NEAR(, * and quotes are just characters."""
    return '"' + query.replace('"', '""') + '"'


def context_heads(scopes: Sequence[str], since: int) -> Plan:
    """``logic.briefing_shortlist`` heads of the scopes' live facts valid now or closed since
    ``since``: one walk of ``facts_scope(scope, t_invalid)``, the subject's and an entity
    object's names joined for the ranking's tie-break (with the literal: what the fact says);
    no links, no evidence, no entity records."""
    columns = {"subject_name": "e.name", "object_name": "CASE WHEN f.object_kind = 'entity'"
               " THEN o.name ELSE f.object_lit END"}
    select = ", ".join(columns.get(n, f"f.{n}") for n in CONTEXT_HEAD_FIELDS)
    params: list[Any] = []
    where = in_list("f.scope", scopes, params)
    params.append(since)
    # The index is named: left to itself the planner walks every scope's valid facts by
    # ``facts_valid_recorded`` and reads each row for its scope (at 100k facts over 50
    # projects, 169 ms against 17 ms for one project's 2k heads; the same at one project).
    return (f"SELECT {select} FROM facts f INDEXED BY facts_scope"
            f" LEFT JOIN entities e ON e.id = f.subject_id"
            f" LEFT JOIN entities o ON o.id = f.object_ref_id"
            f" WHERE {where} AND (f.t_invalid IS NULL OR f.t_invalid >= ?)"
            f" AND f.dormant_since IS NULL", params)


def context_heads_capped(scopes: Sequence[str], since: int, cap: int) -> Plan:
    """How many of ``context_heads``' rows there are, counted no further than ``cap``: a walk
    of the covering index ``facts_scope(scope, t_invalid)`` alone (dormant facts are counted
    too, so this is an upper bound), that stops at ``cap`` whatever the scopes hold."""
    marks = ", ".join("?" * len(scopes))  # two scopes: no json_each, and the index is named,
    # or the planner may walk every scope's valid facts by ``facts_valid_recorded`` instead
    return (f"SELECT count(*) FROM (SELECT 1 FROM facts INDEXED BY facts_scope"
            f" WHERE scope IN ({marks}) AND (t_invalid IS NULL OR t_invalid >= ?) LIMIT ?)",
            [*scopes, since, cap])


in_list, facts_touching, select_facts = common.plan_builders(
    "?", _IN_IDS, id_list, FACT_SELECT, predicate_column="+f.predicate", unindexed="+")
