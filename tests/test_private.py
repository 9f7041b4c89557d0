"""Issue 10 §3: every file the store writes is 0600 and every directory 0700, under umask 022,
whoever creates it; files left open by an older build are tightened on open, with a log line.
And §5: another program's SQLite database is refused before anything changes it."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimgraph.capture import run as capture_run
from claimgraph.opening import open_store
from claimgraph.private import store_paths, tighten_store
from claimgraph.sidecar import Sidecars

sys.path.insert(0, str(Path(__file__).resolve().parent / "capture"))
from test_run import working_session  # noqa: E402


def cli(*argv: str, stdin: bytes | None = None, umask: int = 0o022) -> subprocess.CompletedProcess:
    """A real process under the given umask (the usual 022 unless a test says otherwise)."""
    return subprocess.run([sys.executable, "-m", "claimgraph", *argv], input=stdin,
                          capture_output=True, env=dict(os.environ), umask=umask, timeout=120)


def modes(root: Path) -> dict[str, str]:
    found = {str(root): oct(stat.S_IMODE(root.stat().st_mode))}
    for path in root.rglob("*"):
        if not path.is_symlink():
            found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.stat().st_mode))
    return found


def open_to_others(root: Path) -> dict[str, str]:
    return {name: mode for name, mode in modes(root).items() if int(mode, 8) & 0o077}


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_under_umask_022_every_file_of_the_store_is_private(tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    session = working_session(tmp_path / "s.jsonl", tmp_path)
    assert cli("init").returncode == 0
    payload = json.dumps({"session_id": "s", "transcript_path": str(session.path),
                          "cwd": str(tmp_path), "hook_event_name": "SessionEnd"}).encode()
    hooked = subprocess.run([sys.executable, "-m", "claimgraph", "hook", "session-end"],
                            input=payload, env={**os.environ, "CLAIMGRAPH_CAPTURE_CMD": "true"},
                            capture_output=True, umask=0o022, timeout=60)
    assert hooked.returncode == 0 and Sidecars(db).spool_dir.is_dir()
    done = cli("capture", str(session.path))
    assert done.returncode == 0, done.stderr
    sidecars = Sidecars(db)
    wait_for(lambda: sidecars.curate_log.exists()
             and "curate.lease-released" in sidecars.curate_log.read_text())
    out = db.parent / "backup.jsonl"
    for argv in (["dump", "--out", str(out)], ["status"], ["stats"], ["search", "uv"]):
        cli(*argv)
    names = set(modes(db.parent))
    assert {"claims.db", "claims.db.evidence", "claims.db.capture.log", "claims.db.curate.log",
            "claims.db.version", "backup.jsonl"} <= names
    assert any(name.startswith("claims.db.evidence/") for name in names)
    assert open_to_others(db.parent) == {}


def test_library_use_without_the_cli_creates_private_files_too(tmp_path, monkeypatch):
    db = tmp_path / "lib" / "claims.db"
    session = working_session(tmp_path / "s.jsonl", tmp_path)
    previous = os.umask(0o022)
    try:
        request = capture_run.make_request(str(session.path))
        report = capture_run.capture(request, capture_run.Options(db=db))
    finally:
        os.umask(previous)
    assert report["status"] == "captured"
    assert open_to_others(db.parent) == {}


def test_files_left_open_by_an_older_build_are_tightened_on_open_and_logged(tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    session = working_session(tmp_path / "s.jsonl", tmp_path)
    assert cli("capture", str(session.path), "--no-curate").returncode == 0
    for path in [db.parent, *db.parent.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert open_to_others(db.parent)
    done = cli("stats")
    assert done.returncode == 0, done.stderr
    assert open_to_others(db.parent) == {}
    assert b"store.permissions-tightened" in done.stderr


def test_tightening_touches_only_what_is_the_stores(tmp_path):
    db = tmp_path / "claims.db"
    open_store(db).close()
    neighbour = tmp_path / "notes.txt"
    neighbour.write_text("mine")
    os.chmod(neighbour, 0o644)
    os.chmod(tmp_path, 0o755)
    assert neighbour not in store_paths(db) and tmp_path not in store_paths(db)
    tighten_store(db)
    assert stat.S_IMODE(neighbour.stat().st_mode) == 0o644
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755


def test_another_programs_sqlite_database_is_refused_and_left_untouched(tmp_path):
    other = tmp_path / "other_app.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)")
    connection.execute("INSERT INTO orders (total) VALUES (9.5)")
    connection.commit()
    connection.close()
    os.chmod(other, 0o644)
    before = (other.read_bytes(), sorted(os.listdir(tmp_path)), other.stat().st_mode)
    done = cli("--db", str(other), "stats")
    assert done.returncode == 1 and b"not a claimgraph store" in done.stderr
    assert (other.read_bytes(), sorted(os.listdir(tmp_path)), other.stat().st_mode) == before
    check = sqlite3.connect(other)
    assert check.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    check.close()


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_the_hook_spool_and_log_are_private_whatever_the_umask(tmp_path, umask):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    payload = json.dumps({"session_id": "h1", "transcript_path": str(tmp_path / "t.jsonl"),
                          "cwd": str(tmp_path)}).encode()
    subprocess.run([sys.executable, "-m", "claimgraph.hooks", "session-end"], input=payload,
                   env={**os.environ, "CLAIMGRAPH_CAPTURE_CMD": "true"}, umask=umask,
                   capture_output=True, timeout=60)
    assert Sidecars(db).spool_dir.exists()
    assert open_to_others(db.parent) == {}


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_a_server_stores_local_folders_are_private_parents_too(tmp_path, umask):
    """The stand-in folders of a server store (XDG data home/claimgraph/servers/<label>) name
    the server and its database: every folder made for them is 0700, not only the last."""
    from claimgraph.location import remember_server, server_sidecar_base
    base = server_sidecar_base("postgresql://u:secret@db.example/claims",
                               {"XDG_DATA_HOME": str(tmp_path / "data")})
    previous = os.umask(umask)
    try:
        remember_server(base, "postgresql://u:secret@db.example/claims")
    finally:
        os.umask(previous)
    assert open_to_others(tmp_path / "data") == {}
    marker = Path(f"{base}.server")
    assert "secret" not in marker.read_text() and marker.stat().st_mode & 0o777 == 0o600
