"""How names and objects compare: exact for reinforcement, loose for antagonists
(docs/data-model.md).

Reinforcement needs the SAME object (entity id, or the exact literal string). Exclusion
antagonists and the conflict sweep compare loosely: normalized name-or-literal equality
across the entity/literal divide, so ``prefers KuzuDB`` meets ``decided-against "kuzu-db"``.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

_SEPARATORS = re.compile(r"[\s\-_./]+")


@lru_cache(maxsize=65536)
def normalize_entity_name(name: str | None) -> str:
    """Lowercase and drop separators: "Auth Service", "auth-service", "auth_service" ->
    "authservice"."""
    return _SEPARATORS.sub("", (name or "").lower())


def object_name(fact: Mapping[str, Any]) -> str | None:
    """The object as a person reads it: the entity's name, or the literal."""
    if fact.get("object_kind") == "entity":
        return (fact.get("object_ref") or {}).get("name")
    return fact.get("object_lit")


def same_object(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Exact identity of objects: entity ids equal, or literal strings equal (case-sensitive).
    Called for every standing fact a new one meets, so each field is read once."""
    kind = a.get("object_kind")
    if kind != b.get("object_kind"):
        return False
    if kind == "entity":
        left, right = a.get("object_ref"), b.get("object_ref")
        return (left.get("id") if left else None) == (right.get("id") if right else None)
    return a.get("object_lit") == b.get("object_lit")


def same_object_loosely(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Normalized name-or-literal equality, across the entity/literal divide."""
    left, right = object_name(a), object_name(b)
    if left is None or right is None:
        return False
    return normalize_entity_name(left) == normalize_entity_name(right)
