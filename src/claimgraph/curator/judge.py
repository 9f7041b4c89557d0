"""The curator's optional model work: judge open conflicts, summarize episodes it closes.

Off by default, behind the same opt-in as the model extractor: the ``extractor`` setting must
name "model" (``enabled_in``); ``llm_cmd``, ``llm_timeout_ms`` and ``budget`` apply as there,
and one ``Budget`` per pass is shared, spent on judging first, then summaries (docs/curator.md).
A dry run never calls the model.

Unattended rules (docs/curator.md, docs/model-calls.md): nothing here invalidates a fact. A
``compatible`` verdict confident enough unlinks the pair; ``duplicate``/``supersedes`` are only
recorded (a human resolves them); ``contradicts`` always waits for a human. Every parseable verdict
is recorded as a ``curation`` episode whose ref names the pair, so a pair never costs a second call,
in this run or any later one. No model call happens inside a write transaction.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

import structlog

from claimgraph.config import load_settings
from claimgraph.core.ingest import open_episode
from claimgraph.core.reads import conflicts
from claimgraph.curator.stage_tools import StageTools
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import judge as J
from claimgraph.model_command import (
    DEFAULT_PASS_INPUT_CHARS, Budget, enabled_in, run_model_command)

log = structlog.get_logger("claimgraph.curate")
EXHAUSTED = "llm-budget-exhausted"


@dataclass
class CuratorModel:
    """The configured command and the budget this pass may still spend on it."""

    cmd: str
    timeout_ms: int
    budget: Budget
    environ: Mapping[str, str] | None = None

    def ask(self, prompt: str) -> str:
        """The reply text; raises ClaimgraphError (llm-*) when the call is refused or fails."""
        return run_model_command(self.cmd, prompt, timeout_ms=self.timeout_ms,
                                 environ=self.environ, budget=self.budget,
                                 on_usage=log.info).text


def curator_model(ctx: StageTools) -> CuratorModel | None:
    """The model for this pass, or None: disabled (the default) or a dry run."""
    if ctx.dry_run:
        return None
    settings = load_settings(environ=ctx.environ or None)
    if not enabled_in(settings.value("extractor")):
        return None
    budget = Budget(settings.value("budget"), DEFAULT_PASS_INPUT_CHARS)
    return CuratorModel(settings.value("llm_cmd"), settings.value("llm_timeout_ms"), budget,
                        ctx.environ or None)


# --- the judge ----------------------------------------------------------------------------

def judge_conflicts(ctx: StageTools, model: CuratorModel, now: int) -> dict[str, int]:
    """Each open pair: a recorded verdict for free, else one budgeted call; then its plan."""
    pairs = conflicts(ctx.sh, now)["conflicts"]
    recorded = J.recorded_verdicts(ctx.sh.store.list_episodes())
    counts = Counter({key: 0 for key in ("pairs", "from_record", "called", "deferred",
                                         "unparseable", "failed", "unlinked", "held")})
    counts["pairs"] = len(pairs)
    for pair in pairs:
        key = frozenset((pair["fact"]["id"], pair["candidate"]["id"]))
        verdict = recorded.get(key)
        counts["from_record"] += verdict is not None
        if verdict is None:
            verdict = _fresh_verdict(ctx, model, pair, counts, now)
            if verdict is None:
                continue
            recorded[key] = verdict
        _apply(ctx, pair, verdict, counts)
    return {f"judge_{key}": value for key, value in counts.items()}


def _fresh_verdict(ctx: StageTools, model: CuratorModel, pair: dict[str, Any],
                   counts: Counter[str], now: int) -> dict[str, Any] | None:
    """One call; a parseable verdict is recorded, anything else leaves the pair for later."""
    prompt = J.judge_prompt(pair["fact"], pair["candidate"], ctx.sh.predicates())
    try:
        text = model.ask(prompt)
    except ClaimgraphError as err:
        counts["deferred" if err.type == EXHAUSTED else "failed"] += 1
        if err.type != EXHAUSTED:
            log.warning("curate.judge-failed", error=err.to_dict())
        return None
    counts["called"] += 1
    verdict = J.parse_verdict(text)
    if verdict["relation"] == J.UNPARSEABLE:
        counts["unparseable"] += 1
        log.warning("curate.judge-unparseable", reply=text[:200])
        return None
    _record(ctx, pair, verdict, now)
    return verdict


def _record(ctx: StageTools, pair: dict[str, Any], verdict: dict[str, Any], now: int) -> None:
    """Opened and closed at once; idempotent on the ref."""
    ref = J.verdict_ref(pair["fact"]["id"], pair["candidate"]["id"], verdict["relation"],
                        verdict["confidence"])
    with ctx.fence.writing(ctx.sh):
        if ctx.sh.store.get_episode_by_ref(ref) is None:
            episode = open_episode(ctx.sh, "curation", ref)
            ctx.sh.store.close_episode(episode["id"], J.verdict_summary(pair, verdict), now)


def _apply(ctx: StageTools, pair: dict[str, Any], verdict: dict[str, Any],
           counts: Counter[str]) -> None:
    """Unlink what is judged compatible; every other plan is held for a human."""
    plan = J.resolution_plan(pair, verdict)
    if plan["action"] == "invalidate":
        counts["held"] += 1
    if plan["action"] != "unlink":
        return
    with ctx.fence.writing(ctx.sh):
        current = ctx.sh.store.get_fact(plan["fact"])
        if current is not None and plan["candidate"] in (current.get("conflicts") or ()):
            ctx.sh.store.unlink_conflicts(plan["fact"], [plan["candidate"]])
            counts["unlinked"] += 1


# --- episode summaries --------------------------------------------------------------------

def model_summaries(model: CuratorModel, episodes: list[dict[str, Any]],
                    facts: list[dict[str, Any]]) -> tuple[dict[str, str], set[str]]:
    """({episode id: model summary}, ids deferred for want of budget).

    An episode missing from both gets the mechanical summary: the call failed, or the reply
    was blank.
    """
    by_episode: dict[str, list[dict[str, Any]]] = {}
    for fact in facts:
        by_episode.setdefault(fact["episode"], []).append(fact)
    summaries: dict[str, str] = {}
    deferred: set[str] = set()
    for episode in episodes:
        try:
            text = model.ask(J.summary_prompt(episode, by_episode.get(episode["id"], [])))
        except ClaimgraphError as err:
            if err.type == EXHAUSTED:
                deferred.add(episode["id"])
            else:
                log.warning("curate.summary-failed", episode=episode["id"], error=err.to_dict())
            continue
        summary = J.parse_summary(text)
        if summary:
            summaries[episode["id"]] = summary
    return summaries, deferred
