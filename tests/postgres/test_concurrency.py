"""Many processes against one server store: captures and curators at once, and kills.

20 captures (one session each) and 5 curators start together against one PostgreSQL store:
every session is captured exactly once, no fact is lost, and the curators' leases never
overlap (read from their own lease-acquired/released log lines). A capture killed inside its
episode transaction leaves nothing applied; the rerun captures the session cleanly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.location import server_sidecar_base

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))
from daemon_helpers import write_session  # noqa: E402

PYTHON = sys.executable
SESSIONS = 20
CURATORS = 5


def session(projects: Path, cwd: Path, n: int) -> Path:
    path = write_session(projects, cwd, f"team-{n:02d}")
    path.write_text(path.read_text(encoding="utf-8").replace(
        "Always use uv instead of pip", f"Always use tool{n} instead of legacy{n}"),
        encoding="utf-8")
    return path


def start(*argv: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([PYTHON, "-m", "claimgraph", *argv], env={**os.environ, **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stats(env: dict[str, str]) -> dict:
    done = subprocess.run([PYTHON, "-m", "claimgraph", "stats", "--json"], text=True,
                          capture_output=True, env={**os.environ, **env}, timeout=60)
    return json.loads(done.stdout)


def episode_refs(url: str) -> list[str]:
    from claimgraph.store.postgres import PostgresStore
    store = PostgresStore(url, read_only=True)
    try:
        return sorted(e["ref"] for e in store.list_episodes())
    finally:
        store.close()


def curator_intervals(url: str) -> list[tuple[int, int]]:
    log = Path(f"{server_sidecar_base(url)}.curate.log")
    acquired: dict[int, int] = {}
    spans = []
    for line in log.read_text(encoding="utf-8").splitlines():
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("event") == "curate.lease-acquired":
            acquired[event["pid"]] = event["at_ns"]
        elif event.get("event") == "curate.lease-released" and event["pid"] in acquired:
            spans.append((acquired.pop(event["pid"]), event["at_ns"]))
    return sorted(spans)


@pytest.mark.slow
def test_twenty_captures_and_five_curators_at_once_capture_each_session_once(
        pg_url, tmp_path, isolated_home):
    env = {"CLAIMGRAPH_DB": pg_url, "CLAIMGRAPH_LEASE_WAIT_MS": "120000"}
    assert subprocess.run([PYTHON, "-m", "claimgraph", "init"], env={**os.environ, **env},
                          capture_output=True, timeout=60).returncode == 0
    projects = isolated_home / ".claude" / "projects"
    paths = [session(projects, tmp_path / "proj", n) for n in range(SESSIONS)]
    running = [start("capture", str(p), "--no-curate", "--json", env=env) for p in paths]
    running += [start("curate", "--json", env=env) for _ in range(CURATORS)]
    outcomes = [(p.wait(timeout=300), p.stderr.read()) for p in running]
    assert all(code == 0 for code, _ in outcomes), outcomes
    refs = episode_refs(pg_url)
    assert len(refs) == SESSIONS == len({ref.split("@")[0] for ref in refs})
    counts = stats(env)
    assert counts["facts"]["total"] == SESSIONS and counts["episodes"] == SESSIONS
    spans = curator_intervals(pg_url)
    assert spans, "no curator ever held the lease"
    assert all(first[1] <= second[0] for first, second in zip(spans, spans[1:])), spans


@pytest.mark.parametrize("stage", ["ingested", "marked"])
def test_a_capture_killed_inside_its_transaction_leaves_nothing_applied(
        stage, pg_url, tmp_path, isolated_home):
    env = {"CLAIMGRAPH_DB": pg_url}
    transcript = session(isolated_home / ".claude" / "projects", tmp_path / "proj", 1)
    killed = start("capture", str(transcript), "--no-curate",
                   env={**env, "CLAIMGRAPH_TEST_CRASH_AT": stage})
    assert killed.wait(timeout=120) == 137
    counts = stats(env)
    assert (counts["facts"]["total"], counts["episodes"]) == (0, 0)
    rerun = start("capture", str(transcript), "--no-curate", "--json", env=env)
    assert rerun.wait(timeout=120) == 0, rerun.stderr.read()
    counts = stats(env)
    assert (counts["facts"]["total"], counts["episodes"]) == (1, 1)
