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
from claimgraph.logic.briefing_sections import Narrowing
from claimgraph.logic.confidence import CONFIDENCE_FLOOR
from claimgraph.logic.model import FORGOTTEN, SUPERSESSION_KINDS
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.store.sql_dialect import held_candidates as held_sql
from claimgraph.store.sql_dialect import narrowed, ranked_section, section_case, time_travel
from claimgraph.store.sql_dialect import sql_names as _names
from claimgraph.store.sql_dialect import placement_heads as heads_sql
from claimgraph.store.sql_dialect import stance_inputs as stance_sql

_VALID = ("(f.t_valid <= %(now)s AND (f.t_invalid IS NULL OR f.t_invalid > %(now)s)"
          f" AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}')")
_LEGACY = ("(f.invalidation_kind IS NULL AND"
           " f.invalidation_reason ~ '^(judged )?superseded by \\S+$')")
_CHANGED = (f"(f.t_invalid BETWEEN %(window)s AND %(now)s AND (f.invalidation_kind IN "
            f"{_names(SUPERSESSION_KINDS)} OR {_LEGACY}))")
_OPEN = "f.id = ANY(%(open)s::text[])"
_TOLD = "f.id = ANY(%(told)s::text[])"
_SECTION, _REASON = section_case(_VALID, _CHANGED, _OPEN, ranked_section(), _TOLD)
_EFFECTIVE = ("CASE WHEN f.epistemic = 'commitment' OR f.source_type = 'decision-record'"
              " THEN f.confidence ELSE GREATEST(%(floor)s::double precision, f.confidence *"
              " power(0.5::double precision, GREATEST(0.0::double precision, (%(now)s -"
              " GREATEST(f.recorded_at, coalesce(nullif(f.last_reinforced_at, 0),"
              " f.recorded_at)))::double precision / %(period)s::double precision))) END")
#: Decisions and changes tied on time by what they say (``logic.briefing.decision_key``).
_SAID_ORDER = 'name COLLATE "C", predicate COLLATE "C", said COLLATE "C", id'
_ORDER = {
    "decisions": "t_valid, " + _SAID_ORDER,
    "changed": "t_invalid DESC, " + _SAID_ORDER,
    "left_out": "reason COLLATE \"C\", id",
    "conflicts": "id",
}
#: Ranked facts tied on confidence by what they say too (``logic.briefing.rank_key``).
_RANKED_ORDER = "effective DESC, " + _SAID_ORDER
#: The narrowing's text, case-blind in the subject's name or the object.
_FOLD = "translate({}, %(upper)s, %(lower)s)"
_TEXT_MATCH = ("(strpos(" + _FOLD.format("coalesce(s.name, '')") + ", "
               + _FOLD.format("%(text)s") + ") > 0 OR strpos("
               + _FOLD.format("coalesce(CASE WHEN f.object_kind = 'entity' THEN o.name"
                              " ELSE f.object_lit END, '')")
               + ", " + _FOLD.format("%(text)s") + ") > 0)")
#: ``translate`` with these folds ASCII case only, as SQLite's ``lower`` and the definition do.
ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _narrowing(narrowing: Narrowing, params: dict[str, Any]) -> str:
    if narrowing.text:
        params.update(upper=ASCII_UPPER, lower=ASCII_UPPER.lower())
    return narrowed(narrowing, params, "%({})s", _TEXT_MATCH)


def narrowed_ids(scopes: Sequence[str], narrowing: Narrowing) -> tuple[str, dict[str, Any]]:
    """The ids of the scopes' facts a page's filters keep (``Narrowing.matches``), as
    ``sqlite_sections.narrowed_ids``; the text filter reads the subject's and object's names."""
    params: dict[str, Any] = {"scopes": sorted(set(scopes))}
    where = _narrowing(narrowing, params)
    return ("SELECT f.id FROM facts f LEFT JOIN entities s ON s.id = f.subject_id"
            " LEFT JOIN entities o ON o.id = f.object_ref_id"
            " WHERE f.scope = ANY(%(scopes)s::text[])" + where, params)


def stance_inputs(scopes: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """``sql_dialect.stance_inputs`` over the scopes."""
    return stance_sql("f.scope = ANY(%(scopes)s::text[])"), {"scopes": sorted(set(scopes))}


def placement_heads(scope: str) -> tuple[str, dict[str, Any]]:
    """``sql_dialect.placement_heads`` of one scope."""
    return heads_sql("f.scope = %(scope)s"), {"scope": scope}


def context_sections(scopes: Sequence[str], now: int, half_life_days: float,
                     open_ids: Sequence[str], windows: Mapping[str, tuple[int, int]],
                     narrowing: Narrowing, told: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Rows (section, id, reason, count, wanted): one per section with its count (wanted
    false), then each window's ids in order (wanted true). ``told``: the stances told as a
    state (``sql_dialect.told_as_state_ids``)."""
    params: dict[str, Any] = {
        "scopes": sorted(set(scopes)), "now": now, "floor": CONFIDENCE_FLOOR,
        "told": sorted(set(told)),
        "window": compiled.window_start(now), "period": float(DAY_MS * half_life_days),
        "open": sorted(set(open_ids)),
    }
    placed = (f"SELECT f.id, {_SECTION} AS section, {_REASON} AS reason, f.t_valid, f.t_invalid,"
              f" {_EFFECTIVE} AS effective, coalesce(s.name, '') AS name,"
              " coalesce(f.predicate, '') AS predicate, coalesce(CASE WHEN f.object_kind ="
              " 'entity' THEN o.name ELSE f.object_lit END, '') AS said"
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


#: ``sql_dialect.time_travel``: the viewer's time travel without reading the scopes' facts.
valid_times, believed_at = time_travel(_IN_SCOPES, _BELIEVED, _USEFUL_ORDER, "%({})s",
                                       "%(since)s::bigint", list, "greatest({}, {})")


def held_candidates(scopes: Sequence[str] | None,
                    at: int | None = None) -> tuple[str, dict[str, Any]]:
    """``Store.held_candidate_ids``: ``sql_dialect.held_candidates`` with ``translate`` (ASCII
    case only, as the definition folds) and ``strpos``; with ``at``, the facts not ended then."""
    params: dict[str, Any] = {"upper": ASCII_UPPER, "lower": ASCII_UPPER.lower()}
    in_scopes = None
    if scopes is not None:
        params["scopes"] = sorted(set(scopes))
        in_scopes = "f.scope = ANY(%(scopes)s::text[])"
    live = "f.t_invalid IS NULL"
    if at is not None:
        params["at"] = at
        live = "(f.t_invalid IS NULL OR f.t_invalid > %(at)s)"
    return held_sql(_FOLD, "strpos({1}, {0}) > 0", in_scopes, live), params
