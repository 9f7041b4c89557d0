"""Issue 10 §2: transcripts built to break capture cost lines, never the session.

Each hostile input is captured by the real command into a real store; every one must end in
a captured session (or a clear refusal, for the two that are not transcripts at all)."""

from __future__ import annotations

import json
import os
import sys
import tracemalloc
from pathlib import Path

import pytest

from claimgraph.capture import segment
from claimgraph.capture.events import TranscriptBuilder
from claimgraph.capture.readers import read_transcript
from claimgraph.logsetup import reset_logging
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_run import Session, capture  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


def evidence_text(db: Path) -> str:
    store = open_store(db, create=False)
    try:
        episodes = store.list_episodes()
    finally:
        store.close()
    return "\n".join(Sidecars(db).get_evidence(e["evidence"]) for e in episodes)


def nested(depth: int, leaf: object = "x") -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def deep_json(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + '"x"' + closer * depth


def lines_around(session: Session, hostile: str) -> Path:
    """A good prompt, the hostile line, another good prompt."""
    with open(session.path, "a", encoding="utf-8") as out:
        out.write(json.dumps(session.prompt("first good prompt")) + "\n")
        out.write(hostile + "\n")
        out.write(json.dumps(session.prompt("second good prompt")) + "\n")
    return session.path


def hostile_line(session: Session, case: str) -> str:
    if case == "10k-deep-line":
        return deep_json(10_000)
    if case == "5k-deep-content":
        record = json.dumps(session.prompt("PLACEHOLDER"))
        return record.replace('"PLACEHOLDER"', deep_json(5_000))
    if case == "900-deep-tool-input":
        call = session.tool("mcp__db__query", {"q": "PLACEHOLDER"}, "ok")[0]
        return json.dumps(call).replace('"PLACEHOLDER"', deep_json(900, '{"a":', "}"))
    if case == "150-deep-tool-input":
        call = session.tool("mcp__db__query", {"q": "PLACEHOLDER"}, "ok")[0]
        return json.dumps(call).replace('"PLACEHOLDER"', deep_json(150, '{"a":', "}"))
    if case == "lone-surrogate-prompt":
        return json.dumps(session.prompt("PLACEHOLDER")).replace("PLACEHOLDER", "cut \\ud83d here")
    if case == "lone-surrogate-envelope":
        return json.dumps(session.prompt("ok")).replace('"main"', '"feat-\\udc00"')
    if case == "nul-inside-line":
        return json.dumps(session.prompt("broken")).replace("broken", "bro\x00ken")
    raise AssertionError(case)


LINE_CASES = ["10k-deep-line", "5k-deep-content", "900-deep-tool-input", "150-deep-tool-input",
              "lone-surrogate-prompt", "lone-surrogate-envelope", "nul-inside-line"]


@pytest.mark.parametrize("case", LINE_CASES)
def test_a_hostile_line_costs_that_line_and_the_session_is_captured(capsys, tmp_path, db, case):
    session = Session(tmp_path / f"{case}.jsonl", tmp_path)
    path = lines_around(session, hostile_line(session, case))
    code, report, err = capture(capsys, str(path), "--no-curate")
    assert (code, report["status"]) == (0, "captured"), err
    stored = evidence_text(db)
    assert "first good prompt" in stored and "second good prompt" in stored
    stored.encode("utf-8")  # no lone surrogate reached the evidence tier
    if "surrogate" in case:
        assert "\ufffd" in stored
    if "deep" in case and case != "150-deep-tool-input":
        assert any("deep" in w for w in report["warnings"]), report["warnings"]


def codex_rollout(tmp_path: Path, arguments: str) -> Path:
    meta = {"type": "session_meta", "payload": {"id": "c1", "cwd": str(tmp_path)}}
    call = {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                                 "call_id": "k1", "arguments": arguments}}
    said = {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text",
                                                              "text": "still here"}]}}
    path = tmp_path / "rollout-2026-01-01T00-00-00-c1.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (meta, call, said)) + "\n")
    return path


