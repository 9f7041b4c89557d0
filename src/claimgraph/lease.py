"""The write lease ``<db>.lock`` and the curation lease ``<db>.curate.lock``.

A lease is a JSON file naming its holder, so a waiting process can say who is in the way and a
crashed holder can be detected. Every read-check-write of that file happens under a short flock
on a sibling guard file (``filelock``), which makes acquire, break, renew and release atomic among
processes without hand-rolled create-if-absent loops. A lease is broken only when its holder is
provably gone: it expired, or it lives on this host and its pid is dead or was reused (the
recorded process start time differs). A live holder on another host is never second-guessed.

The lease is a hint, not a wall: writers call ``still_held()`` (the fencing check: the file still
carries our token and has not expired) before each write transaction.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from claimgraph.errors import ClaimgraphError, is_write_refusal, write_refused
from claimgraph.private import FILE_MODE, open_private, private_dir, sidecar_base

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable
    import threading

    from filelock import FileLock

# psutil, filelock, secrets, socket and threading are imported where they are used:
# ``claimgraph status`` reads lease files through this module, and a read command should not pay for
# either library's import.

DEFAULT_TTL_MS = 30_000
DEFAULT_WAIT_MS = 5_000
RETRY_MS = 100
MIN_HEARTBEAT_MS = 50
GUARD_TIMEOUT_S = 5.0
# psutil derives start times from the boot time, which moves when the wall clock is stepped;
# a pid is only called "reused" when the start times differ by more than this.
START_TIME_TOLERANCE_S = 1.0
CURATOR_OWNER = "claimgraph-curator"
WRITE_HINT = "another claimgraph process is writing; retry, or raise --lease-wait"
CURATE_HINT = "a curator is already running on this store; it will pick up the new work"


def _host_name() -> str:
    """This machine's name (what ``socket.gethostname`` returns), without importing socket:
    ``claimgraph status`` reads lease files through this module."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket  # pragma: no cover - Windows
    return socket.gethostname()


HOST = _host_name()


def _token() -> str:
    """128 random bits as hex (``secrets.token_hex(16)``, which is this)."""
    return os.urandom(16).hex()


def now_ms() -> int:
    """Wall-clock milliseconds: lease times are compared across processes, so not monotonic."""
    return time.time_ns() // 1_000_000


def write_lock_path(db_path: str | os.PathLike[str]) -> Path:
    """``<db>.lock`` (an in-memory store's in its process's private directory)."""
    return Path(f"{sidecar_base(db_path)}.lock")


def curate_lock_path(db_path: str | os.PathLike[str]) -> Path:
    return Path(f"{sidecar_base(db_path)}.curate.lock")


def read_holder(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The lease file's record, None when absent, ``{"unreadable": True, ...}`` when garbled."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        modified_at = int(path.stat().st_mtime * 1000)
    except FileNotFoundError:
        return None
    record = _parse_record(text)
    return record if record is not None else {"unreadable": True, "modified_at": modified_at}


def _parse_record(text: str) -> dict[str, Any] | None:
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("token"), str):
        return None
    return record if _is_number(record.get("expires_at")) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def holder_alive(holder: dict[str, Any] | None) -> bool:
    """Alive means "not provably dead": a holder on another host always counts as alive."""
    if holder is None or holder.get("unreadable"):
        return False
    return _death_reason(holder) is None


def _death_reason(holder: dict[str, Any]) -> str | None:
    """Why the holder is provably gone ("dead-pid" / "pid-reused"), or None if it may be alive."""
    pid = holder.get("pid")
    if holder.get("host") != HOST or not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    import psutil
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return "dead-pid"
        started = process.create_time()
    except psutil.NoSuchProcess:
        return "dead-pid"
    except psutil.AccessDenied:
        return None
    recorded = holder.get("process_start")
    if _is_number(recorded) and abs(started - recorded) > START_TIME_TOLERANCE_S:
        return "pid-reused"
    return None


def break_reason(holder: dict[str, Any], now: int, ttl_ms: int) -> str | None:
    """Why this lease may be taken over: "expired", "dead-pid", "pid-reused", "unreadable"."""
    if holder.get("unreadable"):
        return "unreadable" if now - holder["modified_at"] > ttl_ms else None
    if now > holder["expires_at"]:
        return "expired"
    return _death_reason(holder)


