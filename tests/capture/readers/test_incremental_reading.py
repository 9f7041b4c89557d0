"""Resumed sessions grow the same file: a read from ``end_offset`` yields exactly the new part,
and a half-written last line is tolerated but never consumed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from claimgraph.capture.readers import read_transcript

from .reader_helpers import CLAUDE, CODEX, split_copy

SESSION_AE4A = CLAUDE / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SESSION_8463 = CLAUDE / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
ROLLOUT = CODEX / "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl"


def test_a_truncated_last_line_is_tolerated_and_not_consumed(tmp_path: Path):
    short = CLAUDE / "short.jsonl"
    line_11 = short.read_bytes().splitlines(keepends=True)[10]
    whole = tmp_path / "whole.jsonl"
    split_copy(short, whole, 10)
    cut = tmp_path / "cut.jsonl"
    split_copy(short, cut, 10, tail=line_11[: len(line_11) // 2])

    transcript = read_transcript(cut)

    assert transcript.end_offset == whole.stat().st_size
    assert transcript.end_line == 10
    assert [w.line for w in transcript.warnings] == [11]
    assert "incomplete last line" in transcript.warnings[0].reason
    assert [(e.kind, e.line) for e in transcript.events] == [
        (e.kind, e.line) for e in read_transcript(whole).events]


def test_the_truncated_line_is_read_once_it_is_completed(tmp_path: Path):
    short = CLAUDE / "short.jsonl"
    path = tmp_path / "s.jsonl"
    rest = split_copy(short, path, 10)
    path.write_bytes(path.read_bytes() + rest[:40])
    first = read_transcript(path)
    with path.open("ab") as handle:
        handle.write(rest[40:])
    second = read_transcript(path, start_offset=first.end_offset)
    full = read_transcript(path)
    assert first.events + second.events == full.events
    assert second.end_offset == short.stat().st_size


@pytest.mark.parametrize("source, split_after", [(SESSION_AE4A, 1490), (ROLLOUT, 200)],
                         ids=["claude-code", "codex"])
def test_reading_from_end_offset_after_appending_yields_exactly_the_new_events(
        tmp_path: Path, source: Path, split_after: int):
    path = tmp_path / source.name
    rest = split_copy(source, path, split_after)
    before = read_transcript(path)
    with path.open("ab") as handle:
        handle.write(rest)

    after = read_transcript(path, start_offset=before.end_offset)

    full = read_transcript(path).events
    assert after.events == tuple(e for e in full if e.line > split_after)
    assert before.events == tuple(e for e in full if e.line <= split_after)
    assert after.start_offset == before.end_offset
    assert after.end_offset == source.stat().st_size


def test_a_read_from_the_end_yields_nothing_new(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    shutil.copyfile(CLAUDE / "tool_heavy.jsonl", path)
    done = read_transcript(path)
    again = read_transcript(path, start_offset=done.end_offset)
    assert again.events == () and again.end_offset == done.end_offset


def test_subagent_files_resume_from_their_own_offsets(tmp_path: Path):
    path = tmp_path / SESSION_8463.name
    shutil.copyfile(SESSION_8463, path)
    shutil.copytree(SESSION_8463.with_suffix(""), path.with_suffix(""))
    done = read_transcript(path)
    again = read_transcript(path, start_offset=done.end_offset,
                            subagent_offsets=done.subagent_offsets)
    assert again.events == ()
    assert again.subagent_offsets == done.subagent_offsets


def test_line_numbers_after_an_offset_count_the_lines_before_it(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    rest = split_copy(CLAUDE / "short.jsonl", path, 3)
    first = read_transcript(path)
    path.write_bytes(path.read_bytes() + rest)
    prompt = next(e for e in read_transcript(path, start_offset=first.end_offset).events)
    assert prompt.kind == "prompt" and prompt.line == 4
