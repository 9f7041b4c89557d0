"""Every bad input the hook can meet (issue 3's list): exit 0 at once, nothing on stdout, the
reason in capture.log (on stderr when that cannot be written), and whatever can still be
captured is handed on."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import HOOK, HookRun, Hooks, without_dac_override


def quietly_ok(run: HookRun) -> None:
    assert run.code == 0
    assert run.out == b""


def reasons(hooks: Hooks, event: str) -> list[str]:
    return [line["reason"] for line in hooks.log() if line["event"] == event]


def spooled_record(hooks: Hooks) -> dict:
    [path] = hooks.spooled()
    return json.loads(path.read_text())


# --- stdin ------------------------------------------------------------------------------------

def test_malformed_json_is_logged_and_its_fields_are_salvaged(hooks: Hooks):
    run = hooks.run(b'{"session_id": "sess-1", "cwd": "/tmp", "transcript_path": "/cut-off')
    quietly_ok(run)
    [reason] = reasons(hooks, "hook.stdin-problem")
    assert "not valid JSON" in reason
    assert spooled_record(hooks)["session_id"] == "sess-1"
    assert hooks.children()


def test_json_that_is_not_an_object_is_logged_and_skipped(hooks: Hooks):
    quietly_ok(hooks.run(b'["session_id", "sess-1"]'))
    assert "not an object" in reasons(hooks, "hook.stdin-problem")[0]
    assert reasons(hooks, "hook.skipped") and hooks.spooled() == []
    assert hooks.no_child_started()


def test_empty_stdin_is_logged_and_nothing_is_started(hooks: Hooks):
    quietly_ok(hooks.run(b""))
    assert reasons(hooks, "hook.stdin-problem") == ["stdin was empty"]
    assert "neither a session_id nor a transcript_path" in reasons(hooks, "hook.skipped")[0]
    assert hooks.spooled() == [] and hooks.no_child_started()


def test_two_mebibytes_of_stdin_are_cut_to_one_and_the_session_still_captured(hooks: Hooks):
    payload = hooks.payload(hook_event_name="Stop", last_assistant_message="x" * (2 << 20))
    run = hooks.run(payload)
    quietly_ok(run)
    [reason] = reasons(hooks, "hook.stdin-problem")
    assert reason.startswith(f"stdin of {len(json.dumps(payload))} bytes was cut")
    assert spooled_record(hooks)["transcript_path"] == str(hooks.transcript)
    assert hooks.children()


def test_a_stdin_that_never_closes_costs_half_a_second_not_the_budget(hooks: Hooks):
    child = subprocess.Popen([*HOOK, "session-end"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env=hooks.env)
    started = time.monotonic()
    child.stdin.write(json.dumps(hooks.payload()).encode())
    child.stdin.flush()
    try:
        assert child.wait(timeout=30) == 0
        elapsed = time.monotonic() - started
    finally:
        child.stdin.close()
    # It waited for its half-second stdin deadline, then went on without the rest (had it
    # waited for stdin to close, wait() above would have timed out).
    assert elapsed >= 0.4
    assert child.stdout.read() == b""
    assert "not closed within" in reasons(hooks, "hook.stdin-problem")[0]
    assert hooks.children()


def test_a_payload_without_session_or_transcript_is_logged_and_skipped(hooks: Hooks):
    quietly_ok(hooks.run({"cwd": "/tmp", "hook_event_name": "SessionEnd"}))
    assert reasons(hooks, "hook.skipped")
    assert hooks.spooled() == [] and hooks.no_child_started()


@pytest.mark.parametrize("argv", [("session-ends",), ("session-end", "--agent"), ()],
                         ids=["unknown-event", "agent-without-name", "no-event"])
def test_a_wrong_command_line_exits_zero_with_usage_on_stderr_only(hooks: Hooks, argv):
    started = time.monotonic()
    done = subprocess.run([*HOOK, *argv], input=json.dumps(hooks.payload()).encode(),
                          env=hooks.env, capture_output=True, timeout=30)
    quietly_ok(HookRun(done.returncode, done.stdout, done.stderr, time.monotonic() - started))
    assert done.stderr.startswith(b"usage:")
    assert hooks.spooled() == [] and hooks.no_child_started()


# --- the transcript path ----------------------------------------------------------------------

@pytest.mark.parametrize("value", [None, ""], ids=["missing", "empty"])
def test_a_missing_or_empty_transcript_path_is_logged_and_left_to_capture(hooks: Hooks, value):
    quietly_ok(hooks.run(hooks.payload(transcript_path=value) if value is None
                         else {**hooks.payload(), "transcript_path": value}))
    assert "no transcript_path" in reasons(hooks, "hook.transcript-suspect")[0]
    assert spooled_record(hooks)["transcript_path"] is None
    assert hooks.children()


def test_a_transcript_that_does_not_exist_yet_is_still_spooled(hooks: Hooks):
    quietly_ok(hooks.run(hooks.payload(transcript_path=str(hooks.home / "late.jsonl"))))
    assert "No such file" in reasons(hooks, "hook.transcript-suspect")[0]
    assert hooks.spooled() and hooks.children()


def symlink_loop(hooks: Hooks) -> str:
    a, b = hooks.home / "loop-a", hooks.home / "loop-b"
    a.symlink_to(b)
    b.symlink_to(a)
    return str(a)


@pytest.mark.parametrize("where, says", [
    (lambda h: str(h.home), "is a directory"),
    (lambda h: "/dev/zero", "not a regular file"),
    (symlink_loop, "symlink loop"),
], ids=["directory", "dev-zero", "symlink-loop"])
def test_a_transcript_path_that_can_never_be_a_transcript_is_logged_and_skipped(
        hooks: Hooks, where, says):
    quietly_ok(hooks.run(hooks.payload(transcript_path=where(hooks))))
    [reason] = reasons(hooks, "hook.skipped")
    assert says in reason
    assert hooks.spooled() == [] and hooks.no_child_started()


def test_a_binary_transcript_is_logged_and_left_to_the_capture_pass(hooks: Hooks):
    hooks.transcript.write_bytes(b"\x7fELF\x02\x01\x01\x00" + os.urandom(4000))
    quietly_ok(hooks.run(hooks.payload()))
    assert "looks binary" in reasons(hooks, "hook.transcript-suspect")[0]
    assert hooks.spooled() and hooks.children()


def test_an_unreadable_transcript_is_logged_and_spooled_for_a_later_run(hooks: Hooks):
    prefix = without_dac_override()
    hooks.transcript.chmod(0)
    quietly_ok(hooks.run(hooks.payload(), prefix=prefix))
    assert "Permission denied" in reasons(hooks, "hook.transcript-suspect")[0]
    assert hooks.spooled() and hooks.children()


# --- where the hook writes --------------------------------------------------------------------

def test_a_spool_dir_that_is_a_file_is_logged_and_capture_gets_the_payload_instead(hooks: Hooks):
    hooks.db.parent.mkdir(parents=True)
    hooks.spool_dir.write_text("not a directory")
    quietly_ok(hooks.run(hooks.payload()))
    assert "cannot write the spool file" in reasons(hooks, "hook.spool-failed")[0]
    [child] = hooks.children()
    assert child["argv"] == ["--agent", "claude-code", "--session", "sess-1",
                             "--cwd", str(hooks.home), "--", str(hooks.transcript)]


def test_an_unwritable_spool_dir_is_logged_and_capture_gets_the_payload_instead(hooks: Hooks):
    prefix = without_dac_override()
    hooks.spool_dir.mkdir(parents=True)
    hooks.spool_dir.chmod(0o500)
    quietly_ok(hooks.run(hooks.payload(), prefix=prefix))
    assert "Permission denied" in reasons(hooks, "hook.spool-failed")[0]
    assert hooks.children()[0]["argv"][-1] == str(hooks.transcript)


def test_an_unwritable_db_directory_logs_on_stderr_and_still_captures(hooks: Hooks):
    prefix = without_dac_override()
    hooks.db.parent.mkdir(parents=True)
    hooks.db.parent.chmod(0o500)
    run = hooks.run(hooks.payload(), prefix=prefix)
    quietly_ok(run)
    assert list(hooks.db.parent.iterdir()) == []  # the log cannot be written there...
    [line] = [json.loads(l) for l in run.err.decode().splitlines() if "hook.spool-failed" in l]
    assert "Permission denied" in line["reason"]  # ...so the reason goes to stderr
    assert hooks.children()[0]["argv"][-1] == str(hooks.transcript)


def test_a_db_path_under_a_regular_file_is_silently_dropped(hooks: Hooks):
    blocker = hooks.home / "not-a-dir"
    blocker.write_text("")
    env = dict(hooks.env, CLAIMGRAPH_DB=str(blocker / "claims.db"))
    quietly_ok(hooks.run(hooks.payload(), env=env))
    assert blocker.read_text() == ""


def test_a_capture_command_that_cannot_start_is_logged_and_the_spool_file_kept(hooks: Hooks):
    env = dict(hooks.env, CLAIMGRAPH_CAPTURE_CMD=str(Path("/nonexistent/capture")))
    quietly_ok(hooks.run(hooks.payload(), env=env))
    assert "cannot start the capture pass" in reasons(hooks, "hook.spawn-failed")[0]
    assert hooks.spooled()
