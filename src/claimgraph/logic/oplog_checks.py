"""What a line from another writer's log must satisfy before it is applied (docs/sync.md,
"Trust").

Another writer's file is input from outside: a teammate, a compromised laptop or anyone who
can write to the shared directory. A line that fails here is quarantined (counted, logged,
never applied, never a crash) and the next line goes on. Two kinds of checks, both pure:

- ``shape_problem``: the line is well formed — sizes, nesting depth, text that is valid
  Unicode, integers a database can hold, times within a window of the wall clock, and the
  fields each verb needs of the types it needs;
- ``authority_problem``: the writer may say it — it cannot write the user scope, redefine a
  core predicate, or invalidate, delete, hide or tombstone facts and episodes another writer
  made (a disagreement is a fact of its own, and surfaces as a conflict). Entities are shared
  by name, so renames and merges of them travel as before.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Protocol

from claimgraph.logic.predicates import CAPTURE_PREDICATES, CORE_PREDICATES

MAX_LINE_BYTES = 1 << 20
MAX_DEPTH = 24
MAX_TEXT = 200_000
INT64 = (-(1 << 63), (1 << 63) - 1)
#: How far ahead of our wall clock another writer's clock may be: a day covers any honest
#: skew; more would drag every later line of ours along (``next_hlc`` floors on it).
MAX_SKEW_MS = 24 * 3600 * 1000
TIME_KEYS = ("at", "t_valid", "t_invalid", "recorded_at", "last_reinforced_at",
             "dormant_since", "opened_at", "closed_at")
USER_SCOPE = "user"
#: The source a synced fact or episode carries here: ``sync:<writer>``.
SYNC_SOURCE = "sync:"
CORE_PREFIX = "core/"
#: The vocabulary every claimgraph ships: a line may register a row of it only as shipped.
SHIPPED = {row["id"]: dict(row) for row in (*CORE_PREDICATES, *CAPTURE_PREDICATES)}

_STR, _LIST, _DICT = "text", "list", "object"
#: Per verb: the fields it needs and their kinds ("ids": a list of texts).
_NEEDS: dict[str, dict[str, str]] = {
    "ensure-entity": {"entity": _DICT}, "update-entity": {"id": _STR, "updates": _DICT},
    "repoint-facts": {"from": _STR, "to": _STR}, "delete-entity": {"id": _STR},
    "insert-fact": {"fact": _DICT}, "invalidate": {"fact-id": _STR, "at": "int"},
    "link-conflicts": {"fact-id": _STR, "ids": "ids"},
    "unlink-conflicts": {"fact-id": _STR, "ids": "ids"},
    "reinforce": {"fact-id": _STR, "at": "int", "confidence": "unit"},
    "set-dormant": {"ids": "ids", "at": "int"}, "revive": {"ids": "ids"},
    "repoint-predicate": {"from": _STR, "to": _STR}, "open-episode": {"episode": _DICT},
    "close-episode": {"id": _STR, "at": "int"}, "register-predicate": {"predicate": _DICT},
    "set-mark": {"key": _STR}, "delete-marks": {"keys": "ids"},
    "delete-facts": {"ids": "ids"}, "delete-episodes": {"ids": "ids"},
    "update-episode": {"id": _STR}, "purged": {}, "withheld": {},
}
_RECORD_NEEDS = {"entity": ("id", "name"), "fact": ("id", "subject", "predicate", "scope"),
                 "episode": ("id",), "predicate": ("id",)}


def shape_problem(line: Mapping[str, Any], now_ms: int) -> str | None:
    """Why the line is malformed, or None."""
    problem = _walk(line)
    if problem:
        return problem
    if line["hlc"] > now_ms + MAX_SKEW_MS:
        return "clock-ahead"
    needs = _NEEDS.get(line.get("t") or "")
    if needs is None:
        return None  # an unknown verb is the applier's "unknown", as before
    for key, kind in needs.items():
        if not _is(line.get(key), kind):
            return f"bad-field:{key}"
    for key, fields in _RECORD_NEEDS.items():
        if key in needs and not all(isinstance(line[key].get(f), str) and line[key][f]
                                    for f in fields):
            return f"bad-field:{key}"
    return _times(line, now_ms)


def _is(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str) and 0 < len(value) <= 4096
    if kind == _DICT:
        return isinstance(value, dict)
    if kind == "ids":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "unit":
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and 0.0 <= value <= 1.0
    return False


def _walk(value: Any) -> str | None:
    """Depth, text, numbers: every value of the line, iteratively (no recursion to exhaust)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return "too-deep"
        if isinstance(item, str):
            if len(item) > MAX_TEXT:
                return "too-large"
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "bad-text"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not INT64[0] <= item <= INT64[1]:
                return "out-of-range"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return "out-of-range"
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, depth + 1))
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return None


