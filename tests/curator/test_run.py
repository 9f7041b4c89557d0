"""``claimgraph curate``: the lease dance, passes, containment, fencing, and the CLI surface."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claimgraph import lease
from claimgraph.cli.capture import CURATE_STAGES
from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.curator import run as R
from claimgraph.curator import spawn_curator, stages
from claimgraph.curator.dirty import DirtyMark
from claimgraph.logsetup import reset_logging
from claimgraph.sidecar import Sidecars


@pytest.fixture(autouse=True)
def _fresh_logging():
    """In-process runs log through structlog; never into a stream an earlier test closed."""
    reset_logging()
    yield
    reset_logging()


def hold_curation_lease(db: Path) -> subprocess.Popen:
    """Another live curator: a process holding the lease until its stdin closes."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys; from claimgraph.store.leases import curation_lease; "
        f"held = curation_lease({str(db)!r}); print('held', flush=True); sys.stdin.read(); "
        "held.release()")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def stop(holder: subprocess.Popen, kill: bool = False) -> None:
    if kill:
        holder.kill()
    holder.stdin.close()
    holder.wait(timeout=30)
    holder.stdout.close()


def events(logs: list[dict[str, Any]]) -> list[str]:
    return [line["event"] for line in logs]


def test_a_lone_curator_runs_every_stage_once_and_releases(db, curate_proc, finish_proc):
    code, result, logs = finish_proc(curate_proc())
    assert (code, result["status"], result["passes"]) == (0, "ok", 1)
    assert list(result["stages"]) == ["consolidate", "decay", "audit", "shortlists"]
    assert result["stages"]["consolidate"]["status"] == "ok"
    assert {result["stages"][s]["status"] for s in ("decay", "audit", "shortlists")} == {"ok"}
    assert all("duration_ms" in s for s in result["stages"].values())
    assert events(logs)[:3] == ["curate.started", "curate.lease-acquired", "curate.pass-started"]
    assert events(logs)[-1] == "curate.lease-released"
    assert {line["run_id"] for line in logs} == {result["run_id"]}
    assert not lease.curate_lock_path(db).exists()


def test_stage_flag_selects_stages(db, curate_proc, finish_proc):
    code, result, _ = finish_proc(curate_proc("--stage", "decay", "--stage", "consolidate"))
    assert (code, list(result["stages"])) == (0, ["consolidate", "decay"])


def test_a_live_holder_means_skipped_a_dirty_mark_and_exit_zero(db, curate_proc, finish_proc):
    holder = hold_curation_lease(db)
    try:
        code, result, logs = finish_proc(curate_proc())
    finally:
        stop(holder)
    assert (code, result["status"]) == (0, "already-running")
    assert result["holder"]["pid"] == holder.pid
    [skipped] = [line for line in logs if line["event"] == "curate.skipped"]
    assert skipped["holder"]["owner"] == lease.CURATOR_OWNER
    assert DirtyMark(db).read()["run_id"] == result["run_id"]
    assert "curate.lease-acquired" not in events(logs)


def test_a_dead_holder_lease_is_broken_and_logged(db, curate_proc, finish_proc):
    holder = hold_curation_lease(db)
    stop(holder, kill=True)
    code, result, logs = finish_proc(curate_proc())
    assert (code, result["status"]) == (0, "ok")
    [broken] = [line for line in logs if line["event"] == "curate.lease-broken"]
    assert (broken["holder"]["pid"], broken["reason"]) == (holder.pid, "dead-pid")


def test_a_skip_during_a_pass_earns_exactly_one_more_pass(db, curate_proc, finish_proc,
                                                         tmp_path):
    # The first curator stays inside its pass until the skipper has finished: held at a gate
    # the test opens, not by a sleep the skipper's start-up must beat (it lost under load).
    gate = tmp_path / "resume"
    first = curate_proc(env={stages.PAUSE_ENV: "consolidate", stages.RESUME_ENV: str(gate)})
    paused = _read_until(first, "curate.test-paused")
    assert "curate.lease-acquired" in events(paused)
    code, skipped, _ = finish_proc(curate_proc())
    gate.touch()
    assert (code, skipped["status"]) == (0, "already-running")
    code, result, logs = finish_proc(first)
    assert (code, result["status"], result["passes"]) == (0, "ok", 2)
    assert "curate.dirty-pass" in events(logs)
    assert not DirtyMark(db).is_set()


