"""Gemini CLI sessions (``session-<date>-<8hex>.json``) as normalized events.

A session is ONE JSON document, rewritten as it grows: ``{sessionId, projectHash, startTime,
lastUpdated, messages: [{id, timestamp, type: user|gemini, content, thoughts, toolCalls}]}``.
It cannot be streamed line by line, so it is read whole, under a size bound.

Offsets still mean bytes, so incremental capture works as for JSONL: ``end_offset`` is the
byte just past the last complete message object, and a read from ``start_offset`` yields only
messages that start at or after it. Earlier messages keep their bytes when the CLI appends,
so the mark stays valid. ``line`` is the line where the message object starts.

Each tool call becomes a ``tool_call`` plus a ``tool_result``; a status other than "success"
("error", "cancelled") is a tool error: the tool did not do what was asked. Thoughts are
dropped. CLI notices (types info/error/warning) become derived ``meta`` events.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

from claimgraph.capture.events import Event, Transcript, TranscriptBuilder, iso_to_ms, text_or_none
from claimgraph.capture.readers import fix_surrogate_escapes, guarded, open_transcript
from claimgraph.errors import ClaimgraphError

AGENT = "gemini"
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
_MESSAGES_KEY = re.compile(r'"messages"\s*:\s*\[')
_SESSION_ID = re.compile(r'"sessionId"\s*:\s*"([^"\\]*)"')
_PROJECT_HASH = re.compile(r'"projectHash"\s*:\s*"([0-9a-fA-F]{64})"')


def read(path: str, start_offset: int = 0) -> Transcript:
    builder = TranscriptBuilder(path, AGENT, start_offset)
    text = _load(path, start_offset)
    session_id = _session_id(text)
    builder.remember(session_id=session_id, project_hash=_project_hash(text))
    end_offset, end_line = start_offset, 0
    for message, start, end, line, last_line in _messages(text, builder, path):
        end_offset, end_line = end, last_line
        if start >= start_offset and isinstance(message, dict):
            guarded(builder, path, line, _add_message, builder, path, message, line, session_id)
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


def _add_message(builder: TranscriptBuilder, path: str, message: dict[str, Any], line: int,
                 session_id: str | None) -> None:
    def event(kind: str, **fields: Any) -> Event:
        return Event(kind=kind, agent=AGENT, source_file=path, line=line, session_id=session_id,
                     timestamp=iso_to_ms(message.get("timestamp")),
                     record_id=text_or_none(message.get("id")), **fields)

    kind, text = message.get("type"), _content_text(message.get("content"))
    if text.strip():
        if kind in ("user", "gemini"):
            builder.add(event("prompt" if kind == "user" else "assistant", text=text))
        else:
            builder.add(event("meta", text=text, derived=True))
    calls = message.get("toolCalls")
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            _add_tool_call(builder, event, call)


def _add_tool_call(builder: TranscriptBuilder, event: Callable[..., Event],
                   call: dict[str, Any]) -> None:
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    call_id, status = text_or_none(call.get("id")), text_or_none(call.get("status"))
    builder.add(event("tool_call", tool_name=text_or_none(call.get("name")), tool_input=args,
                      call_id=call_id))
    extras: dict[str, Any] = {"status": status} if status else {}
    if isinstance(args.get("file_path"), str):
        extras["filePath"] = args["file_path"]
    builder.add(event("tool_result", call_id=call_id, text=_result_text(call.get("result")),
                      is_error=status != "success", extras=extras))


def _content_text(content: Any) -> str:
    """Content is a string, or (newer CLIs) a list of parts with ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text")) for part in content
                         if isinstance(part, dict) and part.get("text"))
    return ""


def _result_text(result: Any) -> str:
    """``[{functionResponse: {response: {output | error}}}]`` -> the output or error text."""
    parts = []
    for item in result if isinstance(result, list) else []:
        call = item.get("functionResponse") if isinstance(item, dict) else None
        response = call.get("response") if isinstance(call, dict) else None
        if not isinstance(response, dict):
            continue
        value = response.get("output", response.get("error"))
        if value is not None:
            parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(parts)
