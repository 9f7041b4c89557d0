"""Files another local user (or a planted link) could turn against the store's owner.

The attack: with the store in a directory others may write, someone plants
``claims.db.capture.log -> ~/.bashrc`` and a spool file whose ``session_id`` is a shell
fragment; the owner's next sweep appends a log line naming that "session" to ``.bashrc``.
Every case runs the real hook, the real CLI and the real sweep in subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hooks.conftest import HOOK, Hooks

CLI = [sys.executable, "-m", "claimgraph"]
EVIL = "$(touch /tmp/PWNED-claimgraph-test)"


def _cli(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *argv], env=env, capture_output=True, text=True, timeout=120)


def _victim(tmp_path: Path) -> tuple[Path, bytes]:
    victim = tmp_path / "victim-bashrc"
    victim.write_bytes(b"# the victim's shell start-up file\n")
    return victim, victim.read_bytes()


def test_hook_never_writes_through_a_symlinked_capture_log(hooks: Hooks, tmp_path: Path) -> None:
    victim, before = _victim(tmp_path)
    hooks.db.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    hooks.capture_log.symlink_to(victim)
    done = hooks.run(hooks.payload())
    assert done.code == 0 and done.out == b""
    assert victim.read_bytes() == before
    assert hooks.capture_log.is_symlink()  # left as found: not ours to remove


def test_sweep_never_writes_through_a_symlinked_log_or_uses_a_planted_session(
        hooks: Hooks, tmp_path: Path) -> None:
    victim, before = _victim(tmp_path)
    env = dict(hooks.env, CLAIMGRAPH_DB=str(hooks.db))
    assert _cli(env, "init").returncode == 0
    hooks.capture_log.unlink(missing_ok=True)
    hooks.capture_log.symlink_to(victim)
    hooks.spool_dir.mkdir(mode=0o700, exist_ok=True)
    planted = hooks.spool_dir / "claude-code-x.json"
    planted.write_text(json.dumps({"agent": "claude-code", "session_id": EVIL,
                                   "transcript_path": str(hooks.transcript), "cwd": "/"}))
    os.utime(planted, (1, 1))  # old enough for the sweep
    _cli(env, "daemon", "sweep")
    assert victim.read_bytes() == before
    assert EVIL not in victim.read_text()


def test_capture_refuses_a_spool_whose_session_is_not_an_id(hooks: Hooks) -> None:
    env = dict(hooks.env)
    hooks.spool_dir.mkdir(parents=True, mode=0o700)
    planted = hooks.spool_dir / "claude-code-x.json"
    planted.write_text(json.dumps({"agent": "claude-code", "session_id": EVIL,
                                   "transcript_path": str(hooks.transcript)}))
    done = _cli(env, "capture", "--no-curate", "--spool", str(planted))
    assert done.returncode != 0
    assert "not an id" in done.stdout + done.stderr


def test_hook_does_not_use_a_session_id_that_is_not_an_id(hooks: Hooks) -> None:
    done = hooks.run(hooks.payload(session_id=EVIL))
    assert done.code == 0
    assert all(EVIL not in p.read_text() and "$(" not in p.name for p in hooks.spooled())
    assert EVIL not in hooks.capture_log.read_text()
    assert "hook.bad-session-id" in hooks.events()


def test_a_store_in_a_directory_others_may_write_is_refused(hooks: Hooks, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = dict(hooks.env, CLAIMGRAPH_DB=str(shared / "claims.db"))
    done = _cli(env, "assert", "core/uses", "proj", "pytest")
    assert done.returncode != 0
    assert "not private" in done.stderr and "chmod go-w" in done.stderr
    assert not (shared / "claims.db").exists()
    # the hook: exit 0, nothing on stdout, nothing written into the shared directory
    hook = subprocess.run([*HOOK, "session-end"], input=json.dumps(hooks.payload()).encode(),
                          env=env, capture_output=True, timeout=30)
    assert hook.returncode == 0 and hook.stdout == b""
    assert b"store-dir-unsafe" in hook.stderr
    assert sorted(p.name for p in shared.iterdir()) == []


@pytest.fixture
def request_cleanup():
    undo: list = []
    yield undo
    for step in undo:
        step()


def _system_python() -> str:
    """An interpreter "nobody" may run (the venv's may sit under root's home)."""
    import shutil
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no system python3 that a second user could run to plant the files")


def _as_nobody() -> None:
    os.setgid(65534)
    os.setuid(65534)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="a second local user can only be staged as root (setuid to nobody); "
                           "the same-user symlink tests above cover the link itself")
def test_another_users_planted_link_never_reaches_the_victims_file(
        hooks: Hooks, tmp_path: Path, request_cleanup: list) -> None:
    import shutil
    import tempfile
    victim, before = _victim(tmp_path)
    outer = Path(tempfile.mkdtemp(prefix="claimgraph-shared-"))  # reachable by "nobody"
    outer.chmod(0o755)
    request_cleanup.append(lambda: shutil.rmtree(outer, ignore_errors=True))
    shared = outer / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    db = shared / "claims.db"
    plant = ("import json, os, sys\n"
             "db = sys.argv[1]\n"
             "os.symlink(sys.argv[2], db + '.capture.log')\n"
             "os.makedirs(db + '.spool', exist_ok=True)\n"
             "path = db + '.spool/claude-code-x.json'\n"
             "open(path, 'w').write(json.dumps({'agent': 'claude-code', 'session_id': sys.argv[3],"
             " 'transcript_path': sys.argv[4]}))\n"
             "os.utime(path, (1, 1))\n")
    subprocess.run([_system_python(), "-c", plant, str(db), str(victim), EVIL,
                    str(hooks.transcript)],
                   check=True, preexec_fn=_as_nobody, timeout=30)
    assert os.lstat(f"{db}.capture.log").st_uid == 65534
    env = dict(hooks.env, CLAIMGRAPH_DB=str(db))
    sweep = _cli(env, "daemon", "sweep")
    assert sweep.returncode != 0 and "not private" in sweep.stderr
    hooks.run(hooks.payload(), env=env)
    assert victim.read_bytes() == before
