"""Reading the sidecar logs back: the last N matching events, newest last, and follow mode.

Logs grow without bound between rotations, so nothing here reads a whole file: the tail is
read from the end in blocks, walking into rotated files (``<log>.1``, ``<log>.2``, ...) only
when the live file holds too few matching lines. A line that is not JSON (a dying
interpreter's traceback) is kept as a raw entry, and a last line without its newline (a
writer caught mid-write) is kept too, marked truncated, rather than breaking the read.
"""

from __future__ import annotations

import heapq
import json
import os
import re
import time
from collections import namedtuple
from pathlib import Path

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso
from claimgraph.logsetup import LEVELS
from claimgraph.sidecar import Sidecars

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterator, Mapping

LOG_NAMES = ("capture", "curate", "daemon", "mcp")
BLOCK = 1 << 16
MAX_ROTATIONS = 50
MAX_PENDING_RAW = 10_000
SKEW_MS = 300_000
MIN_POLL_S, MAX_POLL_S = 0.05, 2.0
_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
SINCE_HINT = "give a duration like 30m, 1h, 2d, or an ISO time like 2026-01-31T09:00"


class Entry:
    """One log line: a parsed event, or raw text; ``ts_ms`` orders lines across logs.

    A plain class (``ts_ms`` is filled in after reading), not a dataclass: ``claimgraph
    status`` reads logs, and ``dataclasses`` would bring ``inspect`` into its start-up."""

    __slots__ = ("log", "event", "raw", "truncated", "ts_ms")

    def __init__(self, log: str, event: dict[str, Any] | None, raw: str | None = None,
                 truncated: bool = False, ts_ms: int | None = None) -> None:
        self.log, self.event, self.raw = log, event, raw
        self.truncated, self.ts_ms = truncated, ts_ms

    def _fields(self) -> tuple[Any, ...]:
        return (self.log, self.event, self.raw, self.truncated, self.ts_ms)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entry) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return "Entry(log={!r}, event={!r}, raw={!r}, truncated={!r}, ts_ms={!r})".format(
            *self._fields())

    def as_json(self) -> dict[str, Any]:
        if self.event is not None:
            return {**self.event, "log": self.event.get("log", self.log)}
        record: dict[str, Any] = {"log": self.log, "raw": self.raw}
        return {**record, "truncated": True} if self.truncated else record


class Filters(namedtuple("Filters", "level event session run since_ms hide_routine",
                         defaults=(None, None, None, None, None, False))):
    """Each flag is one predicate; an event must pass all of them."""

    __slots__ = ()
    if TYPE_CHECKING:  # the fields' types, for a type checker
        level: str | None
        event: str | None
        session: str | None
        run: str | None
        since_ms: int | None
        hide_routine: bool

    def past_window(self, entry: Entry) -> bool:
        """Lines are appended in time order, give or take concurrent writers: an event well
        before --since means everything older is too, so a reader may stop there."""
        return (self.since_ms is not None and entry.event is not None
                and entry.ts_ms is not None and entry.ts_ms < self.since_ms - SKEW_MS)

    def match(self, entry: Entry) -> bool:
        data = entry.event or {}
        if self.since_ms is not None and (entry.ts_ms or 0) < self.since_ms:
            return False
        if self.level and _level_of(entry) < LEVELS[self.level]:
            return False
        if self.event and not _event_matches(str(data.get("event", "")), self.event):
            return False
        if self.session and str(data.get("session", "")) != self.session:
            return False
        if self.hide_routine and is_routine(data):
            return False
        return not (self.run and str(data.get("run_id", "")) != self.run)


#: Lifecycle events of a run that went as it should: they say a stage began and ended, not
#: what happened, and drown what a person reads the log for (what a capture learned, what
#: failed). ``logs --all-events`` (or ``--level debug``, or ``--event``) shows them.
ROUTINE_EVENTS = frozenset({
    "curate.started", "curate.lease-acquired", "curate.pass-started", "curate.stage-started",
    "curate.stage-finished", "curate.pass-finished", "curate.lease-released",
    "capture.curator-spawned", "hook.spawned"})


