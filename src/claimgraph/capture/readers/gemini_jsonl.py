"""Gemini CLI 0.61+ sessions (``session-<ts>-<8hex>.jsonl``): a log replayed into messages.

The CLI appends records and reads them back with ``loadConversationRecord``; this replays
the same rules:
- the first line is metadata, ``{sessionId, projectHash, startTime, lastUpdated, kind}``
  (a legacy document written on one line also carries ``messages`` there);
- a line with an ``id`` is a message; a later line with the same id REPLACES it and keeps
  its place (the model's message is written first bare, then with its tool calls and their
  results);
- ``{"$set": {...}}`` updates the metadata; a ``$set`` holding ``messages`` replaces the
  whole list (a session's first ``$set`` brings the ``<session_context>`` message that way);
- ``{"$rewindTo": id}`` drops that message and every later one (an id not found drops all).

Incremental reading. Offsets are bytes, as for every reader, but a line after the mark may
replace or rewind messages before it. So the head up to the mark is replayed first, keeping
per message only what was emitted for it (``gemini.Seen``), and the tail is then replayed
on top: a message the tail replaced yields only what it added (its tool calls and results),
a message it did not touch yields nothing again. A ``$rewindTo`` in the tail drops messages
from the state, so rewound messages not yet captured are never emitted; it invalidates
nothing already captured: facts learned from messages that were later rewound stay in
memory, with their evidence, like anything else a session said (the rewind changes what the
model sees next, not what happened; files written before it stay written too). Each event
cites the line of the message version it came from.

Replaying the head on every capture would make a session's total capture cost grow with the
square of its length. So each read also returns the replay's state at its end (``resume``:
per file, the offset, the metadata fields the reader uses (``KEPT_META``) and, in conversation
order, each message's id and what was emitted for it, with a text digest that means the same
in every process; never a message's text), which capture
keeps in its mark; a read from that very offset starts from the state and never reads the
head. A state for another offset, or one that does not parse, is ignored: the head is
replayed as before, so a stale or damaged mark costs time, never events.

Subagents write ``chats/<parent sessionId>/<sessionId>.jsonl`` (metadata ``kind:
"subagent"``); they are read with their parent, each from its own offset, and their events
carry ``subagent_id`` and ``is_sidechain``: a subagent's "user" turns are the parent
agent's instructions, never the person's words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Transcript, TranscriptBuilder, text_or_none
from claimgraph.capture.readers import (
    MAX_LINE_BYTES, guarded, open_transcript, read_jsonl)
from claimgraph.capture.readers.gemini_messages import AGENT, MessageDelta, Seen, seen_of
from claimgraph.errors import ClaimgraphError

_UNSAFE = lazy_regex(r"[^a-zA-Z0-9_-]")  # the CLI's sanitizeFilenamePart
#: The metadata the reader uses, and so all a kept state holds of it: the rest (a session
#: summary the CLI may write there) is the session's text, which the store never keeps raw.
KEPT_META = ("sessionId", "projectHash", "kind")


def is_jsonl(path: str) -> bool:
    """A first line that is a whole JSON object (a pretty-printed document's is ``{``)."""
    with open_transcript(path) as handle:
        first = handle.readline(MAX_LINE_BYTES)
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return Path(path).suffix == ".jsonl"


def read(path: str, start_offset: int = 0, subagent_offsets: Mapping[str, int] | None = None,
         include_subagents: bool = True, resume: Mapping[str, Any] | None = None) -> Transcript:
    """``resume``: a previous read's ``Transcript.resume`` (module docstring)."""
    builder = TranscriptBuilder(path, AGENT, start_offset)
    replay, states = _Replay(), {}
    end_offset, end_line = _replay_file(builder, path, start_offset, replay, {},
                                        _state_for(resume, path))
    states[path] = replay.state(end_offset)
    session_id = text_or_none(replay.meta.get("sessionId"))
    builder.remember(session_id=session_id, project_hash=_hash(replay.meta))
    offsets = {}
    if include_subagents and session_id and replay.meta.get("kind") != "subagent":
        offsets = _read_subagents(builder, path, session_id, subagent_offsets or {},
                                  resume or {}, states)
    return builder.build(end_offset, end_line, offsets, resume=states)


def _state_for(resume: Mapping[str, Any] | None, path: str) -> Any:
    return resume.get(path) if isinstance(resume, Mapping) else None


def subagent_files(path: str, session_id: str) -> list[Path]:
    folder = Path(path).parent / _UNSAFE.sub("_", session_id)
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


@dataclass
class _Entry:
    """A message in the replayed state: where its latest version is, and that version (None
    while replaying the head: only what was emitted for it is kept, in ``seen``)."""

    line: int
    message: dict[str, Any] | None
    seen: Seen | None


class _Replay:
    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.entries: dict[str, _Entry] = {}  # insertion order is conversation order
        self.keep = False  # False while replaying the head that was captured before
        self.skipped = 0

    def on_record(self, line: int, record: dict[str, Any]) -> None:
        if isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"])
        elif isinstance(record.get("id"), str):
            self.put(line, record)
        elif isinstance(record.get("$set"), dict):
            self.update(line, record["$set"])
        elif isinstance(record.get("sessionId"), str):
            self.update(line, record)
        else:
            self.skipped += 1

    def put(self, line: int, message: dict[str, Any]) -> None:
        """Replace-by-id: a dict keeps a replaced key in its first place, as the CLI's Map."""
        if self.keep:
            self.entries[message["id"]] = _Entry(line, message, None)
        else:
            self.entries[message["id"]] = _Entry(line, None, seen_of(message))

    def update(self, line: int, fields: dict[str, Any]) -> None:
        messages = fields.get("messages")
        self.meta.update({k: v for k, v in fields.items() if k != "messages"})
        if isinstance(messages, list):
            self.entries.clear()
            for message in messages:
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    self.put(line, message)

    def rewind(self, message_id: str) -> None:
        ids = list(self.entries)
        for dropped in ids[ids.index(message_id):] if message_id in self.entries else ids:
            del self.entries[dropped]

    def emitted(self) -> dict[str, Seen]:
        """At the mark: what was emitted for each message still in the conversation."""
        return {key: entry.seen for key, entry in self.entries.items() if entry.seen}

    def state(self, offset: int) -> dict[str, Any]:
        """The replay at ``offset`` as JSON (what ``restore`` takes back): every message now
        counts as emitted, as it will have been once this read is captured."""
        meta = {key: self.meta[key] for key in KEPT_META if key in self.meta}
        return {"offset": offset, "meta": meta, "messages": [
            [key, *(entry.seen if entry.message is None else seen_of(entry.message)).as_json()]
            for key, entry in self.entries.items()]}

    def restore(self, state: Any, offset: int) -> bool:
        """Start from a kept state instead of replaying the head; False (and nothing
        changed) unless it is well-formed and was taken at ``offset``."""
        try:
            if state["offset"] != offset or not isinstance(state["meta"], dict):
                return False
            entries = {}
            for key, *seen in state["messages"]:
                if not isinstance(key, str):
                    return False
                entries[key] = _Entry(0, None, Seen.from_json(seen))
        except (TypeError, ValueError, KeyError):
            return False
        self.meta, self.entries = dict(state["meta"]), entries
        return True


def _replay_file(builder: TranscriptBuilder, path: str, start_offset: int, replay: _Replay,
                 envelope: dict[str, Any], state: Any = None) -> tuple[int, int]:
    """Replay the head (warnings there were reported when it was read), unless a state kept
    at ``start_offset`` says where it ended; then the tail."""
    if start_offset and not replay.restore(state, start_offset):
        scratch = TranscriptBuilder(path, AGENT)
        reached, _ = read_jsonl(path, scratch, 0, replay.on_record, stop_at=start_offset)
        if reached != start_offset:
            raise ClaimgraphError("offset-misaligned", f"offset {start_offset} is not at a line "
                                  f"start in {path}", hint="read it again from offset 0",
                                  path=path, offset=start_offset)
    before, replay.keep, replay.skipped = replay.emitted(), True, 0
    end = read_jsonl(path, builder, start_offset, replay.on_record)
    if replay.skipped:
        builder.counts["skipped_unknown"] += replay.skipped
    delta = MessageDelta(builder, path, {"session_id": text_or_none(replay.meta.get(
        "sessionId")), **envelope})
    for key, entry in replay.entries.items():
        if entry.message is not None:
            guarded(builder, path, entry.line, delta.add, entry.message, entry.line,
                    before.get(key))
    return end


def _read_subagents(builder: TranscriptBuilder, path: str, session_id: str,
                    known: Mapping[str, int], resume: Mapping[str, Any],
                    states: dict[str, Any]) -> dict[str, int]:
    """A broken subagent file costs a warning, not the parent's capture (and its kept
    state, if any, stays for the next read from the same offset)."""
    offsets: dict[str, int] = {}
    for child in subagent_files(path, session_id):
        name = str(child)
        start = known.get(name, 0)
        envelope = {"session_id": session_id, "subagent_id": child.stem, "is_sidechain": True}
        replay = _Replay()
        try:
            offsets[name], _ = _replay_file(builder, name, start, replay, envelope,
                                            _state_for(resume, name))
            states[name] = replay.state(offsets[name])
        except ClaimgraphError as exc:
            builder.warn(name, 0, f"subagent session skipped: {exc.message}",
                         "subagent_error")
            offsets[name] = start
            if _state_for(resume, name) is not None:
                states[name] = resume[name]
    return offsets


def _hash(meta: Mapping[str, Any]) -> str | None:
    value = text_or_none(meta.get("projectHash"))
    return value.lower() if value and re.fullmatch(r"[0-9a-fA-F]{64}", value) else None
