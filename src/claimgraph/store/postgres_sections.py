"""SQL for ``PostgresStore.context_sections``: the SQLite query's twin (``sqlite_sections``) in
PostgreSQL's dialect, following the same definition (``logic.briefing_sections``).

One walk of the scopes' facts places each in its section (a CASE, materialized once), one
aggregate counts the sections, and each wanted window is its own ordered, limited select (a
top-N sort), so only a few hundred ids come back. Text compares in byte order (``COLLATE "C"``)
as SQLite's does; effective confidence is ``logic.confidence``'s arithmetic in doubles.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from claimgraph.logic import briefing as compiled
from claimgraph.logic.briefing_sections import DORMANT, FROM_CODE, LEFT_OUT, SUSPECT, Narrowing
from claimgraph.logic.confidence import CONFIDENCE_FLOOR
from claimgraph.logic.model import FORGOTTEN, SUPERSESSION_KINDS, SUSPECT_VERDICTS
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.store.sqlite_sections import _names

_VALID = ("(f.t_valid <= %(now)s AND (f.t_invalid IS NULL OR f.t_invalid > %(now)s)"
          f" AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}')")
_SUSPECT = ("f.id IN (SELECT fact_id FROM audit_verdicts WHERE verdict IN "
            f"{_names(SUSPECT_VERDICTS)})")
_DORMANT = "f.dormant_since IS NOT NULL"
_STANDING = f"(f.epistemic = 'commitment' OR f.predicate IN {_names(compiled.STANCE_PREDICATES)})"
_LEGACY = ("(f.invalidation_kind IS NULL AND"
           " f.invalidation_reason ~ '^(judged )?superseded by \\S+$')")
_CHANGED = (f"(f.t_invalid BETWEEN %(window)s AND %(now)s AND (f.invalidation_kind IN "
            f"{_names(SUPERSESSION_KINDS)} OR {_LEGACY}))")
_LINKED = "f.id IN (SELECT fact_id FROM conflict_links)"
_OPEN = "f.id = ANY(%(open)s::text[])"
_SECTION = (f"CASE WHEN NOT {_VALID} THEN"
            f" (CASE WHEN {_CHANGED} AND NOT {_DORMANT} AND NOT {_SUSPECT} THEN 'changed' END)"
            f" WHEN {_DORMANT} OR {_SUSPECT} THEN 'left_out'"
            f" WHEN {_STANDING} THEN 'decisions'"
            f" WHEN {_OPEN} THEN 'conflicts'"
            f" WHEN f.source_type = 'code' OR {_LINKED} THEN 'left_out'"
            f" WHEN f.predicate IN {_names(compiled.LESSON_PREDICATES)} THEN 'lessons'"
            f" WHEN f.predicate IN {_names(compiled.STRUCTURE_PREDICATES)} THEN 'structure'"
            " ELSE 'current' END")
_REASON = (f"CASE WHEN {_DORMANT} THEN '{DORMANT}' WHEN {_SUSPECT} THEN '{SUSPECT}'"
           f" WHEN f.source_type = 'code' THEN '{FROM_CODE}' ELSE '{LEFT_OUT}' END")
_EFFECTIVE = ("CASE WHEN f.epistemic = 'commitment' OR f.source_type = 'decision-record'"
              " THEN f.confidence ELSE GREATEST(%(floor)s::double precision, f.confidence *"
              " power(0.5::double precision, GREATEST(0.0::double precision, (%(now)s -"
              " GREATEST(f.recorded_at, coalesce(nullif(f.last_reinforced_at, 0),"
              " f.recorded_at)))::double precision / %(period)s::double precision))) END")
_ORDER = {
    "decisions": "t_valid, id",
    "changed": "t_invalid DESC, id",
    "left_out": "reason COLLATE \"C\", id",
    "conflicts": "id",
}
_RANKED_ORDER = "effective DESC, name, id"
#: ``translate`` with these folds ASCII case only, as SQLite's ``lower`` and the definition do.
ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _narrowing(narrowing: Narrowing, params: dict[str, Any]) -> str:
    where = []
    if narrowing.predicate:
        where.append("f.predicate = %(predicate)s")
        params["predicate"] = narrowing.predicate
    if narrowing.epistemic:
        where.append("f.epistemic = %(epistemic)s")
        params["epistemic"] = narrowing.epistemic
    if narrowing.text:
        where.append("(strpos(translate(coalesce(s.name, ''), %(upper)s, %(lower)s), translate(%(text)s, %(upper)s, %(lower)s)) > 0"
                     " OR strpos(translate(coalesce(CASE WHEN f.object_kind = 'entity' THEN"
                     " o.name ELSE f.object_lit END, ''), %(upper)s, %(lower)s), translate(%(text)s, %(upper)s, %(lower)s)) > 0)")
        params.update(text=narrowing.text, upper=ASCII_UPPER, lower=ASCII_UPPER.lower())
    return "".join(f" AND {w}" for w in where)


def context_sections(scopes: Sequence[str], now: int, half_life_days: float,
                     open_ids: Sequence[str], windows: Mapping[str, tuple[int, int]],
                     narrowing: Narrowing) -> tuple[str, dict[str, Any]]:
    """Rows (section, id, reason, count, wanted): one per section with its count (wanted
    false), then each window's ids in order (wanted true)."""
    params: dict[str, Any] = {
        "scopes": sorted(set(scopes)), "now": now, "floor": CONFIDENCE_FLOOR,
        "window": compiled.window_start(now), "period": float(DAY_MS * half_life_days),
        "open": sorted(set(open_ids)),
    }
    placed = (f"SELECT f.id, {_SECTION} AS section, {_REASON} AS reason, f.t_valid, f.t_invalid,"
              f" {_EFFECTIVE} AS effective, coalesce(s.name, '') AS name"
              " FROM facts f LEFT JOIN entities s ON s.id = f.subject_id"
              " LEFT JOIN entities o ON o.id = f.object_ref_id"
              " WHERE f.scope = ANY(%(scopes)s::text[])" + _narrowing(narrowing, params))
    parts = ["SELECT section, NULL::text AS id, NULL::text AS reason, count(*) AS total,"
             " false AS wanted, 0::bigint AS n FROM placed WHERE section IS NOT NULL"
             " GROUP BY section"]
    for k, (section, (offset, limit)) in enumerate(sorted(windows.items())):
        if limit <= 0:
            continue
        params[f"s{k}"] = section
        order = _ORDER.get(section, _RANKED_ORDER)
        parts.append(f"(SELECT section, id, CASE WHEN section = 'left_out' THEN reason END,"
                     f" NULL::bigint, true, row_number() OVER (ORDER BY {order})"
                     f" FROM placed WHERE section = %(s{k})s ORDER BY {order}"
                     f" LIMIT {int(limit)} OFFSET {int(offset)})")
    sql = (f"WITH placed AS MATERIALIZED ({placed}) SELECT section, id, reason, total, wanted"
           " FROM (" + " UNION ALL ".join(parts) + ") AS rows ORDER BY wanted, section, n")
    return sql, params