def _times(line: Mapping[str, Any], now_ms: int) -> str | None:
    """Every time the line carries (at top level and in its record) is a millisecond count
    from 0 to the skew window past now; ``t_valid`` may lie anywhere in the past."""
    records = [line,
               *(line[k] for k in ("fact", "episode", "entity") if isinstance(line.get(k), dict))]
    for record in records:
        for key in TIME_KEYS:
            value = record.get(key)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                return f"bad-field:{key}"
            low = INT64[0] if key == "t_valid" else 0
            if not low <= value <= now_ms + MAX_SKEW_MS:
                return f"out-of-range:{key}"
    return None


class Authors(Protocol):
    """Who made each fact, episode and entity: a plain dict, or one that also asks a store."""

    def get(self, name: str, default: str, /) -> str: ...


def authority_problem(line: Mapping[str, Any], authors: Authors) -> str | None:
    """Why the line's writer may not say this, or None. ``authors`` maps every fact, episode
    and entity id to the writer that made it (what no log names is ours)."""
    writer, verb = line["writer"], line.get("t")
    if verb == "insert-fact":
        fact = line["fact"]
        if fact.get("scope") == USER_SCOPE:
            return "user-scope"
        episode = fact.get("episode")
        if episode and _other(authors, episode, writer):
            return "not-its-episode"
        return None
    if verb == "register-predicate":
        row = {k: v for k, v in line["predicate"].items() if k != "record"}
        shipped = SHIPPED.get(row["id"])
        if shipped is not None and row != shipped:
            return "core-predicate"  # the shipped vocabulary is the same everywhere
        return None
    if verb == "repoint-predicate":
        moved = (line["from"], line["to"])
        return "core-predicate" if any(n in SHIPPED or n.startswith(CORE_PREFIX)
                                       for n in moved) else None
    if verb == "ensure-entity":
        return "user-scope" if line["entity"].get("scope") == USER_SCOPE else None
    named = _named(line)
    if any(_other(authors, name, writer) for name in named):
        return "not-its-own"
    if verb == "set-mark" and not named:
        return "not-its-own"  # a tombstone must name a fact of its writer
    if verb == "delete-marks":
        return "not-its-own"  # lifting a tombstone would bring purged data back
    return None


def _named(line: Mapping[str, Any]) -> list[str]:
    """The ids of facts, episodes or entities a line changes or removes."""
    verb = line.get("t")
    if verb in ("invalidate",):
        return [line["fact-id"]]
    if verb in ("set-dormant", "delete-facts", "delete-episodes"):
        return list(line["ids"])
    if verb in ("close-episode", "update-episode"):
        return [line["id"]]
    if verb == "set-mark":
        value = line.get("value")
        fact = value.get("fact") if isinstance(value, dict) else None
        return [fact] if isinstance(fact, str) else []
    return []


def _other(authors: Authors, name: str, writer: str) -> bool:
    return authors.get(name, "") != writer


def authors_of(lines: list[Mapping[str, Any]], me: str) -> dict[str, str]:
    """Who made each fact, episode and entity, from the lines that created them; the first
    creator in canonical order wins (a later "creation" of the same id is a duplicate)."""
    made: dict[str, str] = {}
    for line in lines:
        verb = line.get("t")
        record = {"insert-fact": "fact", "open-episode": "episode",
                  "ensure-entity": "entity"}.get(verb or "")
        value = line.get(record) if record else None
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            made.setdefault(value["id"], line["writer"])
    return made


def as_teammates(line: Mapping[str, Any]) -> Mapping[str, Any]:
    """A foreign fact or episode keeps who said it: never the local user's own assertion or
    decision record; its source names the writer (``sync:<writer>``)."""
    record = {"insert-fact": "fact", "open-episode": "episode"}.get(line.get("t") or "")
    if record is None:
        return line
    value = dict(line[record])
    value["source_type"] = SYNC_SOURCE + line["writer"]
    return {**line, record: value}
