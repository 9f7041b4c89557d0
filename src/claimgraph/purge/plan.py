"""Planning a purge: read the store and its files, decide (``logic.purge``), count.

The plan is complete before anything changes, so ``--dry-run`` and the confirmation show
exactly what will go, and the run only carries it out. It holds the matched text only in
memory; nothing of it is ever written down.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from claimgraph.core.shell import Shell
from claimgraph.logic import purge as P
from claimgraph.purge import files as F
from claimgraph.sidecar import Sidecars

Record = dict[str, Any]
KINDS = ("facts", "episodes", "entities", "evidence segments", "log lines", "spool files",
         "oplog entries")


@dataclass
class Plan:
    filters: P.Filters
    facts: list[Record] = field(default_factory=list)
    episodes: list[str] = field(default_factory=list)
    rewritten_episodes: dict[str, Record] = field(default_factory=dict)  # id -> summary, evidence
    entities: list[str] = field(default_factory=list)
    aliases: dict[str, list[str]] = field(default_factory=dict)
    delete_segments: list[str] = field(default_factory=list)
    rewrite_segments: list[str] = field(default_factory=list)
    sessions: dict[tuple[str, str], Record] = field(default_factory=dict)
    delete_marks: list[str] = field(default_factory=list)
    rewrite_marks: dict[str, Any] = field(default_factory=dict)
    spool_delete: list[str] = field(default_factory=list)
    spool_scrub: list[str] = field(default_factory=list)
    log_lines: int = 0
    oplog_entries: int = 0
    transcripts_lost: int = 0  # kept facts whose episode loses its transcript

    def counts(self) -> dict[str, int]:
        return dict(zip(KINDS, (
            len(self.facts), len(self.episodes), len(self.entities),
            len(self.delete_segments) + len(self.rewrite_segments), self.log_lines,
            len(self.spool_delete) + len(self.spool_scrub), self.oplog_entries)))

    def empty(self) -> bool:
        return not any(self.counts().values()) and not self.aliases and not self.rewrite_marks \
            and not self.delete_marks and not self.rewritten_episodes

    def purged_ids(self) -> list[str]:
        return sorted({f["id"] for f in self.facts} | set(self.episodes) | set(self.entities))


def build(sh: Shell, sidecars: Sidecars, filters: P.Filters) -> Plan:
    """Everything the filters reach, in the store and beside it."""
    store = sh.store
    plan = Plan(filters)
    facts, episodes = store.all_facts(), store.list_episodes()
    by_episode = {e["id"]: e for e in episodes}
    in_session = {e["id"] for e in episodes
                  if filters.sessions is not None and P.in_sessions(e, filters.sessions)}
    plan.facts = [f for f in facts if P.fact_selected(f, filters, in_session)]
    gone = {f["id"] for f in plan.facts}
    kept = [f for f in facts if f["id"] not in gone]
    lost = Counter(f.get("episode") for f in plan.facts)
    doomed = P.doomed_episodes(episodes, Counter(f.get("episode") for f in kept), lost, filters,
                               gone)
    plan.episodes = sorted(doomed)
    _plan_entities(plan, store.list_entities(), kept)
    changed = sorted(e for e in lost if e in by_episode and e not in doomed)
    _plan_segments(plan, sidecars, by_episode, changed, in_session)
    _plan_summaries(plan, by_episode, changed, kept, lost)
    _plan_sessions(plan, store, by_episode)
    _plan_marks(plan, store, gone)
    _plan_files(plan, sidecars, in_session | set(plan.episodes), by_episode)
    plan.transcripts_lost = sum(1 for f in kept if f.get("episode") in {
        e for e, row in plan.rewritten_episodes.items() if row["evidence"] is None
        and by_episode[e].get("evidence")})
    return plan


def _plan_entities(plan: Plan, entities: list[Record], kept: list[Record]) -> None:
    usage: Counter[str] = Counter()
    for fact in kept:
        for end in {(fact.get("subject") or {}).get("id"),
                    (fact.get("object_ref") or {}).get("id")}:
            if end:
                usage[end] += 1
    touched = {end for f in plan.facts for end in
               ((f.get("subject") or {}).get("id"), (f.get("object_ref") or {}).get("id")) if end}
    plan.entities = sorted(P.doomed_entities(entities, usage, touched, plan.filters))
    needle = plan.filters.match
    if needle is not None:
        for entity in entities:
            bad = [a for a in entity.get("aliases") or () if P.holds(a, needle)]
            if bad and entity["id"] not in plan.entities:
                plan.aliases[entity["id"]] = bad


def _plan_segments(plan: Plan, sidecars: Sidecars, by_episode: dict[str, Record],
                   changed: list[str], in_session: set[str]) -> None:
    """Segments of deleted episodes go; so do those of kept episodes that lost facts, unless
    ``--match`` says to rewrite the text instead (which it does wherever the text is)."""
    needle = plan.filters.match
    doomed = {by_episode[e].get("evidence") for e in plan.episodes} - {None}
    if needle is None:
        doomed |= {by_episode[e].get("evidence") for e in changed} - {None}
    survivors = {e.get("evidence") for e in by_episode.values() if e["id"] not in plan.episodes}
    if needle is not None:
        doomed -= survivors  # a kept episode still reads it: rewrite, not delete
        reach = _segment_reach(plan, sidecars, by_episode, changed, in_session)
        holding = {p.name for p in F.holding([sidecars.evidence_dir / n for n in reach], needle)}
        read = {e.get("evidence") for e in by_episode.values()}
        doomed |= holding - read  # no episode reads it (a capture's, not yet committed)
        plan.rewrite_segments = sorted(holding - doomed)
    plan.delete_segments = sorted(n for n in doomed if (sidecars.evidence_dir / n).exists())
    for episode in by_episode.values():
        name = episode.get("evidence")
        if episode["id"] not in plan.episodes and (name in doomed or name in plan.rewrite_segments):
            plan.rewritten_episodes[episode["id"]] = {
                "summary": episode.get("summary"), "evidence": None if name in doomed else name}


def _segment_reach(plan: Plan, sidecars: Sidecars, by_episode: dict[str, Record],
                   changed: list[str], in_session: set[str]) -> list[str]:
    """Where ``--match`` looks for the text in the evidence tier: everywhere when it is the only
    filter (orphans included), else the segments of the episodes the other filters reach."""
    if plan.filters.given() == ["match"]:
        return sidecars.list_evidence()
    episodes = set(changed) | set(plan.episodes) | {
        e for e in in_session if P.episode_selected(by_episode[e], plan.filters)}
    if plan.filters.episode_level_only():
        episodes |= {e for e, row in by_episode.items() if P.episode_selected(row, plan.filters)}
    return sorted({by_episode[e].get("evidence") for e in episodes} - {None})


def _plan_summaries(plan: Plan, by_episode: dict[str, Record], changed: list[str],
                    kept: list[Record], lost: Counter) -> None:
    """A kept episode that lost facts gets a summary of what it still holds; one whose summary
    holds the matched text gets it scrubbed."""
    remaining: dict[str, list[str]] = {}
    for fact in kept:
        remaining.setdefault(fact.get("episode"), []).append(fact["predicate"])
    for eid in changed:
        row = plan.rewritten_episodes.setdefault(
            eid, {"summary": None, "evidence": by_episode[eid].get("evidence")})
        row["summary"] = P.summary_after(remaining.get(eid, []), lost[eid])
    needle = plan.filters.match
    for eid, episode in by_episode.items():
        if needle and eid not in plan.episodes and P.holds(episode.get("summary"), needle):
            row = plan.rewritten_episodes.setdefault(
                eid, {"summary": episode.get("summary"), "evidence": episode.get("evidence")})
            row["summary"] = P.scrub(row["summary"] or "", needle)[0]


def _plan_sessions(plan: Plan, store: Any, by_episode: dict[str, Record]) -> None:
    """Every captured session whose transcript text leaves the tier gets a tombstone reaching
    as far as capture had read it, so it is never read (and stored, and learned) again."""
    touched = set(plan.episodes) | {e for e, row in plan.rewritten_episodes.items()
                                    if row["evidence"] != by_episode[e].get("evidence")
                                    or row["evidence"] in plan.rewrite_segments}
    for eid in sorted(touched):
        ref = by_episode[eid].get("ref")
        session, end = P.episode_session(ref), P.episode_end(ref)
        if session is None or end is None:
            continue
        mark = store.get_mark(f"capture:{session[0]}:{session[1]}") or {}
        position = plan.sessions.setdefault(session, {"offset": 0, "line": 0, "subagents": {}})
        if mark.get("offset", 0) >= max(end, position["offset"]):
            position.update(offset=mark["offset"], line=mark.get("line", 0),
                            subagents=mark.get("subagents") or {})
        elif end > position["offset"]:
            position.update(offset=end, line=0, subagents={})


def _plan_marks(plan: Plan, store: Any, gone: set[str]) -> None:
    """Capture marks stop naming deleted episodes; the curator's swept-pair marks of purged
    facts go; with ``--match``, marks holding the text are scrubbed (or go, keys holding it)."""
    needle = plan.filters.match
    doomed = set(plan.episodes)
    for key, value in store.list_marks("").items():
        if key.startswith(("tombstone:", "purge:", "store:")):  # store:writes never goes back
            continue
        if (key.startswith("curator:swept:") and any(i in key for i in gone)) or \
                (needle and P.holds(key, needle)):
            plan.delete_marks.append(key)
            continue
        new = value
        if key.startswith("capture:") and isinstance(value,
                                                     dict) and value.get("episode") in doomed:
            new = {**value, "episode": None}
        if needle:
            new = _scrubbed_json(new, needle)
        if new != value:
            plan.rewrite_marks[key] = new


def _scrubbed_json(value: Any, needle: str) -> Any:
    if isinstance(value, str):
        return P.scrub(value, needle)[0]
    if isinstance(value, list):
        return [_scrubbed_json(v, needle) for v in value]
    if isinstance(value, dict):
        return {_scrubbed_json(k, needle): _scrubbed_json(v, needle) for k, v in value.items()}
    return value


def _plan_files(plan: Plan, sidecars: Sidecars, session_episodes: set[str],
                by_episode: dict[str, Record]) -> None:
    needle, db = plan.filters.match, sidecars.db
    sessions = set(plan.filters.sessions or ())
    for path in F.spool_files(db):
        agent, session = F.spool_session(path)
        if sessions and session is not None and ({session, f"{agent}:{session}"} & sessions):
            plan.spool_delete.append(str(path))
        elif needle and F.holding([path], needle):
            plan.spool_scrub.append(str(path))
    if needle:
        plan.log_lines = sum(F.lines_holding(p, needle) for p in F.text_sidecars(db))
    plan.oplog_entries = F.oplog_entries(db, plan.purged_ids(), needle)


def resolve_entities(sh: Shell, names: Iterable[str], scope: str | None) -> frozenset[str]:
    """Ids of every entity the names resolve to, in ``scope`` or in any scope. Spellings that
    are ambiguous within a scope (``auth-service`` and ``AuthService`` both stored) all count:
    to a person purging a name they are one thing."""
    from claimgraph.logic.entities import pick_entity_match

    found: set[str] = set()
    for name in names:
        by_scope: dict[str, list[Record]] = {}
        for candidate in sh.store.find_entities(name, scope):
            by_scope.setdefault(candidate["scope"], []).append(candidate)
        for candidates in by_scope.values():
            match = pick_entity_match(name, candidates) or {}
            found |= {e["id"] for e in match.get("candidates") or [match.get("entity")] if e}
    return frozenset(found)
