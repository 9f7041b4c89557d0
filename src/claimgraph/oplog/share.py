"""What `claimgraph sync` publishes: only the projects shared, never the user scope
(docs/sync.md, "Share only what is shared").

Our log records every write, whatever its project. The copy published to DIR keeps every
seq (a hole would leave replicas waiting), but a line about a project not shared — or the
user scope — becomes a ``withheld`` placeholder: its seq and clock, no content. Which project
a line is about: its fact's or entity's scope; for a line naming facts (an invalidation, a
reinforcement, a purge's deletion), the scope those facts were written in; an episode goes
with the facts that cite it. The vocabulary and purge placeholders always travel.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from claimgraph.logic import oplog as L

Line = dict[str, Any]
#: Always published: the vocabulary, placeholders, and a purge's deletions and tombstones
#: (ids and hashes, never words: a purge must reach every replica that took the data).
ALWAYS = ("register-predicate", "repoint-predicate", "purged", "withheld", "delete-facts",
          "delete-episodes", "set-mark", "delete-marks")


def published(lines: Iterable[Line], scopes: set[str]) -> list[Line]:
    """The lines to publish, in order, those not shared replaced by ``withheld``."""
    lines = list(lines)
    fact_scope, entity_scope, cited = _index(lines)
    shared_episodes = {ep for fid, ep in cited.items() if fact_scope.get(fid) in scopes}
    return [line if _shared(line, scopes, fact_scope, entity_scope, shared_episodes)
            else withheld(line) for line in lines]


def withheld(line: Mapping[str, Any]) -> Line:
    return {"t": "withheld", **{k: line[k] for k in L.ENVELOPE if k != "t"}}


def _index(lines: list[Line]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    facts: dict[str, str] = {}
    entities: dict[str, str] = {}
    cited: dict[str, str] = {}
    for line in lines:
        if line.get("t") == "insert-fact" and isinstance(line.get("fact"), dict):
            fact = line["fact"]
            facts[fact.get("id")] = fact.get("scope")
            if fact.get("episode"):
                cited[fact["id"]] = fact["episode"]
        elif line.get("t") == "ensure-entity" and isinstance(line.get("entity"), dict):
            entities[line["entity"].get("id")] = line["entity"].get("scope")
    return facts, entities, cited


def _shared(line: Line, scopes: set[str], facts: dict[str, str], entities: dict[str, str],
            episodes: set[str]) -> bool:
    verb = line.get("t")
    if verb in ALWAYS:
        return True
    if verb == "insert-fact":
        return line["fact"].get("scope") in scopes
    if verb == "ensure-entity":
        return line["entity"].get("scope") in scopes
    if verb in ("update-entity", "delete-entity"):
        return _in(entities, line.get("id"), scopes)
    if verb == "repoint-facts":
        return _in(entities, line.get("to"), scopes)
    if verb == "open-episode":
        return line["episode"].get("id") in episodes
    if verb in ("close-episode", "update-episode"):
        return line.get("id") in episodes
    named = [line["fact-id"]] if "fact-id" in line else list(line.get("ids") or ())
    return bool(named) and all(_in(facts, f, scopes) for f in named)


def _in(scope_of: Mapping[str, str], name: Any, scopes: set[str]) -> bool:
    """Whether the id ``name`` was written in a shared scope (a non-id never was)."""
    return isinstance(name, str) and name in scope_of and scope_of[name] in scopes


def cited_evidence(lines: Iterable[Line]) -> set[str]:
    """Evidence names the published lines cite (their episodes' and facts' evidence)."""
    names: set[str] = set()
    for line in lines:
        for key in ("episode", "fact"):
            record = line.get(key)
            if isinstance(record, dict):
                names.update(_names(record.get("evidence")))
        if line.get("t") == "update-episode":
            names.update(_names(line.get("evidence")))
    return names


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [n for item in value for n in _names(item.get("segment") if isinstance(item, dict)
                                                       else item)]
    return []