def is_routine(data: Mapping[str, Any]) -> bool:
    return (data.get("event") in ROUTINE_EVENTS and data.get("level") in ("debug", "info")
            and data.get("status") in (None, "ok"))


def _level_of(entry: Entry) -> int:
    """Raw lines are almost always tracebacks, so they rank as errors."""
    if entry.event is None:
        return LEVELS["error"]
    return LEVELS.get(str(entry.event.get("level", "info")).lower(), LEVELS["info"])


def _event_matches(name: str, pattern: str) -> bool:
    """A glob when the pattern has wildcards, else a prefix (``capture`` matches capture.*)."""
    if any(c in pattern for c in "*?["):
        import fnmatch
        return fnmatch.fnmatchcase(name, pattern)
    return name.startswith(pattern)


def parse_level(text: str | None) -> str | None:
    if text is None:
        return None
    if text.strip().lower() not in LEVELS:
        raise ClaimgraphError("invalid-level", f"--level {text!r} is not a log level",
                              hint="use one of " + ", ".join(LEVELS), value=text)
    return text.strip().lower()


def parse_since(text: str | None, now_ms: int) -> int | None:
    """``30m``, ``1h``, ``2d`` (before now) or an ISO date/time, as epoch milliseconds."""
    if text is None:
        return None
    match = _DURATION.fullmatch(text.strip().lower())
    if match:
        return now_ms - int(match.group(1)) * _UNIT_MS[match.group(2)]
    try:
        return from_iso(text)
    except ClaimgraphError:
        raise ClaimgraphError("invalid-since", f"--since {text!r} is not a duration or a time",
                              hint=SINCE_HINT, value=text) from None


def log_paths(db: Path | str) -> dict[str, Path]:
    side = Sidecars(db)
    return {"capture": side.capture_log, "curate": side.curate_log, "daemon": side.daemon_log,
            "mcp": side.mcp_log}


def rotated(path: Path) -> list[Path]:
    """The live file, then ``.1``, ``.2``... while they exist (newest first)."""
    found = [path] if path.exists() else []
    for n in range(1, MAX_ROTATIONS + 1):
        older = path.with_name(f"{path.name}.{n}")
        if not older.exists():
            break
        found.append(older)
    return found


def lines_backward(path: Path, end: int | None = None) -> Iterator[tuple[bytes, bool]]:
    """(line, complete) from the last line to the first, reading ``BLOCK`` bytes at a time."""
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    with handle:
        pos = handle.seek(0, os.SEEK_END) if end is None else end
        carry, first = b"", True
        while pos > 0:
            start = max(0, pos - BLOCK)
            handle.seek(start)
            parts = (handle.read(pos - start) + carry).split(b"\n")
            carry, pos = parts[0], start
            for index, part in enumerate(reversed(parts[1:])):
                if part:
                    yield part, not (first and index == 0)
            first = False if len(parts) > 1 else first
        if carry:
            yield carry, not first


def parse_line(log: str, line: bytes, complete: bool = True) -> Entry:
    text = line.decode("utf-8", errors="replace").rstrip("\r")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return Entry(log, None, raw=text, truncated=not complete)
    return Entry(log, data, ts_ms=ts_ms_of(data.get("ts")))


def ts_ms_of(value: Any) -> int | None:
    try:
        return from_iso(value) if isinstance(value, str) else None
    except ClaimgraphError:
        return None


def entries_backward(log: str, path: Path, end: int | None = None) -> Iterator[Entry]:
    """Newest first across rotations (the live file read up to ``end``).

    A raw line takes the time of the event just before it, because a traceback is written
    after the last words of the process that died; raw lines with no earlier event take the
    time of the next newer one, or the file's mtime.
    """
    pending: list[Entry] = []
    newer_ts: int | None = None
    for part in rotated(path):
        newer_ts = _mtime_ms(part) if newer_ts is None else newer_ts
        for line, complete in lines_backward(part, end if part == path else None):
            entry = parse_line(log, line, complete)
            if entry.event is None and len(pending) < MAX_PENDING_RAW:
                pending.append(entry)
                continue
            entry.ts_ms = newer_ts if entry.ts_ms is None else entry.ts_ms
            yield from _stamped(pending, entry.ts_ms)
            pending, newer_ts = [], entry.ts_ms
            yield entry
    yield from _stamped(pending, newer_ts)


