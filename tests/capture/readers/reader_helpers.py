"""Shared helpers for the reader tests: where the real transcripts live, and slicing them."""

from __future__ import annotations

from pathlib import Path

from claimgraph.capture.events import Event, Transcript

#: Real recorded transcripts (MIT-licensed third-party data; see
#: tests/fixtures/transcripts/SOURCES.md).
TRANSCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code"
CODEX = TRANSCRIPTS / "codex"
GEMINI = TRANSCRIPTS / "gemini"


def split_copy(source: Path, target: Path, keep_lines: int, tail: bytes = b"") -> bytes:
    """Write the first ``keep_lines`` lines of ``source`` (plus ``tail``) to ``target`` and
    return the rest of ``source``, for a test to append later."""
    lines = source.read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join(lines[:keep_lines]) + tail)
    return b"".join(lines[keep_lines:])


def of_file(transcript: Transcript, path: Path) -> list[Event]:
    return [e for e in transcript.events if Path(e.source_file).name == path.name]


def tally(events: list[Event]) -> dict[str, int]:
    """The four numbers each fixture is checked on."""
    return {
        "prompts": sum(e.kind == "prompt" and not e.derived for e in events),
        "tool_calls": sum(e.kind == "tool_call" for e in events),
        "tool_errors": sum(e.kind == "tool_result" and e.is_error for e in events),
        "assistant": sum(e.kind == "assistant" for e in events),
    }
