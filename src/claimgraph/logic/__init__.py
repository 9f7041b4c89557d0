"""claimgraph's functional core: every decision as a pure function over plain values.

No I/O, no clock, no fresh ids: times (integer milliseconds UTC) and ids are arguments, and
decisions come back as data (plans) that the shell in ``claimgraph.core`` carries out. So the
interesting parts of the system can be called directly, with no store:

    >>> from claimgraph.logic import fuse_retrieval, screen_candidates, decide_assert

This module is the documented import surface (docs/internals.md walks through it with
examples the test suite runs); the submodules hold the rest, for people changing the code.

The names load on first use (PEP 562): every ``claimgraph.logic.x`` import passes through this
package, and the SessionStart hook must not pay for the modules it does not use.
"""

from __future__ import annotations

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:  # what a type checker and an editor see; nothing loads at run time
    from typing import Any
    from claimgraph.logic.admission import (
        admission_ctx, admission_score, admission_signals, admit, screen_candidates)
    from claimgraph.logic.claims import extract_claims
    from claimgraph.logic.confidence import (
        DEFAULT_HALF_LIFE_DAYS, effective_confidence, never_fades, reinforced_confidence)
    from claimgraph.logic.conflicts import conflict_candidates, open_conflicts
    from claimgraph.logic.entities import collapse_plan, duplicate_groups, pick_entity_match
    from claimgraph.logic.evidence_match import check as check_evidence
    from claimgraph.logic.evidence_match import match_evidence, parse_evidence
    from claimgraph.logic.evidence_match import summarize as summarize_checks
    from claimgraph.logic.facts import build_fact, decide_assert, decision_inputs
    from claimgraph.logic.predicates import CORE_BY_ID
    from claimgraph.logic.record_types import (
        AdmissionSignals, Candidate, EntityRecord, EpisodeRecord, FactRecord, Screened)
    from claimgraph.logic.retrieval import (
        bfs_step, fact_filter, fact_valid_at, fuse_retrieval, initial_bfs_state, query_tokens)
    from claimgraph.logic.timeutil import DAY_MS, from_iso, to_iso
    from claimgraph.logic.verify import merge_verdicts, parse_verdicts, verify_task

__all__ = [
    # the write path's decision
    "build_fact", "decision_inputs", "decide_assert", "CORE_BY_ID",
    # admission control
    "admission_ctx", "admission_signals", "admission_score", "admit", "screen_candidates",
    # retrieval
    "fact_valid_at", "fact_filter", "fuse_retrieval", "query_tokens", "initial_bfs_state",
    "bfs_step",
    # confidence
    "effective_confidence", "reinforced_confidence", "never_fades", "DEFAULT_HALF_LIFE_DAYS",
    # conflicts and duplicates
    "conflict_candidates", "open_conflicts", "duplicate_groups", "collapse_plan",
    "pick_entity_match",
    # claim-vs-evidence
    "parse_evidence", "match_evidence", "check_evidence", "summarize_checks", "extract_claims",
    "verify_task", "parse_verdicts", "merge_verdicts",
    # time as plain values
    "from_iso", "to_iso", "DAY_MS",
    # the records that cross layers, by name (plain dicts at run time)
    "EntityRecord", "FactRecord", "EpisodeRecord", "Candidate", "AdmissionSignals", "Screened",
]

#: Each public name and the submodule (and name there) it comes from.
_SOURCES = {
    "admission_ctx": "admission", "admission_score": "admission",
    "admission_signals": "admission", "admit": "admission", "screen_candidates": "admission",
    "extract_claims": "claims",
    "DEFAULT_HALF_LIFE_DAYS": "confidence", "effective_confidence": "confidence",
    "never_fades": "confidence", "reinforced_confidence": "confidence",
    "conflict_candidates": "conflicts", "open_conflicts": "conflicts",
    "collapse_plan": "entities", "duplicate_groups": "entities",
    "pick_entity_match": "entities",
    "build_fact": "facts", "decide_assert": "facts", "decision_inputs": "facts",
    "CORE_BY_ID": "predicates",
    "check_evidence": "evidence_match:check", "match_evidence": "evidence_match",
    "parse_evidence": "evidence_match", "summarize_checks": "evidence_match:summarize",
    "AdmissionSignals": "record_types", "Candidate": "record_types",
    "EntityRecord": "record_types", "EpisodeRecord": "record_types",
    "FactRecord": "record_types", "Screened": "record_types",
    "bfs_step": "retrieval", "fact_filter": "retrieval", "fact_valid_at": "retrieval",
    "fuse_retrieval": "retrieval", "initial_bfs_state": "retrieval",
    "query_tokens": "retrieval",
    "DAY_MS": "timeutil", "from_iso": "timeutil", "to_iso": "timeutil",
    "merge_verdicts": "verify", "parse_verdicts": "verify", "verify_task": "verify",
}


def __getattr__(name: str) -> Any:
    if name not in _SOURCES:
        raise AttributeError(f"module 'claimgraph.logic' has no attribute {name!r}")
    module, _, attribute = _SOURCES[name].partition(":")
    # ``__import__`` with a from-list hands back the submodule itself; not ``importlib``, which
    # a command need not load to load our own modules
    value = getattr(__import__(f"claimgraph.logic.{module}", fromlist=["_"]), attribute or name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
