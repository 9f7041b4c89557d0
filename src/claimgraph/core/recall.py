"""Scoped search and recall's tiered escalation (docs/mcp.md): reads only, never a lease.

``scoped_search`` is ``reads.search`` seen from one project: facts outside ``scopes`` are left
out after fusion, so the survivors keep their fused order. ``recall`` asks the facts first and
escalates only when they are too few: to episode summaries, then to the raw evidence segments
those episodes were captured from. An agent's note counts as an answer only once corroborated
(``logic.trust_tiers``): the agent's word alone is a lead, not a fact.

Episodes carry no scope of their own, so an episode counts as in scope when it recorded a fact
in one of the scopes. The evidence tier reads files: it looks at the newest in-scope episodes
first and stops after ``EVIDENCE_SCAN_EPISODES`` of them, so a store with years of sessions
answers as fast as a young one.
"""

from __future__ import annotations

from typing import Any, Callable, Collection

from claimgraph.core.reads import FTS_LIMIT, search
from claimgraph.core.shell import Shell
from claimgraph.core.teammates import named
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import recall as R
from claimgraph.logic.retrieval import query_tokens
from claimgraph.logic.trust_tiers import shown

#: Newest in-scope episodes whose evidence the last tier reads, at most.
EVIDENCE_SCAN_EPISODES = 200
#: Episodes the evidence tier answers with, at most (each with up to 5 lines).
EVIDENCE_EPISODES = 10
#: Episode summaries the second tier answers with, at most.
SUMMARY_EPISODES = 20
Fetch = Callable[[str], str]


def scoped_search(sh: Shell, query: str, scopes: Collection[str] | None,
                  fts_limit: int = FTS_LIMIT, limit: int | None = None,
                  neighbours: bool = True, categories: bool = True) -> dict[str, Any]:
    """``reads.search`` limited to facts in ``scopes`` (None: every scope), the best ``limit``
    of them (None: all; ``total`` says how many were found); ``neighbours`` and
    ``categories`` as there."""
    found = search(sh, query, None if scopes is None else list(scopes), fts_limit=fts_limit,
                   limit=limit, neighbours=neighbours, categories=categories)
    return {**found, "facts": named(sh.store, R.in_scopes(found["facts"], scopes))}


def recall(sh: Shell, query: str, *, scopes: Collection[str] | None = None, min_hits: int = 1,
           fetch_evidence: Fetch | None = None, limit: int | None = None) -> dict[str, Any]:
    """{query, tier, facts, episodes, evidence}: facts first, escalating while they are fewer
    than ``min_hits``. ``fetch_evidence`` reads an episode's evidence by name (None: no tier 3).
    The facts found are always returned, also when recall escalated past them."""
    if isinstance(min_hits, bool) or not isinstance(min_hits, int) or min_hits < 1:
        raise ClaimgraphError("invalid-argument",
                              f"min_hits {min_hits!r} is not a whole number ≥ 1",
                              hint="give min_hits as 1 or more (default 1)", argument="min_hits")
    facts = [f for f in scoped_search(sh, query, scopes, limit=limit or None)["facts"]
             if shown(f)]  # an agent's note nobody corroborated is not an answer
    episodes: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    if len(facts) < min_hits:
        episodes = summary_hits(sh, query, scopes)
        if not episodes and fetch_evidence is not None:
            evidence = evidence_hits(sh, query, scopes, fetch_evidence)
    tier = R.choose_tier(len(facts), min_hits, len(episodes), len(evidence))
    return {"query": query, "tier": tier, "min_hits": min_hits, "facts": facts,
            "episodes": episodes, "evidence": evidence}


def summary_hits(sh: Shell, query: str, scopes: Collection[str] | None) -> list[dict[str, Any]]:
    """Episodes whose summary matches the query or a token, first occurrence first, in scope."""
    seen: dict[str, dict[str, Any]] = {}
    for text in R.recall_queries(query):
        for episode in sh.store.search(text)["episodes"]:
            seen.setdefault(episode["id"], episode)
    found = list(seen.values())
    keep = episodes_in_scope(sh, [e["id"] for e in found], scopes)
    return [e for e in found if e["id"] in keep][:SUMMARY_EPISODES]


def evidence_hits(sh: Shell, query: str, scopes: Collection[str] | None,
                  fetch: Fetch) -> list[dict[str, Any]]:
    """[{episode, ref, lines}] from the raw segments of the newest in-scope episodes."""
    tokens = query_tokens(query) or [query.strip()]
    candidates = [e for e in reversed(sh.store.list_episodes()) if e.get("evidence")]
    candidates = candidates[:EVIDENCE_SCAN_EPISODES] if scopes is None else _newest_in_scope(
        sh, candidates, scopes)
    found = []
    for episode in candidates:
        try:
            text = fetch(episode["evidence"])
        except ClaimgraphError:  # pruned or moved evidence: the other episodes still answer
            continue
        lines = R.evidence_lines(text, tokens)
        if lines:
            found.append({"episode": episode["id"], "ref": episode["ref"],
                          "evidence": episode["evidence"], "lines": lines})
            if len(found) >= EVIDENCE_EPISODES:
                break
    return found


def _newest_in_scope(sh: Shell, episodes: list[dict[str, Any]],
                     scopes: Collection[str]) -> list[dict[str, Any]]:
    """The newest ``EVIDENCE_SCAN_EPISODES`` episodes that recorded a fact in ``scopes``,
    asked in batches so a long history is not read whole."""
    kept: list[dict[str, Any]] = []
    for start in range(0, len(episodes), EVIDENCE_SCAN_EPISODES):
        batch = episodes[start:start + EVIDENCE_SCAN_EPISODES]
        keep = episodes_in_scope(sh, [e["id"] for e in batch], scopes)
        kept += [e for e in batch if e["id"] in keep]
        if len(kept) >= EVIDENCE_SCAN_EPISODES:
            break
    return kept[:EVIDENCE_SCAN_EPISODES]


def episodes_in_scope(sh: Shell, ids: list[str], scopes: Collection[str] | None) -> set[str]:
    """The ids among ``ids`` of episodes that recorded a fact in ``scopes``."""
    if scopes is None:
        return set(ids)
    if not ids:
        return set()
    facts = sh.store.select_facts(episodes=ids, scopes=sorted(scopes))
    return {f["episode"] for f in facts if f.get("scope") in scopes}

