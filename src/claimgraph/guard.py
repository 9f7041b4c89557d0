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

from claimgraph.private import FILE_MODE, NOFOLLOW

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from types import TracebackType
    from typing import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: How often a waiter retries a busy guard.
POLL_S = 0.005


class GuardBusy(Exception):
    """The guard stayed held by another process for the whole timeout."""


def guarded(path: str, timeout_s: float) -> AbstractContextManager[None]:
    """Hold an exclusive flock on ``path`` (created 0600) for the block; GuardBusy after
    ``timeout_s`` of waiting, OSError when the file cannot be opened."""
    if fcntl is None:  # pragma: no cover - Windows
        from contextlib import contextmanager
        return contextmanager(_filelock_guard)(path, timeout_s)
    return _Guard(path, timeout_s)


class _Guard:
    """``guarded``'s block on POSIX. A class, not a ``contextlib`` generator: every read
    command enters it (the retrievals line), and a read need not load ``contextlib``
    (``claimgraph.deferred.defer_contextlib``)."""

    def __init__(self, path: str, timeout_s: float) -> None:
        self.path, self.timeout_s = path, timeout_s
        self.handle = -1

    def __enter__(self) -> None:
        handle = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW, FILE_MODE)
        try:
            _acquire(handle, self.path, self.timeout_s)
        except BaseException:
            os.close(handle)
            raise
        self.handle = handle

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        try:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
        finally:
            os.close(self.handle)


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
