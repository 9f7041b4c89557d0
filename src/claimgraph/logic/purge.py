"""What a purge takes, decided purely: which facts, episodes and entities go, and how text is
scrubbed (docs/forget-and-purge.md).

Filters combine with AND: a fact goes when it passes every filter given. An episode goes when
the purge left it without facts (or, for the episode-level filters ``--session`` and
``--before`` alone, when it never had any); an entity goes when it is left without facts and
the purge touched it, named it, or its name holds the matched text. The tombstone a purged fact
leaves is a hash of what the fact says (scope, subject, predicate, object, normalized), so a
later capture, load or sync can recognise the same fact without the store keeping its words.
"""

from __future__ import annotations

import hashlib
import json
from claimgraph.logic.lazy_regex import lazy_regex
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from claimgraph.logic.names import normalize_entity_name, object_name

Fact = Mapping[str, Any]
PLACEHOLDER = "[purged]"
#: ``<agent>:<session>@<from>-<to>`` (capture; ``~n`` when a range repeats) and
#: ``mcp:<agent>:<session>`` (facts an agent asserted over MCP in that session).
_CAPTURE_REF = lazy_regex(r"^(?P<agent>[^:@]+):(?P<session>.+)"
                          r"@(?P<start>\d+)-(?P<end>\d+)(?:~\d+)?$")
_MCP_REF = lazy_regex(r"^mcp:(?P<agent>claude-code):(?P<session>.+)$")


@dataclass(frozen=True)
class Filters:
    """Resolved filters; None means "not given" (every given one must hold)."""

    facts: frozenset[str] | None = None
    sessions: frozenset[str] | None = None
    projects: frozenset[str] | None = None
    entities: frozenset[str] | None = None  # entity ids
    match: str | None = None
    before: int | None = None

    def given(self) -> list[str]:
        """The filter kinds in use, for the purge record (never their values)."""
        return [name for name in ("facts", "sessions", "projects", "entities", "match", "before")
                if getattr(self, name) is not None]

    def episode_level_only(self) -> bool:
        """Only filters an episode answers by itself (its session, its time)."""
        return bool(self.given()) and set(self.given()) <= {"sessions", "before"}


# --- tombstones ---------------------------------------------------------------------------------

def fact_key(fact: Fact) -> str:
    """The tombstone key of a stored fact (see ``statement_key``)."""
    return statement_key(fact.get("scope"), (fact.get("subject") or {}).get("name"),
                         fact.get("predicate"), object_name(fact))


def statement_key(scope: str | None, subject: str | None, predicate: str | None,
                  obj: str | None) -> str:
    """A hash of scope, subject, predicate and object, names normalized the way entity lookup
    normalizes them, so a re-extracted copy of a purged fact hashes alike (and the write path
    can tell before it creates any entity)."""
    parts = [scope, normalize_entity_name(subject), predicate, normalize_entity_name(obj or "")]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


# --- sessions -----------------------------------------------------------------------------------

def episode_session(ref: str | None) -> tuple[str, str] | None:
    """(agent, session) of a captured or MCP episode; None for any other ref."""
    for pattern in (_CAPTURE_REF, _MCP_REF):
        found = pattern.match(ref or "")
        if found:
            return found.group("agent"), found.group("session")
    return None


def episode_end(ref: str | None) -> int | None:
    """The end byte offset of a captured episode's range."""
    found = _CAPTURE_REF.match(ref or "")
    return int(found.group("end")) if found else None


def in_sessions(episode: Mapping[str, Any], sessions: Iterable[str]) -> bool:
    """A session is named by its id, or as ``agent:id``."""
    found = episode_session(episode.get("ref"))
    return found is not None and bool({found[1], f"{found[0]}:{found[1]}"} & set(sessions))


# --- text ---------------------------------------------------------------------------------------

def match_forms(needle: str) -> list[str]:
    """The needle as text, and as it appears inside JSON (escaped; with and without \\u forms),
    longest first: logs, marks and dumps are JSON."""
    forms = {needle, json.dumps(needle, ensure_ascii=False)[1:-1], json.dumps(needle)[1:-1]}
    return sorted(forms, key=lambda form: (-len(form), form))


