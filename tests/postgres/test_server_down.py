"""A server store that is down: the hook never connects (it spools), the capture it spawns
fails and leaves the spool, and once the server is back the daemon's sweep captures it.

This test runs its own private cluster (so it may stop it mid-run): skipped loudly where
PostgreSQL's server is not installed, a failure in CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from claimgraph.location import server_sidecar_base

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))
from daemon_helpers import cli, wait_for, write_session  # noqa: E402

NOW_IDLE = {"CLAIMGRAPH_DAEMON_IDLE_MINUTES": "0", "CLAIMGRAPH_DAEMON_SPOOL_AGE_SECONDS": "0"}


@pytest.fixture
def own_cluster(postgres_server, pg_cluster_module):
    """A cluster of this test's own, started and stopped here."""
    pg = pg_cluster_module
    root = Path(tempfile.mkdtemp(prefix="claimgraph-pg-down-"))
    url = pg.start(root)
    yield pg, root, url
    pg.stop(root)
    shutil.rmtree(root, ignore_errors=True)


def _server(pg, root: Path, verb: str) -> None:
    bin_dir = pg.binaries()
    argv = [str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-w", "-l",
            str(root / "server.log")]
    if verb == "start":
        argv += ["-o", f"-c listen_addresses='' -k {root / 'socket'} -c fsync=off"]
    subprocess.run(pg._as_owner([*argv, verb]), check=True, capture_output=True, timeout=60)


def _imported(importtime: str, package: str) -> set[str]:
    """Modules of ``package`` that ``-X importtime`` says the process loaded."""
    names = {line.split("|")[-1].strip() for line in importtime.splitlines()
             if line.startswith("import time:")}
    return {n for n in names if n == package or n.startswith(package + ".")}


def test_a_down_server_leaves_spools_that_the_sweep_captures_once_it_is_back(
        own_cluster, tmp_path, isolated_home):
    pg, root, url = own_cluster
    env = {"CLAIMGRAPH_DB": url, **NOW_IDLE}
    assert cli("init", env=env).returncode == 0
    _server(pg, root, "stop")
    projects = isolated_home / ".claude" / "projects"
    transcript = write_session(projects, tmp_path / "proj", "down-1")
    payload = json.dumps({"session_id": "down-1", "transcript_path": str(transcript),
                          "cwd": str(tmp_path / "proj"), "hook_event_name": "SessionEnd"})
    hook = subprocess.run([sys.executable, "-X", "importtime", "-m", "claimgraph.hooks",
                           "session-end"], input=payload, text=True, capture_output=True,
                          timeout=30, env={**os.environ, **env})
    assert (hook.returncode, hook.stdout) == (0, "")
    assert not _imported(hook.stderr, "psycopg")  # the hook never talked to the server
    base = server_sidecar_base(url, {**os.environ, **env})
    spool = Path(f"{base}.spool")
    capture_log = Path(f"{base}.capture.log")
    wait_for(lambda: capture_log.exists() and "store-unreachable" in capture_log.read_text(),
             timeout=60, what="the detached capture to fail on the stopped server")
    assert [p.name for p in spool.iterdir()] == ["claude-code-down-1.json"]
    _server(pg, root, "start")
    swept = json.loads(cli("daemon", "sweep", "--json", env=env).stdout)
    assert swept.get("captured") == 1, swept
    assert not list(spool.iterdir())
    refs = json.loads(cli("stats", "--json", env=env).stdout)
    assert refs["episodes"] == 1 and refs["facts"]["total"] >= 1
