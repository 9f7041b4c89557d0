"""Real processes: a burst of curators, kill -9 mid-transaction, a capture racing the curator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from claimgraph.core import Shell
from claimgraph.core.ingest import ingest
from claimgraph.core.vocabulary import seed
from claimgraph.curator.dirty import DirtyMark
from claimgraph.curator.stages import PAUSE_ENV, RESUME_ENV
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars

TRANSCRIPT = (Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
              / "claude-code" / "full-session-four.jsonl")


def build(db: Path, batches: list[list[dict[str, Any]]], duplicates: int = 0) -> list[dict]:
    """Write each batch as its own episode (in order), plus ``duplicates`` copies of each fact."""
    store = open_store(db)
    try:
        sh = Shell(store)
        seed(sh)
        for batch in batches:
            ingest(sh, batch)
            time.sleep(0.002)
        facts = store.select_facts()
        with store.transaction():
            for fact in facts:
                for n in range(duplicates):
                    store.insert_fact({**fact, "id": sh.new_id("f"), "conflicts": [],
                                       "recorded_at": fact["recorded_at"] + n + 1})
        return store.select_facts()
    finally:
        store.close()


def stored(db: Path) -> list[dict[str, Any]]:
    store = open_store(db)
    try:
        return store.select_facts()
    finally:
        store.close()


def lines_of(logs: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [line for line in logs if line["event"] == event]


def wait_for_event(proc: subprocess.Popen, event: str, timeout: float = 30) -> list[dict]:
    """Read a running curator's log until ``event`` appears."""
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        assert line, f"the curator ended before {event}: {seen}"
        seen.append(json.loads(line))
        if seen[-1]["event"] == event:
            return seen
    raise AssertionError(f"no {event} within {timeout} s")


def test_twenty_curators_at_once_one_holder_at_a_time_no_work_lost(db, curate_proc, finish_proc):
    build(db, [[{"subject": "team", "predicate": "prefers", "object": "tabs"}],
               [{"subject": "team", "predicate": "prefers", "object": "spaces"}]])
    procs = [curate_proc(env={PAUSE_ENV: "consolidate:0.3"}) for _ in range(20)]
    outcomes = [finish_proc(proc, timeout=60) for proc in procs]
    assert [code for code, _, _ in outcomes] == [0] * 20
    logs = [line for _, _, lines in outcomes for line in lines]
    holdings = sorted(zip([x["at_ns"] for x in lines_of(logs, "curate.lease-acquired")],
                          [x["at_ns"] for x in lines_of(logs, "curate.lease-released")]))
    assert holdings and all(start < end for start, end in holdings)
    assert all(earlier[1] < later[0] for earlier, later in zip(holdings, holdings[1:]))
    skippers = [lines for _, result, lines in outcomes if result["status"] == "already-running"]
    assert skippers, "the burst should have turned some curators away"
    holders = {x["pid"] for x in lines_of(logs, "curate.lease-acquired")}
    for lines in skippers:  # turned away, never waiting: it names a curator that did hold it
        assert not lines_of(lines, "curate.lease-acquired")
        assert [x["holder"]["pid"] in holders for x in lines_of(lines, "curate.skipped")] == [True]
    passes = [x["at_ns"] for x in lines_of(logs, "curate.pass-started")]
    for mark in lines_of(logs, "curate.dirty-set"):
        assert any(p > mark["at_ns"] for p in passes) or DirtyMark(db).is_set()
    linked = sum(r["stages"].get("consolidate", {}).get("counts", {}).get("conflicts_linked", 0)
                 for _, r, _ in outcomes)
    assert linked == 1
    newer = max(stored(db), key=lambda f: f["recorded_at"])
    assert len(newer["conflicts"]) == 1


def test_kill_9_mid_collapse_leaves_nothing_half_applied_and_the_next_curator_finishes(
        db, curate_proc, finish_proc):
    facts = build(db, [[{"subject": f"mod{i}", "predicate": "depends-on", "object": "redis"}
                        for i in range(5)]], duplicates=2)
    assert len(facts) == 15
    victim = curate_proc(env={PAUSE_ENV: "collapse"})
    wait_for_event(victim, "curate.test-paused")
    victim.kill()
    victim.wait(timeout=30)
    assert all(f["t_invalid"] is None for f in stored(db))  # the open transaction rolled back
    code, result, logs = finish_proc(curate_proc())
    assert (code, result["status"]) == (0, "ok")
    [broken] = lines_of(logs, "curate.lease-broken")
    assert (broken["holder"]["pid"], broken["reason"]) == (victim.pid, "dead-pid")
    assert lines_of(logs, "curate.write-lease-broken")[0]["holder"]["pid"] == victim.pid
    after = stored(db)
    assert result["stages"]["consolidate"]["counts"]["duplicates_invalidated"] == 10
    assert sum(f["t_invalid"] is None for f in after) == 5
    assert {f["invalidation_kind"] for f in after if f["t_invalid"]} == {"merge-duplicate"}


def test_a_capture_during_a_curator_run_is_picked_up_by_the_dirty_pass(db, curate_proc,
                                                                       finish_proc):
    build(db, [[{"subject": "team", "predicate": "prefers", "object": "tabs"}]])
    # The first curator waits at "planned" until the test opens the gate, i.e. until the
    # curator the capture spawns has been turned away: no sleep for a loaded machine to outlast.
    gate = db.parent / "resume"
    first = curate_proc(env={PAUSE_ENV: "planned", RESUME_ENV: str(gate)})
    wait_for_event(first, "curate.test-paused")
    captured = subprocess.run([sys.executable, "-m", "claimgraph", "capture", str(TRANSCRIPT)],
                              capture_output=True, text=True, timeout=120, env=dict(os.environ))
    report = json.loads(captured.stdout)
    assert (captured.returncode, report["status"], report["curator"]) == (0, "captured", "spawned")
    curate_log = Sidecars(db).curate_log
    _wait(lambda: curate_log.exists() and '"curate.result"' in curate_log.read_text())
    gate.touch()
    spawned = [line for line in map(json.loads, curate_log.read_text().splitlines())
               if line.get("pid") != first.pid]  # the paused curator logs here as well
    assert lines_of(spawned, "curate.result")
    assert lines_of(spawned, "curate.skipped") and not lines_of(spawned, "curate.lease-acquired")
    code, result, _ = finish_proc(first)
    assert (code, result["status"], result["passes"]) == (0, "ok", 2)
    facts = [f for f in stored(db) if f["episode"] == report["episode"]]
    assert len(facts) == report["counts"]["created"]
    counts = result["stages"]["consolidate"]["counts"]
    assert counts["facts_scanned"] >= 1 + len(facts)  # pass 1: the old fact; pass 2: the new


def _wait(predicate, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.05)
