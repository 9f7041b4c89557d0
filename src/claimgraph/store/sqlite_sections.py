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
from claimgraph.logic.briefing_sections import Narrowing
from claimgraph.logic.confidence import CONFIDENCE_FLOOR
from claimgraph.logic.model import FORGOTTEN, SUPERSESSION_KINDS, SUSPECT_VERDICTS
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.store.sql_dialect import held_candidates as held_sql
from claimgraph.store.sql_dialect import (
    narrowed, ranked_section, section_case, sql_names, time_travel)
from claimgraph.store.sql_dialect import placement_heads as heads_sql
from claimgraph.store.sql_dialect import stance_inputs as stance_sql


#: A window this long is a whole section (``context_sections``).
WHOLE = 10 ** 9

_names = sql_names  # a fixed SQL list of our own constant strings


_VALID = ("(f.t_valid <= :now AND (f.t_invalid IS NULL OR f.t_invalid > :now)"
          f" AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}')")
_SUSPECT = ("f.id IN (SELECT fact_id FROM audit_verdicts WHERE verdict IN "
            f"{_names(SUSPECT_VERDICTS)})")
#: ``logic.briefing.LEGACY_SUPERSEDED``: "superseded by ID" or "judged superseded by ID".
_LEGACY = ("(f.invalidation_kind IS NULL AND (f.invalidation_reason GLOB 'superseded by ?*' OR"
           " f.invalidation_reason GLOB 'judged superseded by ?*') AND"
           " NOT substr(f.invalidation_reason, instr(f.invalidation_reason, ' by ') + 4)"
           " GLOB '*[ \t\n\r\f\v]*')")
_CHANGED = (f"(f.t_invalid BETWEEN :window AND :now AND (f.invalidation_kind IN "
            f"{_names(SUPERSESSION_KINDS)} OR {_LEGACY}))")
_LINKED = "f.id IN (SELECT fact_id FROM conflict_links)"
_OPEN = "f.id IN (SELECT value FROM json_each(:open))"
_TOLD = "f.id IN (SELECT value FROM json_each(:told))"
_SECTION, _REASON = section_case(_VALID, _CHANGED, _OPEN, ranked_section(), _TOLD)
#: ``logic.confidence.effective_confidence``, term by term (over the placed rows' columns).
_EFFECTIVE = ("CASE WHEN p.recorded_at IS NULL OR p.epistemic = 'commitment'"
              " OR p.source = 'decision-record' THEN p.confidence"
              " ELSE max(:floor, p.confidence * pow(0.5, max(0.0, (:now - max(p.recorded_at,"
              " coalesce(nullif(p.reinforced, 0), p.recorded_at))) / :period))) END")


def _name(subject_id: str) -> str:
    return f"coalesce((SELECT e.name FROM entities e WHERE e.id = {subject_id}), '')"


_NAME = _name("f.subject_id")
#: ``logic.briefing_lines.said_key`` of a decision or a change (NULL in other sections): what
#: it says orders the ties of its time, as ``logic.briefing.decision_key`` does.
_TIED = "CASE WHEN p.section IN ('decisions', 'changed') THEN {} END AS {}"
_SAID = ", ".join((
    _TIED.format(_name("p.subject_id"), "k2"), _TIED.format("coalesce(p.predicate, '')", "k3"),
    _TIED.format("coalesce(CASE WHEN p.object_kind = 'entity' THEN (SELECT o.name FROM"
                 " entities o WHERE o.id = p.object_ref_id) ELSE p.object_lit END, '')", "k4")))
_OBJECT = ("coalesce(CASE WHEN f.object_kind = 'entity' THEN (SELECT o.name FROM entities o"
           " WHERE o.id = f.object_ref_id) ELSE f.object_lit END, '')")
#: What a ranked fact says after its subject's name (``logic.briefing.rank_key``): the
#: predicate, then the object looked up by the fact's id, so the placed rows never carry
#: their literals and only the rows tied at the page's last confidence read one.
_PREDICATE_RANKED = "coalesce(predicate, '')"
_OBJECT_RANKED = ("coalesce((SELECT CASE WHEN x.object_kind = 'entity'"
                  " THEN (SELECT o.name FROM entities o WHERE o.id = x.object_ref_id)"
                  " ELSE x.object_lit END FROM facts x WHERE x.id = keyed.id), '')")