_USEFUL_ORDER = ("(f.epistemic <> 'commitment'), -(" + _EFFECTIVE.replace("%(now)s", "%(at)s")
                 + "), -coalesce(nullif(f.last_reinforced_at, 0), nullif(f.recorded_at, 0), 0),"
                 " f.id")
_IN_SCOPES = "f.scope = ANY(%(scopes)s::text[])"
_BELIEVED = (f"{_IN_SCOPES} AND f.t_valid <= %(at)s AND (f.t_invalid IS NULL OR"
             f" f.t_invalid > %(at)s) AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}'"
             " AND f.dormant_since IS NULL")


def valid_times(scopes: Sequence[str]) -> tuple[str, str, dict[str, Any]]:
    params = {"scopes": sorted(set(scopes))}
    return (f"SELECT f.t_valid FROM facts f WHERE {_IN_SCOPES} ORDER BY 1",
            f"SELECT f.t_invalid FROM facts f WHERE {_IN_SCOPES} AND f.t_invalid IS NOT NULL"
            " ORDER BY 1", params)


def believed_at(scopes: Sequence[str], at: int, since: int | None, limit: int,
                half_life_days: float) -> tuple[list[str], dict[str, Any]]:
    params = {"scopes": sorted(set(scopes)), "at": at, "floor": CONFIDENCE_FLOOR,
              "period": float(DAY_MS * half_life_days), "since": since, "limit": int(limit)}
    window = "({col} <= %(at)s AND (%(since)s::bigint IS NULL OR {col} > %(since)s::bigint))"
    return ([f"SELECT count(*) FROM facts f WHERE {_BELIEVED}",
             f"SELECT f.id FROM facts f WHERE {_BELIEVED} ORDER BY {_USEFUL_ORDER}"
             " LIMIT %(limit)s",
             f"SELECT f.id FROM facts f WHERE {_IN_SCOPES} AND "
             + window.format(col="f.t_valid") + " ORDER BY f.t_valid, f.id LIMIT %(limit)s",
             f"SELECT f.id FROM facts f WHERE {_IN_SCOPES} AND "
             + window.format(col="f.t_invalid") + " ORDER BY f.t_valid, f.id LIMIT %(limit)s"],
            params)
