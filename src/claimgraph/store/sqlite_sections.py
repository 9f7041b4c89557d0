"""SQL for ``SqliteStore.context_sections``: a project page's sections, placed, ordered, counted
and cut to one page each in one query (``logic.briefing_sections`` is the definition it follows).

One walk of the scopes' facts (the ``facts_scope`` index) puts each fact in its section with a
CASE, a window function numbers the facts of each section in the section's order and counts
them, and only the numbers inside each section's (offset, limit) come back: a project of
100,000 facts answers with a few hundred ids and seven counts, never its rows. Effective
confidence is computed in SQL with the same arithmetic as ``logic.confidence`` (``pow`` is
SQLite's math function, or Python's registered in its place), so the ranked order is the
context's own.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from claimgraph.logic import briefing as compiled
from claimgraph.logic.briefing_sections import DORMANT, FROM_CODE, LEFT_OUT, SUSPECT, Narrowing
from claimgraph.logic.confidence import CONFIDENCE_FLOOR
from claimgraph.logic.model import FORGOTTEN, SUPERSESSION_KINDS, SUSPECT_VERDICTS
from claimgraph.logic.timeutil import DAY_MS


def _names(values: Sequence[str]) -> str:
    """A fixed SQL list of constant strings (our own constants, never user input)."""
    return "(" + ", ".join("'" + v.replace("'", "''") + "'" for v in sorted(values)) + ")"


_VALID = ("(f.t_valid <= :now AND (f.t_invalid IS NULL OR f.t_invalid > :now)"
          f" AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}')")
_SUSPECT = ("f.id IN (SELECT fact_id FROM audit_verdicts WHERE verdict IN "
            f"{_names(SUSPECT_VERDICTS)})")
_DORMANT = "f.dormant_since IS NOT NULL"
_STANDING = f"(f.epistemic = 'commitment' OR f.predicate IN {_names(compiled.STANCE_PREDICATES)})"
#: ``logic.briefing.LEGACY_SUPERSEDED``: "superseded by ID" or "judged superseded by ID".
_LEGACY = ("(f.invalidation_kind IS NULL AND (f.invalidation_reason GLOB 'superseded by ?*' OR"
           " f.invalidation_reason GLOB 'judged superseded by ?*') AND"
           " NOT substr(f.invalidation_reason, instr(f.invalidation_reason, ' by ') + 4)"
           " GLOB '*[ \t\n\r\f\v]*')")
_CHANGED = (f"(f.t_invalid BETWEEN :window AND :now AND (f.invalidation_kind IN "
            f"{_names(SUPERSESSION_KINDS)} OR {_LEGACY}))")
_LINKED = "f.id IN (SELECT fact_id FROM conflict_links)"
_OPEN = "f.id IN (SELECT value FROM json_each(:open))"
_RANKED_SECTION = (f"CASE WHEN f.predicate IN {_names(compiled.LESSON_PREDICATES)} THEN 'lessons'"
                   f" WHEN f.predicate IN {_names(compiled.STRUCTURE_PREDICATES)} THEN 'structure'"
                   " ELSE 'current' END")
_SECTION = (f"CASE WHEN NOT {_VALID} THEN"
            f" (CASE WHEN {_CHANGED} AND NOT {_DORMANT} AND NOT {_SUSPECT} THEN 'changed' END)"
            f" WHEN {_DORMANT} OR {_SUSPECT} THEN 'left_out'"
            f" WHEN {_STANDING} THEN 'decisions'"
            f" WHEN {_OPEN} THEN 'conflicts'"
            f" WHEN f.source_type = 'code' OR {_LINKED} THEN 'left_out'"
            f" ELSE {_RANKED_SECTION} END")
_REASON = (f"CASE WHEN {_DORMANT} THEN '{DORMANT}' WHEN {_SUSPECT} THEN '{SUSPECT}'"
           f" WHEN f.source_type = 'code' THEN '{FROM_CODE}' ELSE '{LEFT_OUT}' END")
#: ``logic.confidence.effective_confidence``, term by term (over the placed rows' columns).
_EFFECTIVE = ("CASE WHEN p.recorded_at IS NULL OR p.epistemic = 'commitment'"
              " OR p.source = 'decision-record' THEN p.confidence"
              " ELSE max(:floor, p.confidence * pow(0.5, max(0.0, (:now - max(p.recorded_at,"
              " coalesce(nullif(p.reinforced, 0), p.recorded_at))) / :period))) END")


def _name(subject_id: str) -> str:
    return f"coalesce((SELECT e.name FROM entities e WHERE e.id = {subject_id}), '')"


_NAME = _name("f.subject_id")
_OBJECT = ("coalesce(CASE WHEN f.object_kind = 'entity' THEN (SELECT o.name FROM entities o"
           " WHERE o.id = f.object_ref_id) ELSE f.object_lit END, '')")


def _narrowing(narrowing: Narrowing, params: dict[str, Any]) -> str:
    where = []
    if narrowing.predicate:
        where.append("f.predicate = :predicate")
        params["predicate"] = narrowing.predicate
    if narrowing.epistemic:
        where.append("f.epistemic = :epistemic")
        params["epistemic"] = narrowing.epistemic
    if narrowing.text:
        where.append(f"(instr(lower({_NAME}), lower(:text)) > 0"
                     f" OR instr(lower({_OBJECT}), lower(:text)) > 0)")
        params["text"] = narrowing.text
    return "".join(f" AND {w}" for w in where)


def context_sections(scopes: Sequence[str], now: int, half_life_days: float,
                     open_ids: Sequence[str], windows: Mapping[str, tuple[int, int]],
                     narrowing: Narrowing) -> tuple[str, dict[str, Any]]:
    """Rows (section, id, reason, count): the windows' ids in order, and one row per section
    with id NULL carrying its count (so an empty window still reports its section)."""
    params: dict[str, Any] = {
        "scopes": json.dumps(sorted(set(scopes))), "now": now, "floor": CONFIDENCE_FLOOR,
        # A real period: SQLite divides two integers whole.
        "window": compiled.window_start(now), "period": float(DAY_MS * half_life_days),
        "open": json.dumps(sorted(set(open_ids))),
        "windows": json.dumps({k: [int(o), int(o) + int(n)] for k, (o, n) in windows.items()}),
    }
    placed = (f"SELECT f.id AS id, {_SECTION} AS section,"
              f" CASE WHEN f.dormant_since IS NOT NULL OR f.source_type = 'code'"
              f" OR {_SUSPECT} OR {_LINKED} THEN {_REASON} END AS reason,"
              " f.t_valid AS t_valid, f.t_invalid AS t_invalid,"
              " f.confidence AS confidence, f.epistemic AS epistemic, f.source_type AS source,"
              " f.recorded_at AS recorded_at, f.last_reinforced_at AS reinforced,"
              " f.subject_id AS subject_id"
              " FROM facts f WHERE f.scope IN (SELECT value FROM json_each(:scopes))"
              + _narrowing(narrowing, params))
    keyed = ("SELECT p.id, p.section, CASE WHEN p.section = 'left_out' THEN p.reason END AS reason,"
             " CASE p.section WHEN 'decisions' THEN p.t_valid WHEN 'changed' THEN -p.t_invalid"
             " WHEN 'left_out' THEN p.reason WHEN 'conflicts' THEN 0 ELSE -("
             + _EFFECTIVE + ") END AS k1, p.subject_id"
             " FROM placed p WHERE p.section IS NOT NULL")
    parts = ["SELECT section, NULL, NULL, count(*), 0 FROM keyed GROUP BY section"]
    for n, (section, (offset, limit)) in enumerate(sorted(windows.items())):
        if limit <= 0:
            continue
        params[f"s{n}"], params[f"e{n}"] = section, int(offset) + int(limit)
        if section in ("lessons", "current", "structure"):
            # The name breaks ties: looked up only for rows at least as strong as the last wanted.
            bar = (f"(SELECT k1 FROM keyed WHERE section = :s{n} ORDER BY k1"
                   f" LIMIT 1 OFFSET :e{n} - 1)")
            order = f"k1, {_name('subject_id')}, id"
            where = f"section = :s{n} AND (k1 <= {bar} OR {bar} IS NULL)"
        else:
            order, where = "k1, id", f"section = :s{n}"
        parts.append(f"SELECT * FROM (SELECT section, id, reason, NULL, 1 FROM keyed WHERE {where}"
                     f" ORDER BY {order} LIMIT {int(limit)} OFFSET {int(offset)})")
    # Rows: (section, NULL, NULL, count, 0) per section, then each window's ids in order.
    sql = f"WITH keyed AS MATERIALIZED ({keyed}), placed AS ({placed}) " + " UNION ALL ".join(parts)
    return sql, params


#: ``logic.retrieval.most_useful_first`` at ``:at``: commitments first, then effective
#: confidence then, fresher first, ids last.
_USEFUL_ORDER = ("(f.epistemic <> 'commitment'), -(" + _EFFECTIVE.replace("p.source", "f.source_type")
                 .replace("p.reinforced", "f.last_reinforced_at").replace("p.", "f.")
                 .replace(":now", ":at") + "), -coalesce(nullif(f.last_reinforced_at, 0),"
                 " nullif(f.recorded_at, 0), 0), f.id")
_IN_SCOPES = "f.scope IN (SELECT value FROM json_each(:scopes))"
_BELIEVED = (f"{_IN_SCOPES} AND f.t_valid <= :at AND (f.t_invalid IS NULL OR f.t_invalid > :at)"
             f" AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}'"
             " AND f.dormant_since IS NULL")


def valid_times(scopes: Sequence[str]) -> tuple[str, str, dict[str, Any]]:
    params = {"scopes": json.dumps(sorted(set(scopes)))}
    return (f"SELECT f.t_valid FROM facts f WHERE {_IN_SCOPES} AND f.t_valid IS NOT NULL"
            " ORDER BY 1",
            f"SELECT f.t_invalid FROM facts f WHERE {_IN_SCOPES} AND f.t_invalid IS NOT NULL"
            " ORDER BY 1", params)


def believed_at(scopes: Sequence[str], at: int, since: int | None, limit: int,
                half_life_days: float) -> tuple[list[str], dict[str, Any]]:
    """Four statements: the count believed, the first ``limit`` of them, what began and what
    ended after ``since`` up to ``at``."""
    params = {"scopes": json.dumps(sorted(set(scopes))), "at": at, "floor": CONFIDENCE_FLOOR,
              "period": float(DAY_MS * half_life_days), "since": since, "limit": int(limit)}
    window = "({col} <= :at AND (:since IS NULL OR {col} > :since))"
    return ([f"SELECT count(*) FROM facts f WHERE {_BELIEVED}",
             f"SELECT f.id FROM facts f WHERE {_BELIEVED} ORDER BY {_USEFUL_ORDER} LIMIT :limit",
             f"SELECT f.id FROM facts f WHERE {_IN_SCOPES} AND "
             + window.format(col="f.t_valid") + " ORDER BY f.t_valid, f.id LIMIT :limit",
             f"SELECT f.id FROM facts f WHERE {_IN_SCOPES} AND "
             + window.format(col="f.t_invalid") + " ORDER BY f.t_valid, f.id LIMIT :limit"],
            params)
