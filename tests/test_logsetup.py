"""Logging: pure processors on plain dicts, JSON lines in a sidecar file, console on stderr only."""

from __future__ import annotations

import sys
import json
import os
import re
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from claimgraph.errors import ClaimgraphError
from claimgraph.logsetup import (add_level, configure_logging, leading_keys_first, level_number,
                                 pid_stamper, reset_logging, timestamper)

ISO_MS_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture(autouse=True)
def pristine_structlog():
    """Each test configures logging itself; leave no file handle or config behind."""
    yield
    structlog.contextvars.clear_contextvars()
    reset_logging()


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_add_level_names_the_method_and_folds_aliases():
    assert add_level(None, "info", {"event": "x"})["level"] == "info"
    assert add_level(None, "warn", {})["level"] == "warning"
    assert add_level(None, "exception", {})["level"] == "error"


def test_timestamper_writes_iso_utc_with_milliseconds():
    stamp = timestamper(clock=lambda: 1767225600.1239)
    assert stamp(None, "info", {})["ts"] == "2026-01-01T00:00:00.123Z"
    assert stamp(None, "info", {"ts": "kept"})["ts"] == "kept"


def test_pid_stamper_asks_for_the_pid_at_each_event():
    pids = iter([101, 202])
    stamp = pid_stamper(lambda: next(pids))
    assert stamp(None, "info", {})["pid"] == 101 and stamp(None, "info", {})["pid"] == 202


def test_leading_keys_come_first_and_the_rest_keep_their_order():
    event = {"z": 1, "session": "s", "event": "e", "a": 2, "ts": "t", "level": "info",
             "pid": 7, "run_id": "r"}
    assert list(leading_keys_first(None, "info", event)) == [
        "ts", "level", "event", "pid", "run_id", "session", "z", "a"]


def test_level_number_rejects_unknown_levels():
    assert level_number("WARNING") == 30
    with pytest.raises(ClaimgraphError) as bad:
        level_number("loud")
    assert bad.value.type == "invalid-setting"


def test_json_mode_appends_one_object_per_line_with_the_required_keys(tmp_path, capsys):
    log = tmp_path / "logs" / "claims.db.capture.log"
    configure_logging("json", log)
    structlog.contextvars.bind_contextvars(run_id="run-1")
    logger = structlog.get_logger()
    logger.info("capture.started", session="sess-9", segments=2)
    logger.debug("capture.noise")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logger.exception("capture.failed")
    first, second = read_lines(log)
    assert list(first)[:6] == ["ts", "level", "event", "pid", "run_id", "session"]
    assert ISO_MS_UTC.match(first["ts"]) and first["pid"] == os.getpid()
    assert (first["level"], first["event"], first["segments"]) == ("info", "capture.started", 2)
    assert second["level"] == "error" and "RuntimeError: boom" in second["exception"]
    assert capsys.readouterr().out == ""


def test_json_mode_appends_to_an_existing_file(tmp_path):
    log = tmp_path / "claims.db.curate.log"
    log.write_text("Traceback from a dying interpreter\n")
    configure_logging("json", log)
    structlog.get_logger().warning("curate.skipped", holder="other")
    lines = log.read_text().splitlines()
    assert lines[0].startswith("Traceback") and json.loads(lines[1])["level"] == "warning"


def test_configuring_again_switches_files_and_levels(tmp_path):
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    configure_logging("json", first)
    logger = structlog.get_logger()
    logger.info("one")
    configure_logging("json", second, level="debug")
    logger.debug("two")
    assert [e["event"] for e in read_lines(first)] == ["one"]
    assert [e["event"] for e in read_lines(second)] == ["two"]


def test_console_mode_writes_to_stderr_and_never_to_stdout(capsys):
    configure_logging("console", level="info")
    structlog.get_logger().warning("lease.broken", reason="dead-pid")
    structlog.get_logger().debug("hidden")
    out, err = capsys.readouterr()
    assert out == ""
    assert "lease.broken" in err and "reason=dead-pid" in err and "hidden" not in err


def test_capture_logs_still_works_after_configuring(tmp_path):
    configure_logging("json", tmp_path / "x.log")
    with capture_logs() as events:
        structlog.get_logger().info("curate.done", facts=3)
    assert events == [{"event": "curate.done", "facts": 3, "log_level": "info"}]


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError):
        configure_logging("syslog")


def test_console_logging_follows_a_swapped_stderr_and_survives_the_old_one_closing(monkeypatch):
    """A harness that swaps ``sys.stderr`` and closes the old stream (pytest does, per test)
    must not leave every later log line raising "I/O operation on closed file"."""
    import io

    import structlog

    from claimgraph.logsetup import configure_logging, reset_logging

    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    try:
        configure_logging("console")
        monkeypatch.setattr(sys, "stderr", second)
        first.close()
        structlog.get_logger().warning("sync.quarantined", reason="not-its-own")
    finally:
        reset_logging()
    assert "sync.quarantined" in second.getvalue()


def test_log_lines_keep_an_mcp_progress_token_and_request_id_but_not_a_secret(tmp_path):
    """Ids are what a reader of the log follows a request by; a credential never lands."""
    log = tmp_path / "claims.db.mcp.log"
    configure_logging("json", log)
    token, secret = "e712bd79-2976-4de4-809c-703186a6e6c0", "ghp_" + "A" * 36
    structlog.get_logger().info("mcp.call", progressToken=token, request_id=token,
                                meta={"progressToken": token}, note=f"GITHUB_TOKEN={secret}",
                                access_token="a8Fk29Dk3mXq0PzL7wT1")
    [line] = read_lines(log)
    assert line["progressToken"] == line["request_id"] == line["meta"]["progressToken"] == token
    assert line["note"] == "GITHUB_TOKEN=[REDACTED:github-token]"
    assert line["access_token"] == "[REDACTED:secret]"


def test_a_weakly_secret_named_field_of_ours_keeps_its_id(tmp_path):
    """``key=`` in the daemon's line is a ledger key (``capture:<agent>:<session>``), an id."""
    log = tmp_path / "claims.db.daemon.log"
    configure_logging("json", log)
    key = "capture:claude-code:e712bd79-2976-4de4-809c-703186a6e6c0"
    structlog.get_logger().info("daemon.capture-deferred", key=key, passes=3,
                                password="hunter2-but-longer")
    [line] = read_lines(log)
    assert (line["key"], line["passes"], line["password"]) == (key, 3, "[REDACTED:secret]")
