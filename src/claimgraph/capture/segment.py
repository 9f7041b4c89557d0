"""A captured segment: the new events of one transcript, cleaned, and their stored form.

Cleaning happens once, here, before anything is stored or extracted: every event's text goes
through ``clean_text`` (our injected context, ``<system-reminder>`` and ``<private>`` blocks
stripped, secrets redacted), and tool inputs and the structured side of tool results (a
Write's file content, a command's stdout) through ``redact_value``. Extractors and the
evidence tier only ever see the cleaned events, so a secret has no path into the store.

Tool output is capped AFTER cleaning (``MAX_OUTPUT_CHARS``: its head and tail are kept, with a
marker saying how much was left out), so a secret that the cut would split, or a key block
whose BEGIN line falls into the dropped middle, is redacted while it is still whole. A 150 KB
file Read is the file, which is on disk; what the session learned from it is in the calls and
replies around it, and an error a runner printed sits at the head or the tail. Tool INPUTS
(the code an agent wrote) are never cut.

The envelope's own strings (a record's cwd, branch, agent version, session, record and call
ids, a tool's name) and the session metadata a reader remembers are stored too (each event's
evidence line, the project a cwd names): they are redacted as well, once per distinct value
(``_Cleaner.label``; a record's and a call's own id each time, ``_Cleaner.unique``), so a
token in a branch name or a folder name goes no further than a token in a prompt. Dict keys
stay as they are (``redact_value``): they name things.

A command that prints a secret and nothing else (``heroku auth:token``, ``gh auth token``,
``gcloud auth print-access-token``…) has its whole output replaced: a bare token there has no
shape or name that would give it away.

The stored form is JSON lines: a header naming the segment (agent, session, transcript,
byte range and line range, subagent ranges), then one event per line with only the fields
that differ from the model's defaults. It is deterministic (no capture time, no ids), so the
same segment always hashes to the same evidence name, and a re-run after a crash reuses it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from claimgraph.capture.events import NO_EXTRAS, Event, IdColumn, Transcript, cleaning
from claimgraph.capture.packed import (
    INPUT_PACK_MIN_CHARS, PACK_MIN_CHARS, PackedFields, pack, pack_input, replaced, spilling)
from claimgraph.capture.record_ids import RecordIds
from claimgraph.logic.clean import clean_text_with_counts
from claimgraph.logic.redact import is_secret_name, placeholder, redact_value
from claimgraph.logic.redact.blocks import SECRET_PRINTING_COMMAND
from claimgraph.private import private_dir

SEGMENT_FORMAT = 1
MAX_OUTPUT_CHARS = 12_000
OUTPUT_HEAD_CHARS = 8_000
_FIELDS = tuple(f.name for f in dataclasses.fields(Event))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Event)
             if f.default is not dataclasses.MISSING}
_NO_DEFAULT = object()
#: (field, its default or ``_NO_DEFAULT``): what ``event_record`` compares each field with.
_RECORD_FIELDS = tuple((name, _DEFAULTS.get(name, _NO_DEFAULT)) for name in _FIELDS)
#: An event's strings besides its text, input and extras: the envelope and ids (``label``).
_LABEL_FIELDS = ("session_id", "cwd", "git_branch", "agent_version", "subagent_id")
_MAPPING_FIELDS = frozenset(f.name for f in dataclasses.fields(Event)
                            if "Mapping" in str(f.type))


def _replaced(event: Event, changes: Mapping[str, Any]) -> Event:
    """``dataclasses.replace`` for the cleaner's changes (``packed.replaced``: no keywords
    gathered, no ``__init__`` called; a name that is no field is still refused)."""
    return replaced(event, changes)


#: The end of the marker ``cap_output`` puts where it left a tool output's middle out.
_OMITTED = " characters of output omitted by claimgraph ...]"


def cap_output(text: str) -> str:
    """Head and tail of an oversized tool output, and how much was left out between them.
    The marker is ASCII: one non-Latin-1 character would double the memory of an ASCII output."""
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    tail = MAX_OUTPUT_CHARS - OUTPUT_HEAD_CHARS
    omitted = len(text) - MAX_OUTPUT_CHARS
    return f"{text[:OUTPUT_HEAD_CHARS]}\n[... {omitted}{_OMITTED}\n{text[-tail:]}"


def output_head(text: str) -> str:
    """A tool output as far as it runs unbroken: the head ``cap_output`` kept, before its
    marker (the whole text when it was not capped). What spans the cut (a section of a
    document, an item) is not known whole after it."""
    marker = text[OUTPUT_HEAD_CHARS:OUTPUT_HEAD_CHARS + 80]
    capped = len(text) > MAX_OUTPUT_CHARS and marker.startswith("\n[... ") and _OMITTED in marker
    return text[:OUTPUT_HEAD_CHARS] if capped else text


Cleaned = tuple[Any, Counter]


class _Cleaner:
    """Cleans one transcript's events in order, counting redactions per kind.

    A tool result repeats what its call was given (a Write's content, an Edit's strings, the
    path) and usually its own text (Bash's stdout). Those copies are cleaned once per tool
    exchange and the result reused, with their redactions counted again, so the output and
    the counts are exactly what cleaning each copy would give. Nothing is shared across
    exchanges: the saving comes from one call and its result, never from a repetitive session.

    Names are kept once per transcript: a tool's name and the field names of its inputs (each
    line is decoded on its own, so every call would hold its own ``"command"``, ``"Bash"``),
    and a result's call id is its call's string. Equal strings, so the stored form is the
    same; ~3 MB less of a 200 MB transcript's held events.

    So are the values of tool inputs and results that stay plain (shorter than what is
    packed): an agent runs the same command line, reads the same path, labels a call with
    the same description many times over, and each line decoded held its own copy (~2 MB
    of a 200 MB transcript's held strings, issue 29). Each is still redacted where it
    occurs, as above; only the cleaned string is held once (``_one``), in a table that lives
    as long as the cleaner, i.e. the read.
    """

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._given: dict[str, dict[str, Cleaned]] = {}
        self._printing: set[str] = set()
        self._names: dict[str, str] = {}
        self._call_ids: dict[str, str] = {}  # a call's id, until its result comes
        self._labels: dict[str, tuple[str, Counter[str]]] = {}
        self._packed: dict[str, dict[int, Any]] = {}  # a call's packed input, until its result
        self._values: dict[str, str] = {}  # each plain value cleaned, held once (``_one``)

    def label(self, value: str) -> str:
        """A short string of the envelope that repeats (module docstring), redacted once per
        distinct value and its redactions counted at each use, as for a text's copies. An
        unchanged value comes back as the first copy seen, so equal names are held once."""
        done = self._labels.get(value)
        if done is None:
            found: Counter[str] = Counter()
            text = redact_value(value, found)
            done = self._labels[value] = (value if text == value else text, found or None)
        if done[1]:
            self.counts.update(done[1])
        return done[0]

    def unique(self, value: str) -> str:
        """An id each record has its own of (a record's, a call's): redacted, not remembered
        (a cache of every id would hold a 200 MB session's ~80,000 of them for nothing)."""
        found: Counter[str] = Counter()
        text = redact_value(value, found)
        if found:
            self.counts.update(found)
        return value if text == value else text

    def id_column(self) -> IdColumn:
        """A builder's column of record ids (``record_ids.RecordIds``)."""
        return RecordIds()

    def record_id(self, value: str | None) -> str | None:
        """A record's id as it may be stored (``unique``)."""
        return self.unique(value) if value and isinstance(value, str) else value

    def event(self, event: Event, ids: IdColumn | None = None) -> Event:
        """The event cleaned and packed; with ``ids``, its cleaned record id goes there and
        the event holds None (``events.TranscriptBuilder``). The id goes last, once the
        event is made: a record whose cleaning fails is skipped by its reader
        (``readers.guarded``), and an id appended before would pair every later event with
        the id before its own."""
        held = self._cleaned(event, ids is not None)
        if ids is not None:
            ids.append(self.record_id(event.record_id))
        return held

    def _cleaned(self, event: Event, apart: bool) -> Event:
        if event.kind == "tool_result" and event.call_id in self._printing:
            return self._printed_secret(event, apart)
        changes: dict[str, Any] = {}
        copies: dict[str, Cleaned] = {}
        echoes: frozenset[int] = frozenset()  # what the result repeats of its call's input
        shared: dict[int, Any] = {}  # of those, what the call holds packed (``pack_input``)
        if event.kind == "tool_result" and event.call_id:
            copies = self._given.pop(event.call_id, {})
            shared = self._packed.pop(event.call_id, {})
            echoes = frozenset(id(done[0]) for done in copies.values())
            call_id = self._call_ids.pop(event.call_id, None) or self.unique(event.call_id)
            if call_id is not event.call_id:
                changes["call_id"] = call_id
        elif event.kind == "tool_call":
            if event.call_id:
                call_id = self._call_ids[event.call_id] = self.unique(event.call_id)
                if call_id is not event.call_id:
                    changes["call_id"] = call_id
            if event.tool_name:
                changes["tool_name"] = self.label(event.tool_name)
        self._envelope(event, changes, apart)
        capped: dict[int, str] = {}  # one capped copy of an output the result repeats
        if event.text:
            text, found = clean_text_with_counts(event.text)
            if found:  # nearly never: an empty update still costs a Python call per text
                self.counts.update(found)
            copies[event.text] = (text, found)
            changes["text"] = text
            if event.kind == "tool_result":
                changes["text"] = capped[id(text)] = cap_output(text)
        if event.tool_input:
            given = self._given.setdefault(event.call_id, {}) if event.call_id else None
            changes["tool_input"], packed = pack_input(self._fields(event.tool_input, {}, given))
            if packed and event.call_id:
                self._packed[event.call_id] = packed
            if event.call_id and _prints_a_secret(event.tool_input):
                self._printing.add(event.call_id)
        if event.extras:
            extras = self._fields(event.extras, copies, None)
            changes["extras"] = {k: capped.get(id(v)) or cap_output(v) if isinstance(v, str)
                                 else v for k, v in extras.items()}
        elif changes and event.extras is not NO_EXTRAS:  # a reader's own empty dict
            changes["extras"] = NO_EXTRAS
        return pack(event, echoes, changes, shared)  # one copy: cleaned and packed at once

    def _envelope(self, event: Event, changes: dict[str, Any], apart: bool) -> None:
        """The envelope's strings, redacted (``label``, ``unique``), into ``changes`` where
        they differ; ``apart``: the record id is held elsewhere (``event``), the event None."""
        for name in _LABEL_FIELDS:
            value = getattr(event, name)
            if value and isinstance(value, str):
                held = self.label(value)
                if held is not value:
                    changes[name] = held
        if apart:
            if event.record_id is not None:
                changes["record_id"] = None
            return
        record_id = self.record_id(event.record_id)
        if record_id is not event.record_id:
            changes["record_id"] = record_id

    def amended(self, event: Event, changes: dict[str, Any]) -> Event:
        """A reader's later change to an event (a merged message's joined text, a compaction's
        summary), cleaned like the event was; cleaning clean text again changes nothing."""
        if "record_id" in changes:
            changes["record_id"] = self.record_id(changes["record_id"])
        if isinstance(changes.get("text"), str):
            text, found = clean_text_with_counts(changes["text"])
            if found:
                self.counts.update(found)
            changes["text"] = cap_output(text) if event.kind == "tool_result" else text
        if isinstance(changes.get("extras"), Mapping):
            changes["extras"] = self._fields(changes["extras"], {}, None)
        return pack(_replaced(event, changes))

    def _printed_secret(self, event: Event, apart: bool) -> Event:
        """The whole output of a secret-printing command goes (module docstring)."""
        self._printing.discard(event.call_id or "")
        self.counts["command-output"] += 1
        hidden = placeholder("command-output")
        extras = {k: hidden if isinstance(v, str) and k in ("stdout", "stderr", "content")
                  else v for k, v in event.extras.items()}
        changes: dict[str, Any] = {"text": hidden if event.text else "", "extras": extras}
        if event.call_id:
            changes["call_id"] = self._call_ids.pop(event.call_id, None) or self.unique(
                event.call_id)
        self._envelope(event, changes, apart)
        return _replaced(event, changes)

    def _fields(self, fields: Mapping[str, Any], known: Mapping[str, Cleaned],
                remember: dict[str, Cleaned] | None) -> dict[str, Any]:
        """``redact_value`` field by field (which is what it does with a dict), reusing known
        copies; a secret-named field is never reused, its whole value may go."""
        out: dict[str, Any] = {}
        for key, value in fields.items():
            if isinstance(key, str):
                key = self._names.setdefault(key, key)
            if not isinstance(value, str) or is_secret_name(str(key)):
                out[key] = redact_value({key: value}, self.counts)[key]
                continue
            done = known.get(value)
            if done is None:
                found: Counter[str] = Counter()
                done = (self._one(redact_value(value, found),
                                  INPUT_PACK_MIN_CHARS if remember is not None
                                  else PACK_MIN_CHARS), found)
            if remember is not None:
                remember[value] = done
            out[key] = done[0]
            if done[1]:
                self.counts.update(done[1])
        return out


    def _one(self, value: Any, packed_from: int) -> Any:
        """The first equal string the read held, for a cleaned value too short to be packed
        (``packed_from``: where an input's strings, or a result's, are packed): a packed one
        is held by its handle, and keeping it here would hold it whole."""
        if isinstance(value, str) and len(value) < packed_from:
            return self._values.setdefault(value, value)
        return value


def _prints_a_secret(tool_input: Mapping[str, Any]) -> bool:
    command = tool_input.get("command") or tool_input.get("cmd")
    if isinstance(command, list):
        command = " ".join(part for part in command if isinstance(part, str))
    return isinstance(command, str) and SECRET_PRINTING_COMMAND.search(command) is not None


def read_cleaned(path: str, agent: str, start_offset: int = 0, spill_dir: str | None = None,
                 **options: Any) -> tuple[Transcript, Counter[str]]:
    """Read and clean in one pass (``events.cleaning``): the raw events are never all held.
    What is packed is kept in a spill file (``packed.spilling``: the one already installed,
    else one in ``spill_dir``), not in memory."""
    from claimgraph.capture.readers import read_transcript
    with cleaning(_Cleaner()) as cleaner, spilling(spill_dir):
        transcript = read_transcript(path, agent, start_offset, **options)
    return transcript, cleaner.counts


def clean_transcript(transcript: Transcript) -> tuple[Transcript, Counter[str]]:
    """Every event cleaned; the counts say how many secrets of each kind were removed."""
    cleaner = _Cleaner()
    events = tuple(cleaner.event(event) for event in transcript.events)
    return dataclasses.replace(transcript, events=events), cleaner.counts


#: ``event_record``'s default: the event holds its own record id.
_HELD = object()


def event_record(event: Event, main_file: str, record_id: Any = _HELD) -> dict[str, Any]:
    """An event as a compact dict: defaults dropped, the main file's name implied;
    ``record_id``: the event's id when the transcript holds it apart (``record_ids``).
    Only the two mapping fields are asked whether they hold a mapping (a packed event's extras
    are a read-only one, given back as a dict): every other field holds a string, a number or
    None, and an ``isinstance`` against the ABC for each cost a third of writing the segment."""
    record: dict[str, Any] = {}
    for name, default in _RECORD_FIELDS:
        value = getattr(event, name)
        if name == "record_id" and record_id is not _HELD:
            value = record_id
        if value == default if default is not _NO_DEFAULT else (
                name == "source_file" and value == main_file):
            continue
        # the ABC, not typing's alias: its isinstance is several times slower per call
        if name in _MAPPING_FIELDS and isinstance(value, Mapping):
            value = value.plain() if isinstance(value, PackedFields) else dict(value)
        record[name] = value
    return record


def segment_header(transcript: Transcript, session: str, start_line: int,
                   subagent_ranges: Mapping[str, list[int]]) -> dict[str, Any]:
    """What the segment covers: enough to find every event's line in the original files."""
    return {"kind": "segment", "format": SEGMENT_FORMAT, "agent": transcript.agent,
            "session": session, "transcript": transcript.path,
            "bytes": [transcript.start_offset, transcript.end_offset],
            "lines": [start_line + 1, transcript.end_line], "subagents": dict(subagent_ranges),
            "events": len(transcript.events)}


def segment_lines(transcript: Transcript, header: Mapping[str, Any]) -> Iterator[str]:
    """The stored form, one JSON document per line (header first); each event's record id
    from the transcript's column when the events were built without theirs
    (``Transcript.record_ids``, capture/record_ids.py)."""
    yield _dumps(header)
    if transcript.record_ids is None:
        for event in transcript.events:
            yield _dumps(event_record(event, transcript.path))
        return
    for event, record_id in zip(transcript.events, transcript.record_ids, strict=True):
        yield _dumps(event_record(event, transcript.path, record_id))


def write_segment(evidence_dir: Path, lines: Iterable[str]) -> str:
    """Stream ``lines`` into the evidence tier; returns the ``sha256-<hex>`` name.

    The name and the write-once rule are ``Sidecars.put_evidence``'s (the hash of the UTF-8
    bytes; an existing copy is never rewritten; temp file + rename), but the text is never
    held whole: a 50 MB transcript's segment would otherwise cost several copies of itself.
    """
    private_dir(evidence_dir)
    digest = hashlib.sha256()
    handle, temp = tempfile.mkstemp(dir=evidence_dir, prefix=".segment.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            for line in lines:
                data = (line + "\n").encode("utf-8")
                digest.update(data)
                out.write(data)
            out.flush()
            os.fsync(out.fileno())
        name = "sha256-" + digest.hexdigest()
        if (evidence_dir / name).exists():
            os.unlink(temp)
        else:
            os.replace(temp, evidence_dir / name)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return name


#: Built once: ``json.dumps`` with options builds an encoder per call (one per event).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)
