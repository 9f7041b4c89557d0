"""A store the user may not write, and files that are not transcripts.

Reads must work on a read-only store (opened read-only: no version stamp, no migration, no
new file beside it); writes fail with one line naming the path and the permission; the hook
logs and exits 0. The commands run as real processes without root's power to ignore file
permissions, so the directory really is read-only to them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.errors import ClaimgraphError
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars
from claimgraph.store import sqlite_schema
from claimgraph.store.sqlite import SqliteStore

from .conftest import one_line, without_dac_override

READS = [("facts", "api"), ("facts",), ("search", "postgres"), ("history", "api", "depends-on"),
         ("entity", "list"), ("stats",), ("conflicts",), ("context",), ("dump",), ("audit",),
         ("status", "--json"), ("facts", "--predicate", "x/never-registered"),
         ("facts", "api", "--predicate", "x/never-registered"),
         ("history", "api", "x/never-registered"), ("neighbor", "api", "-p", "x/never-registered")]
WRITES = [("assert", "api", "prefers", "ruff"), ("init",), ("curate",),
          ("entity", "ensure", "web"), ("load", "-")]


def run(prefix: tuple[str, ...], *argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-m", "claimgraph", *argv], input=stdin,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))


@pytest.fixture
def read_only(ok, db: Path):
    """A store with one fact, its directory then made read-only (r-x); restored afterwards."""
    ok("assert", "api", "depends-on", "postgres")
    before = sorted(p.name for p in db.parent.iterdir())
    db.parent.chmod(0o555)
    yield without_dac_override(), before
    db.parent.chmod(0o755)


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a))
def test_reads_work_on_a_read_only_store_and_leave_nothing_behind(read_only, db, argv):
    prefix, before = read_only
    done = run(prefix, *argv)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    if argv[0] != "status":
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in db.parent.iterdir()) == before


def test_read_only_reads_show_the_facts(read_only):
    prefix, _ = read_only
    assert "api depends-on postgres" in run(prefix, "facts", "api").stdout
    report = json.loads(run(prefix, "status", "--json").stdout)
    assert report["store"]["counts"]["valid"] == 1 and "error" not in report["store"]


@pytest.mark.parametrize("argv", WRITES, ids=lambda a: " ".join(a))
def test_writes_fail_with_one_line_naming_the_path_and_the_permission(read_only, db, argv):
    prefix, before = read_only
    done = run(prefix, *argv, stdin='{"record": "claimgraph-dump", "format": 2}\n')
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "this is a bug" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"claimgraph: cannot write {db}")
    assert "permission denied" in last or "no write permission" in last
    if argv[0] != "curate":  # curate also echoes its JSON events on the console
        one_line(done.stderr)
    assert sorted(p.name for p in db.parent.iterdir()) == before


def test_a_capture_into_a_read_only_store_fails_in_one_json_line_naming_the_path(
        read_only, db):
    prefix, before = read_only
    transcript = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / \
        "claude-code" / "short.jsonl"
    done = run(prefix, "capture", str(transcript), "--no-curate")
    assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr
    error = json.loads(one_line(done.stderr))
    assert error["event"] == "capture.failed" and error["type"] == "store-read-only"
    assert error["path"].startswith(str(db)) and "permission denied" in error["error"]
    assert sorted(p.name for p in db.parent.iterdir()) == before


def test_the_hook_on_a_read_only_store_logs_on_stderr_and_exits_zero(read_only, db, tmp_path):
    prefix, before = read_only
    transcript = tmp_path / "s.jsonl"
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n')
    payload = json.dumps({"session_id": "s", "transcript_path": str(transcript),
                          "cwd": str(tmp_path)})
    done = subprocess.run([*prefix, sys.executable, "-m", "claimgraph.hooks", "session-end"],
                          input=payload, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ))
    assert done.returncode == 0 and done.stdout == ""
    [line] = [json.loads(l) for l in done.stderr.splitlines() if "hook.spool-failed" in l]
    assert f"{db}.spool" in line["reason"] and "Permission denied" in line["reason"]
    start = subprocess.run([*prefix, sys.executable, "-m", "claimgraph.hooks", "session-start"],
                           input=payload, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ))
    assert start.returncode == 0
    assert "api depends-on postgres" not in start.stdout  # another project's memory
    assert sorted(p.name for p in db.parent.iterdir()) == before


def test_a_read_never_migrates_or_stamps_a_store(db: Path):
    db.parent.mkdir(parents=True)
    SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:1]).close()  # an older format
    with pytest.raises(ClaimgraphError) as refused:
        open_store(db, read_only=True)
    assert refused.value.type == "store-needs-upgrade"
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 1
    assert not Sidecars(db).version_file.exists()
    open_store(db).close()  # a writer upgrades it
    open_store(db, read_only=True).close()


def test_a_read_only_store_file_in_a_writable_directory_still_reads(ok, db: Path):
    ok("assert", "api", "depends-on", "postgres")
    db.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        done = run(without_dac_override(), "facts", "api")
        assert done.returncode == 0 and "postgres" in done.stdout, done.stderr
        wrote = run(without_dac_override(), "assert", "api", "prefers", "ruff")
        assert wrote.returncode == 1 and "Traceback" not in wrote.stderr
        assert one_line(wrote.stderr).startswith(f"claimgraph: cannot write the store {db}")
    finally:
        db.chmod(0o644)


# --- capture refuses what is not a transcript -------------------------------------------------

def test_capture_refuses_a_file_that_is_no_agents_transcript(cli, ok, tmp_path):
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[project]\nname = "demo"\nversion = "0.1.0"\n')
    refused = cli("capture", str(toml), "--no-curate")
    assert refused.code == 1 and refused.out == ""
    error = json.loads(one_line(refused.err))
    assert error["type"] == "not-a-transcript" and "--format text" in error["hint"]
    assert not Path(os.environ["CLAIMGRAPH_DB"]).exists()
    taken = ok("capture", str(toml), "--format", "text", "--no-curate")
    assert json.loads(taken.out)["agent"] == "text"


def test_a_read_naming_an_unregistered_x_predicate_finds_nothing_and_registers_nothing(ok, db):
    ok("assert", "api", "depends-on", "postgres")
    assert ok("facts", "api", "--predicate", "x/never-registered", "--json").json()["facts"] == []
    assert ok("history", "api", "x/never-registered", "--json").json()["history"] == []
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT id FROM predicates WHERE id = 'x/never-registered'")
        assert rows.fetchall() == []
