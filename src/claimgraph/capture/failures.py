"""Sessions whose capture keeps failing: counted, retried later and later, then given up.

A transcript that crashes the capture pass (a bug, a shape nobody foresaw) would otherwise be
retried by every sweep, forever, each retry growing the crash log. So each failed capture of a
session is recorded in ``<db>.capture-failures.json`` (one entry per ``capture:<agent>:<session>``
key: the request that failed, how often, the last error, when to try next). The daemon's sweep
waits ``BACKOFF_BASE_S`` after the first failure, doubling each time (at most
``BACKOFF_MAX_S``); after ``MAX_FAILURES`` the session is POISONED: nothing retries it on its
own, ``claimgraph status`` names it, and ``claimgraph capture --retry SESSION`` tries again
(clearing the count). A success clears the entry.

Failures that say nothing about the session (the store is busy, locked or its server down,
the disk is full, another capture holds the session, the agent was still writing) are not
counted: they pass.

The file is small and rewritten whole, under a lock, by temp file and rename; readers never
lock. A ledger that cannot be written is reported in the capture log and costs only the count.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from claimgraph.private import private_dir
from claimgraph.sidecar import Sidecars, atomic_write_text, read_json_object

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

MAX_FAILURES = 5
BACKOFF_BASE_S = 300
BACKOFF_MAX_S = 6 * 3600
LOCK_TIMEOUT_S = 5.0
TRANSIENT_TYPES = frozenset(("store-busy", "store-locked", "capture-contended", "lease-lost",
                             "transcript-changed", "disk-full", "spool-missing",
                             "store-damaged", "store-io-error", "store-read-only",
                             "store-unreachable"))  # a server store that is down
MAX_ERROR_CHARS = 500


def backoff_s(failures: int) -> float:
    """How long the sweep waits after the ``failures``-th failure in a row."""
    return min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** max(0, failures - 1))


def is_poisoned(entry: Mapping[str, Any] | None) -> bool:
    return bool(entry) and int(entry.get("failures", 0)) >= MAX_FAILURES  # type: ignore[union-attr]


def is_due(entry: Mapping[str, Any] | None, now: float) -> bool:
    """Whether the sweep may try this session now (no entry: always)."""
    if not entry:
        return True
    return not is_poisoned(entry) and now >= float(entry.get("next_try_at", 0))


class FailureLedger:
    """The failure entries beside one store."""

    def __init__(self, db: Path | str) -> None:
        self.path = Sidecars(db).capture_failures

    @functools.cached_property
    def _lock(self) -> Any:
        """Built on first write: reading the ledger (``claimgraph status``) needs no lock."""
        from filelock import FileLock
        return FileLock(f"{self.path}.lock", timeout=LOCK_TIMEOUT_S, mode=0o600)

    def entries(self) -> dict[str, dict[str, Any]]:
        data = read_json_object(self.path) or {}
        return {k: v for k, v in data.items() if isinstance(v, dict) and k.startswith("capture:")}

    def get(self, key: str) -> dict[str, Any] | None:
        return self.entries().get(key) if self.path.exists() else None

    def poisoned(self) -> list[dict[str, Any]]:
        return [{"key": key, **entry} for key, entry in sorted(self.entries().items())
                if is_poisoned(entry)]

    def for_session(self, session: str) -> list[tuple[str, dict[str, Any]]]:
        """Entries of a session id, or of a full ``capture:<agent>:<session>`` key."""
        return [(key, entry) for key, entry in sorted(self.entries().items())
                if key == session or entry.get("session") == session]

    def record(self, key: str, request: Mapping[str, Any], error_type: str, message: str,
               now: float) -> dict[str, Any]:
        """One more failure of ``key``; returns its entry (with ``poisoned``)."""
        with self._locked() as entries:
            entry = entries.get(key) or {"first_failed_at": now, "failures": 0}
            failures = int(entry.get("failures", 0)) + 1
            entry.update({k: request.get(k) for k in ("agent", "session", "transcript", "cwd")})
            entry.update(failures=failures, last_error=message[:MAX_ERROR_CHARS],
                         last_type=error_type, last_failed_at=now,
                         next_try_at=now + backoff_s(failures))
            entry["poisoned"] = is_poisoned(entry)
            entries[key] = entry
            return dict(entry)

    def clear(self, key: str) -> dict[str, Any] | None:
        """Forget ``key``'s failures (a success, or a retry asked for); its old entry."""
        if not self.path.exists():
            return None
        with self._locked() as entries:
            return entries.pop(key, None)

    def _locked(self) -> "_Edit":
        return _Edit(self)


class _Edit:
    """Read-modify-write of the whole file under its lock."""

    def __init__(self, ledger: FailureLedger) -> None:
        self.ledger = ledger

    def __enter__(self) -> dict[str, dict[str, Any]]:
        from filelock import Timeout
        try:
            self.ledger._lock.acquire()
        except Timeout:
            raise OSError(f"the failure ledger {self.ledger.path} stayed locked") from None
        self.entries = self.ledger.entries()
        self.before = json.dumps(self.entries, sort_keys=True)
        return self.entries

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if exc_type is None and json.dumps(self.entries, sort_keys=True) != self.before:
                _write(self.ledger.path, self.entries)
        finally:
            self.ledger._lock.release()


def _write(path: Path, entries: Mapping[str, Any]) -> None:
    if not entries:
        path.unlink(missing_ok=True)
        return
    private_dir(path.parent)
    atomic_write_text(path, json.dumps(entries, ensure_ascii=False, indent=1, sort_keys=True))
