"""Issue 10 §5: ``quick_check`` at curator start stops writes on a damaged store with a clear
message; ``claimgraph doctor`` finds damage and loose ends and says what to do; ``--fix``
rebuilds a store whose index is damaged, keeping every fact."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimgraph.capture.failures import MAX_FAILURES, FailureLedger
from claimgraph.sidecar import Sidecars


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


def cg(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "claimgraph", *argv], capture_output=True,
                          text=True, env=dict(os.environ), timeout=120)


def some_facts(n: int = 40) -> None:
    for i in range(n):
        assert cg("assert", f"service-{i}", "depends-on", f"lib-{i}").returncode == 0


def damage_an_index(db: Path, index: str = "facts_predicate") -> None:
    """Overwrite the first page of one index's b-tree, as a bad sector would."""
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                              (index,)).fetchone()[0]
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    with open(db, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * 64)


def test_a_healthy_store_is_all_good(db):
    some_facts(3)
    done = cg("doctor")
    assert done.returncode == 0 and done.stdout.strip().endswith("all good"), done.stdout


def test_a_damaged_index_stops_writes_and_doctor_fix_rebuilds_it(db):
    some_facts()
    damage_an_index(db)
    curated = cg("curate", "--json")
    result = json.loads(curated.stdout.strip().splitlines()[-1])
    assert result["status"] == "damaged" and Sidecars(db).damaged.exists()
    assert '"curate.store-damaged"' in curated.stderr
    refused = cg("assert", "api", "prefers", "REST")
    assert refused.returncode == 1 and "failed its integrity check" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "claimgraph doctor" in refused.stderr
    found = cg("doctor", "--json")
    report = json.loads(found.stdout)
    integrity = next(c for c in report["checks"] if c["check"] == "integrity")
    assert found.returncode == 1 and not integrity["ok"] and "--fix" in integrity["what_to_do"]
    fixed = cg("doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "rebuilt from its tables" in fixed.stdout
    assert not Sidecars(db).damaged.exists()
    assert list(db.parent.glob(f"{db.name}.damaged-*"))  # the damaged file is kept
    assert cg("assert", "api", "prefers", "REST").returncode == 0
    dump = cg("dump").stdout
    assert all(f'"lib-{i}"' in dump for i in range(40))


def test_doctor_names_missing_evidence_stuck_spools_poisoned_sessions_and_loose_files(db):
    some_facts(1)
    sidecars = Sidecars(db)
    os.chmod(db, 0o644)
    spool = sidecars.spool_dir / "claude-code-old.json"
    spool.parent.mkdir(parents=True, exist_ok=True)
    spool.write_text("{}")
    old = time.time() - 3 * 86400
    os.utime(spool, (old, old))
    ledger = FailureLedger(db)
    for _ in range(MAX_FAILURES):
        ledger.record("capture:claude-code:bad", {"agent": "claude-code", "session": "bad"},
                      "internal-error", "boom", time.time())
    connection = sqlite3.connect(db)
    connection.execute("INSERT INTO episodes (id, source_type, ref, evidence) VALUES "
                       "('ep-x', 'session-log', 'r', 'sha256-' || printf('%064d', 0))")
    connection.commit()
    connection.close()
    done = cg("doctor", "--json")
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert done.returncode == 1
    assert not checks["permissions"]["ok"]
    assert "readable by others" in checks["permissions"]["problems"][0]
    assert not checks["spools"]["ok"] and str(spool) in checks["spools"]["problems"][0]
    assert not checks["poisoned"]["ok"] and "--retry" in checks["poisoned"]["what_to_do"]
    assert not checks["evidence"]["ok"] and "is gone" in checks["evidence"]["problems"][0]
    assert checks["integrity"]["ok"]