def describe_holder(holder: dict[str, Any], now: int) -> str:
    """A one-line account of who holds a lease, for refusals and ``claimgraph status``."""
    if holder.get("unreadable"):
        return "an unreadable lease file (breakable once it is a TTL old)"
    if holder.get("guard_busy"):
        return "a process stalled while updating it (its guard file stayed locked)"
    left_s = max(0, holder["expires_at"] - now) / 1000
    return (f"{holder.get('owner')!r} (pid {holder.get('pid')} on host {holder.get('host')}), "
            f"expiring in {left_s:.1f} s unless renewed")


def _own_process_start() -> float:
    """This process's start time (what a reused pid is told apart by). Read afresh each time,
    never cached: psutil derives it from the boot time, which moves when the clock is stepped,
    and a stale value would look like a reused pid to the next reader.

    ``Lease._attempt`` calls it before it takes the guard: the first call imports psutil,
    tens of milliseconds that, inside the guard, every contender used to wait through in turn
    (a burst of curators on a loaded machine then timed out on the guard, not on a holder).

    On Linux it is read from ``/proc`` as psutil reads it (the same float: the process's
    start in clock ticks since boot, over the ticks a second, plus the boot time), without
    importing psutil: ~40 ms of CPU, a capture's largest import, for two small files."""
    try:
        return _proc_start(os.getpid())
    except (OSError, ValueError, IndexError, AttributeError):
        import psutil
        return psutil.Process(os.getpid()).create_time()


