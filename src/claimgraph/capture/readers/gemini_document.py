"""Gemini CLI sessions before 0.61 (``session-<date>-<8hex>.json``): one JSON document.

The document is rewritten as it grows: ``{sessionId, projectHash, startTime, lastUpdated,
messages: [...]}``. It cannot be streamed line by line, so it is read whole, under a size bound.

Offsets still mean bytes, so incremental capture works as for JSONL: ``end_offset`` is the
byte just past the last complete message object, and a read from ``start_offset`` yields only
messages that start at or after it. Earlier messages keep their bytes when the CLI appends,
so the mark stays valid. ``line`` is the line where the message object starts. Messages
become events as in ``gemini.MessageDelta``.
"""

from __future__ import annotations

import json
from claimgraph.logic.lazy_regex import lazy_regex
from typing import Any, Iterator

from claimgraph.capture.events import Transcript, TranscriptBuilder
from claimgraph.capture.readers import fix_surrogate_escapes, guarded, open_transcript
from claimgraph.capture.readers.gemini_messages import AGENT, MessageDelta
from claimgraph.errors import ClaimgraphError

MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
_MESSAGES_KEY = lazy_regex(r'"messages"\s*:\s*\[')
_SESSION_ID = lazy_regex(r'"sessionId"\s*:\s*"([^"\\]*)"')
_PROJECT_HASH = lazy_regex(r'"projectHash"\s*:\s*"([0-9a-fA-F]{64})"')


def read(path: str, start_offset: int = 0) -> Transcript:
    builder = TranscriptBuilder(path, AGENT, start_offset)
    text = _load(path, start_offset)
    session_id = _session_id(text)
    builder.remember(session_id=session_id, project_hash=_project_hash(text))
    end_offset, end_line = start_offset, 0
    delta = MessageDelta(builder, path, {"session_id": session_id})
    for message, start, end, line, last_line in _messages(text, builder, path):
        end_offset, end_line = end, last_line
        if start >= start_offset and isinstance(message, dict):
            guarded(builder, path, line, delta.add, message, line)
    return builder.build(max(end_offset, start_offset), end_line)


def _load(path: str, start_offset: int) -> str:
    with open_transcript(path) as handle:
        raw = handle.read(MAX_DOCUMENT_BYTES + 1)
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise ClaimgraphError("transcript-too-large", f"{path} is over {MAX_DOCUMENT_BYTES} "
                              "bytes: too large for a single-document Gemini session",
                              hint="split the session or pass agent='text'", path=path)
    if not 0 <= start_offset <= len(raw):
        raise ClaimgraphError("offset-out-of-range", f"offset {start_offset} is outside {path} "
                              f"({len(raw)} bytes)", hint="the file was replaced or truncated: "
                              "read it again from offset 0", path=path, offset=start_offset)
    return fix_surrogate_escapes(raw.decode("utf-8", errors="replace"))


def _session_id(text: str) -> str | None:
    match = _SESSION_ID.search(text)
    return match[1] if match else None


def _project_hash(text: str) -> str | None:
    """Looked for only before the messages: a message may quote another session's header."""
    head = _MESSAGES_KEY.search(text)
    match = _PROJECT_HASH.search(text, 0, head.start() if head else len(text))
    return match[1].lower() if match else None


def _messages(text: str, builder: TranscriptBuilder,
              path: str) -> Iterator[tuple[Any, int, int, int, int]]:
    """Each message with its start/end byte offsets and lines, decoded one at a time,
    so a document cut off mid-write still yields every message before the cut."""
    found = _MESSAGES_KEY.search(text)
    if not found:
        builder.warn(path, 1, "no messages array: not a Gemini session document")
        return
    decoder, position = json.JSONDecoder(), found.end()
    byte_at, char_at = len(text[:position].encode()), position
    line_at = 1 + text.count("\n", 0, position)
    while True:
        start = _skip_separators(text, position)
        if start >= len(text) or text[start] == "]":
            return
        try:
            message, position = decoder.raw_decode(text, start)
        except RecursionError:
            builder.warn(path, line_at + text.count("\n", char_at, start),
                         "message nested too deep to decode: the rest is left unread", "too_deep")
            return
        except ValueError:
            builder.warn(path, line_at + text.count("\n", char_at, start),
                         "incomplete message (document cut off mid-write): left for the next read",
                         "incomplete")
            return
        byte_start = byte_at + len(text[char_at:start].encode())
        line_at += text.count("\n", char_at, start)
        byte_at, char_at = byte_start + len(text[start:position].encode()), position
        first_line, line_at = line_at, line_at + text.count("\n", start, position)
        yield message, byte_start, byte_at, first_line, line_at


def _skip_separators(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n,":
        position += 1
    return position
