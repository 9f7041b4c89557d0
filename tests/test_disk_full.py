"""Issue 10 §5: a full disk fails clearly ("disk full at PATH"), keeps the spool, and every
read still works; a session whose spool could not even be written is found by the sweep.

The end-to-end case fills a real (1 MiB tmpfs) disk, mounted in a private user and mount
namespace (``unshare -rm``), so nothing outside the test sees it; where the kernel refuses
such namespaces it is skipped, and the fault-injected cases below still run everywhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from claimgraph.capture import run as capture_run
from claimgraph.capture import segment
from claimgraph.capture.failures import FailureLedger
from claimgraph.daemon.settings import DaemonSettings
from claimgraph.daemon.sweep import find_candidates
from claimgraph.hooks import entry as hook_entry
from claimgraph.logsetup import reset_logging
from claimgraph.store import sqlite_db

sys.path.insert(0, str(Path(__file__).resolve().parent / "capture"))
from test_run import capture, spool_payload, working_session  # noqa: E402

FIXTURE = (Path(__file__).resolve().parent / "fixtures" / "transcripts" / "claude-code"
           / "full-session-four.jsonl")


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


def _namespaces_work() -> bool:
    if not shutil.which("unshare"):
        return False
    done = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    return done.returncode == 0


SCRIPT = textwrap.dedent("""
    set -u
    exec 2>&1
    D="$1"; PY="$2"
    mount -t tmpfs -o size=1m tmpfs "$D" || exit 90
    export CLAIMGRAPH_DB="$D/store/claims.db" HOME="$D/home" XDG_CONFIG_HOME="$D/home/.config"
    cg() { "$PY" -m claimgraph "$@"; }
    cg init >/dev/null && cg assert api prefers REST >/dev/null || exit 91
    mkdir -p "$D/store/claims.db.spool"
    printf '{"agent":"claude-code","session_id":"full","transcript_path":"%s"}' "$3" \\
        > "$D/store/claims.db.spool/claude-code-full.json"
    dd if=/dev/zero of="$D/filler" bs=4k 2>/dev/null
    echo "== capture"; cg capture --spool "$D/store/claims.db.spool/claude-code-full.json" \\
        --no-curate; echo "rc=$?"
    ls "$D/store/claims.db.spool"
    for cmd in "status --json" "facts api" "search REST" "dump" "audit" "stats"; do
        echo "== $cmd"; cg $cmd; echo "rc=$?"
    done
    rm "$D/filler"
    echo "== again"; cg capture --spool "$D/store/claims.db.spool/claude-code-full.json" \\
        --no-curate; echo "rc=$?"
""")


@pytest.mark.skipif(not _namespaces_work(), reason="unprivileged user namespaces are off here")
def test_a_really_full_disk_fails_clearly_keeps_the_spool_and_reads_still_work(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURE, transcript)
    script = tmp_path / "full.sh"
    script.write_text(SCRIPT)
    done = subprocess.run(["unshare", "-rm", "sh", str(script), str(mount), sys.executable,
                           str(transcript)], capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    sections = dict(part.split("\n", 1) for part in out.split("== ")[1:])
    assert "disk full at " in sections["capture"] and "rc=1" in sections["capture"]
    assert "claude-code-full.json" in sections["capture"]  # the spool was kept
    for read in ("status --json", "facts api", "search REST", "dump", "audit", "stats"):
        assert "Traceback" not in sections[read] and "unexpected error" not in sections[read]
    for read in ("facts api", "search REST", "dump", "stats"):
        assert "rc=0" in sections[read], (read, sections[read])
    assert "REST" in sections["search REST"] and "REST" in sections["dump"]
    assert '"status": "captured"' in sections["again"], sections["again"]


# --- the same faults, injected ----------------------------------------------------------------

def test_sqlite_full_during_a_capture_is_disk_full_and_keeps_the_spool(capsys, tmp_path,
                                                                        monkeypatch):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    session = working_session(tmp_path / "s.jsonl", tmp_path)
    real_configure = sqlite_db.SqliteDb._configure

    def no_room(self, conn):  # SQLite's own limit: the file may not grow by a page (SQLITE_FULL)
        real_configure(self, conn)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")

    from claimgraph.opening import open_store
    open_store(db).close()
    monkeypatch.setattr(sqlite_db.SqliteDb, "_configure", no_room)
    spool = spool_payload(db, session.path, tmp_path, "s")
    code, _, err = capture(capsys, "--spool", str(spool), "--no-curate")
    line = [json.loads(x) for x in err.splitlines() if '"capture.failed"' in x][-1]
    assert (code, line["type"]) == (1, "disk-full")
    assert line["error"].startswith(f"disk full at {db}") and line["spool_kept"] is True
    assert FailureLedger(db).entries() == {}  # a full disk says nothing about the session


def test_enospc_writing_the_evidence_is_disk_full(capsys, tmp_path, monkeypatch):
    session = working_session(tmp_path / "s.jsonl", tmp_path)

    real_mkstemp = segment.tempfile.mkstemp

    def full_device(**kwargs):  # a real ENOSPC from the kernel on every evidence write
        if not str(kwargs.get("dir", "")).endswith(".evidence"):
            return real_mkstemp(**kwargs)
        return os.open("/dev/full", os.O_WRONLY), str(tmp_path / "never")

    monkeypatch.setattr(segment.tempfile, "mkstemp", full_device)
    code, _, err = capture(capsys, str(session.path), "--no-curate")
    line = [json.loads(x) for x in err.splitlines() if '"capture.failed"' in x][-1]
    assert (code, line["type"]) == (1, "disk-full") and "disk full at" in line["error"]


def test_a_session_whose_spool_could_not_be_written_is_found_by_the_sweep(tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
           "CLAIMGRAPH_CAPTURE_CMD": "true"}
    project = tmp_path / "claude" / "projects" / "-work-app"
    project.mkdir(parents=True)
    session = working_session(project / "lost.jsonl", tmp_path)
    db.parent.mkdir(parents=True, exist_ok=True)
    (db.parent / f"{db.name}.spool").write_text("in the way: the spool directory cannot exist")
    payload = json.dumps({"session_id": "lost", "transcript_path": str(session.path),
                          "cwd": str(tmp_path)}).encode()
    read_end, write_end = os.pipe()
    os.write(write_end, payload)
    os.close(write_end)
    assert hook_entry.main(["session-end"], env, stdin_fd=read_end) == 0
    os.close(read_end)
    assert "hook.spool-failed" in (db.parent / f"{db.name}.capture.log").read_text()
    found = find_candidates(db, env, DaemonSettings(idle_minutes=0), time.time() + 60)
    assert [(c.kind, c.session) for c in found] == [("transcript", "lost")]
