"""Every real transcript under fixtures/transcripts parses, with no warning, as its agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimgraph.capture.readers import detect_format, read_transcript

from .reader_helpers import TRANSCRIPTS

AGENT_OF_DIR = {"claude-code": "claude-code", "codex": "codex", "gemini": "gemini"}
ALL_FILES = sorted(p for p in TRANSCRIPTS.rglob("*") if p.is_file() and p.name != "SOURCES.md")


def test_the_fixture_directory_is_where_the_tests_expect_it():
    assert len(ALL_FILES) >= 14, f"real transcripts missing under {TRANSCRIPTS}"


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(TRANSCRIPTS)))
def test_every_fixture_is_detected_as_the_agent_that_wrote_it(path: Path):
    expected = AGENT_OF_DIR[path.relative_to(TRANSCRIPTS).parts[0]]
    assert detect_format(path) == expected


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(TRANSCRIPTS)))
def test_every_fixture_parses_completely_without_warnings(path: Path):
    transcript = read_transcript(path)
    assert transcript.warnings == ()
    assert transcript.end_offset == path.stat().st_size or transcript.agent == "gemini"
    assert transcript.events, "a real session yields events"
    assert all(e.line >= 1 and e.agent == transcript.agent for e in transcript.events)
    assert transcript.session.session_id


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(TRANSCRIPTS)))
def test_every_event_cites_a_line_that_exists_in_its_file(path: Path):
    transcript = read_transcript(path)
    line_counts: dict[str, int] = {}
    for event in transcript.events:
        if event.source_file not in line_counts:
            line_counts[event.source_file] = len(Path(event.source_file).read_bytes().splitlines())
        assert 1 <= event.line <= line_counts[event.source_file]


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(TRANSCRIPTS)))
def test_every_tool_result_answers_a_tool_call_of_the_same_file(path: Path):
    transcript = read_transcript(path)
    for source in {e.source_file for e in transcript.events}:
        events = [e for e in transcript.events if e.source_file == source]
        calls = {e.call_id for e in events if e.kind == "tool_call"}
        results = [e.call_id for e in events if e.kind == "tool_result"]
        assert set(results) <= calls
        assert len(results) == len(set(results))
