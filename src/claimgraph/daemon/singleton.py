"""One daemon per store: the pid file ``<db>.daemon.pid`` names it with its process start time.

The file holds ``{pid, process_start, host, started_at}``. Every read-check-write of it happens
under a short flock on ``<db>.daemon.pid.lock`` (``filelock``), so two daemons starting at once
cannot both win. A pid file whose process is gone, or whose pid now belongs to another process
(psutil's start time differs: the pid was reused after a reboot or a ``kill -9``), is stale and
is taken over; the liveness test is the lease module's, so both agree on what "dead" means.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from claimgraph import lease
from claimgraph.daemon import pid_path
from claimgraph.errors import ClaimgraphError
from claimgraph.private import private_dir
from claimgraph.sidecar import atomic_write_text, read_json_object

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

GUARD_TIMEOUT_S = 5.0


def read_record(path: Path) -> dict[str, Any] | None:
    """The pid file's record; None when absent; ``{"unreadable": True}`` when garbled."""
    return read_json_object(path)


def state(db: Path | str) -> tuple[str, dict[str, Any] | None]:
    """``("running" | "stopped" | "stale", record)``: what ``daemon status`` reports."""
    record = read_record(pid_path(db))
    if record is None:
        return "stopped", None
    return ("running" if lease.holder_alive(record) else "stale"), record


class Singleton:
    """This process's claim on the pid file: ``acquire`` at start, ``release`` at exit."""

    def __init__(self, db: Path | str) -> None:
        self.path = pid_path(db)
        self.record: dict[str, Any] | None = None
        self.took_over: dict[str, Any] | None = None

    def _guard(self) -> Any:
        from filelock import FileLock  # here: `claimgraph status` reads the state, never locks
        return FileLock(f"{self.path}.lock", timeout=GUARD_TIMEOUT_S, mode=0o600)

    def acquire(self) -> dict[str, Any]:
        """Write our record, taking over a stale file; refuse while a live daemon holds it."""
        private_dir(self.path.parent)
        with self._guard():
            current = read_record(self.path)
            if current is not None and lease.holder_alive(current):
                raise ClaimgraphError(
                    "daemon-running", f"a claimgraph daemon already runs on this store "
                    f"(pid {current.get('pid')})", hint="`claimgraph daemon status` shows it; "
                    "`claimgraph daemon stop` stops it", pid=current.get("pid"))
            self.took_over = current
            self.record = own_record()
            atomic_write_text(self.path, json.dumps(self.record) + "\n")
        return self.record

    def release(self) -> None:
        """Remove the pid file if it is still ours (never a successor's). Idempotent."""
        if self.record is None:
            return
        with self._guard():
            current = read_record(self.path)
            if current is not None and _same(current, self.record):
                self.path.unlink(missing_ok=True)
        self.record = None


def own_record() -> dict[str, Any]:
    import psutil
    me = os.getpid()
    return {"pid": me, "process_start": psutil.Process(me).create_time(), "host": lease.HOST,
            "started_at": time.time()}


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(key) == b.get(key) for key in ("pid", "process_start", "host"))


def describe(db: Path | str, now: float | None = None) -> dict[str, Any]:
    """The daemon's state for ``daemon status`` and ``claimgraph status``: running / stopped /
    stale, its pid and uptime, and the last run of each job from its status file."""
    from claimgraph.daemon import status_path

    name, record = state(db)
    report: dict[str, Any] = {"state": name, "pid": (record or {}).get("pid"),
                              "pid_file": str(pid_path(db)), "status_file": str(status_path(db))}
    if name == "running" and record and isinstance(record.get("started_at"), (int, float)):
        report["uptime_s"] = round((now or time.time()) - record["started_at"], 1)
    status = read_record(status_path(db))
    if status and not status.get("unreadable"):
        report.update(started_at=status.get("started_at"), heartbeat_at=status.get("heartbeat_at"),
                      stopped_at=status.get("stopped_at"), jobs=status.get("jobs") or {})
    return report
