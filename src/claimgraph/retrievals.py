"""``<db>.retrievals``: which facts reads surfaced, and the outcomes that judged them.

A JSONL file (docs/mcp.md, ``outcome``). Reads that surface facts append
``{"type": "read", "verb", "fact_ids", "at"}``; ``claimgraph outcome`` appends
``{"type": "outcome", "valence", "facts", "at"}``, and that line is the mark: the next outcome
judges only what was read after it. The file is capped: once it holds more than 2000 lines,
only the newest 1000 are kept.

Many processes append at once (ten MCP servers, the CLI), and the cap rewrites the file, so
every append and every rewrite happens under one short flock on ``<file>.guard``
(``claimgraph.guard``); a
rewrite therefore never drops a line another process was appending. Logging is a side effect
of a read that already answered: a failure to append is reported to the caller (False), never
raised. Keys are snake_case like the rest of our JSON; the older kebab-case ``fact-ids`` is read
too.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from claimgraph.guard import GuardBusy, guarded
from claimgraph.private import NOFOLLOW
from claimgraph.sidecar import atomic_write_text

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable

CAP_LINES = 2000
KEEP_LINES = 1000
#: No line we write is shorter than this, so a smaller file cannot be over the cap: the cap
#: check counts lines only past CAP_LINES * MIN_LINE_BYTES bytes.
MIN_LINE_BYTES = 60
GUARD_TIMEOUT_S = 5.0
VALENCES = ("accepted", "rejected")


def path_for(db: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(db)}.retrievals")


def log_read(db: str | os.PathLike[str], verb: str, fact_ids: Iterable[str], at: int) -> bool:
    """Record that ``verb`` surfaced these facts; nothing is written when it surfaced none."""
    ids = list(dict.fromkeys(fact_ids))
    if not ids:
        return True
    return append(path_for(db), {"type": "read", "verb": verb, "fact_ids": ids, "at": at})


def log_outcome(db: str | os.PathLike[str], valence: str, fact_ids: Iterable[str], at: int) -> bool:
    """The outcome line; it marks everything read before it as judged."""
    return append(path_for(db), {"type": "outcome", "valence": valence,
                                 "facts": list(fact_ids), "at": at})


def append(path: Path, entry: dict[str, Any]) -> bool:
    """One JSON line, then the cap; False (and nothing half-written) when the file is out of
    reach."""
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        with guarded(f"{path}.guard", GUARD_TIMEOUT_S):
            handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o600)
            try:
                os.write(handle, line.encode("utf-8"))
                size = os.fstat(handle).st_size
            finally:
                os.close(handle)
            if size > CAP_LINES * MIN_LINE_BYTES:
                enforce_cap(path)
    except (OSError, GuardBusy):
        return False
    return True


def enforce_cap(path: Path, cap: int = CAP_LINES, keep: int = KEEP_LINES) -> int:
    """Keep the newest ``keep`` lines once there are more than ``cap``; returns lines dropped.
    The caller holds the guard. Lines are counted in the bytes, undecoded (``_newlines``): a
    read's line is a few hundred bytes, so past ``CAP_LINES * MIN_LINE_BYTES`` every read
    command counts the file (up to ~1 MB), and decoding and splitting it cost twice a
    count (issue 29)."""
    data = path.read_bytes()
    if _newlines(data) <= cap:
        return 0
    lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    if len(lines) <= cap:
        return 0
    atomic_write_text(path, "".join(lines[-keep:]))
    os.chmod(path, 0o600)
    return len(lines) - keep


def _newlines(data: bytes) -> int:
    """How many newlines ``data`` holds: its lines as a binary file cuts them (``memchr``, in
    C), less a last line that has none. ``bytes.count`` tests it byte by byte (~0.24 ms for
    the ~750 KB a log holds before its trim, on every read; this takes ~0.1 ms). Each line is
    dropped as soon as it is counted: kept (``readlines``), the copies cost more in page
    faults than the count saves (issue 29)."""
    lines = sum(1 for _ in io.BytesIO(data))
    return lines - (1 if data and not data.endswith(b"\n") else 0)


def entries(db: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every readable entry, oldest first; a torn or foreign line is skipped."""
    try:
        text = path_for(db).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    found = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") in ("read", "outcome"):
            found.append(entry)
    return found


def pending(db: str | os.PathLike[str]) -> dict[str, Any]:
    """{reads, fact_ids}: the reads after the last outcome and the facts they surfaced, each
    once, in the order first surfaced."""
    log = entries(db)
    last = max((i for i, e in enumerate(log) if e["type"] == "outcome"), default=-1)
    reads = [e for e in log[last + 1:] if e["type"] == "read"]
    ids: dict[str, None] = {}
    for read in reads:
        for fact_id in read.get("fact_ids", read.get("fact-ids")) or ():
            if isinstance(fact_id, str):
                ids.setdefault(fact_id)
    return {"reads": reads, "fact_ids": list(ids)}