def test_without_json_a_person_reads_one_line(db):
    done = subprocess.run([sys.executable, "-m", "claimgraph", "curate"], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0
    assert done.stdout.startswith("curate cur-") and "ok in 1 pass(es)" in done.stdout


def test_the_cli_stage_choices_are_the_stage_table():
    assert CURATE_STAGES == stages.STAGE_NAMES == tuple(stages.stage_table())


def test_a_failing_stage_is_contained_and_the_run_is_partial(db, monkeypatch):
    def boom(_ctx):
        raise RuntimeError("kaboom")
    def fine(_ctx):
        return {"counts": {"looked_at": 0}}
    table = {"consolidate": boom, "decay": fine, "audit": fine}
    monkeypatch.setattr(R, "stage_table", lambda: table)
    result = R.curate(R.Options(db=db), "cur-test")
    assert result["status"] == "partial"
    assert result["stages"]["consolidate"]["error"] == "RuntimeError: kaboom"
    assert result["stages"]["audit"]["status"] == "ok"


def test_losing_the_curation_lease_stops_the_run_before_writing(db, monkeypatch):
    def steal(ctx):
        lease.curate_lock_path(db).write_text(json.dumps(
            {"token": "someone-else", "expires_at": lease.now_ms() + 60_000}))
        with ctx.fence.writing(ctx.sh):
            raise AssertionError("a fenced write ran without the lease")
    monkeypatch.setattr(R, "stage_table", lambda: {"consolidate": steal})
    result = R.curate(R.Options(db=db), "cur-test")
    assert (result["status"], result["stages"]) == ("lease-lost", {})


def test_spawn_curator_detaches_and_appends_to_the_curate_log(db):
    log = Sidecars(db).curate_log
    log.write_text('{"earlier": "run"}\n')
    pid = spawn_curator(db)
    try:
        assert os.getsid(pid) == pid != os.getsid(0)
        lines = _wait_for_result(log)
    finally:
        os.waitpid(pid, 0)
    assert lines[0] == {"earlier": "run"}
    assert any(line.get("event") == "curate.result" and line["pid"] == pid for line in lines)


def _read_until(proc: subprocess.Popen, event: str) -> list[dict[str, Any]]:
    """A running curator's log lines up to ``event`` (its stderr; finish_proc reads the rest)."""
    seen: list[dict[str, Any]] = []
    while not seen or seen[-1]["event"] != event:
        line = proc.stderr.readline()
        assert line, f"the curator ended before {event}: {seen}"
        seen.append(json.loads(line))
    return seen


def _wait_for(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _wait_for_result(log: Path) -> list[dict[str, Any]]:
    _wait_for(lambda: '"curate.result"' in log.read_text())
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_decay_and_audit_stages_really_write_through_the_curator(db, curate_proc,
                                                                 finish_proc, tmp_path):
    from claimgraph.core.writes import assert_fact
    from claimgraph.opening import open_store
    project = tmp_path / "proj"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "pyproject.toml").write_text("[project]\nname = 'calc'\n")
    store = open_store(str(db))
    sh = Shell(store=store, clock=lambda: 1_000)  # asserted long ago: decays below the threshold
    seed(sh)
    faded = assert_fact(sh, "api", "depends-on", "redis", source_type="session-log", confidence=0.3)
    cited = assert_fact(sh, "add", "defined-in", "calc.py", source_type="code",
                        evidence=["calc.py: `def add(a, b):`"])
    store.close()
    code, result, _ = finish_proc(curate_proc(cwd=project))
    assert code == 0 and result["stages"]["decay"]["status"] == "ok", result
    store = open_store(str(db))
    try:
        assert faded["fact"]["id"] in store.dormant_fact_ids()
        verdicts = {row["fact_id"]: row["verdict"] for row in store.get_audit()}
        assert verdicts == {cited["fact"]["id"]: "supported"}
    finally:
        store.close()
