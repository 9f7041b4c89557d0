"""The daemon as real processes: start, status, stop, kill -9 and take-over, no network port."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from claimgraph.daemon import pid_path
from claimgraph.daemon.singleton import Singleton, state

from daemon_helpers import cli, episodes, wait_for, write_session

FAST = {"CLAIMGRAPH_DAEMON_SPOOL_AGE_SECONDS": "0", "CLAIMGRAPH_DAEMON_SWEEP_SECONDS": "1",
        "CLAIMGRAPH_DAEMON_HEARTBEAT_SECONDS": "1", "CLAIMGRAPH_DAEMON_IDLE_MINUTES": "60"}


@pytest.fixture
def daemon():
    """Start the daemon; stop it (or kill what is left of it) after the test."""
    started: list[int] = []

    def start() -> int:
        result = cli("daemon", "start", "--json", env=FAST)
        assert result.returncode == 0, result.stderr
        started.append(json.loads(result.stdout)["pid"])
        return started[-1]
    yield start
    cli("daemon", "stop", env=FAST)
    for pid in started:
        if psutil.pid_exists(pid):
            os.kill(pid, signal.SIGKILL)


def status() -> dict:
    return json.loads(cli("daemon", "status", "--json").stdout)


def test_start_status_stop(daemon, db):
    assert status()["state"] == "stopped"
    pid = daemon()
    report = status()
    assert (report["state"], report["pid"]) == ("running", pid)
    assert {"heartbeat", "rotate", "sweep"} <= set(report["jobs"])
    assert report["jobs"]["sweep"]["result"] == "ok"
    assert "already runs" in cli("daemon", "start").stdout
    assert cli("daemon", "stop").returncode == 0
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert status()["state"] == "stopped"
    assert not pid_path(db).exists()
    events = [json.loads(line)["event"]
              for line in Path(f"{db}.daemon.log").read_text().splitlines()]
    assert events[0] == "daemon.started" and events[-1] == "daemon.stopped"


def test_killed_with_9_then_restarted_takes_over_and_loses_no_spooled_session(
        daemon, db, projects, tmp_path):
    first = daemon()
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: state(db)[0] == "stale", what="the pid file to go stale")
    transcript = write_session(projects, tmp_path / "proj", "while-dead")
    spool = Path(f"{db}.spool")
    spool.mkdir(parents=True, exist_ok=True)
    record = {"agent": "claude-code", "session_id": "while-dead", "cwd": str(tmp_path / "proj"),
              "transcript_path": str(transcript), "hook_event_name": "SessionEnd"}
    (spool / "claude-code-while-dead.json").write_text(json.dumps(record), encoding="utf-8")
    second = daemon()
    assert second != first and status()["pid"] == second
    wait_for(lambda: not (spool / "claude-code-while-dead.json").exists(), what="the spool")
    assert episodes(db) == [f"claude-code:while-dead@0-{transcript.stat().st_size}"]
    started = [json.loads(line) for line in Path(f"{db}.daemon.log").read_text().splitlines()
               if '"daemon.started"' in line]
    assert started[-1]["took_over"]["pid"] == first


def test_the_daemon_opens_no_network_port(daemon):
    pid = daemon()
    process = psutil.Process(pid)
    time.sleep(1.5)  # a sweep and a heartbeat have run
    sockets = [c for p in [process, *process.children(recursive=True)]
               for c in p.net_connections(kind="inet")]
    assert sockets == []


def test_a_reused_pid_in_the_pid_file_is_stale_and_taken_over(db):
    db.parent.mkdir(parents=True, exist_ok=True)
    me = psutil.Process(os.getpid())
    pid_path(db).write_text(json.dumps({"pid": os.getpid(), "host": __import__(
        "claimgraph.lease", fromlist=["HOST"]).HOST, "process_start": me.create_time() - 3600}))
    assert state(db)[0] == "stale"
    claim = Singleton(db)
    claim.acquire()
    assert claim.took_over["process_start"] == me.create_time() - 3600
    assert state(db)[0] == "running"
    claim.release()
    assert state(db)[0] == "stopped"


def test_a_live_daemon_is_not_taken_over(db):
    first = Singleton(db)
    first.acquire()
    with pytest.raises(Exception) as err:
        Singleton(db).acquire()
    assert getattr(err.value, "type", None) == "daemon-running"
    first.release()


def size(path: Path) -> int | None:
    """The file's size, or None between a rotation's rename and the next line written."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return None


def test_the_periodic_jobs_curate_and_rotate_the_daemons_own_log_while_it_runs(db):
    env = {**FAST, "CLAIMGRAPH_DAEMON_CURATE_SECONDS": "1", "CLAIMGRAPH_DAEMON_ROTATE_SECONDS": "1",
           "CLAIMGRAPH_DAEMON_LOG_MAX_BYTES": "1500"}
    result = cli("daemon", "start", "--json", env=env)
    assert result.returncode == 0, result.stderr
    pid = json.loads(result.stdout)["pid"]
    try:
        wait_for(lambda: "curate" in status().get("jobs", {}), timeout=90)
        wait_for(lambda: Path(f"{db}.curate.log").exists()
                 and "curate.result" in Path(f"{db}.curate.log").read_text(), timeout=90)
        log = Path(f"{db}.daemon.log")  # renamed away at each rotation, until the next line
        wait_for(lambda: Path(f"{db}.daemon.log.1").exists() and size(log) is not None,
                 timeout=90)
        before = size(log) or 0
        wait_for(lambda: (size(log) or 0) > before, timeout=90)
        assert status()["state"] == "running"
    finally:
        cli("daemon", "stop", env=env)
        if psutil.pid_exists(pid):
            os.kill(pid, signal.SIGKILL)
    generations = [Path(f"{db}.daemon.log")] + sorted(Path(db).parent.glob("*.daemon.log.*"))
    lines = [line for path in generations for line in path.read_text().splitlines()]
    assert all(json.loads(line)["event"] for line in lines)  # none lost mid-line or split
