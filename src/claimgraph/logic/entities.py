"""Entity resolution and duplicate detection (REFERENCE §7).

Pure: the store over-returns candidates (``find_entities``) and these functions decide. A
normalized match is how "auth-service" finds "AuthService"; more than one plausible match is
reported as ambiguous rather than guessed, because a wrong merge of identities is hard to undo.
"""

from __future__ import annotations

from collections import defaultdict

from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.model import DEFAULT_SCOPE
from claimgraph.logic.names import normalize_entity_name

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Hashable, Iterable, Mapping, Sequence

    Entity = Mapping[str, Any]


def pick_entity_match(name: str, candidates: Sequence[Entity],
                      type: str | None = None) -> dict[str, Any] | None:
    """Exact name, then a unique alias holder, then a unique type-compatible normalized match."""
    exact = next((e for e in candidates if e.get("name") == name), None)
    if exact is not None:
        return {"via": "exact", "entity": exact}
    holders = [e for e in candidates if name in (e.get("aliases") or [])]
    if holders:
        return _one_or_ambiguous("alias", holders)
    wanted = normalize_entity_name(name)
    loose = [e for e in candidates if _types_compatible(type, e.get("type"))
             and wanted in {normalize_entity_name(n) for n in _names(e)}]
    return _one_or_ambiguous("normalized", loose) if loose else None


def _names(entity: Entity) -> list[str]:
    """The name first, then the aliases: every spelling the entity answers to."""
    return [entity.get("name") or "", *(entity.get("aliases") or [])]


def _types_compatible(wanted: str | None, held: str | None) -> bool:
    """An untyped side matches anything, so a first mention without a type still resolves."""
    return wanted is None or held is None or wanted == held


def _one_or_ambiguous(via: str, matches: list[Entity]) -> dict[str, Any]:
    """A single match resolves; several are handed back so a human can merge them."""
    if len(matches) == 1:
        return {"via": via, "entity": matches[0]}
    return {"via": "ambiguous", "candidates": matches}


def _object_key(fact: Mapping[str, Any]) -> Any:
    """The object's identity: entity id, or the exact literal string."""
    if fact.get("object_kind") == "entity":
        return (fact.get("object_ref") or {}).get("id")
    return fact.get("object_lit")


def _duplicate_key(fact: Mapping[str, Any]) -> tuple[Hashable, ...]:
    """Facts with equal keys say the same thing with the same standing, differing only in when."""
    return ((fact.get("subject") or {}).get("id"), fact.get("predicate"), fact.get("object_kind"),
            _object_key(fact), fact.get("scope"), fact.get("epistemic"))


def _age_order(fact: Mapping[str, Any]) -> tuple[Any, str]:
    """Earliest recorded first, ties by id, so every run picks the same survivor."""
    return (fact.get("recorded_at") or 0, fact["id"])


def duplicate_groups(facts: Iterable[Mapping[str, Any]], at: int) -> list[list[Mapping[str, Any]]]:
    """Groups (two or more) of facts valid at ``at`` that repeat one claim, each oldest first."""
    groups: dict[tuple[Hashable, ...], list[Mapping[str, Any]]] = defaultdict(list)
    for fact in facts:
        if fact_valid_at(fact, at):
            groups[_duplicate_key(fact)].append(fact)
    found = [sorted(group, key=_age_order) for group in groups.values() if len(group) >= 2]
    return sorted(found, key=lambda group: _age_order(group[0]))


def collapse_plan(facts: Iterable[Mapping[str, Any]], at: int) -> list[dict[str, Any]]:
    """Keep the earliest statement of each repeated claim; it carries the longest history."""
    return [{"keep": group[0]["id"], "invalidate": [f["id"] for f in group[1:]]}
            for group in duplicate_groups(facts, at)]


def entity_duplicate_clusters(entities: Iterable[Entity]) -> list[dict[str, Any]]:
    """Entities in one scope whose names normalize alike: likely one thing spelled two ways."""
    clusters: dict[tuple[str, str], list[Entity]] = defaultdict(list)
    for entity in entities:
        scope = entity.get("scope") or DEFAULT_SCOPE
        clusters[(scope, normalize_entity_name(entity.get("name")))].append(entity)
    return [{"scope": scope, "normalized": norm, "entities": sorted(members, key=lambda e: e["id"])}
            for (scope, norm), members in sorted(clusters.items()) if len(members) >= 2]
