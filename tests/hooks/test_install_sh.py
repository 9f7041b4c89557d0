"""install.sh registers each agent's hooks when the agent is there, idempotently, and undoes it.

Runs the real script against the virtual environment running these tests (whose install stamp
must be current, so the script installs nothing), with HOME and the store in temp directories.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.hooks import install as installer

REPO = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent


@pytest.fixture(autouse=True)
def current_venv() -> None:
    stamp = VENV / ".claimgraph-install"
    want = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().split()[::2] != ["dev", want]:  # mode, hash
        pytest.skip(f"{VENV} was not set up by this checkout's install.sh; running it here "
                    "would reinstall the package")
    if VENV.resolve() != (REPO / ".venv").resolve():
        # Another checkout's environment (a git worktree run with PYTHONPATH): --uninstall
        # from here takes it for an installed environment and deletes it.
        pytest.skip(f"{VENV} belongs to another checkout than {REPO}")


def install_sh(*flags: str) -> str:
    done = subprocess.run(["bash", str(REPO / "install.sh"), "--venv", str(VENV), *flags],
                          env=dict(os.environ), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def our_commands(settings: Path) -> list[str]:
    data = json.loads(settings.read_text())
    return [h["command"] for groups in data.get("hooks", {}).values() for g in groups
            for h in g["hooks"] if installer.is_ours(h)]


@pytest.fixture
def settings(isolated_home: Path) -> Path:
    (isolated_home / ".claude").mkdir()
    return isolated_home / ".claude" / "settings.json"


def test_install_sh_registers_the_hooks_when_claude_code_is_there_and_only_once(settings):
    out = install_sh()
    assert "installed claimgraph hooks (SessionEnd, SessionStart)" in out
    assert len(our_commands(settings)) == 2
    again = install_sh()
    assert "already installed" in again and "already set up; nothing changed" in again
    assert len(our_commands(settings)) == 2


def test_install_sh_no_hooks_leaves_claude_code_alone(settings):
    out = install_sh("--no-hooks")
    assert "hooks" not in out and not settings.exists()


def test_install_sh_no_init_builds_the_environment_only(settings):
    install_sh("--no-init")
    assert not settings.exists()
    assert not Path(os.environ["CLAIMGRAPH_DB"]).exists()


def test_install_sh_does_nothing_for_claude_code_when_it_is_not_installed(isolated_home):
    install_sh()
    assert not (isolated_home / ".claude").exists()


def test_install_sh_uninstall_removes_our_hooks_and_nothing_else(settings):
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [
        {"matcher": "", "hooks": [{"type": "command", "command": "other-tool"}]}]}}))
    install_sh()
    out = install_sh("--uninstall")
    assert "removed claimgraph hooks" in out
    assert our_commands(settings) == []
    assert json.loads(settings.read_text())["hooks"]["SessionEnd"][0]["hooks"][0]["command"] \
        == "other-tool"


def test_install_sh_registers_every_agent_whose_directory_exists(isolated_home: Path):
    (isolated_home / ".codex").mkdir()
    (isolated_home / ".gemini").mkdir()
    out = install_sh()
    codex, gemini = isolated_home / ".codex" / "hooks.json", isolated_home / ".gemini" / \
        "settings.json"
    assert f"installed claimgraph hooks (SessionEnd, SessionStart, Stop) in {codex}" in out
    assert f"installed claimgraph hooks (SessionEnd, SessionStart) in {gemini}" in out
    assert len(our_commands(codex)) == 3 and len(our_commands(gemini)) == 2
    assert not (isolated_home / ".claude").exists()
    out = install_sh("--uninstall")
    assert not codex.exists() and not gemini.exists()  # install created them; nothing else


def test_one_agent_s_unreadable_settings_cost_only_its_hooks(isolated_home: Path, settings):
    (isolated_home / ".gemini").mkdir()
    gemini = isolated_home / ".gemini" / "settings.json"
    gemini.write_text('{\n  // comments are allowed by Gemini, not by JSON\n}\n')
    out = install_sh()
    assert "warning: could not register gemini's hooks" in out
    assert len(our_commands(settings)) == 2
    assert "// comments" in gemini.read_text()


def test_install_sh_uninstall_leaves_nothing_of_ours_and_says_where_the_store_is(
        isolated_home: Path, settings):
    settings.write_text(json.dumps({"model": "opus"}))
    claude_json = isolated_home / ".claude.json"
    claude_json.write_text(json.dumps({"numStartups": 2}))
    install_sh()
    done = subprocess.run([str(VENV / "bin" / "claimgraph"), "install", "--agent", "claude-code",
                           "--mcp"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    unit = isolated_home / ".config" / "systemd" / "user" / "claimgraph.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/gone/python -m claimgraph daemon run\n")
    store = Path(os.environ["CLAIMGRAPH_DB"])
    assert store.exists()
    out = install_sh("--uninstall")
    assert json.loads(settings.read_text()) == {"model": "opus"}
    assert json.loads(claude_json.read_text()) == {"numStartups": 2}
    assert not unit.exists()
    leftovers = sorted(p.name for p in isolated_home.rglob("*claimgraph-backup*"))
    assert leftovers == []
    assert f"the store stays at {store}" in out and store.exists()


def test_install_sh_purge_data_never_deletes_the_store_without_a_confirmation(isolated_home):
    install_sh("--no-hooks")
    store = Path(os.environ["CLAIMGRAPH_DB"])
    out = install_sh("--uninstall", "--purge-data")  # stdin is not a terminal here
    assert "not deleting the store without a terminal" in out and store.exists()


def test_install_sh_purge_data_deletes_the_store_and_its_sidecars_once_confirmed(isolated_home):
    import pty
    install_sh("--no-hooks")
    store = Path(os.environ["CLAIMGRAPH_DB"])
    (store.parent / f"{store.name}.capture.log").write_text("{}\n")
    keep = store.parent / "unrelated.txt"
    keep.write_text("not ours")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the script on a terminal, as a person runs it
        os.execvpe("bash", ["bash", str(REPO / "install.sh"), "--venv", str(VENV),
                            "--uninstall", "--purge-data"], dict(os.environ))
    seen = b""
    while b"[y/N]" not in seen:
        chunk = os.read(fd, 1024)
        assert chunk, seen
        seen += chunk
    os.write(fd, b"y\n")
    try:
        while os.read(fd, 1024):
            pass
    except OSError:  # the terminal closes with the script
        pass
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert sorted(p.name for p in store.parent.iterdir()) == ["unrelated.txt"]


@pytest.mark.parametrize("mode, kept", [("dev", True), ("user", False)])
def test_uninstall_never_deletes_a_development_environment(isolated_home: Path, tmp_path: Path,
                                                           mode: str, kept: bool):
    """--uninstall --venv DIR deletes an environment install.sh made for a user, never a
    --dev one (another clone's or a worktree's: a developer's, not ours to remove)."""
    venv = tmp_path / "elsewhere" / "venv"
    venv.mkdir(parents=True)
    (venv / ".claimgraph-install").write_text(f"{mode} mcp,viewer 0123abcd\n")
    done = subprocess.run(["bash", str(REPO / "install.sh"), "--uninstall", "--venv", str(venv)],
                          env=dict(os.environ), capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert venv.exists() == kept, done.stdout