_SAID_RANKED = f"{_PREDICATE_RANKED}, {_OBJECT_RANKED}"


#: The entities whose name holds the filter's text: one pass over the entities, looked up by
#: id for each fact (a name read per fact, twice, was most of a text filter's cost).
_NAMED = "(SELECT e.id FROM entities e WHERE instr(lower(e.name), lower(:text)) > 0)"
#: ``Narrowing.matches``'s text test: the subject's name or the object (an entity's name, a
#: literal's text) holds the text, case-blind in ASCII as ``lower`` is. A subject or object
#: entity that is missing has no name, as ``coalesce(..., '')`` above says.
_TEXT_MATCH = (f"(f.subject_id IN {_NAMED} OR CASE WHEN f.object_kind = 'entity'"
               f" THEN f.object_ref_id IN {_NAMED}"
               " ELSE instr(lower(coalesce(f.object_lit, '')), lower(:text)) > 0 END)")


def _narrowing(narrowing: Narrowing, params: dict[str, Any]) -> str:
    return narrowed(narrowing, params, ":{}", _TEXT_MATCH)


def context_sections(scopes: Sequence[str], now: int, half_life_days: float,
                     open_ids: Sequence[str], windows: Mapping[str, tuple[int, int]],
                     narrowing: Narrowing, told: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Rows (section, id, reason, count): the windows' ids in order, and one row per section
    with id NULL carrying its count (so an empty window still reports its section). ``told``:
    the stances told as a state (``sql_dialect.told_as_state_ids``)."""
    params: dict[str, Any] = {
        "scopes": json.dumps(sorted(set(scopes))), "now": now, "floor": CONFIDENCE_FLOOR,
        "told": json.dumps(sorted(set(told))),
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
              " f.subject_id AS subject_id, f.predicate AS predicate,"
              " f.object_kind AS object_kind, f.object_lit AS object_lit,"
              " f.object_ref_id AS object_ref_id"
              " FROM facts f WHERE f.scope IN (SELECT value FROM json_each(:scopes))"
              + _narrowing(narrowing, params))
    keyed = ("SELECT p.id, p.section, CASE WHEN p.section = 'left_out' THEN p.reason END AS reason,"
             " CASE p.section WHEN 'decisions' THEN p.t_valid WHEN 'changed' THEN -p.t_invalid"
             " WHEN 'left_out' THEN p.reason WHEN 'conflicts' THEN 0 ELSE -("
             + _EFFECTIVE + ") END AS k1, p.subject_id, p.predicate, " + _SAID +
             " FROM placed p WHERE p.section IS NOT NULL")
    parts = ["SELECT section, NULL, NULL, count(*), 0 FROM keyed GROUP BY section"]
    if windows and all(o == 0 and n >= WHOLE for o, n in windows.values()):
        # Every id of the sections (the viewer's placement): one sort, not one per section.
        params["wanted"] = json.dumps(sorted(windows))
        ranked = _names(compiled.RANKED_CAPS)
        parts.append("SELECT * FROM (SELECT section, id, reason, NULL, 1 FROM keyed WHERE"
                     " section IN (SELECT value FROM json_each(:wanted)) ORDER BY section, k1,"
                     f" k2, k3, k4, CASE WHEN section IN {ranked} THEN {_name('subject_id')} END,"
                     f" {_when_ranked(ranked)}, id)")
        return (f"WITH keyed AS MATERIALIZED ({keyed}), placed AS ({placed}) "
                + " UNION ALL ".join(parts)), params
    for n, (section, (offset, limit)) in enumerate(sorted(windows.items())):
        if limit <= 0:
            continue
        params[f"s{n}"], params[f"e{n}"] = section, int(offset) + int(limit)
        if section in ("lessons", "current", "structure"):
            # What the fact says breaks ties: looked up only for rows at least as strong as
            # the last wanted.
            bar = (f"(SELECT k1 FROM keyed WHERE section = :s{n} ORDER BY k1"
                   f" LIMIT 1 OFFSET :e{n} - 1)")
            order = f"k1, {_name('subject_id')}, {_SAID_RANKED}, id"
            where = f"section = :s{n} AND (k1 <= {bar} OR {bar} IS NULL)"
        else:
            order, where = "k1, k2, k3, k4, id", f"section = :s{n}"
        parts.append(f"SELECT * FROM (SELECT section, id, reason, NULL, 1 FROM keyed WHERE {where}"
                     f" ORDER BY {order} LIMIT {int(limit)} OFFSET {int(offset)})")
    # Rows: (section, NULL, NULL, count, 0) per section, then each window's ids in order.
    sql = f"WITH keyed AS MATERIALIZED ({keyed}), placed AS ({placed}) " + " UNION ALL ".join(parts)
    return sql, params


def _when_ranked(ranked: str) -> str:
    """``_SAID_RANKED``'s two terms for the ranked sections' rows alone (NULL in others)."""
    return (f"CASE WHEN section IN {ranked} THEN {_PREDICATE_RANKED} END,"
            f" CASE WHEN section IN {ranked} THEN {_OBJECT_RANKED} END")


def stance_inputs(scopes: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """``sql_dialect.stance_inputs`` over the scopes."""
    return stance_sql(_IN_SCOPES), {"scopes": json.dumps(sorted(set(scopes)))}


def placement_heads(scope: str) -> tuple[str, dict[str, Any]]:
    """``sql_dialect.placement_heads`` of one scope (its index's equality lookup)."""
    return heads_sql("f.scope = :scope"), {"scope": scope}


def narrowed_ids(scopes: Sequence[str], narrowing: Narrowing) -> tuple[str, dict[str, Any]]:
    """The ids of the scopes' facts a page's filters keep (``Narrowing.matches``): the viewer
    cuts a project's placement down to them instead of placing the facts again."""
    params: dict[str, Any] = {"scopes": json.dumps(sorted(set(scopes)))}
    where = _narrowing(narrowing, params)
    return ("SELECT f.id FROM facts f WHERE f.scope IN (SELECT value FROM json_each(:scopes))"
            + where, params)


#: ``logic.retrieval.most_useful_first`` at ``:at``: commitments first, then effective
#: confidence then, fresher first, ids last.
_USEFUL_ORDER = ("(f.epistemic <> 'commitment'), -(" + _EFFECTIVE.replace("p.source",
                                                                          "f.source_type")
                 .replace("p.reinforced", "f.last_reinforced_at").replace("p.", "f.")
                 .replace(":now", ":at") + "), -coalesce(nullif(f.last_reinforced_at, 0),"
                 " nullif(f.recorded_at, 0), 0), f.id")
_IN_SCOPES = "f.scope IN (SELECT value FROM json_each(:scopes))"
#: Believed at ``:at`` in the scopes. The unary ``+`` keeps the planner off the validity
#: index (``facts_valid_recorded``): through it, "t_invalid IS NULL OR t_invalid > :at" is
#: every live fact of the whole store (an OR of two index ranges, 100,000 rows at 100,000
#: facts, 0.2 s a statement), where the scope index reads only the project's and the user's.
_BELIEVED = (f"{_IN_SCOPES} AND f.t_valid <= :at AND (+f.t_invalid IS NULL OR"
             " +f.t_invalid > :at)"
             f" AND coalesce(f.invalidation_kind, '') <> '{FORGOTTEN}'"
             " AND f.dormant_since IS NULL")


#: ``sql_dialect.time_travel``: the viewer's time travel without reading the scopes' facts.
def json_list(values: Sequence[str]) -> str:
    return json.dumps(list(values))


valid_times, believed_at = time_travel(_IN_SCOPES, _BELIEVED, _USEFUL_ORDER, ":{}",
                                       ":since", json_list, "max({}, {})")


def held_candidates(scopes: Sequence[str] | None,
                    at: int | None = None) -> tuple[str, dict[str, Any]]:
    """``Store.held_candidate_ids``: ``sql_dialect.held_candidates`` with SQLite's ``lower``
    (ASCII only, without the ICU extension) and ``instr``. With ``at``, the facts not ended
    then; with scopes, that OR is kept off the validity index (``_BELIEVED`` says why)."""
    params: dict[str, Any] = {}
    in_scopes = None
    if scopes is not None:
        params["scopes"] = json.dumps(sorted(set(scopes)))
        in_scopes = _IN_SCOPES
    live = "f.t_invalid IS NULL"
    if at is not None:
        params["at"] = at
        off = "+" if in_scopes else ""
        live = f"({off}f.t_invalid IS NULL OR {off}f.t_invalid > :at)"
    return held_sql("lower({})", "instr({1}, {0}) > 0", in_scopes, live), params