def test_a_structure_deeper_than_the_walk_limit_is_dropped_for_a_placeholder(capsys, tmp_path, db):
    """Codex passes a call's arguments as a JSON string, decoded apart from its line."""
    path = codex_rollout(tmp_path, deep_json(150, '{"a":', "}"))
    code, report, err = capture(capsys, str(path), "--no-curate")
    assert (code, report["status"]) == (0, "captured"), err
    assert report["redactions"].get("too-deep") == 1
    assert "[REDACTED:too-deep]" in evidence_text(db)


def test_zero_bytes_a_crash_left_at_the_start_and_the_end_are_skipped(capsys, tmp_path, db):
    session = Session(tmp_path / "s.jsonl", tmp_path)
    good = [json.dumps(session.prompt(f"prompt {n}")) for n in range(3)]
    session.path.write_bytes(b"\0" * 8192 + good[0].encode() + b"\n" + good[1].encode() + b"\n"
                             + b"\0" * 4096 + b"\n" + good[2].encode() + b"\n" + b"\0" * 4096)
    code, report, err = capture(capsys, str(session.path), "--no-curate")
    assert (code, report["status"]) == (0, "captured"), err
    assert all(f"prompt {n}" in evidence_text(db) for n in range(3))
    assert any("zero" in w for w in report["warnings"])


def test_a_binary_file_is_still_refused(capsys, tmp_path):
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(b"\x7fELF\x02\x01\x01\x00" * 4000)
    code, report, err = capture(capsys, str(blob), "--no-curate")
    assert code == 1 and '"transcript-binary"' in err


def test_a_gemini_document_nested_too_deep_is_read_up_to_that_message(tmp_path):
    good = {"id": "m1", "type": "user", "content": "hello", "timestamp": "2026-01-01T00:00:00Z"}
    text = ('{"sessionId": "g1", "messages": [' + json.dumps(good) + ', {"id": "m2", "content": '
            + deep_json(10_000) + "}]}")
    path = tmp_path / "session-2026-01-01T00-00-abcd1234.json"
    path.write_text(text)
    transcript = read_transcript(path, "gemini")
    assert [e.text for e in transcript.events] == ["hello"]
    assert transcript.counts["too_deep"] == 1


def test_a_codex_call_whose_arguments_nest_too_deep_is_skipped_not_fatal(tmp_path):
    transcript = read_transcript(codex_rollout(tmp_path, deep_json(5_000)), "codex")
    assert "still here" in [e.text for e in transcript.events]
    assert transcript.warnings


# --- one message over 20,000 lines -----------------------------------------------------------

def one_long_message(path: Path, cwd: Path, lines: int) -> Session:
    session = Session(path, cwd)
    with open(path, "w", encoding="utf-8") as out:
        for n in range(lines):
            record = session._envelope("assistant", message={
                "id": "msg-one", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": f"part {n}"}]})
            out.write(json.dumps(record) + "\n")
    return session


def test_twenty_thousand_lines_of_one_message_are_joined_once(tmp_path, monkeypatch):
    one_long_message(tmp_path / "long.jsonl", tmp_path, 20_000)
    amended: list[int] = []
    real_amend = TranscriptBuilder.amend

    def counting_amend(self, index, **changes):
        amended.append(index)
        return real_amend(self, index, **changes)

    monkeypatch.setattr(TranscriptBuilder, "amend", counting_amend)
    transcript, _ = segment.read_cleaned(str(tmp_path / "long.jsonl"), "claude-code")
    [event] = transcript.events
    assert event.text.split("\n\n") == [f"part {n}" for n in range(20_000)]
    assert amended == [0]  # the joined text is built once, not once per line


# --- memory: the raw transcript is never held whole ------------------------------------------

def test_reading_keeps_cleaned_events_only_not_the_raw_outputs(tmp_path):
    session = Session(tmp_path / "big.jsonl", tmp_path)
    for n in range(20):
        output = f"run {n}\n" + ("0123456789abcdef" * 64 + "\n") * 1000  # ~1 MB each
        session.write(*session.tool("Bash", {"command": f"make {n}"}, output,
                                    {"stdout": output, "stderr": "", "interrupted": False}))
    raw_mb = session.path.stat().st_size / 1e6
    tracemalloc.start()
    try:
        transcript, _ = segment.read_cleaned(str(session.path), "claude-code")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert raw_mb > 40
    assert len(transcript.events) == 40
    assert peak / 1e6 < 12  # one line's worth at a time, plus the capped outputs kept
