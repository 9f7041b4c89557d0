"""The format is judged by content, so a renamed or extension-less transcript still reads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from claimgraph.capture.readers import detect_format, read_transcript

from .reader_helpers import CLAUDE, CODEX, GEMINI

SAMPLES = {
    "claude-code": CLAUDE / "06381696-0074-49f8-863e-6ad4fac507f9.jsonl",
    "codex": CODEX / "rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl",
    "gemini": GEMINI / "session-2025-10-27T19-55-981c87cb.json",
}


@pytest.mark.parametrize("agent", sorted(SAMPLES))
@pytest.mark.parametrize("misleading_name", ["transcript.txt", "transcript", "notes.json"])
def test_content_wins_over_a_misleading_name(tmp_path: Path, agent: str, misleading_name: str):
    path = tmp_path / misleading_name
    shutil.copyfile(SAMPLES[agent], path)
    assert detect_format(path) == agent
    assert read_transcript(path).agent == agent


def test_a_first_line_larger_than_the_sniffed_head_is_still_recognised(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"parentUuid": null, "sessionId": "s", "type": "user", "message": '
                    '{"role": "user", "content": "' + "x" * 200_000 + '"}}\n')
    assert detect_format(path) == "claude-code"


def test_plain_text_in_a_jsonl_file_is_read_as_text(tmp_path: Path):
    path = tmp_path / "chat.jsonl"
    path.write_text("user: hello\n")
    assert detect_format(path) == "text"


def test_an_explicit_agent_skips_detection(tmp_path: Path):
    path = tmp_path / "chat.txt"
    shutil.copyfile(CLAUDE / "short.jsonl", path)
    assert read_transcript(path, agent="text").agent == "text"
