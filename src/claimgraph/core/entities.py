"""Entity resolution and the human curation verbs: ensure, rename, alias, merge (REFERENCE §7)."""

from __future__ import annotations

from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import entities as E
from claimgraph.logic.model import DEFAULT_SCOPE

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Sequence

    Entity = dict[str, Any]

#: The curator's count of duplicate-name clusters, kept to be re-counted incrementally
#: (``curator.consolidate.report_entity_clusters``). Any write that renames or deletes an
#: entity must drop it (``names_changed``): the next pass then counts every entity again.
ENTITY_CLUSTERS_MARK = "curator:entity-clusters"


def names_changed(sh: Shell) -> None:
    """An entity was renamed or deleted: clusters are counted from scratch next time."""
    sh.store.set_mark(ENTITY_CLUSTERS_MARK, None)


def require_name(name: str | None, what: str = "entity name") -> str:
    if name is None or not str(name).strip():
        raise ClaimgraphError("empty-name", f"the {what} is empty",
                              hint=f"give a non-blank {what}")
    return str(name).strip()


def _match(sh: Shell, name: str, scope: str, type: str | None) -> dict[str, Any] | None:
    """One candidate query, then the logic's precedence (exact name, alias, normalized)."""
    return match_among(name, sh.store.find_entities(name, scope), type)


def match_among(name: str, candidates: Sequence[Entity], type: str | None) -> dict[str, Any] | None:
    """The logic's pick among ``candidates`` (what ``find_entities`` answers for ``name``);
    ambiguity is an error, never a guess."""
    match = E.pick_entity_match(name, candidates, type)
    if match and match["via"] == "ambiguous":
        names = sorted(c["name"] for c in match["candidates"])
        raise ClaimgraphError(
            "ambiguous-entity", f"{name!r} matches several entities: {', '.join(names)}",
            hint="name one exactly, or merge them with `claimgraph entity merge SRC DST`",
            candidates=[{"id": c["id"], "name": c["name"]} for c in match["candidates"]])
    return match


def resolve_entity(sh: Shell, name: str, scope: str | None = None,
                   type: str | None = None) -> Entity | None:
    """The entity a name refers to in scope, or None; ambiguity is an error, never a guess."""
    match = _match(sh, require_name(name), scope or DEFAULT_SCOPE, type)
    return match["entity"] if match else None


def ensure_entity(sh: Shell, name: str, scope: str | None = None, type: str | None = None) -> Entity:
    """Find or create. A normalized hit self-heals by learning the typed name as an alias."""
    return ensure_entity_noting_creation(sh, name, scope, type)[0]


def ensure_entity_noting_creation(sh: Shell, name: str, scope: str | None = None,
                                  type: str | None = None) -> tuple[Entity, bool]:
    """ensure_entity, also saying whether the entity is new (so a batch knows it has no facts)."""
    name, scope = require_name(name), scope or DEFAULT_SCOPE
    match = _match(sh, name, scope, type)
    if match is None:
        entity = {"id": sh.new_id("e"), "name": name, "type": type, "scope": scope, "aliases": []}
        return sh.store.insert_entity(entity), True
    entity = match["entity"]
    heal_alias, heal_type = healing(match, name, type)
    if heal_alias or heal_type:
        entity = sh.store.update_entity(entity["id"], type=heal_type, add_aliases=heal_alias)
    return entity, False


def healing(match: dict[str, Any], name: str, type: str | None) -> tuple[list[str], str | None]:
    """What a match teaches its entity: the typed name as an alias when it only matched
    loosely, the type when the entity had none."""
    heal_alias = [name] if match["via"] == "normalized" else []
    heal_type = type if match["entity"].get("type") is None and type else None
    return heal_alias, heal_type


def require_entity(sh: Shell, name: str, scope: str | Sequence[str] | None = None) -> Entity:
    """Like resolve_entity, but a miss is an error that says how to look.

    ``scope`` may be a list: the first scope that names the entity wins (the CLI reads the
    current project, then the user scope). A name that lives only in another scope is named
    in the error with the flag that reaches it, so a person never guesses where it went.
    """
    scopes = [scope or DEFAULT_SCOPE] if scope is None or isinstance(scope, str) else list(scope)
    for each in scopes:
        entity = resolve_entity(sh, name, each)
        if entity is not None:
            return entity
    raise _unknown_entity(sh, require_name(name), scopes)


