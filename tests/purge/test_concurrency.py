"""A purge while a curator is mid-pass and a capture is mid-flight (real processes): the purge
waits for the write lease, nobody writes half of anything, and neither the curator nor the
capture brings back what the purge took."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from claimgraph.curator.stages import PAUSE_ENV, RESUME_ENV

from .conftest import SECRET, holding

SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code" / \
    "full-session-four.jsonl"
HOLDER = textwrap.dedent("""
    import sys
    from claimgraph.store.leases import write_lease
    held = write_lease(sys.argv[1], "test-holder", wait_ms=0)
    print("held", flush=True)
    sys.stdin.readline()
    held.release()
""")


def start(*argv: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "claimgraph", *argv], text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **(env or {})})


def wait_for(proc: subprocess.Popen, event: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        assert line, f"the process ended before {event}"
        if f'"event": "{event}"' in line:
            return
    raise AssertionError(f"no {event}")


def test_purge_between_a_curators_plan_and_its_writes_and_beside_a_capture(seeded, tmp_path):
    gate = tmp_path / "resume"  # the curator writes only once the purge is done: no race
    curator = start("curate", "--json", env={PAUSE_ENV: "planned", RESUME_ENV: str(gate)})
    wait_for(curator, "curate.test-paused")  # it read the store, holds the curation lease
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(seeded.db)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    project = tmp_path / "proj"
    project.mkdir()
    transcript = project / "session.jsonl"
    shutil.copy(SESSION, transcript)
    capture = start("capture", str(transcript), "--cwd", str(project), "--no-curate",
                    "--lease-wait", "30000")
    purge = start("purge", "--match", SECRET, "--yes", "--lease-wait", "30000")
    time.sleep(1.0)  # both are now waiting for the write lease the holder keeps
    holder.stdin.close()
    holder.wait(timeout=30)
    outs = {"purge": purge.communicate(timeout=120)}
    gate.touch()
    outs.update({name: proc.communicate(timeout=120) for name, proc in
                 (("capture", capture), ("curator", curator))})
    assert purge.returncode == 0, outs["purge"]
    assert capture.returncode == 0, outs["capture"]
    assert curator.returncode == 0, outs["curator"]
    report = json.loads(outs["capture"][0].strip().splitlines()[-1])
    assert report["status"] == "captured" and report["counts"] == {"created": 2}
    assert "curate.purge-seen" in outs["curator"][1]
    assert holding(seeded.files()) == []
    statements = seeded.statements()
    assert not [s for s in statements if SECRET in s[2]]
    assert ("proj", "tested-by", "pnpm test") in statements
    store = seeded.store()
    try:
        for episode in store.list_episodes():  # nothing half-done: every segment is readable
            if episode["evidence"]:
                seeded.sidecars.get_evidence(episode["evidence"])
        assert not [e for e in store.list_episodes() if e["source_type"] == "curation"]
    finally:
        store.close()
