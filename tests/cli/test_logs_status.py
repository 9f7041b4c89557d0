"""``claimgraph logs`` and ``claimgraph status`` through the CLI, and follow as a real process."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimgraph import lease

from .conftest import one_line

CAPTURED = {"ts": "2026-03-01T10:00:00.000Z", "level": "info", "event": "capture.report",
            "pid": 7, "run_id": "cap-1", "session": "s1", "status": "captured",
            "duration_ms": 812, "counts": {"facts": 3}}
FAILED = {"ts": "2026-03-01T10:05:00.000Z", "level": "error", "event": "capture.failed",
          "pid": 8, "session": "s2", "status": "error", "error": "no such transcript"}
CURATED = {"ts": "2026-03-01T10:02:00.000Z", "level": "info", "event": "curate.result",
           "pid": 9, "run_id": "cur-1", "status": "ok"}


def write(path: Path, *lines: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        for item in lines:
            out.write((json.dumps(item) if isinstance(item, dict) else item) + "\n")


@pytest.fixture
def logged(db: Path) -> Path:
    write(Path(f"{db}.capture.log"), CAPTURED, FAILED, "Traceback (most recent call last):")
    write(Path(f"{db}.curate.log"), CURATED)
    return db


def test_logs_human_view_one_line_per_event(cli, logged: Path) -> None:
    result = cli("logs")
    assert result.code == 0
    assert result.out.splitlines() == [
        "2026-03-01T10:00:00.000Z  capture  info     capture.report  status=captured  "
        "session=s1  run_id=cap-1  duration_ms=812  learned=3 facts  project=no project",
        "2026-03-01T10:02:00.000Z  curate   info     curate.result  status=ok  run_id=cur-1",
        "2026-03-01T10:05:00.000Z  capture  error    capture.failed  status=error  session=s2"
        "  error=no such transcript",
        f"{'':24}  capture  raw      Traceback (most recent call last):"]


def test_the_routine_events_of_a_run_that_went_well_are_shown_only_when_asked(
        cli, db: Path) -> None:
    routine = [{"ts": f"2026-03-01T10:0{n}:00.000Z", "level": "info", "event": event,
                "run_id": "cur-2", **({"status": "ok"} if "finished" in event else {})}
               for n, event in enumerate(("curate.started", "curate.lease-acquired",
                                          "curate.stage-started", "curate.stage-finished"))]
    failed_stage = {"ts": "2026-03-01T10:05:00.000Z", "level": "error",
                    "event": "curate.stage-finished", "status": "failed", "run_id": "cur-2"}
    write(Path(f"{db}.curate.log"), *routine, failed_stage, CURATED)
    shown = [line.split()[3] for line in cli("logs").out.splitlines()]
    assert sorted(shown) == ["curate.result", "curate.stage-finished"]
    assert len(cli("logs", "--all-events").out.splitlines()) == 6
    assert len(cli("logs", "--run", "cur-2").out.splitlines()) == 5
    assert len(cli("logs", "--json").json()) == 6


def test_logs_json_gives_the_events_as_written(cli, logged: Path) -> None:
    result = cli("logs", "capture", "-n", "2", "--json")
    assert result.json() == [{**FAILED, "log": "capture"},
                             {"log": "capture", "raw": "Traceback (most recent call last):"}]


def test_logs_filters_and_n_zero(cli, logged: Path) -> None:
    assert len(cli("logs", "all", "-n", "0", "--json").json()) == 4
    assert [e["event"] for e in cli("logs", "--event", "curate", "--json").json()] == [
        "curate.result"]
    assert [e.get("event") for e in cli("logs", "--level", "error", "--json").json()] == [
        "capture.failed", None]
    assert [e["session"] for e in cli("logs", "--session", "s1", "--json").json()] == ["s1"]
    assert [e["run_id"] for e in cli("logs", "--run", "cur-1", "--json").json()] == ["cur-1"]
    assert cli("logs", "--since", "2026-03-01T10:03", "--json").json()[0] == {
        **FAILED, "log": "capture"}


def test_logs_on_no_logs_says_so(cli, db: Path) -> None:
    result = cli("logs", "daemon")
    assert (result.code, result.out) == (0, "no matching events in the daemon log(s)\n")


def test_logs_path(cli, db: Path) -> None:
    assert cli("logs", "path", "--json").json() == {
        "capture": f"{db}.capture.log", "curate": f"{db}.curate.log",
        "daemon": f"{db}.daemon.log", "mcp": f"{db}.mcp.log"}


@pytest.mark.parametrize("argv, needle", [
    (("logs", "--since", "yesterday"), "give a duration like 30m, 1h, 2d"),
    (("logs", "--level", "loud"), "use one of debug, info"),
    (("logs", "-n", "-3"), "-n 0 for every event"),
    (("logs", "path", "-f"), "drop --follow"),
    (("logs", "path", "--since", "1h"), "drop --since"),
    (("logs", "-f", "--json"), "drop --json"),
])
def test_bad_logs_flags_fail_in_one_line_naming_the_fix(cli, db: Path, argv, needle) -> None:
    result = cli(*argv)
    assert result.code == 1 and result.out == ""
    assert needle in one_line(result.err)


def test_unknown_log_is_a_usage_error(cli, db: Path) -> None:
    assert cli("logs", "kernel").code == 2


def test_status_on_an_empty_machine(cli, db: Path) -> None:
    result = cli("status")
    assert result.code == 1 and result.err == ""
    assert "(not created yet)" in result.out
    assert result.out.splitlines()[-2:] == [
        f"! there is no store at {db} yet", "  → run ./install.sh or claimgraph init"]


def test_status_on_a_future_store_is_clear_without_traceback(cli, db: Path) -> None:
    assert cli("assert", "api", "prefers", "rest").code == 0
    Path(f"{db}.version").write_text(json.dumps({"format": 99, "version": "9.0"}))
    result = cli("status")
    assert result.code == 1 and "Traceback" not in result.out + result.err
    assert "cannot open: future-format" in result.out
    assert "upgrade claimgraph" in result.out
    assert cli("status", "--json").json()["store"]["error_type"] == "future-format"


def test_status_with_a_dead_lease_holder(cli, db: Path) -> None:
    assert cli("assert", "api", "prefers", "rest").code == 0
    assert cli("install").code == 0
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    lease.write_lock_path(db).write_text(json.dumps({
        "token": "t", "owner": "claimgraph-cli", "pid": child.pid, "process_start": 1.0,
        "host": lease.HOST, "acquired_at": 0, "expires_at": 10**15}))
    result = cli("status")
    assert result.code == 1
    assert f"write lease  DEAD: 'claimgraph-cli' (pid {child.pid}" in result.out
    assert "the next claimgraph run takes it over" in result.out


def test_status_healthy_exits_zero(cli, db: Path) -> None:
    assert cli("assert", "api", "prefers", "rest").code == 0
    assert cli("install").code == 0
    result = cli("status")
    assert result.code == 0, result.out
    assert result.out.splitlines()[-1] == "all good"
    assert "1 valid facts, 0 dormant, 0 suspect, 0 flagged, 0 episodes" in result.out


def read_lines(proc: subprocess.Popen, count: int, timeout_s: float = 10.0) -> list[str]:
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    while len(lines) < count:
        assert selector.select(max(0.0, deadline - time.monotonic())), f"only got {lines}"
        lines.append(proc.stdout.readline().rstrip("\n"))
    return lines


def as_from_a_terminal() -> None:
    """Ctrl-C reaches a command started from a terminal. A suite run as a background job
    (``cmd &`` in a script) inherits SIGINT ignored, and Python then keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_follow_as_a_process_sees_appends_and_rotation_and_stops_on_ctrl_c(db: Path) -> None:
    log = Path(f"{db}.capture.log")
    write(log, CAPTURED)
    proc = subprocess.Popen([sys.executable, "-m", "claimgraph", "logs", "capture", "-n", "1",
                             "-f", "--interval", "0.05"], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ), preexec_fn=as_from_a_terminal)
    try:
        assert "capture.report" in read_lines(proc, 1)[0]
        write(log, {**CAPTURED, "event": "capture.appended"})
        assert "capture.appended" in read_lines(proc, 1)[0]
        os.rename(log, Path(f"{log}.1"))
        write(log, {**CAPTURED, "event": "capture.after-rotation"})
        assert "capture.after-rotation" in read_lines(proc, 1)[0]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
