"""``daemon run``: the scheduler that owns the sweep, curation, rotation and the status file.

APScheduler 3's ``BackgroundScheduler`` runs the jobs on its thread pool while the main thread
waits for SIGTERM/SIGINT, so a signal is handled at once whatever a job is doing. Every job
runs with ``max_instances=1`` (a slow sweep is never doubled) and ``coalesce=True`` (runs missed
while the machine slept collapse into one). Stopping cancels the sweep's capture child (the
capture pass is crash-safe: a killed capture leaves nothing half-written and its spool file
stays for the next sweep), then shuts the scheduler down; it takes well under a few seconds.

The status file ``<db>.daemon.status`` is rewritten atomically after each job and on every
heartbeat: ``{pid, process_start, started_at, state, heartbeat_at, jobs: {name: {last_run,
result, duration_ms, detail | error}}}``. The daemon opens no network port.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import structlog
from apscheduler.schedulers.background import BackgroundScheduler

from claimgraph.daemon import status_path
from claimgraph.daemon.rotate import reattach_std_streams, rotate_all, sidecar_logs
from claimgraph.daemon.settings import DaemonSettings
from claimgraph.daemon.singleton import Singleton
from claimgraph.daemon.sweep import Sweeper
from claimgraph.logic.timeutil import to_iso
from claimgraph.logsetup import configure_logging
from claimgraph.sidecar import Sidecars, atomic_write_text

log = structlog.get_logger("claimgraph.daemon")
WAIT_TICK_S = 0.5


def iso_now() -> str:
    return to_iso(time.time_ns() // 1_000_000) or ""  # never empty: the time is never None


class Service:
    """One daemon process: ``run()`` blocks until SIGTERM/SIGINT, then returns 0."""

    def __init__(self, db: Path, environ: Mapping[str, str], settings: DaemonSettings,
                 log_level: str = "info") -> None:
        self.db, self.environ, self.settings = Path(db).absolute(), dict(environ), settings
        self.log_level = log_level
        self.sweeper = Sweeper(self.db, self.environ, settings)
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.status: dict[str, Any] = {}

    def run(self) -> int:
        singleton = Singleton(self.db)
        record = singleton.acquire()
        try:
            self._start_logging()
            self.status = {**record, "started_at": iso_now(), "db": str(self.db),
                           "state": "running", "jobs": {}}
            log.info("daemon.started", took_over=singleton.took_over, db=str(self.db))
            self._serve()
        finally:
            self._finish()
            singleton.release()
        return 0

    def _serve(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.stopping.set())
        scheduler = self._scheduler()
        scheduler.start()
        while not self.stopping.wait(WAIT_TICK_S):
            pass
        log.info("daemon.stopping")
        self.sweeper.cancel()
        scheduler.shutdown(wait=True)

    def _scheduler(self) -> BackgroundScheduler:
        logging.getLogger("apscheduler").setLevel(logging.ERROR)  # our jobs log for themselves
        scheduler = BackgroundScheduler(timezone=dt.timezone.utc, job_defaults={
            "coalesce": True, "max_instances": 1, "misfire_grace_time": None})
        now = dt.datetime.now(dt.timezone.utc)
        s = self.settings
        for name, job, every, first in (
                ("heartbeat", self._heartbeat, s.heartbeat_seconds, now),
                ("rotate", self._rotate, s.rotate_seconds, now),
                ("sweep", self._sweep, s.sweep_seconds, now),
                ("curate", self._curate, s.curate_seconds, None)):
            # APScheduler 3 reads an explicit next_run_time=None as "add paused": pass a
            # first run time only for the jobs that start at once.
            start = {"next_run_time": first} if first is not None else {}
            scheduler.add_job(self._job(name, job), "interval", seconds=max(every, 1), id=name,
                              name=name, **start)
        return scheduler

    def _job(self, name: str, work: Callable[[], Any]) -> Callable[[], None]:
        """Run ``work`` contained: any failure is logged and recorded, never raised."""
        def run() -> None:
            started = time.monotonic()
            entry: dict[str, Any] = {"last_run": iso_now()}
            try:
                entry.update(result="ok", detail=work())
            except Exception as err:
                log.exception(f"daemon.{name}-failed")
                entry.update(result="error", error=f"{type(err).__name__}: {err}")
            entry["duration_ms"] = round((time.monotonic() - started) * 1000)
            with self._lock:
                self.status["jobs"][name] = entry
            self._write_status()
        return run

    # --- the jobs ----------------------------------------------------------------------------
    def _heartbeat(self) -> None:
        return None

    def _sweep(self) -> dict[str, Any]:
        summary = self.sweeper.run()
        if summary.get("captured"):
            summary["curator_pid"] = self._spawn_curator()
        log.info("daemon.swept", **summary)
        return summary

    def _curate(self) -> dict[str, Any]:
        pid = self._spawn_curator()
        log.info("daemon.curator-spawned", curator_pid=pid)
        return {"curator_pid": pid}

    def _spawn_curator(self) -> int:
        from claimgraph.curator import spawn_curator

        return spawn_curator(self.db, [], self.environ)

    def _rotate(self) -> dict[str, Any]:
        rotated = rotate_all(sidecar_logs(self.db), self.settings.log_max_bytes,
                             self.settings.log_keep)
        if Sidecars(self.db).daemon_log.name in rotated:
            self._start_logging()
        if rotated:
            log.info("daemon.rotated", logs=rotated)
        return {"rotated": rotated}

    # --- logging and status --------------------------------------------------------------------
    def _start_logging(self) -> None:
        """JSON lines to ``<db>.daemon.log``, reopened (with stdout/stderr) after a rotation."""
        daemon_log = Sidecars(self.db).daemon_log
        configure_logging("json", daemon_log, self.log_level)
        reattach_std_streams(daemon_log)

    def _write_status(self) -> None:
        with self._lock:
            self.status["heartbeat_at"] = iso_now()
            text = json.dumps(self.status, ensure_ascii=False, default=str) + "\n"
            atomic_write_text(status_path(self.db), text)

    def _finish(self) -> None:
        if not self.status:
            return
        with self._lock:
            self.status.update(state="stopped", stopped_at=iso_now())
        self._write_status()
        log.info("daemon.stopped", pid=os.getpid())
