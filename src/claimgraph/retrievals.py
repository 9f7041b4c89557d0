"""``<db>.retrievals``: which facts reads surfaced, and the outcomes that judged them.

A JSONL file (docs/mcp.md, ``outcome``). Reads that surface facts append
``{"type": "read", "verb", "fact_ids", "at"}``; ``claimgraph outcome`` appends
``{"type": "outcome", "valence", "facts", "at"}``, and that line is the mark: the next outcome
judges only what was read after it. The file is capped by its size: once it passes
``CAP_BYTES`` (1 MiB, some 2,500 reads of ten facts), it is cut to its newest whole lines that
fit in ``KEEP_BYTES`` (half as much). The size comes from the ``fstat`` of the append itself, so
a read under the cap never reads the log (a cap in lines had every read count them, issue 29).

Many processes append at once (ten MCP servers, the CLI), and the cap rewrites the file, so
every append and every rewrite happens under one short flock on ``<file>.guard``
(``claimgraph.guard``); a
rewrite therefore never drops a line another process was appending. Logging is a side effect
of a read that already answered: a failure to append is reported to the caller (False), never
raised. Keys are snake_case like the rest of our JSON; the older kebab-case ``fact-ids`` is read
too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from claimgraph.guard import GuardBusy, guarded
from claimgraph.private import NOFOLLOW, sidecar_base
from claimgraph.sidecar import atomic_write_text

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable

#: Past this size the log is cut to its newest whole lines within KEEP_BYTES: a rewrite every
#: ~1,200 reads of ten facts (~420 bytes a line), nothing read or counted in between.
CAP_BYTES = 1 << 20
KEEP_BYTES = CAP_BYTES // 2
GUARD_TIMEOUT_S = 5.0
VALENCES = ("accepted", "rejected")


def path_for(db: str | os.PathLike[str]) -> Path:
    return Path(f"{sidecar_base(db)}.retrievals")


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
            if size > CAP_BYTES:
                enforce_cap(path, CAP_BYTES, KEEP_BYTES)
    except (OSError, GuardBusy):
        return False
    return True


def enforce_cap(path: Path, cap: int = CAP_BYTES, keep: int = KEEP_BYTES) -> int:
    """Once the file is larger than ``cap`` bytes, keep its newest whole lines that fit in
    ``keep`` bytes (a line cut by the boundary goes with the older ones); returns the bytes
    dropped. The caller holds the guard, so no append is under way: a last line without its
    newline is a torn one from a crash, kept as it is (readers skip it)."""
    data = path.read_bytes()
    if len(data) <= cap:
        return 0
    start = max(len(data) - keep, 0)
    if start and data[start - 1:start] != b"\n":
        newline = data.find(b"\n", start)
        start = len(data) if newline < 0 else newline + 1
    atomic_write_text(path, data[start:].decode("utf-8", errors="replace"))
    os.chmod(path, 0o600)
    return start


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
