"""Applying one logged effect to a raw (unlogged) store (docs/sync.md, "Reconcile").

Each effect becomes the same store call its writer made, after translating entity ids:
entities are remapped BY NAME (an ``ensure-entity`` whose name already resolves here maps
the foreign id to the local entity, as ``core.entities.ensure_entity`` would), and an
entity folded away by a merge (``repoint-facts``) redirects to where its facts went. Fact
and episode ids are global and kept. A fact a purge buried is never brought back
(``core.tombstones.is_buried``).

The answer is one of ``applied``, ``duplicate`` (already there), ``deferred`` (a
prerequisite is missing: an unmapped entity, an unknown fact, link targets not all present —
links are all-or-nothing), ``unknown`` (a verb this claimgraph does not know) or ``error``.
Every handler checks before it writes and then makes ONE store call (each is atomic), so
an effect that fails leaves nothing half-applied in the reconcile's transaction.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from claimgraph.core import tombstones
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import entities as E
from claimgraph.logic import oplog as L
from claimgraph.logic.model import DEFAULT_SCOPE
from claimgraph.store.base import Store

Record = dict[str, Any]
APPLIED, DUPLICATE, DEFERRED = "applied", "duplicate", "deferred"
UNKNOWN, ERROR = "unknown", "error"
SETTLED = (APPLIED, DUPLICATE)


class Deferred(Exception):
    """A prerequisite of the effect is not in this store (yet)."""


class Applier:
    """Applies effects to ``store``, keeping the foreign-id -> local-id ``entity_map`` (remaps
    by name) and ``merged`` (an entity folded into another by a merge -> that other)."""

    def __init__(self, store: Store, entity_map: dict[str, str], merged: dict[str, str]) -> None:
        self.store = store
        self.entity_map = entity_map
        self.merged = merged
        self.touched_subjects: set[str] = set()

    def apply(self, line: Mapping[str, Any]) -> str:
        verb = line.get("t")
        handler = _HANDLERS.get(verb) if isinstance(verb, str) else None
        if handler is None:
            return UNKNOWN
        try:
            return handler(self, line)
        except Deferred:
            return DEFERRED
        except (ClaimgraphError, KeyError, TypeError, ValueError):
            return ERROR

    # --- translation ------------------------------------------------------------------------
    def entity(self, entity_id: Any) -> str:
        """The local entity an id stands for here: itself when present, else where the map
        sends it (a remap by name, or a merge). Deferred when it leads nowhere."""
        current, seen = entity_id, set()
        while isinstance(current, str) and current not in seen:
            if self.store.get_entity_by_id(current) is not None:
                return current
            seen.add(current)
            current = self.entity_map.get(current) or self.merged.get(current)
        raise Deferred(entity_id)

    def remapped(self, entity_id: str) -> str:
        """The local twin of an entity (itself, or where a remap by name sent it); never
        follows a merge: deleting a merged-away entity must not delete where it went."""
        if self.store.get_entity_by_id(entity_id) is not None:
            return entity_id
        return self.entity_map.get(entity_id, entity_id)

    def fact(self, fact_id: Any) -> Record:
        found = self.store.get_fact(fact_id) if isinstance(fact_id, str) else None
        if found is None:
            raise Deferred(fact_id)
        return found


# --- entities --------------------------------------------------------------------------------
def _ensure_entity(a: Applier, line: Mapping[str, Any]) -> str:
    entity = dict(line["entity"])
    if a.store.get_entity_by_id(entity["id"]) is not None or entity["id"] in a.entity_map:
        return DUPLICATE
    scope = entity.get("scope") or DEFAULT_SCOPE
    match = E.pick_entity_match(entity["name"], a.store.find_entities(entity["name"], scope),
                                entity.get("type"))
    if match is None or match["via"] == "ambiguous":
        a.store.insert_entity(entity)
        return APPLIED
    local = match["entity"]
    a.entity_map[entity["id"]] = local["id"]
    heal_alias = [entity["name"]] if match["via"] == "normalized" else []
    heal_type = entity.get("type") if local.get("type") is None else None
    if heal_alias or heal_type:
        a.store.update_entity(local["id"], type=heal_type, add_aliases=heal_alias)
    return APPLIED


def _update_entity(a: Applier, line: Mapping[str, Any]) -> str:
    updates = line["updates"]
    a.store.update_entity(a.entity(line["id"]), name=updates.get("name"),
                          type=updates.get("type"),
                          add_aliases=list(updates.get("add_aliases") or ()),
                          remove_aliases=list(updates.get("remove_aliases") or ()))
    return APPLIED


def _repoint_facts(a: Applier, line: Mapping[str, Any]) -> str:
    target = a.entity(line["to"])
    try:
        source = a.entity(line["from"])
    except Deferred:
        source = None
    if line["from"] != target:
        a.merged[line["from"]] = target
    if source is not None and source != target:
        a.merged[source] = target
        a.store.repoint_facts(source, target)
    return APPLIED


def _delete_entity(a: Applier, line: Mapping[str, Any]) -> str:
    local = a.remapped(line["id"])
    if a.store.get_entity_by_id(local) is None:
        return DUPLICATE
    if a.store.get_facts(local, "both"):
        # Its writer deleted it once a merge had moved its facts away; facts still on it here
        # mean this replica already holds it and the merge target as ONE entity.
        return DUPLICATE
    a.store.delete_entity(local)
    return APPLIED


# --- facts -----------------------------------------------------------------------------------
def _insert_fact(a: Applier, line: Mapping[str, Any]) -> str:
    fact = dict(line["fact"])
    if a.store.get_fact(fact["id"]) is not None:
        return DUPLICATE
    fact["subject"] = a.entity(fact["subject"])
    if fact.get("object_ref") is not None:
        fact["object_ref"] = a.entity(fact["object_ref"])
    hydrated = {**fact, "subject": a.store.get_entity_by_id(fact["subject"]),
                "object_ref": (a.store.get_entity_by_id(fact["object_ref"])
                               if fact.get("object_ref") else None)}
    if tombstones.is_buried(a.store, hydrated):
        return DUPLICATE  # what a purge took stays taken: settled, never applied
    a.store.insert_facts([fact])
    a.touched_subjects.add(fact["subject"])
    return APPLIED


def _invalidate(a: Applier, line: Mapping[str, Any]) -> str:
    a.fact(line["fact-id"])
    a.store.invalidate(line["fact-id"], int(line["at"]), kind=line.get("kind"),
                       reason=line.get("reason"), successor=line.get("successor"))
    return APPLIED


def _links(edit: str) -> Callable[[Applier, Mapping[str, Any]], str]:
    def handler(a: Applier, line: Mapping[str, Any]) -> str:
        a.fact(line["fact-id"])
        others = list(line.get("ids") or ())
        if edit == "link":
            if len(a.store.get_facts_by_ids(others)) != len(set(others)):
                raise Deferred(line["fact-id"])  # all-or-nothing
            a.store.link_conflicts(line["fact-id"], others)
        else:
            a.store.unlink_conflicts(line["fact-id"], others)
        return APPLIED
    return handler


def _reinforce(a: Applier, line: Mapping[str, Any]) -> str:
    a.fact(line["fact-id"])
    a.store.reinforce(line["fact-id"], int(line["at"]), float(line["confidence"]),
                      line.get("source-type"))
    return APPLIED


def _set_dormant(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.set_dormant(list(line["ids"]), int(line["at"]))
    return APPLIED


def _revive(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.revive(list(line["ids"]))
    return APPLIED


def _repoint_predicate(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.repoint_predicate(line["from"], line["to"])
    return APPLIED


# --- episodes, predicates, marks, purges -----------------------------------------------------
def _open_episode(a: Applier, line: Mapping[str, Any]) -> str:
    episode = dict(line["episode"])
    if a.store.get_episode(episode["id"]) is not None:
        return DUPLICATE
    if episode.get("ref") is not None and a.store.get_episode_by_ref(episode["ref"]):
        return DUPLICATE  # the same segment, captured twice (two restores of one dump)
    a.store.open_episode(episode)
    return APPLIED


def _close_episode(a: Applier, line: Mapping[str, Any]) -> str:
    if a.store.get_episode(line["id"]) is None:
        raise Deferred(line["id"])
    a.store.close_episode(line["id"], line.get("summary"), int(line["at"]))
    return APPLIED


def _register_predicate(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.register_predicate({k: v for k, v in line["predicate"].items() if k != "record"})
    return APPLIED


def _set_mark(a: Applier, line: Mapping[str, Any]) -> str:
    if not L.is_synced_mark(line["key"]):
        return ERROR
    a.store.set_mark(line["key"], line.get("value"))
    return APPLIED


def _delete_marks(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.delete_marks([k for k in line["keys"] if L.is_synced_mark(k)])
    return APPLIED


def _delete_facts(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.delete_facts(list(line["ids"]))
    return APPLIED


def _delete_episodes(a: Applier, line: Mapping[str, Any]) -> str:
    a.store.delete_episodes(list(line["ids"]))
    return APPLIED


def _update_episode(a: Applier, line: Mapping[str, Any]) -> str:
    if a.store.get_episode(line["id"]) is None:
        return DUPLICATE  # purged here already
    a.store.update_episode(line["id"], summary=line.get("summary"), evidence=line.get("evidence"))
    return APPLIED


def _purged(a: Applier, line: Mapping[str, Any]) -> str:
    return DUPLICATE


_HANDLERS: dict[str, Callable[[Applier, Mapping[str, Any]], str]] = {
    "ensure-entity": _ensure_entity, "update-entity": _update_entity,
    "repoint-facts": _repoint_facts, "delete-entity": _delete_entity,
    "insert-fact": _insert_fact, "invalidate": _invalidate,
    "link-conflicts": _links("link"), "unlink-conflicts": _links("unlink"),
    "reinforce": _reinforce, "set-dormant": _set_dormant, "revive": _revive,
    "repoint-predicate": _repoint_predicate, "open-episode": _open_episode,
    "close-episode": _close_episode, "register-predicate": _register_predicate,
    "set-mark": _set_mark, "delete-marks": _delete_marks, "delete-facts": _delete_facts,
    "delete-episodes": _delete_episodes, "update-episode": _update_episode, "purged": _purged,
    "withheld": _purged,
}
assert set(_HANDLERS) == set(L.VERBS), "every verb the log can hold has a handler"
