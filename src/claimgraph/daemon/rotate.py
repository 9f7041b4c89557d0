"""Size-based rotation of the sidecar logs: ``<log>`` → ``<log>.1`` → … → ``<log>.N``.

Why rename and never copy-truncate: every writer (a capture, a curator, a hook, the daemon)
is its own process holding the log open with ``O_APPEND``, or opening it per line. A rename
does not touch the open file: a writer that is mid-run keeps appending whole lines to the
same inode, now called ``<log>.1``, and the next process creates a fresh ``<log>``. No line is
lost or split; a line may land in ``<log>.1`` after the rotation, which readers that walk the
rotated files (``claimgraph logs``) see anyway. Copy-truncate would lose whatever was written
between the copy and the truncate, and would split a line written across the truncate.

Generations beyond ``keep`` are deleted. Rotations of one log are serialized by a flock on
``<log>.rotate.lock`` so two rotators never shift the same generation twice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from filelock import FileLock

from claimgraph.private import NOFOLLOW, private_dir
from claimgraph.sidecar import Sidecars

GUARD_TIMEOUT_S = 5.0
CRASH_LOG_MAX_BYTES = 1024 * 1024
CRASH_LOG_KEEP = 3


def sidecar_logs(db: Path | str) -> list[Path]:
    """Every log beside the store: capture, curate, daemon, mcp, and the crash log."""
    sidecars = Sidecars(db)
    return [sidecars.capture_log, sidecars.curate_log, sidecars.daemon_log, sidecars.mcp_log,
            sidecars.crash_log]


def generation(log: Path, n: int) -> Path:
    return log.with_name(f"{log.name}.{n}")


def rotate_if_large(log: Path, max_bytes: int, keep: int) -> bool:
    """Rotate ``log`` when it holds ``max_bytes`` or more; True when it was rotated."""
    if _size(log) < max(1, max_bytes):
        return False
    with FileLock(f"{log}.rotate.lock", timeout=GUARD_TIMEOUT_S, mode=0o600):
        if _size(log) < max(1, max_bytes):  # another rotator got here first
            return False
        _shift(log, max(1, keep))
    return True


def rotate_all(logs: Iterable[Path], max_bytes: int, keep: int) -> list[str]:
    """Rotate each log that grew too large; the names of those rotated."""
    return [log.name for log in logs if rotate_if_large(log, max_bytes, keep)]


def append_rotated(log: Path, text: str, max_bytes: int = CRASH_LOG_MAX_BYTES,
                   keep: int = CRASH_LOG_KEEP) -> None:
    """Append ``text`` to a log written rarely but in bulk (the crash log), rotating it first
    when it is large, so it stays bounded even where no daemon rotates it."""
    private_dir(log.parent)
    try:
        rotate_if_large(log, max_bytes, keep)
    except Exception:  # a busy rotation guard costs nothing but a larger log
        pass
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        out.write(text)


def _shift(log: Path, keep: int) -> None:
    """Drop the oldest generation, move each one up, then the live log to ``.1`` (a rename)."""
    generation(log, keep).unlink(missing_ok=True)
    for n in range(keep - 1, 0, -1):
        older = generation(log, n)
        if older.exists():
            os.replace(older, generation(log, n + 1))
    os.replace(log, generation(log, 1))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def reattach_std_streams(log: Path) -> bool:
    """Point our own stdout/stderr at the fresh ``log`` if they still write to its rotated file.

    The daemon's stdout/stderr are its log (``daemon start`` opened it); without this, its own
    raw output would keep growing ``<log>.1`` forever after the first rotation.
    """
    try:
        rotated = generation(log, 1).stat()
    except FileNotFoundError:
        return False
    moved = False
    for fd in (1, 2):
        try:
            current = os.fstat(fd)
        except OSError:
            continue
        if (current.st_dev, current.st_ino) == (rotated.st_dev, rotated.st_ino):
            fresh = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o600)
            os.dup2(fresh, fd)
            os.close(fresh)
            moved = True
    return moved
