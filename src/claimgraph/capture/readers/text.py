"""Plain-text transcripts: the fallback when no agent's format is recognised.

A line starting with ``user:``, ``human:`` or ``assistant:`` (any case, leading spaces
allowed) starts a turn; the lines after it, up to the next marker, belong to that turn.
Text with no speaker -- the whole file when it has no markers, or whatever precedes the first
marker -- becomes an ``assistant`` event, never a prompt: only a person's words may become
user assertions, and text of unknown origin must not be promoted to that trust.

Text files are not appended while an agent runs, so the last line is consumed even without a
newline (a JSONL reader would leave it for the next read). Reading from an offset starts a
fresh speakerless turn there.
"""

from __future__ import annotations

import re
from pathlib import Path
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event, Transcript, TranscriptBuilder
from claimgraph.capture.readers import LineStream, open_transcript

AGENT = "text"
_MARKER = lazy_regex(r"^\s*(user|human|assistant)\s*:[ \t]?(.*)$", re.IGNORECASE | re.DOTALL)
_ROLE_KIND = {"user": "prompt", "human": "prompt", "assistant": "assistant"}


def read(path: str, start_offset: int = 0) -> Transcript:
    builder = TranscriptBuilder(path, AGENT, start_offset)
    builder.remember(session_id=Path(path).stem)
    turn = _Turn(builder, path)
    with open_transcript(path) as handle:
        stream = LineStream(handle, builder, path, start_offset, take_tail=True)
        for number, text in stream:
            turn.feed(number, text)
        turn.flush()
        return builder.build(stream.end_offset, stream.line)


class _Turn:
    """The turn being collected: its kind, first line and text so far."""

    def __init__(self, builder: TranscriptBuilder, path: str) -> None:
        self.builder, self.path = builder, path
        self.kind, self.line = "assistant", 0
        self.parts: list[str] = []

    def feed(self, number: int, text: str) -> None:
        marker = _MARKER.match(text)
        if marker:
            self.flush()
            self.kind, self.line = _ROLE_KIND[marker[1].lower()], number
            self.parts = [marker[2]]
        else:
            self.line = self.line or number
            self.parts.append(text)

    def flush(self) -> None:
        body = "".join(self.parts).strip()
        if body:
            self.builder.add(Event(kind=self.kind, agent=AGENT, source_file=self.path,
                                   line=self.line, text=body, session_id=Path(self.path).stem))
        self.kind, self.line = "assistant", 0
        self.parts = []
