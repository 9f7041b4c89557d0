"""A short exclusive flock on a guard file, for sidecars that many processes append to.

Every read command appends what it surfaced to ``<db>.retrievals`` under such a guard, so the
lock is on the read path: ``filelock`` costs a read command more to import (logging, decimal,
secrets, platform: some 10-20 ms) than the whole query takes. On POSIX this is the same
``fcntl.flock`` filelock takes on the same file, so processes using either interoperate;
elsewhere it is filelock itself. The lease keeps filelock (it is held across a command).

Standard library only on POSIX.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

from claimgraph.private import FILE_MODE, NOFOLLOW

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: How often a waiter retries a busy guard.
POLL_S = 0.005


class GuardBusy(Exception):
    """The guard stayed held by another process for the whole timeout."""


@contextmanager
def guarded(path: str, timeout_s: float) -> Iterator[None]:
    """Hold an exclusive flock on ``path`` (created 0600) for the block; GuardBusy after
    ``timeout_s`` of waiting, OSError when the file cannot be opened."""
    if fcntl is None:  # pragma: no cover - Windows
        yield from _filelock_guard(path, timeout_s)
        return
    handle = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, FILE_MODE)
    try:
        _acquire(handle, path, timeout_s)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def _acquire(handle: int, path: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise GuardBusy(f"{path} stayed locked for {timeout_s:g} s") from None
            time.sleep(POLL_S)


def _filelock_guard(path: str, timeout_s: float) -> Iterator[None]:  # pragma: no cover
    from filelock import FileLock, Timeout
    try:
        with FileLock(path, timeout=timeout_s, mode=FILE_MODE):
            yield
    except Timeout as busy:
        raise GuardBusy(str(busy)) from None
