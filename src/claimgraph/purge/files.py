"""The purge's file side: logs, spool, oplog and the final check over every file of the store.

Everything a store owns is ``<db>*`` beside it (docs/store.md), so that is what is scrubbed
and what is checked. Logs are rewritten IN PLACE: their writers hold them open with
``O_APPEND`` (the daemon for its whole life), so a rename would send their next lines into an
unlinked file, while an in-place rewrite lets every later append land at the new end. A line
appended between our last read and the truncate could still be lost; the window is the few
microseconds of one write, in a command a person runs by hand, and the rotation lock keeps
the daemon's rotation out of it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable, Iterable

from filelock import FileLock

from claimgraph.logic import oplog
from claimgraph.logic.purge import holds, match_forms, scrub
from claimgraph.sidecar import Sidecars, atomic_write_text

#: Files beside the store that are not text to scrub: the database itself and its WAL/SHM
#: (compacted instead), leases and their guards (a lease we hold must not be touched).
_NOT_TEXT = ("-wal", "-shm", "-journal", ".lock", ".guard")
GUARD_TIMEOUT_S = 5.0
Transform = Callable[[str], "str | None"]


def owned_files(db: Path) -> list[Path]:
    """Every file of the store: ``<db>``, ``<db>-wal``/``-shm`` and everything ``<db>.*``."""
    found = []
    for path in sorted(db.parent.glob(glob_escape(db.name) + "*")):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            found.append(path)
    return found


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def text_sidecars(db: Path) -> list[Path]:
    """Top-level sidecar files holding text: logs (rotated too), crash log, retrievals, status."""
    return [p for p in owned_files(db) if p.parent == db.parent and p != db
            and not p.name.endswith(_NOT_TEXT)]


def holding(paths: Iterable[Path], needle: str) -> list[Path]:
    """The files whose bytes hold the needle in any of its forms."""
    forms = [form.encode("utf-8") for form in match_forms(needle)]
    return [p for p in paths if _holds_bytes(p, forms)]


def _holds_bytes(path: Path, forms: list[bytes]) -> bool:
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return any(form in data for form in forms)


def lines_holding(path: Path, needle: str) -> int:
    try:
        text = path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return 0
    return sum(1 for line in text.split("\n") if holds(line, needle))


def rewrite_lines(path: Path, transform: Transform) -> int:
    """Apply ``transform`` to each line in place (None drops the line); lines changed.

    A log (live or rotated) is rewritten under its rotation lock, so the daemon never shifts
    its generations mid-rewrite."""
    log = _log_of(path)
    if log is None:
        return _rewrite(path, transform)
    with FileLock(f"{log}.rotate.lock", timeout=GUARD_TIMEOUT_S):
        return _rewrite(path, transform)


_LOG_NAME = re.compile(r"^(?P<log>.+\.(?:capture|curate|daemon|mcp)\.log)(?:\.\d+)?$")


def _log_of(path: Path) -> Path | None:
    """The live log a file is (a generation of), or None."""
    found = _LOG_NAME.match(path.name)
    return path.with_name(found.group("log")) if found else None


def _rewrite(path: Path, transform: Transform) -> int:
    try:
        handle = open(path, "r+b")
    except FileNotFoundError:
        return 0
    with handle:
        data = handle.read()
        data += handle.read()  # an append that landed while we read
        new, changed = _transformed(data, transform)
        if not changed:
            return 0
        handle.seek(len(data))
        new += _transformed(handle.read(), transform)[0]  # the last appends, right before the cut
        handle.seek(0)
        handle.write(new)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())
    return changed


def _transformed(data: bytes, transform: Transform) -> tuple[bytes, int]:
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    out, changed = [], 0
    for line in lines:
        new = transform(line)
        changed += new != line
        if new is not None:
            out.append(new)
    return "\n".join(out).encode("utf-8", "surrogateescape"), changed


def scrubber(needle: str) -> Transform:
    return lambda line: scrub(line, needle)[0]


# --- spool ----------------------------------------------------------------------------------

def spool_files(db: Path) -> list[Path]:
    directory = Sidecars(db).spool_dir
    return sorted(p for p in directory.glob("*.json") if p.is_file()) if directory.is_dir() else []


def spool_session(path: Path) -> tuple[str | None, str | None]:
    """(agent, session id) a hook payload names; (None, None) when unreadable."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    if not isinstance(payload, dict):
        return None, None
    return payload.get("agent"), payload.get("session_id")


def scrub_whole(path: Path, needle: str) -> bool:
    """Rewrite a small file (a spool payload) with the needle replaced; True if it held it."""
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return False
    new, count = scrub(text, needle)
    if count:
        atomic_write_text(path, new)
        os.chmod(path, 0o600)
    return bool(count)


# --- oplog ----------------------------------------------------------------------------------

def oplog_files(db: Path) -> list[Path]:
    directory = Sidecars(db).oplog_dir
    return sorted(p for p in directory.glob("*.jsonl") if p.is_file()) if directory.is_dir() else []


#: A purge's own effects name only ids (never the words): they stay, so other replicas purge too.
_PURGE_VERBS = ("delete-facts", "delete-episodes", "delete-entity", "update-episode", "set-mark",
                "delete-marks")


def oplog_filter(ids: Iterable[str], needle: str | None) -> Transform:
    """An operation that names a purged record or holds the needle becomes a ``purged``
    placeholder under the same writer, seq and clock (a dropped line would leave a hole that
    every replica waits on forever); the purge's own effects stay as they are."""
    wanted = [i for i in ids if i]

    def keep(line: str) -> str | None:
        holds_needle = bool(needle) and holds(line, needle)
        if not holds_needle and not any(i in line for i in wanted):
            return line
        parsed = oplog.parse(line)
        if parsed is None or oplog.envelope_problem(parsed):
            return None  # a torn line that holds it: nothing to keep
        if not holds_needle and parsed.get("t") in _PURGE_VERBS:
            return line
        return oplog.encode({"t": "purged"}, parsed["writer"], parsed["seq"], parsed["hlc"])
    return keep


def oplog_entries(db: Path, ids: Iterable[str], needle: str | None) -> int:
    keep, wanted = oplog_filter(ids, needle), list(ids)
    count = 0
    for path in oplog_files(db):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        count += sum(1 for line in text.split("\n") if line and keep(line) != line)
    return count if wanted or needle else 0
