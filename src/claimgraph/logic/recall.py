"""Recall's decisions, purely: which scopes a read may see, and which evidence lines answer it.

``recall`` escalates facts → episode summaries → raw evidence (docs/mcp.md). The shell gathers
each tier; what counts as a hit is decided here, so it is tested on plain values.

Scopes are a set: an agent working in a project sees that project's facts and the user's
cross-project ones, never another project's (memories bleeding between projects is the failure
users of other memory tools report most). ``None`` means every scope.
"""

from __future__ import annotations

from typing import Any, Collection, Iterable, Mapping, Sequence

from claimgraph.logic.retrieval import query_tokens

Fact = Mapping[str, Any]
TIERS = ("facts", "episodes", "evidence", "nothing")
#: Lines kept per episode's evidence: its first 5.
EVIDENCE_LINES_PER_EPISODE = 5
#: A matched evidence line is shown cut to this many characters: a transcript line can be a
#: whole tool output, and recall's answer goes into the agent's context.
EVIDENCE_LINE_CHARS = 300


def in_scopes(facts: Iterable[Fact], scopes: Collection[str] | None) -> list[Fact]:
    """The facts a reader limited to ``scopes`` may see (all of them for ``None``)."""
    if scopes is None:
        return list(facts)
    return [f for f in facts if f.get("scope") in scopes]


def recall_queries(query: str) -> list[str]:
    """The whole query first, then its tokens."""
    whole = query.strip()
    return [whole, *[t for t in query_tokens(query) if t != whole]]


def evidence_lines(text: str, tokens: Sequence[str],
                   limit: int = EVIDENCE_LINES_PER_EPISODE) -> list[str]:
    """The first ``limit`` lines containing any token (case-insensitive), each one line cut
    to ``EVIDENCE_LINE_CHARS``; [] without tokens (an empty query matches nothing)."""
    wanted = [t.lower() for t in tokens if t]
    if not wanted:
        return []
    found: list[str] = []
    for line in text.splitlines():
        lowered = line.lower()
        if any(token in lowered for token in wanted):
            found.append(_cut(line.strip()))
            if len(found) >= limit:
                break
    return found


def _cut(line: str) -> str:
    return line if len(line) <= EVIDENCE_LINE_CHARS else line[:EVIDENCE_LINE_CHARS - 1] + "…"


def choose_tier(facts: int, min_hits: int, episodes: int, evidence: int) -> str:
    """The first tier that answered: enough facts, else any summary, else any evidence line."""
    if facts >= min_hits and facts > 0:
        return "facts"
    if episodes:
        return "episodes"
    if evidence:
        return "evidence"
    return "facts" if facts else "nothing"
