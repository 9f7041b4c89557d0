"""A captured segment: the new events of one transcript, cleaned, and their stored form.

Cleaning happens once, here, before anything is stored or extracted: every event's text goes
through ``clean_text`` (our injected context, ``<system-reminder>`` and ``<private>`` blocks
stripped, secrets redacted), and tool inputs and the structured side of tool results (a
Write's file content, a command's stdout) through ``redact_value``. Extractors and the
evidence tier only ever see the cleaned events, so a secret has no path into the store.

The stored form is JSON lines: a header naming the segment (agent, session, transcript,
byte range and line range, subagent ranges), then one event per line with only the fields
that differ from the model's defaults. It is deterministic (no capture time, no ids), so the
same segment always hashes to the same evidence name, and a re-run after a crash reuses it.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from typing import Any, Iterator, Mapping

from claimgraph.capture.events import Event, Transcript
from claimgraph.logic.clean import clean_text_with_counts
from claimgraph.logic.redact import redact_value

SEGMENT_FORMAT = 1
_FIELDS = tuple(f.name for f in dataclasses.fields(Event))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Event)
             if f.default is not dataclasses.MISSING}


def clean_event(event: Event, counts: Counter[str]) -> Event:
    """The event as capture may keep it; ``counts`` collects redactions per kind."""
    changes: dict[str, Any] = {}
    if event.text:
        text, found = clean_text_with_counts(event.text)
        counts.update(found)
        changes["text"] = text
    if event.tool_input:
        changes["tool_input"] = redact_value(dict(event.tool_input), counts)
    if event.extras:
        changes["extras"] = redact_value(dict(event.extras), counts)
    return dataclasses.replace(event, **changes) if changes else event


def clean_transcript(transcript: Transcript) -> tuple[Transcript, Counter[str]]:
    """Every event cleaned; the counts say how many secrets of each kind were removed."""
    counts: Counter[str] = Counter()
    events = tuple(clean_event(event, counts) for event in transcript.events)
    return dataclasses.replace(transcript, events=events), counts


def event_record(event: Event, main_file: str) -> dict[str, Any]:
    """An event as a compact dict: defaults dropped, the main file's name implied."""
    record: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(event, name)
        if name == "source_file" and value == main_file:
            continue
        if name in _DEFAULTS and value == _DEFAULTS[name]:
            continue
        record[name] = dict(value) if isinstance(value, Mapping) else value
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
    """The stored form, one JSON document per line (header first)."""
    yield _dumps(header)
    for event in transcript.events:
        yield _dumps(event_record(event, transcript.path))


def segment_text(transcript: Transcript, header: Mapping[str, Any]) -> str:
    return "".join(line + "\n" for line in segment_lines(transcript, header))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