def _stamped(entries: list[Entry], ts_ms: int | None) -> list[Entry]:
    for entry in entries:
        entry.ts_ms = ts_ms
    return entries


def _mtime_ms(path: Path) -> int | None:
    try:
        return int(path.stat().st_mtime * 1000)
    except OSError:
        return None


def tail_one(log: str, path: Path, filters: Filters, limit: int,
             end: int | None = None) -> list[Entry]:
    """The last ``limit`` matching entries (0: all), oldest first."""
    found: list[Entry] = []
    for entry in entries_backward(log, path, end):
        if filters.past_window(entry):
            break
        if filters.match(entry):
            found.append(entry)
            if limit and len(found) >= limit:
                break
    return found[::-1]


def tail(paths: dict[str, Path], filters: Filters, limit: int,
         ends: dict[str, int | None] | None = None) -> list[Entry]:
    """The last ``limit`` matching entries over several logs, merged by time, oldest first.
    ``ends`` stops each live file where a follower will take over, so no line shows twice."""
    ends = ends or {}
    per_log = [tail_one(name, path, filters, limit, ends.get(name))
               for name, path in paths.items()]
    merged = list(heapq.merge(*per_log, key=lambda e: e.ts_ms or 0))
    return merged[-limit:] if limit else merged


class Follower:
    """What is appended to one log from now on, across rotation (a new inode) and truncation.

    The open handle survives a rename, so lines written to the old file just before it was
    rotated are still read; a partial line waits in ``buffer`` until its newline arrives.
    """

    def __init__(self, log: str, path: Path) -> None:
        self.log, self.path = log, path
        self.handle: Any = None
        self.inode: int | None = None
        self.buffer = b""
        self._open(at_end=True)

    @property
    def offset(self) -> int | None:
        return self.handle.tell() if self.handle else None

    def _open(self, at_end: bool) -> None:
        try:
            self.handle = open(self.path, "rb")
        except FileNotFoundError:
            self.handle, self.inode = None, None
            return
        self.inode = os.fstat(self.handle.fileno()).st_ino
        self.handle.seek(0, os.SEEK_END if at_end else os.SEEK_SET)

    def poll(self, now_ms: int) -> list[Entry]:
        found = self._read_new(now_ms)
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            return found
        if self.handle is None or current.st_ino != self.inode:
            found += self._switch(now_ms)
        elif current.st_size < self.handle.tell():
            self.handle.seek(0)
            self.buffer = b""
        return found

    def _switch(self, now_ms: int) -> list[Entry]:
        """Finish the rotated file (a leftover partial line is shown, marked truncated)."""
        leftover = [self._entry(self.buffer, now_ms, False)] if self.buffer else []
        self.close()
        self.buffer = b""
        self._open(at_end=False)
        return leftover + self._read_new(now_ms)

    def _read_new(self, now_ms: int) -> list[Entry]:
        if self.handle is None:
            return []
        lines = (self.buffer + self.handle.read()).split(b"\n")
        self.buffer = lines.pop()
        return [self._entry(line, now_ms) for line in lines if line]

    def _entry(self, line: bytes, now_ms: int, complete: bool = True) -> Entry:
        entry = parse_line(self.log, line, complete)
        entry.ts_ms = now_ms if entry.ts_ms is None else entry.ts_ms
        return entry

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


def follow(followers: list[Follower], filters: Filters, interval_s: float,
           should_stop: Any = lambda: False, clock: Any = None) -> Iterator[Entry]:
    """Poll every follower each ``interval_s`` (bounded to 0.05–2 s) until ``should_stop()``;
    Ctrl-C arrives as KeyboardInterrupt and ends the caller's loop."""
    clock = clock or (lambda: time.time_ns() // 1_000_000)
    interval_s = min(max(interval_s, MIN_POLL_S), MAX_POLL_S)
    try:
        while not should_stop():
            for follower in followers:
                yield from (e for e in follower.poll(clock()) if filters.match(e))
            time.sleep(interval_s)
    finally:
        for follower in followers:
            follower.close()
