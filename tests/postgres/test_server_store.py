"""A server store through the CLI: `--db postgresql://…`, migrate, and the advisory leases."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from claimgraph.location import server_sidecar_base

PYTHON = sys.executable


def cli(*argv: str, env: dict[str, str] | None = None, stdin: str | None = None):
    return subprocess.run([PYTHON, "-m", "claimgraph", *argv], text=True, capture_output=True,
                          input=stdin, env={**os.environ, **(env or {})}, timeout=120)


def test_a_file_store_migrates_to_the_server_with_identical_dumps(pg_url, tmp_path):
    source = str(tmp_path / "claims.db")
    for statement in (("api", "prefers", "REST"), ("api", "depends-on", "kuzu"),
                      ("api", "prefers", "gRPC")):
        assert cli("--db", source, "assert", *statement, "--scope", "p",
                   "--on-conflict", "supersede").returncode == 0
    moved = cli("--db", source, "migrate", "--to", pg_url, "--json")
    assert moved.returncode == 0, moved.stderr
    assert json.loads(moved.stdout)["identical"] is True
    left, right = cli("--db", source, "dump"), cli("--db", pg_url, "dump")
    assert left.stdout == right.stdout and left.stdout.count("\n") > 20
    again = cli("--db", source, "migrate", "--to", pg_url)
    assert again.returncode == 1 and "already holds data" in again.stderr


def test_a_url_password_is_never_written_beside_the_store(pg_url, tmp_path):
    with_password = pg_url.replace("postgres@", "postgres:hunter2-secret@")
    assert cli("--db", with_password, "init").returncode == 0
    base = server_sidecar_base(pg_url)
    written = [p for p in base.parent.rglob("*") if p.is_file()]
    assert written and not [p for p in written if b"hunter2" in p.read_bytes()]


def test_the_write_lease_is_an_advisory_lock_freed_when_its_holder_dies(pg_url):
    assert cli("--db", pg_url, "init").returncode == 0
    holder = subprocess.Popen(
        [PYTHON, "-c", "import sys, time; from claimgraph import location; from claimgraph.store import leases;"
         "held = leases.write_lease(location.resolve(sys.argv[1]), 'holder-test', 0);"
         "print('held', flush=True); time.sleep(60)", pg_url],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    blocked = cli("--db", pg_url, "--lease-wait", "300", "assert", "a", "prefers", "b")
    assert blocked.returncode == 1 and "holder-test" in blocked.stderr
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    time.sleep(0.2)
    assert cli("--db", pg_url, "--lease-wait", "5000", "assert", "a", "prefers", "b").returncode == 0
    assert not Path(f"{server_sidecar_base(pg_url)}.lock").exists()  # no lease file at all
