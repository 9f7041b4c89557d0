"""The oplog's files: the writer id, reading a log (torn tails included), and applied.json.

Layout (docs/sync.md, "Files"): ``<db>.oplog/`` holds ``writer`` (this store's writer id),
``<writer>.jsonl`` (one per writer: our own, and the copies of other writers' logs that sync
brought in) and ``applied.json`` (how far each writer's log is applied, written atomically).
"""

from __future__ import annotations

import json
import os
import re
import sys
import uuid
from pathlib import Path
from typing import Any, Iterator, Mapping

from claimgraph.errors import ClaimgraphError
from claimgraph.logic import oplog as L
from claimgraph.private import FILE_MODE, NOFOLLOW, private_dir, read_nofollow
from claimgraph.sidecar import Sidecars, atomic_write_text

WRITER_FILE = "writer"
STATE_FILE = "applied.json"
LOG_SUFFIX = ".jsonl"
WRITER_ENV = "CLAIMGRAPH_WRITER"
#: Writer ids name files, so they are kept to a safe alphabet.
_WRITER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
#: Reading backwards for the last line: this much at a time.
_TAIL_CHUNK = 64 * 1024


def oplog_dir(db: Path | str) -> Path:
    directory: Path = Sidecars(db).oplog_dir
    return directory


def log_path(directory: Path, writer: str) -> Path:
    return directory / f"{writer}{LOG_SUFFIX}"


def writer_id(directory: Path, environ: Mapping[str, str] | None = None) -> str:
    """The persisted id wins; ``$CLAIMGRAPH_WRITER`` only seeds it (a disagreement is warned
    about on stderr); otherwise ``w-<uuid>``."""
    environ = os.environ if environ is None else environ
    path = directory / WRITER_FILE
    wanted = (environ.get(WRITER_ENV) or "").strip()
    try:
        stored = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        stored = ""
    if stored:
        if wanted and wanted != stored:
            print(f"claimgraph: {WRITER_ENV}={wanted} ignored: this store writes as {stored} "
                  f"(see {path})", file=sys.stderr)
        return _checked(stored, path)
    chosen = _checked(wanted, path) if wanted else f"w-{uuid.uuid4()}"
    private_dir(directory)
    atomic_write_text(path, chosen + "\n")
    os.chmod(path, FILE_MODE)
    return chosen


def _checked(writer: str, where: Path) -> str:
    if not _WRITER_ID.match(writer):
        raise ClaimgraphError(
            "invalid-writer-id", f"{writer!r} is not a usable writer id",
            hint="use letters, digits, '.', '_' or '-' (at most 64), e.g. laptop-1",
            path=str(where))
    return writer


def log_files(directory: Path) -> list[Path]:
    """Every writer's log in a directory, sorted by name (order never matters: see reconcile)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob(f"*{LOG_SUFFIX}") if p.is_file() and not p.is_symlink())


def read_lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, complete) for each non-blank line; a last line with no newline is
    incomplete: a writer or a file sync may still be adding to it."""
    try:
        data = read_nofollow(path)  # a link planted in a log's place is never followed
    except FileNotFoundError:
        return
    text = data.decode("utf-8", "replace")
    parts = text.split("\n")
    for number, part in enumerate(parts, start=1):
        if part.strip():
            yield number, part, number < len(parts)


def last_line(path: Path) -> dict[str, Any] | None:
    """The last complete, parseable line of a log, read from the end (logs grow large)."""
    try:
        handle = os.fdopen(os.open(path, os.O_RDONLY | NOFOLLOW), "rb")
    except FileNotFoundError:
        return None
    with handle:
        end = handle.seek(0, os.SEEK_END)
        tail = b""
        while end > 0:
            start = max(0, end - _TAIL_CHUNK)
            handle.seek(start)
            tail = handle.read(end - start) + tail
            end = start
            found = _last_parsed(tail, whole=end == 0)
            if found is not None:
                return found
    return None


def _last_parsed(tail: bytes, whole: bool) -> dict[str, Any] | None:
    lines = tail.split(b"\n")
    complete = lines[:-1]  # the part after the last newline is torn (or empty)
    if not whole:
        complete = complete[1:]  # the first piece may be the end of an earlier line
    for raw in reversed(complete):
        line = L.parse(raw.decode("utf-8", "replace"))
        if line is not None and L.envelope_problem(line) is None:
            return line
    return None


def read_state(directory: Path) -> dict[str, Any]:
    """applied.json, or a fresh state; a future format is refused (docs/sync.md)."""
    path = directory / STATE_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return fresh_state()
    except (OSError, ValueError) as error:
        raise ClaimgraphError(
            "bad-sync-state", f"cannot read {path}: {error}",
            hint="move it aside and run `claimgraph sync` again: it is rebuilt from the logs",
            path=str(path)) from None
    fmt = state.get("format") if isinstance(state, dict) else None
    if not isinstance(fmt, int):
        raise ClaimgraphError("bad-sync-state", f"{path} holds no integer format",
                              hint="move it aside and run `claimgraph sync` again",
                              path=str(path))
    if fmt > L.FORMAT:
        raise ClaimgraphError(
            "future-format", f"{path} was written by a newer claimgraph (format {fmt})",
            hint="upgrade claimgraph on this machine before syncing", path=str(path),
            found=fmt, supported=L.FORMAT)
    return {**fresh_state(), **state}


def fresh_state() -> dict[str, Any]:
    return {"format": L.FORMAT, "high-water": {}, "applied-beyond": {}, "entity-map": {},
            "clock": 0, "deferred": {}, "abandoned": [], "frontier": None}


def write_state(directory: Path, state: Mapping[str, Any]) -> None:
    """Temp file, then an atomic rename: a reader never sees half a state."""
    private_dir(directory)
    path = directory / STATE_FILE
    atomic_write_text(path, json.dumps(state, sort_keys=True, indent=1) + "\n")
    os.chmod(path, FILE_MODE)
