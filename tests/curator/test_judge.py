"""The curator's model judge and summaries, against the real stand-in executable."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from claimgraph.core.ingest import ingest
from claimgraph.core.reads import conflicts
from claimgraph.curator.consolidate import consolidate, mechanical_summary
from claimgraph.curator.stage_tools import Fence, StageTools
from claimgraph.logsetup import reset_logging

FAKE = Path(__file__).parents[1] / "fixtures_bin" / "fake_model.py"
MINUTE = 60_000


@pytest.fixture(autouse=True)
def _fresh_logging():
    """In-process runs log through structlog; never into a stream an earlier test closed."""
    reset_logging()
    yield
    reset_logging()


@pytest.fixture
def model_env(tmp_path):
    """The curator's environment with the model on; ``reply`` sets what the model prints."""
    return {**os.environ, "CLAIMGRAPH_EXTRACTOR": "builtin,model",
            "CLAIMGRAPH_LLM_CMD": f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))}",
            "FAKE_MODEL_REPORT": str(tmp_path / "calls.jsonl"),
            "FAKE_MODEL_OUTPUT": str(tmp_path / "reply.txt")}


def reply(env, text):
    Path(env["FAKE_MODEL_OUTPUT"]).write_text(text, encoding="utf-8")


def verdict(relation, confidence=0.9, rationale="because"):
    return json.dumps({"relation": relation, "confidence": confidence, "rationale": rationale})


def calls(env):
    path = Path(env["FAKE_MODEL_REPORT"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run(sh, db, env):
    return consolidate(StageTools(sh, Fence(db, None), "cur-test", False, env))["counts"]


def prefers(sh, clock, *objects, subject="team"):
    for obj in objects:
        ingest(sh, [{"subject": subject, "predicate": "prefers", "object": obj}])
        clock[0] += 1


def verdict_episodes(sh):
    return [e for e in sh.store.list_episodes() if (e["ref"] or "").startswith("verdict:")]


def test_disabled_by_default_no_call_is_made(shell, db, clock, model_env):
    prefers(shell, clock, "tabs", "spaces")
    reply(model_env, verdict("compatible"))
    env = {k: v for k, v in model_env.items() if k != "CLAIMGRAPH_EXTRACTOR"}
    counts = run(shell, db, env)
    assert counts["conflicts_linked"] == 1 and "judge_pairs" not in counts
    assert not Path(model_env["FAKE_MODEL_REPORT"]).exists()


def test_compatible_unlinks_and_is_recorded(shell, db, clock, model_env):
    prefers(shell, clock, "tabs", "spaces")
    reply(model_env, verdict("compatible", 0.9, "different repos"))
    counts = run(shell, db, model_env)
    assert (counts["judge_called"], counts["judge_unlinked"]) == (1, 1)
    assert conflicts(shell)["open"] == 0
    [record] = verdict_episodes(shell)
    assert record["source_type"] == "curation" and record["closed_at"] is not None
    assert record["ref"].endswith("=compatible@0.90")
    assert record["summary"] == ('judged compatible (0.90): team prefers "spaces" vs '
                                 'team prefers "tabs" — different repos')
    assert "Fact A is the newer assertion" in calls(model_env)[0]["prompt"]


@pytest.mark.parametrize("relation", ["duplicate", "supersedes"])
def test_invalidating_verdicts_are_recorded_but_never_applied(shell, db, clock, model_env,
                                                              relation):
    prefers(shell, clock, "tabs", "spaces")
    reply(model_env, verdict(relation, 1.0))
    counts = run(shell, db, model_env)
    assert (counts["judge_called"], counts["judge_held"]) == (1, 1)
    assert all(f["t_invalid"] is None for f in shell.store.select_facts())
    assert conflicts(shell)["open"] == 1 and len(verdict_episodes(shell)) == 1


def test_budget_exhaustion_defers_the_rest(shell, db, clock, model_env):
    prefers(shell, clock, "tabs", "spaces")
    prefers(shell, clock, "ruff", "black", subject="linting")
    reply(model_env, verdict("contradicts"))
    counts = run(shell, db, {**model_env, "CLAIMGRAPH_BUDGET": "1"})
    assert (counts["judge_pairs"], counts["judge_called"], counts["judge_deferred"]) == (2, 1, 1)
    assert len(calls(model_env)) == 1 and len(verdict_episodes(shell)) == 1


def test_unparseable_output_records_nothing_and_is_asked_again(shell, db, clock, model_env):
    prefers(shell, clock, "tabs", "spaces")
    reply(model_env, "They might conflict, hard to say.")
    assert run(shell, db, model_env)["judge_unparseable"] == 1
    assert verdict_episodes(shell) == [] and conflicts(shell)["open"] == 1
    run(shell, db, model_env)
    assert len(calls(model_env)) == 2


def test_model_failure_closes_with_the_mechanical_summary(shell, db, clock, model_env):
    prefers(shell, clock, "tabs")
    clock[0] += 2 * MINUTE
    counts = run(shell, db, {**model_env, "FAKE_MODEL_MODE": "fail"})
    [episode] = shell.store.list_episodes()
    assert (counts["episodes_closed"], counts["episodes_summarized"]) == (1, 0)
    assert episode["summary"] == mechanical_summary(episode, ["core/prefers"])
    assert len(calls(model_env)) == 1


def test_model_summary_closes_and_exhausted_budget_leaves_open(shell, db, clock, model_env):
    prefers(shell, clock, "tabs")
    clock[0] += 2 * MINUTE
    reply(model_env, "```\nThe team prefers tabs.\n```")
    counts = run(shell, db, {**model_env, "CLAIMGRAPH_BUDGET": "0"})
    assert (counts["episodes_closed"], counts["episodes_deferred"]) == (0, 1)
    assert shell.store.list_episodes()[0]["closed_at"] is None
    counts = run(shell, db, model_env)
    assert (counts["episodes_closed"], counts["episodes_summarized"]) == (1, 1)
    assert shell.store.list_episodes()[0]["summary"] == "The team prefers tabs."
    assert "team prefers \"tabs\"" in calls(model_env)[0]["prompt"]


@pytest.fixture
def real_clock(clock):
    """Real time, for real curator processes; episodes stay too young to close."""
    clock[0] = time.time_ns() // 1_000_000 - 5_000
    return clock


def test_recorded_pair_never_costs_a_second_call_across_runs(
        real_clock, shell, db, model_env, curate_proc, finish_proc):
    prefers(shell, real_clock, "tabs", "spaces")
    reply(model_env, verdict("contradicts", 0.99))
    results = [finish_proc(curate_proc("--stage", "consolidate", env=model_env))
               for _ in range(2)]
    first, second = (result["stages"]["consolidate"]["counts"] for _, result, _ in results)
    assert (first["judge_called"], first["judge_from_record"]) == (1, 0)
    assert (second["judge_called"], second["judge_from_record"]) == (0, 1)
    assert len(calls(model_env)) == 1
    assert conflicts(shell)["open"] == 1  # contradicts: left for a human
    assert all(f["t_invalid"] is None for f in shell.store.select_facts())
