"""Every write verb holds the write lease ``<db>.lock``; reads never touch it.

The contention tests use a real second process holding the lease, as a concurrent capture
pass or curator would.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from claimgraph import lease as lease_module
from claimgraph.store import leases as leases_module

from .conftest import one_line

HOLDER = textwrap.dedent("""
    import sys
    from claimgraph.store.leases import write_lease
    held = write_lease(sys.argv[1], "test-holder", wait_ms=0)
    print("held", flush=True)
    sys.stdin.readline()
    held.release()
    print("released", flush=True)
""")


@pytest.fixture
def holder(db: Path):
    """A separate process holding ``<db>.lock`` until the test lets go (or ends)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        if proc.poll() is None:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def store(ok):
    ok("assert", "api", "prefers", "REST")


def test_a_write_refused_by_a_held_lease_names_the_holder(store, holder, cli, db):
    started = time.monotonic()
    result = cli("assert", "api", "prefers", "gRPC", "--lease-wait", "300")
    waited = time.monotonic() - started
    assert result.code == 1
    line = one_line(result.err)
    assert line.startswith(f"claimgraph: {db.name}.lock is held by 'test-holder' (pid {holder.pid}")
    assert line.endswith("— another claimgraph process is writing; retry, or raise --lease-wait")
    assert waited >= 0.3


def test_the_held_lease_error_under_json_carries_the_holder(store, holder, cli):
    result = cli("assert", "api", "prefers", "gRPC", "--lease-wait", "0", "--json")
    error = result.error()
    assert (result.code, error["type"]) == (1, "store-locked")
    assert (error["holder"]["owner"], error["holder"]["pid"]) == ("test-holder", holder.pid)


def test_the_wait_comes_from_the_environment_when_no_flag_is_given(store, holder, cli, monkeypatch):
    monkeypatch.setenv("CLAIMGRAPH_LEASE_WAIT_MS", "200")
    started = time.monotonic()
    assert cli("invalidate", "f-none").code == 1
    assert 0.2 <= time.monotonic() - started < 4


def test_a_read_succeeds_while_a_writer_holds_the_lease(store, holder, ok):
    facts = ok("facts", "api", "--json").json()["facts"]
    assert [f["object"] for f in facts] == ["REST"]
    ok("search", "REST")
    ok("stats")


def test_a_write_waits_for_the_holder_to_finish(store, holder, ok):
    def release_soon() -> None:
        time.sleep(0.3)
        holder.stdin.write("go\n")
        holder.stdin.flush()
    threading.Thread(target=release_soon, daemon=True).start()
    result = ok("assert", "api", "prefers", "gRPC", "--lease-wait", "10000", "--json")
    assert result.json()["status"] == "created"


WRITES = [["init"], ["assert", "api", "tested-by", "pytest"], ["invalidate", "{fact}"],
          ["entity", "ensure", "worker"], ["entity", "rename", "api", "gateway"],
          ["entity", "alias", "api", "the-api"], ["entity", "merge", "api", "postgres"],
          ["predicates", "register", "x/owned-by"], ["evidence", "put", "{file}"],
          ["load", "{dump}"]]
READS = [["facts", "api"], ["history", "api", "prefers"], ["search", "api"],
         ["neighbor", "api"], ["conflicts"], ["entity", "list"], ["entity", "duplicates"],
         ["predicates"], ["evidence", "list"], ["dump"], ["stats"], ["config"], ["version"]]


@pytest.fixture
def lease_calls(ok, tmp_path, monkeypatch):
    """A seeded store, placeholders for ids and files, and a record of lease acquisitions."""
    fact_id = ok("assert", "api", "depends-on", "postgres", "--json").json()["fact"]["id"]
    dump = tmp_path / "empty-store.jsonl"
    ok("--db", str(tmp_path / "empty.db"), "init")
    ok("--db", str(tmp_path / "empty.db"), "dump", "--out", str(dump))
    (tmp_path / "notes.txt").write_text("evidence text\n")
    calls: list[str] = []
    real = leases_module.write_lease

    def recording(db_path, owner, wait_ms=lease_module.DEFAULT_WAIT_MS, **options):
        calls.append(owner)
        return real(db_path, owner, wait_ms, **options)
    monkeypatch.setattr(leases_module, "write_lease", recording)
    fill = {"{fact}": fact_id, "{file}": str(tmp_path / "notes.txt"), "{dump}": str(dump)}
    return calls, lambda argv: [fill.get(a, a) for a in argv]


@pytest.mark.parametrize("argv", WRITES, ids=" ".join)
def test_every_write_verb_holds_the_write_lease(lease_calls, ok, db, argv):
    calls, fill = lease_calls
    if argv[0] == "load":
        ok("--db", str(db.with_name("fresh.db")), *fill(argv))
    else:
        ok(*fill(argv))
    assert calls == ["claimgraph-cli"]


@pytest.mark.parametrize("argv", READS, ids=" ".join)
def test_no_read_verb_takes_the_lease(lease_calls, ok, argv):
    calls, fill = lease_calls
    ok(*fill(argv))
    assert calls == []


def test_the_lease_is_released_after_a_write(ok, db):
    ok("assert", "api", "prefers", "REST")
    assert not Path(f"{db}.lock").exists()


def test_the_lease_is_released_after_a_failed_write(ok, cli, db):
    ok("init")
    assert cli("assert", "api", "prefer", "REST").code == 1
    assert not Path(f"{db}.lock").exists()