def scopes_naming(sh: Shell, name: str) -> list[str]:
    """Every scope in which ``name`` resolves to an entity (ambiguous matches count)."""
    by_scope: dict[str, list[Entity]] = {}
    for candidate in sh.store.find_entities(name, None):
        by_scope.setdefault(candidate.get("scope") or DEFAULT_SCOPE, []).append(candidate)
    return sorted(scope for scope, found in by_scope.items() if E.pick_entity_match(name, found))


def _unknown_entity(sh: Shell, name: str, scopes: Sequence[str]) -> ClaimgraphError:
    where = " or ".join(repr(s) for s in scopes)
    elsewhere = [s for s in scopes_naming(sh, name) if s not in scopes]
    if not elsewhere:
        return ClaimgraphError(
            "unknown-entity", f"no entity named {name!r} in scope {where}",
            hint="list them with `claimgraph entity list` or search with `claimgraph search`",
            scopes=list(scopes))
    listed = ", ".join(repr(s) for s in elsewhere)
    return ClaimgraphError(
        "unknown-entity",
        f"no entity named {name!r} in scope {where}; it exists in scope {listed}",
        hint=f"pass --scope {elsewhere[0]} to read it there", scopes=list(scopes),
        found_in=elsewhere)


def rename(sh: Shell, name: str, new_name: str, scope: str | None = None) -> Entity:
    """The old name becomes an alias, so old references still resolve."""
    entity, new_name = require_entity(sh, name, scope), require_name(new_name, "new name")
    clash = sh.store.get_entity(new_name, entity["scope"])
    if clash is not None and clash["id"] != entity["id"]:
        raise ClaimgraphError("entity-exists", f"another entity is already named {new_name!r}",
                              hint="merge them instead: `claimgraph entity merge`")
    with sh.store.transaction():
        names_changed(sh)
        return sh.store.update_entity(entity["id"], name=new_name, add_aliases=[entity["name"]],
                                      remove_aliases=[new_name])


def add_alias(sh: Shell, name: str, alias: str, scope: str | None = None) -> Entity:
    """Teach an entity another name, refusing one that already names something else."""
    entity, alias = require_entity(sh, name, scope), require_name(alias, "alias")
    for other in sh.store.find_entities(alias, entity["scope"]):
        if other["id"] == entity["id"]:
            continue
        if other["name"] == alias:
            raise ClaimgraphError("entity-exists", f"{alias!r} is the name of another entity",
                                  hint="merge them with `claimgraph entity merge`")
        if alias in other.get("aliases", []):
            raise ClaimgraphError("alias-taken", f"{alias!r} is already an alias of {other['name']!r}",
                                  hint="remove it there first, or merge the two entities")
    with sh.store.transaction():
        return sh.store.update_entity(entity["id"], add_aliases=[alias])


def merge(sh: Shell, src_name: str, dst_name: str, scope: str | None = None) -> dict[str, Any]:
    """Fold src into dst: repoint facts, keep src's names as aliases, collapse duplicates."""
    src, dst = require_entity(sh, src_name, scope), require_entity(sh, dst_name, scope)
    if src["id"] == dst["id"]:
        raise ClaimgraphError("same-entity", "cannot merge an entity into itself",
                              hint="name two different entities")
    with sh.store.transaction():
        moved = sh.store.repoint_facts(src["id"], dst["id"])
        names = [src["name"], *src.get("aliases", [])]
        sh.store.delete_entity(src["id"])
        names_changed(sh)
        merged = sh.store.update_entity(dst["id"], add_aliases=[n for n in names if n != dst["name"]])
        collapsed = collapse_duplicates(sh, dst["id"], kind="merge-duplicate")
    return {"entity": merged, "repointed": moved, "collapsed": collapsed}


def collapse_duplicates(sh: Shell, entity_id: str, kind: str) -> list[str]:
    """Invalidate duplicate facts of an entity, keeping the earliest recorded of each group."""
    now = sh.now()
    invalidated: list[str] = []
    for group in E.collapse_plan(sh.store.get_facts(entity_id, "out"), now):
        for fact_id in group["invalidate"]:
            sh.store.invalidate(fact_id, now, kind=kind, successor=group["keep"],
                                reason=f"duplicate of {group['keep']}")
            invalidated.append(fact_id)
    return invalidated


def list_entities(sh: Shell, type: str | None = None, scope: str | None = None) -> list[Entity]:
    return sh.store.list_entities(type=type, scope=scope)


def duplicate_clusters(sh: Shell) -> list[list[Entity]]:
    """Entities whose names normalize alike: candidates for a human `entity merge`."""
    return E.entity_duplicate_clusters(sh.store.list_entities())
