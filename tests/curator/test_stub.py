"""``claimgraph curate`` (the stub): the curation lease is tried once, never waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claimgraph import lease
from claimgraph.curator import spawn_curator
from claimgraph.sidecar import Sidecars


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


def curate(*argv: str) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """A real ``claimgraph curate --json``: exit code, the result line, the log lines."""
    done = subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--json", *argv],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))
    logs = [json.loads(line) for line in done.stderr.splitlines()]
    return done.returncode, json.loads(done.stdout), logs


def hold_curation_lease(db: Path) -> subprocess.Popen:
    """Another live curator: a process holding the lease until its stdin closes."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys; from claimgraph.lease import curation_lease; "
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


def test_a_lone_curator_takes_the_lease_logs_its_run_and_releases(db):
    code, result, logs = curate()
    assert (code, result["status"]) == (0, "ok")
    events = [line["event"] for line in logs]
    assert events == ["curate.started", "curate.lease-acquired", "curate.stub",
                      "curate.lease-released"]
    assert {line["run_id"] for line in logs} == {result["run_id"]}
    assert all(line["level"] == "info" and line["ts"].endswith("Z") for line in logs)
    assert not lease.curate_lock_path(db).exists()


def test_a_curator_finding_a_live_holder_skips_naming_it_and_succeeds(db):
    holder = hold_curation_lease(db)
    try:
        code, result, logs = curate()
    finally:
        stop(holder)
    assert (code, result["status"]) == (0, "already-running")
    assert result["holder"]["pid"] == holder.pid
    assert result["holder"]["owner"] == lease.CURATOR_OWNER
    [skipped] = [line for line in logs if line["event"] == "curate.skipped"]
    assert skipped["holder"]["pid"] == holder.pid
    assert "curate.lease-acquired" not in {line["event"] for line in logs}


def test_a_dead_holder_lease_is_broken_and_the_break_is_logged(db):
    holder = hold_curation_lease(db)
    stop(holder, kill=True)
    code, result, logs = curate()
    assert (code, result["status"]) == (0, "ok")
    [acquired] = [line for line in logs if line["event"] == "curate.lease-acquired"]
    assert acquired["broken"]["pid"] == holder.pid
    assert acquired["broken"]["reason"] == "dead-pid"


def test_concurrent_curators_all_exit_zero_and_none_waits(db):
    env = dict(os.environ)
    holder = hold_curation_lease(db)
    try:
        runs = [subprocess.Popen([sys.executable, "-m", "claimgraph", "curate", "--json"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(4)]
        outcomes = [(run.wait(timeout=60), json.loads(run.communicate()[0])) for run in runs]
    finally:
        stop(holder)
    assert [code for code, _ in outcomes] == [0, 0, 0, 0]
    assert {result["status"] for _, result in outcomes} == {"already-running"}
    assert {result["holder"]["pid"] for _, result in outcomes} == {holder.pid}


def test_without_json_a_person_reads_one_line(db):
    done = subprocess.run([sys.executable, "-m", "claimgraph", "curate"], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0
    assert done.stdout.startswith("curate cur-") and done.stdout.strip().endswith(": done")


def test_spawn_curator_detaches_and_appends_to_the_curate_log(db):
    log = Sidecars(db).curate_log
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text('{"earlier": "run"}\n')
    pid = spawn_curator(db)
    try:
        assert os.getsid(pid) == pid != os.getsid(0)  # a session of its own
        lines = _wait_for_result(log)
    finally:
        os.waitpid(pid, 0)  # never awaited in production, where the spawner exits at once
    assert lines[0] == {"earlier": "run"}
    assert any(line.get("event") == "curate.started" and line["pid"] == pid for line in lines)


def _wait_for_result(log: Path, timeout: float = 20.0) -> list[dict[str, Any]]:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        if any("status" in line for line in lines):
            return lines
        time.sleep(0.05)
    raise AssertionError(f"no curator result in {log}: {log.read_text()!r}")
