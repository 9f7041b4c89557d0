"""Bad input gives a ClaimgraphError that says what happened and what to do, never a
traceback; damaged lines cost a warning, never the read."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

import claimgraph.capture.readers as readers
from claimgraph.capture.readers import (
    claude_code, detect_format, gemini_document, read_transcript)
from claimgraph.errors import ClaimgraphError

from .reader_helpers import CLAUDE

PROMPT = {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "use uv"}}


def _refused(path: str | Path, kind: str, **options) -> ClaimgraphError:
    with pytest.raises(ClaimgraphError) as caught:
        read_transcript(path, **options)
    assert caught.value.type == kind
    assert caught.value.hint, "every refusal says what to do"
    return caught.value


def test_a_missing_path_is_refused(tmp_path: Path):
    error = _refused(tmp_path / "nope.jsonl", "transcript-missing")
    assert str(tmp_path / "nope.jsonl") in error.message


def test_a_dangling_symlink_is_reported_as_one(tmp_path: Path):
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "gone.jsonl")
    assert "dangling symlink" in _refused(tmp_path / "link.jsonl", "transcript-missing").message


def test_a_directory_is_refused(tmp_path: Path):
    _refused(tmp_path, "transcript-is-directory")


def test_a_binary_file_is_refused(tmp_path: Path):
    path = tmp_path / "image.jsonl"
    path.write_bytes(b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00' * 20)
    _refused(path, "transcript-binary")
    with pytest.raises(ClaimgraphError):
        detect_format(path)


def test_a_transcript_with_a_binary_line_keeps_its_good_lines(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(json.dumps(PROMPT).encode() + b'\n\x89PNG\x00\x00\x00\n')
    transcript = read_transcript(path, "claude-code")
    assert [e.text for e in transcript.events] == ["use uv"]
    assert transcript.counts["malformed"] == 1


def test_dev_zero_is_refused_before_it_is_read():
    _refused("/dev/zero", "transcript-not-regular")
    _refused("/dev/zero", "transcript-not-regular", agent="text")


def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe")
    _refused(tmp_path / "pipe", "transcript-not-regular")


def test_a_symlink_loop_is_refused(tmp_path: Path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    _refused(tmp_path / "a", "transcript-symlink-loop")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_an_unreadable_file_is_refused(tmp_path: Path):
    path = tmp_path / "secret.jsonl"
    path.write_text(json.dumps(PROMPT) + "\n")
    path.chmod(0)
    _refused(path, "transcript-unreadable", agent="claude-code")


def test_a_permission_failure_on_open_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Runs even as root: the fault is injected at the one place files are opened."""
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(PROMPT) + "\n")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(readers.os, "open", denied)
    assert "Permission denied" in _refused(path, "transcript-unreadable").message


def test_malformed_json_lines_are_skipped_with_their_line_numbers(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([json.dumps(PROMPT), "{not json", "[1, 2]", "", json.dumps(PROMPT)])
                    + "\n")
    transcript = read_transcript(path)
    assert [e.line for e in transcript.events] == [1, 5]
    assert [(w.line, w.reason.split(":")[0]) for w in transcript.warnings] == [
        (2, "not valid JSON"), (3, "a JSON line that is not an object")]
    assert transcript.counts["malformed"] == 2


def test_an_oversized_line_is_skipped_with_a_warning(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(readers, "MAX_LINE_BYTES", 1000)
    huge = {**PROMPT, "message": {"role": "user", "content": "x" * 5000}}
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (PROMPT, huge, PROMPT)) + "\n")
    transcript = read_transcript(path)
    assert [e.line for e in transcript.events] == [1, 3]
    assert [(w.line, "skipped" in w.reason) for w in transcript.warnings] == [(2, True)]
    assert transcript.end_offset == path.stat().st_size


def test_a_200_mb_transcript_streams_in_bounded_memory(tmp_path: Path):
    """Twelve 17 MiB lines (each over the 16 MiB bound) between two prompts: 204 MiB."""
    path = tmp_path / "big.jsonl"
    filler = b'{"type": "progress", "data": "' + b"x" * (17 * 1024 * 1024) + b'"}\n'
    with path.open("wb") as handle:
        handle.write(json.dumps(PROMPT).encode() + b"\n")
        for _ in range(12):
            handle.write(filler)
        handle.write(json.dumps(PROMPT).encode() + b"\n")
    assert path.stat().st_size > 200 * 1024 * 1024
    tracemalloc.start()
    try:
        transcript = read_transcript(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [e.line for e in transcript.events] == [1, 14]
    assert transcript.counts["oversized"] == 12
    assert peak < 40 * 1024 * 1024, f"peak {peak} bytes: the file must not be held in memory"


def test_an_offset_past_the_end_is_refused(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(PROMPT) + "\n")
    _refused(path, "offset-out-of-range", start_offset=10_000)


def test_an_offset_inside_a_line_is_refused(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(PROMPT) + "\n")
    _refused(path, "offset-misaligned", start_offset=5)


def test_an_unknown_agent_is_refused(tmp_path: Path):
    _refused(CLAUDE / "short.jsonl", "unknown-agent", agent="cursor")


def test_json_of_no_known_agent_is_refused_rather_than_misread(tmp_path: Path):
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps({"role": "user", "text": "hi"}) + "\n")
    _refused(path, "transcript-format-unknown")
    assert read_transcript(path, agent="text").events[0].kind == "assistant"


def test_a_gemini_document_over_the_bound_is_refused(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(gemini_document, "MAX_DOCUMENT_BYTES", 100)
    path = tmp_path / "session.json"  # pretty-printed, as the CLI wrote its documents
    path.write_text(json.dumps({"sessionId": "s", "messages": [{"type": "user",
                                                                "content": "x" * 200}]},
                               indent=2))
    _refused(path, "transcript-too-large")


def test_an_empty_transcript_reads_as_no_events(tmp_path: Path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    transcript = read_transcript(path)
    assert transcript.events == () and transcript.end_offset == 0


def test_a_record_no_reader_foresaw_is_skipped_with_a_warning(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    """The last-resort net: a reader bug on one line costs that line, not the session."""

    def broken(self, line, record):
        raise TypeError("a shape nobody foresaw")

    monkeypatch.setattr(claude_code._FileReader, "on_user", broken)
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(PROMPT) + "\n")
    transcript = read_transcript(path)
    assert transcript.events == ()
    assert transcript.counts["unexpected_shape"] == 1
    assert "a shape nobody foresaw" in transcript.warnings[0].reason
    assert transcript.end_offset == path.stat().st_size


def test_a_line_with_a_raw_control_character_in_a_string_is_read_not_lost(tmp_path: Path):
    # A transcript that passed through another tool (a redactor that did not escape what it
    # wrote) can hold a raw tab or newline inside a string: strict JSON rejects the whole line,
    # and the user's words in it would be lost.
    damaged = json.dumps({**PROMPT, "message": {"role": "user", "content": "use uv\tnever pip"}})
    damaged = damaged.replace("\\t", "\t")
    path = tmp_path / "session.jsonl"
    path.write_text(damaged + "\n" + json.dumps(PROMPT) + "\n{not json\n")
    transcript = read_transcript(path, "claude-code")
    assert [e.text for e in transcript.events] == ["use uv\tnever pip", "use uv"]
    assert transcript.counts["raw_control"] == 1
    # a line that is not JSON at all still costs a warning
    assert transcript.counts["malformed"] == 1
    assert any("raw control characters" in w.reason for w in transcript.warnings)
