"""Lease mechanics against real processes: refusal, waiting, breaking only the provably dead."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from filelock import FileLock

from claimgraph.errors import ClaimgraphError
import claimgraph.lease as lease_module
from claimgraph.lease import (CURATE_HINT, HOST, Lease, curate_lock_path, holder_alive, now_ms,
                              read_holder, write_lock_path)
from claimgraph.store.leases import curation_lease, write_lease

pytestmark = pytest.mark.timeout(60)

HOLDER_SCRIPT = r"""
import json, os, sys
from claimgraph.errors import ClaimgraphError
from claimgraph.lease import Lease
path, owner, ttl_ms, wait_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    lease = Lease(path, owner, ttl_ms=ttl_ms).acquire(wait_ms)
except ClaimgraphError as refusal:
    print(json.dumps({"refused": refusal.message, "type": refusal.type, "hint": refusal.hint}),
          flush=True)
    sys.exit(3)
print(json.dumps({"acquired": lease.token, "broken": lease.broken}), flush=True)
sys.stdin.readline()
lost = lease.lost
lease.release()
print(json.dumps({"released": True, "lost": lost}), flush=True)
"""

CONTENDER_SCRIPT = r"""
import json, os, sys, time
from claimgraph.errors import ClaimgraphError
from claimgraph.lease import Lease
path, go = sys.argv[1], sys.argv[2]
print(json.dumps({"ready": True}), flush=True)
while not os.path.exists(go):
    time.sleep(0.001)
refusals = 0
while True:
    lease = Lease(path, "contender-%d" % os.getpid())
    try:
        lease.acquire(0)
    except ClaimgraphError:
        refusals += 1
        if refusals == 1:
            print(json.dumps({"refused": True}), flush=True)
        time.sleep(0.002)
        continue
    start = time.monotonic_ns()
    time.sleep(0.02)
    end = time.monotonic_ns()
    lease.release()
    break