def scrub(text: str, needle: str) -> tuple[str, int]:
    """``text`` with every form of ``needle`` replaced by the placeholder; and how many."""
    count = 0
    for form in match_forms(needle):
        count += text.count(form)
        text = text.replace(form, PLACEHOLDER)
    return text, count


def holds(text: str | None, needle: str) -> bool:
    return text is not None and text != "" and any(form in text for form in match_forms(needle))


def fact_texts(fact: Fact) -> list[str]:
    """Everything a fact says in words: its names, object, citations and invalidation reason."""
    names = [(fact.get("subject") or {}).get("name"), object_name(fact),
             fact.get("invalidation_reason")]
    return [t for t in (*names, *(fact.get("evidence") or ())) if isinstance(t, str)]


def fact_holds(fact: Fact, needle: str) -> bool:
    return any(holds(text, needle) for text in fact_texts(fact))


# --- selection ----------------------------------------------------------------------------------

def fact_selected(fact: Fact, filters: Filters, session_episodes: set[str]) -> bool:
    """Every given filter holds for the fact."""
    ends = {(fact.get("subject") or {}).get("id"), (fact.get("object_ref") or {}).get("id")}
    return ((filters.facts is None or fact["id"] in filters.facts)
            and (filters.sessions is None or fact.get("episode") in session_episodes)
            and (filters.projects is None or fact.get("scope") in filters.projects)
            and (filters.entities is None or bool(ends & filters.entities))
            and (filters.match is None or fact_holds(fact, filters.match))
            and (filters.before is None or fact["recorded_at"] < filters.before))


def episode_selected(episode: Mapping[str, Any], filters: Filters) -> bool:
    """The episode-level filters hold for the episode (used when no fact decides)."""
    return ((filters.sessions is None or in_sessions(episode, filters.sessions))
            and (filters.before is None or (episode.get("opened_at") or 0) < filters.before))


def doomed_episodes(episodes: Sequence[Mapping[str, Any]], kept_by_episode: Mapping[str, int],
                    lost_by_episode: Mapping[str, int], filters: Filters,
                    purged_ids: set[str]) -> set[str]:
    """Episodes left without facts by the purge, empty ones the episode-level filters name,
    and the curator's verdict records about a purged fact (their summaries quote it)."""
    gone = set()
    for episode in episodes:
        eid, kept = episode["id"], kept_by_episode.get(episode["id"], 0)
        emptied = lost_by_episode.get(eid, 0) > 0 and kept == 0
        named_empty = (kept == 0 and not lost_by_episode.get(eid)
                       and filters.episode_level_only() and episode_selected(episode, filters))
        if emptied or named_empty or _verdict_about(episode, purged_ids):
            gone.add(eid)
    return gone


def _verdict_about(episode: Mapping[str, Any], purged_ids: set[str]) -> bool:
    ref = episode.get("ref") or ""
    return (episode.get("source_type") == "curation" and ref.startswith("verdict:")
            and any(fact_id in ref for fact_id in purged_ids))


def doomed_entities(entities: Sequence[Mapping[str, Any]], usage_after: Mapping[str, int],
                    touched: set[str], filters: Filters) -> set[str]:
    """Entities left without facts that the purge touched, named, or whose name holds the
    matched text."""
    gone = set()
    for entity in entities:
        if usage_after.get(entity["id"], 0):
            continue
        named = filters.entities is not None and entity["id"] in filters.entities
        matched = filters.match is not None and holds(entity.get("name"), filters.match)
        if entity["id"] in touched or named or matched:
            gone.add(entity["id"])
    return gone


def summary_after(predicates: Iterable[str], purged: int) -> str:
    """A kept episode's new summary: its remaining facts by predicate. The old one may have
    been a model's prose about the facts that are gone."""
    counts: dict[str, int] = {}
    for pred in predicates:
        short = pred.removeprefix("core/")
        counts[short] = counts.get(short, 0) + 1
    total = sum(counts.values())
    parts = ", ".join(f"{n} {p}" for p, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
    text = f"{total} {'fact' if total == 1 else 'facts'}" + (f" — {parts}" if parts else "")
    return f"{text}; {purged} purged"
