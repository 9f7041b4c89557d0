"""The normalized transcript model every reader produces and every extractor consumes.

Frozen, slotted dataclasses rather than TypedDicts: a 50 MB transcript yields tens of
thousands of events, and slots keep each one small; a misspelt attribute fails loudly instead
of reading as a missing key; and one extractor cannot mutate what the next one sees.
``to_dict()`` gives the plain-dict shape the rest of claimgraph stores.

One flat ``Event`` with a ``kind`` tag (not a class per kind) so that filtering, sorting and
serializing are the same for all kinds; fields a kind does not use stay at their defaults.

Capture cleans while it reads (``cleaning``): a builder made inside that block passes every
event through the cleaner as it is added or amended, so a 200 MB transcript's raw text (tool
outputs before truncation, secrets included) is never held whole, only each event's, once.
A context variable carries the cleaner so that no reader has to know about cleaning.
Such a builder also holds each event's record id apart from the event (``record_ids``,
capture/record_ids.py): only the evidence segment reads it, so the cleaned event holds None
and the transcript's ``record_ids`` column gives the id.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Protocol, Sequence

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso

AGENTS = ("claude-code", "codex", "gemini", "text")

#: prompt: text the human typed.  assistant: the model's visible text (thinking dropped).
#: tool_call / tool_result: paired by ``call_id``.  compaction: a context summary (derived).
#: subagent: a link from the parent's tool call to a subagent's transcript.  meta: text the
#: harness injected in the user's place (slash-command wrappers, hook feedback, interruption
#: markers, environment blocks) -- kept as evidence, always derived, never a prompt.
#: observed: a file's lines as the harness recorded them (a file changed outside the agent's
#: tools, a file attached to a message), numbered; derived (capture/extract/observed.py).
KINDS = ("prompt", "assistant", "tool_call", "tool_result", "compaction", "subagent", "meta",
         "observed")


#: ``Event.extras`` key a reader sets on a tool result that is the person turning the call down.
TURNED_DOWN = "turned_down"
#: The extras of every event built without any: one shared empty dict, not one per event (most
#: events have none; a 200 MB transcript built ~25,000 empty dicts, ~1.6 MB). Never mutated:
#: a reader fills its own dict before it builds the event, and an event is frozen.
NO_EXTRAS: dict[str, Any] = {}


def _no_extras() -> dict[str, Any]:
    return NO_EXTRAS


@dataclass(frozen=True, slots=True)
class Event:
    """One normalized thing that happened in a session; ``line`` is its evidence reference."""

    kind: str
    agent: str
    source_file: str
    line: int
    text: str = ""
    timestamp: int | None = None
    session_id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    agent_version: str | None = None
    derived: bool = False
    is_sidechain: bool = False
    subagent_id: str | None = None
    record_id: str | None = None
    tool_name: str | None = None
    tool_input: Mapping[str, Any] | None = None
    call_id: str | None = None
    is_error: bool = False
    extras: Mapping[str, Any] = field(default_factory=_no_extras)

    @property
    def turned_down(self) -> bool:
        """A tool call's result that says the person turned the call down (each reader
        knows its harness's words: Claude Code's "The user doesn't want to proceed …",
        Codex's "exec command rejected by user"): the person's answer, never the tool's
        verdict, so the call is neither a pass nor a failure -- it was not done."""
        return self.kind == "tool_result" and self.extras.get(TURNED_DOWN) is True

    @property
    def is_human_prompt(self) -> bool:
        """Words a person typed: the only text an extractor may treat as a user assertion."""
        return self.kind == "prompt" and not self.derived and not self.is_sidechain

    def to_dict(self) -> dict[str, Any]:
        shape = dataclasses.asdict(self)
        if self.tool_input is not None and not isinstance(self.tool_input, dict):
            shape["tool_input"] = dict(self.tool_input)  # held fields (capture/packed.py)
        if not isinstance(self.extras, dict):
            shape["extras"] = dict(self.extras)
        return shape


@dataclass(frozen=True, slots=True)
class ReadWarning:
    """A line the reader could not use, and why: shown to users, never fatal.
    ``line`` 0 means the whole file (a subagent transcript that could not be opened)."""

    source_file: str
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """``start_cwd`` is where the session started (its project); ``cwd`` where it was last
    (the agent may ``cd`` on). ``project_hash`` is Gemini's sha256 of its project root."""

    agent: str
    session_id: str | None = None
    cwd: str | None = None
    start_cwd: str | None = None
    git_branch: str | None = None
    agent_version: str | None = None
    repository_url: str | None = None
    project_hash: str | None = None


@dataclass(frozen=True)
class Transcript:
    """What one read produced. ``end_offset`` is where the next incremental read starts:
    the byte just past the last complete line consumed (a half-written line is left alone).
    ``subagent_offsets`` holds the same high-water mark for each subagent file read.
    ``resume`` is what a reader needs to start the next read at ``end_offset`` without
    reading the head again (JSON, kept in capture's mark): the Gemini JSONL reader's, whose
    later lines can change earlier messages, and the Codex reader's, a message copy the read
    ended on whose other copy comes next (readers/codex_cut.py)."""

    path: str
    agent: str
    session: SessionInfo
    events: tuple[Event, ...]
    start_offset: int
    end_offset: int
    end_line: int
    counts: Mapping[str, int]
    warnings: tuple[ReadWarning, ...]
    subagent_offsets: Mapping[str, int] = field(default_factory=dict)
    resume: Mapping[str, Any] = field(default_factory=dict)
    #: Each event's record id, in event order, when the events were built without theirs
    #: (under ``cleaning``: module docstring); None when every event holds its own.
    record_ids: Sequence[str | None] | None = None

    def record_id(self, index: int) -> str | None:
        """The record id of ``events[index]``, wherever it is held."""
        return self.events[index].record_id if self.record_ids is None \
            else self.record_ids[index]