print(json.dumps({"start": start, "end": end, "refusals": refusals}), flush=True)
"""


class Child:
    """A child Python process whose stdout JSON lines arrive on a queue (no blocking reads)."""

    def __init__(self, script: str, args: list[str], stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-c", script, *args], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr)
        self.pid = self.proc.pid
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.put(json.loads(line))

    def next_event(self, timeout: float = 20.0) -> dict[str, Any]:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"child {self.pid} said nothing: {self.stderr_path.read_text()}") from None

    def tell_to_release(self) -> dict[str, Any]:
        self.proc.stdin.write("\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return self.next_event()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        self._stderr.close()


@pytest.fixture
def children(tmp_path: Path):
    """Start children; every one is killed and reaped at teardown, pass or fail."""
    started: list[Child] = []

    def start(script: str, *args: Any) -> Child:
        child = Child(script, [str(arg) for arg in args], tmp_path / f"child{len(started)}.err")
        started.append(child)
        return child

    yield start
    for child in started:
        child.stop()


@pytest.fixture
def lock(tmp_path: Path) -> Path:
    return write_lock_path(tmp_path / "claims.db")


def start_holder(children, lock: Path, owner: str = "alpha", ttl_ms: int = 60_000,
                 wait_ms: int = 0):
    holder = children(HOLDER_SCRIPT, lock, owner, ttl_ms, wait_ms)
    event = holder.next_event()
    assert "acquired" in event, event
    return holder, event


def wait_until_zombie(pid: int) -> None:
    """An unreaped killed child stays in the process table; pid_exists() still says yes."""
    deadline = time.monotonic() + 10
    while psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the killed child never became a zombie"
        time.sleep(0.01)
    assert psutil.pid_exists(pid)


def write_record(path: Path, **overrides: Any) -> dict[str, Any]:
    now = now_ms()
    record = {"token": "forged", "owner": "ghost", "pid": os.getpid(),
              "process_start": psutil.Process().create_time(), "host": HOST,
              "acquired_at": now, "expires_at": now + 60_000, **overrides}
    path.write_text(json.dumps(record))
    return record


def test_a_second_process_is_refused_with_a_message_naming_the_holder(children, lock):
    holder, _ = start_holder(children, lock, owner="alpha")
    second = children(HOLDER_SCRIPT, lock, "beta", 60_000, 0)
    refusal = second.next_event()
    assert refusal["type"] == "store-locked"
    assert "'alpha'" in refusal["refused"] and f"pid {holder.pid}" in refusal["refused"]
    assert HOST in refusal["refused"] and "expiring in" in refusal["refused"]
    assert "--lease-wait" in refusal["hint"]
    assert second.proc.wait(timeout=10) == 3


def test_waiting_gives_up_after_wait_ms_and_reports_the_holder(children, lock):
    start_holder(children, lock, owner="alpha")
    began = time.monotonic()
    with pytest.raises(ClaimgraphError) as refusal:
        Lease(lock, "beta").acquire(500)
    assert time.monotonic() - began >= 0.45  # it waited; the holder still holds for a minute
    assert refusal.value.type == "store-locked"
    assert refusal.value.data["holder"]["owner"] == "alpha"


def test_wait_zero_tries_exactly_once(children, lock):
    start_holder(children, lock)
    began = time.monotonic()
    with pytest.raises(ClaimgraphError):
        Lease(lock, "beta").acquire(0)
    assert time.monotonic() - began < 30  # it did not wait for the holder's minute-long lease


def test_a_waiter_acquires_once_the_holder_releases_within_the_wait(children, lock):
    holder, _ = start_holder(children, lock, owner="alpha")
    waiter = children(HOLDER_SCRIPT, lock, "beta", 60_000, 10_000)
    time.sleep(0.5)
    assert waiter.proc.poll() is None and read_holder(lock)["owner"] == "alpha"
    assert holder.tell_to_release() == {"released": True, "lost": False}
    acquired = waiter.next_event()
    assert acquired["broken"] is None
    assert read_holder(lock)["token"] == acquired["acquired"]


@pytest.mark.parametrize("reaped", [True, False], ids=["reaped", "zombie"])
def test_a_kill_9_holders_lease_is_broken_as_a_dead_pid(children, lock, reaped):
    holder, _ = start_holder(children, lock)
    os.kill(holder.pid, signal.SIGKILL)
    if reaped:
        holder.proc.wait(timeout=10)
    else:
        wait_until_zombie(holder.pid)
    lease = Lease(lock, "beta").acquire(0)
    assert lease.broken["reason"] == "dead-pid" and lease.broken["pid"] == holder.pid
    lease.release()


def test_a_live_pid_with_a_different_start_time_is_broken_as_reused(children, lock):
    holder, _ = start_holder(children, lock)
    record = read_holder(lock)
    lock.write_text(json.dumps({**record, "process_start": record["process_start"] - 3600}))
    lease = Lease(lock, "beta").acquire(0)
    assert lease.broken["reason"] == "pid-reused" and holder.proc.poll() is None
    holder.tell_to_release()
    assert read_holder(lock)["token"] == lease.token, "the old holder deleted the new lease"
    lease.release()


@pytest.mark.parametrize("host", [HOST, "elsewhere.example"])
def test_an_expired_lease_is_broken_even_if_its_holder_lives(lock, host):
    write_record(lock, host=host, expires_at=now_ms() - 1)
    with Lease(lock, "beta") as lease:
        assert lease.broken["reason"] == "expired" and lease.broken["owner"] == "ghost"


def test_a_live_unexpired_holder_is_never_broken(children, lock):
    holder, acquired = start_holder(children, lock)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        with pytest.raises(ClaimgraphError):
            Lease(lock, "beta").acquire(0)
    with pytest.raises(ClaimgraphError):
        Lease(lock, "beta").acquire(600)
    assert read_holder(lock)["token"] == acquired["acquired"] and holder_alive(read_holder(lock))


def test_a_holder_on_another_host_is_only_broken_by_expiry(lock):
    write_record(lock, host="elsewhere.example", pid=2**22 + 12345, process_start=1.0)
    with pytest.raises(ClaimgraphError):
        Lease(lock, "beta").acquire(0)
    assert holder_alive(read_holder(lock))


def test_an_unreadable_lease_file_is_broken_only_once_older_than_the_ttl(lock):
    lock.write_text("{not json")
    with pytest.raises(ClaimgraphError) as refusal:
        Lease(lock, "beta").acquire(0)
    assert "unreadable" in refusal.value.message
    stale = time.time() - 31
    os.utime(lock, (stale, stale))
    with Lease(lock, "beta") as lease:
        assert lease.broken["reason"] == "unreadable"


def test_the_heartbeat_keeps_a_short_ttl_lease_alive_past_its_ttl(children, lock):
    start_holder(children, lock, ttl_ms=300)
    time.sleep(1.0)
    with pytest.raises(ClaimgraphError):
        Lease(lock, "beta").acquire(0)
    record = read_holder(lock)
    assert record["expires_at"] > record["acquired_at"] + 600


def test_in_process_heartbeat_keeps_still_held_true(lock):
    with Lease(lock, "alpha", ttl_ms=300) as lease:
        time.sleep(1.0)
        assert lease.still_held() and not lease.lost


def test_still_held_is_false_after_someone_else_breaks_an_expired_lease(lock):
    first = Lease(lock, "alpha", ttl_ms=1000, heartbeat=False).acquire(0)
    assert first.still_held()
    later = Lease(lock, "beta", clock=lambda: now_ms() + 5000).acquire(0)
    assert later.broken["reason"] == "expired" and later.broken["token"] == first.token
    assert not first.still_held()
    first.release()
    assert read_holder(lock)["token"] == later.token
    later.release()
    assert not lock.exists()


def test_release_never_deletes_a_file_another_process_took_over(children, lock):
    mine = Lease(lock, "alpha", ttl_ms=300, heartbeat=False).acquire(0)
    time.sleep(0.4)
    taker, taken = start_holder(children, lock, owner="beta")
    assert taken["broken"]["reason"] == "expired"
    mine.release()
    mine.release()
    assert read_holder(lock)["token"] == taken["acquired"]
    Lease(lock, "never-acquired").release()
    assert read_holder(lock)["token"] == taken["acquired"]


def test_the_heartbeat_notices_a_lost_lease_and_the_with_block_reports_it(lock):
    noticed: list[Lease] = []
    with pytest.raises(ClaimgraphError) as lost:
        with Lease(lock, "alpha", ttl_ms=300, on_lost=noticed.append) as lease:
            Lease(lock, "beta", clock=lambda: now_ms() + 5000, heartbeat=False).acquire(0)
            deadline = time.monotonic() + 5
            while not lease.lost and time.monotonic() < deadline:
                time.sleep(0.02)
    assert lost.value.type == "lease-lost" and noticed == [lease]


def test_ten_processes_contending_with_wait_zero_hold_the_lease_one_at_a_time(children, lock,
                                                                              tmp_path):
    # The test holds the lease until every contender has been refused once, so they all
    # contend whatever the machine's scheduling (a loaded CI box can otherwise run them
    # one after another with no overlap at all).
    go = tmp_path / "go"
    contenders = [children(CONTENDER_SCRIPT, lock, go) for _ in range(10)]
    for contender in contenders:
        assert contender.next_event() == {"ready": True}
    gate = Lease(lock, "gatekeeper").acquire(0)
    go.touch()
    for contender in contenders:
        assert contender.next_event(timeout=40) == {"refused": True}
    gate.release()
    holds = sorted((c.next_event(timeout=40) for c in contenders), key=lambda h: h["start"])
    for earlier, later in zip(holds, holds[1:]):
        assert earlier["end"] < later["start"], "two processes held the lease at once"
    assert all(hold["refusals"] > 0 for hold in holds)
    assert not lock.exists()


def test_write_and_curation_leases_use_the_db_sidecar_paths(tmp_path):
    db = tmp_path / "claims.db"
    with write_lease(db, "writer", wait_ms=0) as lease:
        assert Path(f"{db}.lock") == lease.path and lease.still_held()
    assert not write_lock_path(db).exists()
    with curation_lease(db) as curator:
        assert read_holder(curate_lock_path(db))["owner"] == "claimgraph-curator"
        with pytest.raises(ClaimgraphError) as refusal:
            curation_lease(db, "second-curator")
        assert refusal.value.hint == CURATE_HINT
    assert not curator.held and not curate_lock_path(db).exists()


def test_read_holder_and_holder_alive_describe_the_current_holder(children, lock):
    assert read_holder(lock) is None and not holder_alive(None)
    holder, _ = start_holder(children, lock, owner="alpha")
    record = read_holder(lock)
    assert record["owner"] == "alpha" and record["pid"] == holder.pid
    assert set(record) == {"token", "owner", "pid", "process_start", "host",
                           "acquired_at", "expires_at"}
    assert holder_alive(record)
    holder.stop()
    assert not holder_alive(record)
    lock.write_text("garbage")
    assert read_holder(lock)["unreadable"] and not holder_alive(read_holder(lock))


def test_a_stalled_guard_is_reported_as_such_instead_of_blocking(lock, monkeypatch):
    monkeypatch.setattr(lease_module, "GUARD_TIMEOUT_S", 0.2)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{lock}.guard"):
        with pytest.raises(ClaimgraphError) as refusal:
            Lease(lock, "beta").acquire(0)
    assert "stalled" in refusal.value.message and not lock.exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc only")
def test_own_start_is_psutils_without_importing_it() -> None:
    """A lease records its process's start as psutil gives it, read from /proc instead."""
    assert lease_module._own_process_start() == psutil.Process(os.getpid()).create_time()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        assert lease_module._proc_start(child.pid) == psutil.Process(child.pid).create_time()
    finally:
        child.kill()
        child.wait()
    probe = ("import sys; from claimgraph.lease import _own_process_start as s; s(); "
             "print('psutil' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
