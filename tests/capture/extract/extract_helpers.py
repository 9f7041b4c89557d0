"""Hand-built sessions for the built-in extractor's tests: events written out explicitly, so
each test shows exactly what the agent did and what the extractor may conclude from it."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from claimgraph.capture.events import Event, Transcript, TranscriptBuilder
from claimgraph.capture.extract.builtin import extract
from claimgraph.logic.git_done import FINISHED

ROOT = "/home/dev/shop"
TRANSCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


class Session:
    """A transcript under construction; every event gets the next line number."""

    def __init__(self, agent: str = "claude-code", cwd: str | None = ROOT) -> None:
        self.agent, self.cwd = agent, cwd
        self.events: list[Event] = []
        self._lines = itertools.count(1)
        self._ids = itertools.count(1)

    def event(self, kind: str, **fields: Any) -> Event:
        fields.setdefault("cwd", self.cwd)
        event = Event(kind=kind, agent=self.agent, source_file="/t/session.jsonl",
                      line=next(self._lines), **fields)
        self.events.append(event)
        return event

    def prompt(self, text: str, **fields: Any) -> Event:
        return self.event("prompt", text=text, **fields)

    def tool(self, name: str, tool_input: dict[str, Any], *, error: bool = False,
             output: str = "", extras: dict[str, Any] | None = None,
             answered: bool = True) -> Event:
        """A tool call and (unless ``answered`` is False) its paired result."""
        call_id = f"call-{next(self._ids)}"
        call = self.event("tool_call", tool_name=name, tool_input=tool_input, call_id=call_id)
        if answered:
            self.event("tool_result", call_id=call_id, is_error=error, text=output,
                       extras=extras or {})
        return call

    def bash(self, command: str, *, error: bool = False, output: str = "", **extras: Any) -> Event:
        return self.tool("Bash", {"command": command}, error=error, output=output, extras=extras)

    def write(self, path: str, content: str, **options: Any) -> Event:
        return self.tool("Write", {"file_path": path, "content": content}, **options)

    def edit(self, path: str, old: str, new: str, **options: Any) -> Event:
        return self.tool("Edit", {"file_path": path, "old_string": old, "new_string": new},
                         **options)

    def said_next(self, text: str, ack: str = "Noted.") -> Event:
        """The agent answers ``ack`` and the person writes ``text``: their next message (where
        a reply just given can be taken back)."""
        self.event("assistant", text=ack)
        return self.prompt(text)

    def transcript(self) -> Transcript:
        builder = TranscriptBuilder("/t/session.jsonl", self.agent)
        for event in self.events:
            builder.add(event)
        builder.remember(cwd=self.cwd)
        return builder.build(end_offset=0, end_line=len(self.events))

    def extract(self, project_root: str | None = None) -> list[dict[str, Any]]:
        return extract(self.transcript(), project_root=project_root)


def offer_and_reply(asked: str, offer: str, reply: str, after: str | None = None) -> Session:
    """The person asks ``asked``, the agent answers ``offer`` (its options, its proposal) and
    the person replies ``reply``; with ``after``, the agent says "Noted." and the person writes
    ``after`` next. The exchange the readers of decisions read (``extract/exchanges.py``)."""
    session = Session()
    session.prompt(asked)
    session.event("assistant", text=offer)
    session.prompt(reply)
    if after is not None:
        session.said_next(after)
    return session


def facts(candidates: list[dict[str, Any]], rule: str | None = None) -> set[tuple[str, str, str]]:
    """(subject, predicate, object) triples, optionally of one rule only; a finished state
    (written only to replace one stored before: capture/finished_states.py) is none."""
    return {(c["subject"], c["predicate"], c["object"]) for c in candidates
            if (rule is None or c["rule"] == rule) and not c.get(FINISHED)}


def only(candidates: list[dict[str, Any]], predicate: str) -> list[dict[str, Any]]:
    return [c for c in candidates if c["predicate"] == predicate]
