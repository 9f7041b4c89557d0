"""``status.gather`` over real files: no store, a future store, logs, leases, daemon, hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from claimgraph import lease
from claimgraph.cli.main import main
from claimgraph.cli.status import render
from claimgraph.health import status
from claimgraph.logic.timeutil import from_iso, to_iso
from claimgraph.store import leases

NOW = from_iso("2026-03-01T12:00:00Z")
HOUR = 3_600_000


@pytest.fixture
def db(isolated_home: Path) -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


def gather(db: Path) -> dict:
    return status.gather(db, dict(os.environ), NOW)


def problems(report: dict) -> str:
    return "\n".join(f"{i['problem']} -> {i['what_to_do']}" for i in report["needs_attention"])


def write_log(path: Path, *records: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps({"pid": 1, "level": "info", **record}) + "\n")


def at(hours_ago: float) -> str:
    return to_iso(NOW - int(hours_ago * HOUR))


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def store(db: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["assert", "api", "prefers", "rest"]) == 0
    assert main(["install"]) == 0
    capsys.readouterr()
    return db


def test_empty_machine_says_there_is_no_store_and_what_to_run(db: Path) -> None:
    report = gather(db)
    assert report["store"] == {"path": str(db), "exists": False}
    assert report["last_capture"] is None and report["last_curation"] is None
    assert report["daemon"]["state"] == "stopped"
    assert "run ./install.sh or claimgraph init" in problems(report)


def test_healthy_store_needs_nothing(store: Path) -> None:
    report = gather(store)
    assert report["store"]["counts"] == {"valid": 1, "dormant": 0, "suspect": 0, "flagged": 0,
                                         "episodes": 0, "unsupported": 0, "files_missing": 0}
    assert report["hooks"]["claude-code"]["installed"]
    assert report["needs_attention"] == []


def test_future_format_is_a_clear_problem_not_a_crash(store: Path) -> None:
    Path(f"{store}.version").write_text(json.dumps({"format": 99, "version": "9.0"}))
    report = gather(store)
    assert report["store"]["error_type"] == "future-format"
    assert "upgrade claimgraph" in problems(report)


def test_last_capture_and_curation_come_from_the_logs(store: Path) -> None:
    write_log(Path(f"{store}.capture.log"),
              {"ts": at(3), "event": "capture.report", "status": "captured", "session": "s1",
               "duration_ms": 1200, "run_id": "cap-1"},
              {"ts": at(2), "event": "hook.spawned"})
    write_log(Path(f"{store}.curate.log"),
              {"ts": at(1), "event": "curate.started", "run_id": "cur-1"},
              {"ts": at(0.5), "event": "curate.stage-finished", "run_id": "cur-1"},
              {"ts": at(0.25), "event": "curate.result", "status": "ok", "run_id": "cur-1"})
    report = gather(store)
    assert report["last_capture"] == {
        "when": at(3), "event": "capture.report", "result": "captured", "run_id": "cap-1",
        "session": "s1", "duration_ms": 1200, "error": None}
    assert report["last_curation"]["result"] == "ok"
    assert report["last_curation"]["duration_ms"] == int(0.75 * HOUR)


def test_failures_in_the_last_day_are_counted_with_the_command(store: Path) -> None:
    write_log(Path(f"{store}.capture.log"),
              {"ts": at(30), "event": "capture.failed", "level": "error"},
              {"ts": at(5), "event": "capture.failed", "level": "error", "error": "boom"})
    Path(f"{store}.curate.log").write_text(
        json.dumps({"ts": at(2), "level": "info", "event": "curate.started"}) + "\n"
        "Traceback (most recent call last):\n  File \"x\"\nValueError: dead\n")
    report = gather(store)
    assert report["failures"]["by_log"] == {"capture": 1, "curate": 1}
    assert "claimgraph logs all --since 24h --level error" in problems(report)
    assert report["last_capture"]["error"] == "boom"


def test_model_extractor_failures_of_the_day_are_counted_with_the_latest_hint(
        store: Path, capsys) -> None:
    missing = {"event": "capture.model-failed", "level": "warning", "reason": "llm-command-missing",
               "message": "the model command 'claude' was not found", "hint": "install claude"}
    write_log(Path(f"{store}.capture.log"),
              {**missing, "ts": at(30)},
              {**missing, "ts": at(4)},
              {"ts": at(3), "event": "capture.model-budget", "level": "warning",
               "reason": "llm-budget-exhausted", "message": "spent", "hint": "raise budget"},
              {"ts": at(2), "event": "capture.report", "status": "captured", "run_id": "cap-2"})
    report = gather(store)
    assert report["model_extractor"] == {
        "count": 2, "by_reason": {"llm-command-missing": 1, "llm-budget-exhausted": 1},
        "latest": "spent", "hint": "raise budget"}
    assert report["failures"]["count"] == 0  # warnings: the captures themselves went on
    assert "model extractor failed 2 time(s)" in problems(report)
    assert "-> raise budget" in problems(report)
    lines = render(report, NOW)
    assert any(line.startswith("model") and "2 failed call(s)" in line for line in lines)


def test_no_model_failures_means_no_model_row(store: Path) -> None:
    report = gather(store)
    assert report["model_extractor"]["count"] == 0
    assert not any(line.startswith("model") for line in render(report, NOW))


def test_a_lease_held_by_a_dead_pid_is_shown_dead_with_what_to_do(store: Path) -> None:
    pid = dead_pid()
    record = {"token": "t", "owner": "claimgraph-cli", "pid": pid, "process_start": 1.0,
              "host": lease.HOST, "acquired_at": NOW, "expires_at": NOW + 10**9}
    lease.write_lock_path(store).write_text(json.dumps(record))
    report = gather(store)
    held = report["leases"]["write"]
    assert held["held"] and not held["alive"] and held["pid"] == pid
    assert report["leases"]["curate"] == {"path": f"{store}.curate.lock", "held": False}
    assert "held by a dead process" in problems(report)
    assert "next claimgraph run takes it over" in problems(report)


def test_a_live_lease_holder_is_not_a_problem(store: Path) -> None:
    with leases.write_lease(store, "test", wait_ms=0):
        report = gather(store)
    assert report["leases"]["write"]["alive"]
    assert report["needs_attention"] == []


def test_daemon_state_from_its_pid_file(db: Path) -> None:
    assert status.daemon_state(db)["state"] == "stopped"
    pid_file = Path(f"{db}.daemon.pid")
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    me = psutil.Process()
    pid_file.write_text(json.dumps({"pid": me.pid, "process_start": me.create_time(),
                                    "host": lease.HOST}))
    Path(f"{db}.daemon.status").write_text(json.dumps({"heartbeat_at": at(0), "jobs": {}}))
    daemon = status.daemon_state(db)
    assert {k: daemon[k] for k in ("state", "pid", "heartbeat_at", "jobs")} == {
        "state": "running", "pid": me.pid, "heartbeat_at": at(0), "jobs": {}}
    pid_file.write_text(json.dumps({"pid": dead_pid(), "host": lease.HOST}))
    assert status.daemon_state(db)["state"] == "stale"
    pid_file.write_text("garbage")
    assert status.daemon_state(db)["state"] == "stale"


def test_no_hooks_and_no_daemon_means_nothing_captures(db: Path, capsys) -> None:
    assert main(["assert", "api", "prefers", "rest"]) == 0
    report = gather(db)
    assert report["hooks"]["claude-code"] == {
        "settings": str(Path(os.environ["HOME"]) / ".claude" / "settings.json"),
        "events": [], "installed": False, "agent_found": False}
    assert "run `claimgraph install`" in problems(report)


def test_when_reads_as_time_ago() -> None:
    assert status.when(at(3), NOW) == f"{at(3)} (3h ago)"
    assert status.when(None, NOW) == "never"


def test_the_store_s_counts_are_read_once(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``stats`` counts every fact (~5 ms at 100k facts): the format and the counts share one
    reading of it (issue 29)."""
    from claimgraph.store.sqlite import SqliteStore
    calls = []
    real = SqliteStore.stats
    monkeypatch.setattr(SqliteStore, "stats", lambda self: calls.append(1) or real(self))
    report = gather(store)
    assert report["store"]["counts"]["valid"] == 1 and report["store"]["format"]
    assert len(calls) == 1
