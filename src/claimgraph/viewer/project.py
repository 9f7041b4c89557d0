"""A project's page: its memory grouped as the next session will be told it, and the block itself.

The grouping and ranking are the SessionStart context's own (``core.context.gather_from`` and
``logic.context.groups``), over the project's scope and the user scope, so a section here holds
what the same section of the injected block draws from, in the same order, uncut. What the
context leaves out (dormant facts, suspect claims, plain facts read from code) is listed apart,
with the reason. Filters narrow every section; the block is always the one injected.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from claimgraph.core.context import gather_from, scopes
from claimgraph.logic import context as compiled
from claimgraph.logic.confidence import effective_confidence
from claimgraph.logic.context_lines import change_line, component_line, statement
from claimgraph.logic.model import EPISTEMIC_STRENGTH
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.viewer.source import BadRequest, NotFound, Source

SHOWN_PER_SECTION = 60
LEFT_OUT_KEY = "left_out"
LEFT_OUT_TITLE = "Not told to the next session"


def filters(params: Mapping[str, str]) -> dict[str, str]:
    """The page's filters (predicate, class, text), checked: an unknown class is a 400."""
    chosen = {key: (params.get(key) or "").strip() for key in ("predicate", "class", "text")}
    if chosen["class"] and chosen["class"] not in EPISTEMIC_STRENGTH:
        raise BadRequest(f"class {chosen['class']!r} is not one of "
                         + ", ".join(EPISTEMIC_STRENGTH))
    return chosen


def matches(fact: Mapping[str, Any], chosen: Mapping[str, str]) -> bool:
    return ((not chosen["predicate"] or fact.get("predicate") == chosen["predicate"])
            and (not chosen["class"] or fact.get("epistemic") == chosen["class"])
            and (not chosen["text"] or chosen["text"].lower() in statement(fact).lower()))


def project(src: Source, project_id: str, params: Mapping[str, str]) -> dict[str, Any]:
    chosen = filters(params)
    with src.shell() as sh:
        now = sh.now()
        facts = sh.store.select_facts(scopes=scopes(project_id))
        if not any(f["scope"] == project_id for f in facts):
            raise NotFound(f"no project {project_id!r} in this store")
        found = gather_from(sh.store, facts, now)
        suspect = set(sh.store.suspect_fact_ids())
    predicates = sorted({f["predicate"] for f in facts})
    if chosen["predicate"] and chosen["predicate"] not in predicates:
        raise BadRequest(f"predicate {chosen['predicate'][:80]!r} is used by no fact here")
    everything = compiled.groups(found["facts"], found["conflicts"], now, src.half_life_days,
                                 found["successors"])
    block = compiled.render(compiled.lines(everything), now, project_id, src.budget_chars)
    shown = everything if not any(chosen.values()) else _narrowed(found, chosen, now, src)
    sections = [_section(key, title, shown[key], now, src.half_life_days)
                for key, title in compiled.SECTIONS]
    left = _left_out(facts, _told_ids(everything), suspect, now, chosen)
    sections.append(_section(LEFT_OUT_KEY, LEFT_OUT_TITLE, left, now, src.half_life_days))
    return {"project": project_id, "now": now, "filters": chosen, "sections": sections,
            "block": block, "predicates": predicates,
            "classes": list(EPISTEMIC_STRENGTH), "total": len(facts),
            "budget": src.budget_chars}


def _narrowed(found: Mapping[str, Any], chosen: Mapping[str, str], now: int,
              src: Source) -> dict[str, list[Any]]:
    kept = [f for f in found["facts"] if matches(f, chosen)]
    pairs = [p for p in found["conflicts"] if any(matches(f, chosen) for f in p.values())]
    return compiled.groups(kept, pairs, now, src.half_life_days, found["successors"])


def _told_ids(found: Mapping[str, list[Any]]) -> set[str]:
    """Ids of every fact in the groups, by each group's shape (see ``logic.context.groups``)."""
    told = {f["id"] for f in found["decisions"]}
    told |= {f["id"] for component in found["conflicts"] for f in component}
    told |= {f["id"] for pair in found["changed"] for f in pair if f is not None}
    for key in ("lessons", "current", "structure"):
        told |= {f["id"] for f, _ in found[key]}
    return told


def _left_out(facts: Iterable[Mapping[str, Any]], told: set[str], suspect: set[str], now: int,
              chosen: Mapping[str, str]) -> list[tuple[Mapping[str, Any], str]]:
    """Valid facts the context does not tell, with why: dormant, suspect, or read from code."""
    left = []
    for fact in facts:
        if fact["id"] in told or not fact_valid_at(fact, now) or not matches(fact, chosen):
            continue
        why = ("dormant" if fact.get("dormant_since") is not None else
               "suspect" if fact["id"] in suspect else
               "read from code" if fact.get("source_type") == "code" else "left out")
        left.append((fact, why))
    left.sort(key=lambda item: (item[1], item[0]["id"]))
    return left


def _section(key: str, title: str, items: list[Any], now: int,
             half_life_days: float) -> dict[str, Any]:
    """A section's rows (at most ``SHOWN_PER_SECTION``) and how many it holds."""
    rows = [_row(key, item, now, half_life_days) for item in items[:SHOWN_PER_SECTION]]
    return {"key": key, "title": title, "rows": rows, "total": len(items)}


def _row(key: str, item: Any, now: int, half_life_days: float) -> dict[str, Any]:
    """One row: its facts, the line the context would print, a confidence for the bar."""
    if key == "conflicts":
        return {"facts": list(item), "line": component_line(item), "note": None,
                "confidence": max(effective_confidence(f, now, half_life_days) for f in item)}
    if key == "changed":
        old, new = item
        return {"facts": [old] + ([new] if new else []), "line": change_line(old, new),
                "note": None, "confidence": effective_confidence(old, now, half_life_days)}
    fact, extra = (item, None) if isinstance(item, dict) else item
    confidence = extra if isinstance(extra, float) else effective_confidence(fact, now,
                                                                             half_life_days)
    return {"facts": [fact], "line": statement(fact), "confidence": confidence,
            "note": extra if isinstance(extra, str) else None}
