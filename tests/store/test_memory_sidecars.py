"""A store in memory (``:memory:``) has no file, so no directory to hold sidecars beside it.

Its leases, logs and evidence are named from a private temporary directory of the process
(``claimgraph.private.sidecar_base``), removed when the process exits: nothing named
``:memory:.lock``, ``:memory:.lock.guard``, ``:memory:.retrievals`` ... lands in the directory
the process happens to run in.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from claimgraph.core import Shell, tombstones
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.curator.shortlists import refresh_shortlists
from claimgraph.curator.stage_tools import Fence, StageTools
from claimgraph.lease import curate_lock_path, write_lock_path
from claimgraph.private import sidecar_base
from claimgraph.retrievals import log_read, path_for
from claimgraph.sidecar import Sidecars
from claimgraph.store.sqlite import SqliteStore


def test_the_curators_shortlists_stage_on_a_memory_store_leaves_no_file_where_it_runs(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sh = Shell(store=SqliteStore(":memory:"))
    seed(sh)
    assert_fact(sh, "api", "depends-on", "postgres", scope="github.com/o/a")
    fence = Fence(sh.store.path, None, epoch=tombstones.epoch(sh.store))
    outcome = refresh_shortlists(StageTools(sh, fence, "test-run", environ={}))
    assert outcome["counts"]["stored"] == 1  # it took the write lease, and wrote
    assert sorted(os.listdir(tmp_path)) == []
    sh.store.close()


def test_every_sidecar_of_a_memory_store_is_in_one_private_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = Path(sidecar_base(":memory:"))
    assert not base.is_relative_to(tmp_path)
    assert stat.S_IMODE(base.parent.stat().st_mode) == 0o700
    assert base.parent.stat().st_uid == os.getuid()
    sidecars = Sidecars(":memory:")
    paths = [write_lock_path(":memory:"), curate_lock_path(":memory:"), path_for(":memory:"),
             sidecars.evidence_dir, sidecars.spool_dir, sidecars.oplog_dir, sidecars.curate_log,
             sidecars.capture_log, sidecars.crash_log, sidecars.version_file]
    assert all(p.parent == base.parent for p in paths), paths
    assert sidecar_base(tmp_path / "claims.db") == str(tmp_path / "claims.db")  # a file: beside
    assert log_read(":memory:", "search", ["f-1"], 1)  # the reads log, and its guard file
    assert path_for(":memory:").read_text().count("f-1") == 1
    assert sorted(os.listdir(tmp_path)) == []


def test_commands_on_a_memory_store_write_nothing_where_they_run_nor_leave_a_directory(
        tmp_path):
    """Real processes: a write (the write lease), a read (the reads log), a curator pass (the
    curation lease, its stages' write leases); the private directory goes when each exits."""
    work, temp = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    env = {**os.environ, "HOME": str(tmp_path / "home"), "TMPDIR": str(temp),
           "CLAIMGRAPH_DB": ":memory:"}
    for argv in (["assert", "api", "depends-on", "postgres", "--scope", "p"],
                 ["search", "api"], ["curate", "--json"], ["facts", "--scope", "p"]):
        done = subprocess.run([sys.executable, "-m", "claimgraph", *argv], cwd=work, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (argv, done.stderr)
        assert sorted(os.listdir(work)) == [], argv
        assert sorted(os.listdir(temp)) == [], argv
