"""Gemini CLI fires SessionEnd three times on an interactive exit, about 0.1 s apart, with the
same payload: one capture must come of it, and the hook must still return at once. A payload
that says something new (the transcript grew, another reason) still starts its capture."""

from __future__ import annotations

import json
import os
import time

from .conftest import Hooks

#: The payload Gemini CLI 0.61.0 sent, three times, on `/quit` (docs/agents.md).
GEMINI_END = {"session_id": "6b0623ce-0f4e-4c53-9a52-1f0b0e3c9d11", "hook_event_name": "SessionEnd",
              "timestamp": "2026-12-02T18:26:26.809Z", "reason": "exit"}


def gemini_payload(hooks: Hooks) -> dict:
    return {**GEMINI_END, "transcript_path": str(hooks.transcript), "cwd": str(hooks.home)}


def test_three_identical_session_ends_start_one_capture(hooks: Hooks):
    runs = [hooks.run(gemini_payload(hooks), "session-end", "--agent", "gemini")
            for _ in range(3)]
    assert all((r.code, r.out) == (0, b"") for r in runs)
    assert len(hooks.children(count=1)) == 1
    assert len(hooks.children(count=2, timeout=1.0)) == 1, "a repeat started a second capture"
    assert hooks.events().count("hook.spawned") == 1
    assert hooks.events().count("hook.duplicate") == 2
    [spooled] = hooks.spooled()
    assert spooled.name == f"gemini-{GEMINI_END['session_id']}.json"


def test_a_repeat_after_the_transcript_grew_starts_another_capture(hooks: Hooks):
    hooks.run(gemini_payload(hooks), "session-end", "--agent", "gemini")
    with hooks.transcript.open("a") as handle:
        handle.write('{"type":"user","message":{"role":"user","content":"more"}}\n')
    hooks.run(gemini_payload(hooks), "session-end", "--agent", "gemini")
    assert len(hooks.children(count=2)) == 2
    assert "hook.duplicate" not in hooks.events()


def test_a_repeat_long_after_the_first_starts_another_capture(hooks: Hooks):
    """The first capture may have died; a spool file that old is not a pending capture."""
    hooks.run(gemini_payload(hooks), "session-end", "--agent", "gemini")
    [spooled] = hooks.spooled()
    old = time.time() - 120
    os.utime(spooled, (old, old))
    hooks.run(gemini_payload(hooks), "session-end", "--agent", "gemini")
    assert len(hooks.children(count=2)) == 2


def test_the_spool_file_records_the_transcript_as_the_hook_saw_it(hooks: Hooks):
    hooks.run(hooks.payload(hook_event_name=None), "stop", "--agent", "codex")
    [spooled] = hooks.spooled()
    record = json.loads(spooled.read_text())
    info = hooks.transcript.stat()
    assert record["agent"] == "codex" and record["hook_event_name"] == "Stop"
    assert record["transcript_stat"] == [info.st_size, info.st_mtime_ns]