def _proc_start(pid: int) -> float:
    """psutil 7's Linux ``Process.create_time()``: field 22 of ``/proc/<pid>/stat`` (counted
    after the command's closing parenthesis, which may itself hold spaces and parentheses)
    over ``SC_CLK_TCK``, plus ``btime`` of ``/proc/stat``."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        data = stat.read()
    ticks = float(data[data.rfind(b")") + 2:].split()[19]) / os.sysconf("SC_CLK_TCK")
    with open("/proc/stat", "rb") as system:
        for line in system:
            if line.startswith(b"btime"):
                return ticks + float(line.strip().split()[1])
    raise ValueError("no btime line in /proc/stat")


class Lease:
    """One process's claim on a lease file; ``acquire`` it, write while ``still_held``, release."""

    def __init__(self, path: str | os.PathLike[str], owner: str, ttl_ms: int = DEFAULT_TTL_MS,
                 clock: Callable[[], int] = now_ms, heartbeat: bool = True, *,
                 on_lost: Callable[[Lease], None] | None = None,
                 busy_hint: str = WRITE_HINT) -> None:
        self.path = Path(path)
        self.owner, self.ttl_ms, self.clock = owner, ttl_ms, clock
        self.heartbeat, self.on_lost, self.busy_hint = heartbeat, on_lost, busy_hint
        self.token = _token()
        self.held = False
        self.lost = False
        self.broken: dict[str, Any] | None = None
        self._stop: threading.Event | None = None
        self._beater: threading.Thread | None = None

    def acquire(self, wait_ms: int = 0) -> Lease:
        """Take the lease, retrying every 100 ms for up to ``wait_ms``; refuse naming the holder."""
        if self.held:
            return self
        from claimgraph.private import refuse_unsafe_directory
        refuse_unsafe_directory(self.path)  # before the guard file is made (docs/store.md)
        self.token = _token()
        deadline = time.monotonic() + max(0, wait_ms) / 1000
        while True:
            try:
                holder = self._attempt()
            except OSError as error:
                if not is_write_refusal(error):
                    raise
                raise write_refused(error.filename or self.path, error) from None
            if holder is None:
                self._start_heartbeat()
                return self
            left_s = deadline - time.monotonic()
            if left_s <= 0:
                raise self._refusal(holder)
            time.sleep(min(RETRY_MS / 1000, left_s))

    def _refusal(self, holder: dict[str, Any]) -> ClaimgraphError:
        message = f"{self.path.name} is held by {describe_holder(holder, self.clock())}"
        return ClaimgraphError("store-locked", message, hint=self.busy_hint,
                               holder=holder, lock=str(self.path))

    def _attempt(self) -> dict[str, Any] | None:
        """One atomic read-check-write: None when the lease is now ours, else the holder in the
        way."""
        from filelock import Timeout
        started = _own_process_start()  # outside the guard: it may import psutil (see there)
        try:
            with self._guard():
                now = self.clock()
                holder = read_holder(self.path)
                reason = None if holder is None else break_reason(holder, now, self.ttl_ms)
                if holder is not None and reason is None:
                    return holder
                self.broken = None if holder is None else {**holder, "reason": reason}
                self._write(self._record(now, started))
                self.held, self.lost = True, False
                return None
        except Timeout:
            return {"guard_busy": True, "lock": str(self.path)}

    def _record(self, now: int, started: float) -> dict[str, Any]:
        return {"token": self.token, "owner": self.owner, "pid": os.getpid(),
                "process_start": started, "host": HOST,
                "acquired_at": now, "expires_at": now + self.ttl_ms}

    def _guard(self) -> FileLock:
        """The flock held only for the few milliseconds of one read-check-write."""
        from filelock import FileLock
        private_dir(self.path.parent)
        return FileLock(f"{self.path}.guard", timeout=GUARD_TIMEOUT_S, mode=FILE_MODE)

    def _write(self, record: dict[str, Any]) -> None:
        """Replace the lease file atomically, so readers outside the guard never see half a
        record."""
        scratch = self.path.with_name(self.path.name + ".tmp")
        scratch.unlink(missing_ok=True)  # a leftover (or a planted link) goes; made anew
        with open_private(scratch, "x") as out:
            out.write(json.dumps(record))
        os.replace(scratch, self.path)

    def _is_ours(self, holder: dict[str, Any] | None, now: int) -> bool:
        return (holder is not None and holder.get("token") == self.token
                and now <= holder["expires_at"])

    def renew(self) -> bool:
        """Push expiry one TTL ahead, but only while the file still holds our unexpired token."""
        from filelock import Timeout
        try:
            with self._guard():
                now = self.clock()
                holder = read_holder(self.path)
                if not self._is_ours(holder, now):
                    return False
                self._write({**holder, "expires_at": now + self.ttl_ms})
                return True
        except Timeout:
            return self._is_ours(read_holder(self.path), self.clock())

    def still_held(self) -> bool:
        """The fencing check before each write: the file still carries our token, unexpired."""
        return self.held and not self.lost and self._is_ours(read_holder(self.path), self.clock())

    def _start_heartbeat(self) -> None:
        if not self.heartbeat:
            return
        import threading
        self._stop = threading.Event()
        self._beater = threading.Thread(target=self._beat, name=f"lease-heartbeat:{self.path.name}",
                                        daemon=True)
        self._beater.start()

    def _beat(self) -> None:
        """Renew every TTL/3 until released; on losing the lease, say so once and stop."""
        interval_s = max(self.ttl_ms / 3, MIN_HEARTBEAT_MS) / 1000
        while not self._stop.wait(interval_s):
            try:
                renewed = self.renew()
            except OSError:
                continue
            if not renewed:
                self.lost = True
                if self.on_lost is not None:
                    self.on_lost(self)
                return

    def _stop_heartbeat(self) -> None:
        """Stop the heartbeat thread, if one runs (threading is imported only when one does)."""
        if self._stop is not None:
            self._stop.set()
        if self._beater is not None:
            import threading
            if self._beater is not threading.current_thread():
                self._beater.join()
        self._beater = None

    def release(self) -> None:
        """Delete the lease file if it still holds our token; never another holder's. Idempotent."""
        self._stop_heartbeat()
        if not self.held:
            return
        self.held = False
        from filelock import Timeout
        try:
            with self._guard():
                holder = read_holder(self.path)
                if holder is not None and holder.get("token") == self.token:
                    self.path.unlink(missing_ok=True)
        except Timeout:
            pass  # the file stays until it expires; another process will break it then

    def __enter__(self) -> Lease:
        return self.acquire(0)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        """Release; if the lease was lost meanwhile and nothing else failed, say so (lease-lost)."""
        was_lost = self.lost
        self.release()
        if was_lost and exc_type is None:
            raise ClaimgraphError("lease-lost", f"lost {self.path.name} while holding it",
                                  hint="the work ran without the lease at the end; check and retry",
                                  lock=str(self.path))