class IdColumn(Protocol):
    """Where a builder under ``cleaning`` keeps its events' record ids (``record_ids.py``)."""

    def append(self, value: str | None) -> None: ...

    def set(self, index: int, value: str | None) -> None: ...

    def reorder(self, order: Sequence[int]) -> None: ...

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> str | None: ...

    def __iter__(self) -> Iterator[str | None]: ...


class Cleaner(Protocol):
    """What ``cleaning`` installs: the event as capture may keep it, and an amendment's.
    ``event`` with ``ids`` appends the cleaned record id there and builds the event without
    it; ``id_column`` makes a builder's column, ``record_id`` cleans an id set later."""

    def event(self, event: Event, ids: IdColumn | None = None) -> Event: ...

    def amended(self, event: Event, changes: dict[str, Any]) -> Event: ...

    def label(self, value: str) -> str: ...

    def record_id(self, value: str | None) -> str | None: ...

    def id_column(self) -> IdColumn: ...


_CLEANER: contextvars.ContextVar[Cleaner | None] = contextvars.ContextVar("cleaner", default=None)


@contextlib.contextmanager
def cleaning(cleaner: Cleaner) -> Iterator[Cleaner]:
    """Builders made in this block clean every event as it is added (module docstring)."""
    token = _CLEANER.set(cleaner)
    try:
        yield cleaner
    finally:
        _CLEANER.reset(token)


class TranscriptBuilder:
    """Mutable scratch space a reader fills while streaming; ``build()`` freezes it."""

    def __init__(self, path: str, agent: str, start_offset: int = 0) -> None:
        self.path = path
        self.agent = agent
        self.start_offset = start_offset
        self.events: list[Event] = []
        self.counts: Counter[str] = Counter()
        self.warnings: list[ReadWarning] = []
        self.session: dict[str, str] = {}
        self._cleaner = _CLEANER.get()
        self.record_ids = self._cleaner.id_column() if self._cleaner else None

    def add(self, event: Event) -> int:
        """Append an event and return its index, so a later line can still amend it."""
        self.events.append(self._cleaner.event(event, self.record_ids) if self._cleaner
                           else event)
        return len(self.events) - 1

    def amend(self, index: int, **changes: Any) -> None:
        event = self.events[index]
        if self._cleaner is None:
            self.events[index] = dataclasses.replace(event, **changes)
            return
        ids = self.record_ids if "record_id" in changes else None
        record_id = changes.pop("record_id") if ids is not None else None
        self.events[index] = self._cleaner.amended(event, changes)
        if ids is not None:  # after: an amendment that fails changes neither
            ids.set(index, self._cleaner.record_id(record_id))

    def sort_by_line(self) -> None:
        """The events in line order (a reader that adds some late: Codex's held echoes), each
        record id moving with its event: sorting ``events`` alone would leave the ids held
        apart (``record_ids``) beside other events in the stored segment."""
        order = sorted(range(len(self.events)), key=lambda at: self.events[at].line)
        self.events = [self.events[at] for at in order]
        if self.record_ids is not None:
            self.record_ids.reorder(order)

    def warn(self, source_file: str, line: int, reason: str, counter: str = "malformed") -> None:
        self.counts[counter] += 1
        self.warnings.append(ReadWarning(source_file, line, reason))

    def remember(self, **fields: str | None) -> None:
        """Session metadata: the first session id wins, the latest cwd/branch/version win;
        the first cwd is also kept as ``start_cwd``, the session's project. Under
        ``cleaning`` each value is the cleaner's ``label`` of it: it can name the project."""
        for name, value in fields.items():
            if value and isinstance(value, str) and self._cleaner is not None:
                value = self._cleaner.label(value)
            if value and (name != "session_id" or name not in self.session):
                self.session[name] = value
            if value and name == "cwd":
                self.session.setdefault("start_cwd", value)

    def build(self, end_offset: int, end_line: int,
              subagent_offsets: Mapping[str, int] | None = None,
              resume: Mapping[str, Any] | None = None) -> Transcript:
        counts = Counter(self.counts)
        counts["events"] = len(self.events)
        for event in self.events:
            counts[event.kind] += 1
            counts["tool_error"] += event.kind == "tool_result" and event.is_error
            counts["derived"] += event.derived
        session = SessionInfo(agent=self.agent, **self.session)
        return Transcript(self.path, self.agent, session, tuple(self.events), self.start_offset,
                          end_offset, end_line, dict(counts), tuple(self.warnings),
                          dict(subagent_offsets or {}), dict(resume or {}), self.record_ids)


def text_or_none(value: Any) -> str | None:
    """Transcripts are third-party data: a field of the wrong type counts as absent."""
    return value if isinstance(value, str) else None


def iso_to_ms(value: Any) -> int | None:
    """Transcript timestamps are ISO-8601 text; a bad one costs the timestamp, not the event."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return from_iso(value)
    except ClaimgraphError:
        return None


def scalar_fields(source: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Copy only small, flat values: tool outputs also carry whole files and patches."""
    return {name: source[name] for name in names
            if isinstance(source.get(name), (str, int, float, bool))}
