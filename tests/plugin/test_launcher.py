"""The plugin's launcher (plugin/scripts/claimgraph-launch), run as Claude Code runs it.

Each test runs the script with the system's POSIX ``sh`` (dash on Debian) and a clean
environment, as a plugin hook runs: a payload on stdin, ``CLAUDE_PLUGIN_ROOT`` set. The
claimgraph it should find is this venv's real command, linked into one of the places an
installer leaves it; the store holds one fact, so a hook that really ran prints context.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "plugin" / "scripts" / "claimgraph-launch"
COMMAND = Path(sys.executable).parent / "claimgraph"
SH = shutil.which("sh") or "/bin/sh"
SYSTEM_PATH = "/usr/bin:/bin"
MISSING = "is not installed"


@pytest.fixture
def sandbox(tmp_path: Path) -> "Sandbox":
    return Sandbox.build(tmp_path)


class Sandbox:
    """A HOME, a git project with one remembered fact, an installed-plugin layout."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.db = root / "store" / "claims.db"
        self.plugins = self.home / ".claude" / "plugins"
        self.plugin_root = self.plugins / "cache" / "claimgraph" / "claimgraph" / "0.1.0"
        self.path = SYSTEM_PATH
        self.extra: dict[str, str] = {}

    @classmethod
    def build(cls, root: Path) -> "Sandbox":
        box = cls(root)
        box.home.mkdir()
        box.project.mkdir()
        subprocess.run(["git", "init", "-q", str(box.project)], check=True, timeout=30)
        shutil.copytree(REPO / "plugin", box.plugin_root)
        return box

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": self.path, "LANG": "C.UTF-8",
                "CLAIMGRAPH_DB": str(self.db), "CLAUDE_PLUGIN_ROOT": str(self.plugin_root),
                "CLAUDE_PROJECT_DIR": str(self.project), **self.extra}

    def remember(self) -> None:
        done = subprocess.run([str(COMMAND), "assert", "project", "prefers", "pytest",
                               "--epistemic", "preference"], cwd=self.project, env=self.env(),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr

    def link(self, where: Path, target: Path = COMMAND) -> Path:
        where.parent.mkdir(parents=True, exist_ok=True)
        where.symlink_to(target)
        return where

    def run(self, *args: str, payload: dict | None = None) -> subprocess.CompletedProcess[str]:
        body = json.dumps(payload if payload is not None else {
            "session_id": "s-1", "cwd": str(self.project), "hook_event_name": "SessionStart",
            "source": "startup", "transcript_path": str(self.root / "none.jsonl")})
        return subprocess.run([SH, str(self.plugin_root / "scripts" / "claimgraph-launch"),
                               *args], input=body, cwd=self.project, env=self.env(),
                              capture_output=True, text=True, timeout=60)

    def start(self) -> subprocess.CompletedProcess[str]:
        return self.run("hook", "session-start")


def context_of(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_launcher_is_posix_sh() -> None:
    assert subprocess.run([SH, "-n", str(LAUNCHER)], capture_output=True).returncode == 0
    assert LAUNCHER.stat().st_mode & stat.S_IXUSR


@pytest.mark.parametrize("place", [
    "on-path", "local-bin", "install-sh-venv", "uv-tool", "pipx", "xdg-bin"])
def test_it_finds_claimgraph_where_an_installer_left_it(sandbox: Sandbox, place: str) -> None:
    sandbox.remember()
    data = sandbox.home / ".local" / "share"
    where = {"on-path": sandbox.root / "somewhere" / "bin" / "claimgraph",
             "local-bin": sandbox.home / ".local" / "bin" / "claimgraph",
             "install-sh-venv": data / "claimgraph" / "venv" / "bin" / "claimgraph",
             "uv-tool": data / "uv" / "tools" / "claimgraph" / "bin" / "claimgraph",
             "pipx": data / "pipx" / "venvs" / "claimgraph" / "bin" / "claimgraph",
             "xdg-bin": sandbox.root / "xdg-bin" / "claimgraph"}[place]
    sandbox.link(where)
    if place == "on-path":
        sandbox.path = f"{where.parent}:{SYSTEM_PATH}"
    if place == "xdg-bin":
        sandbox.extra["XDG_BIN_HOME"] = str(where.parent)
    assert "project prefers \"pytest\"" in context_of(sandbox.start())


def test_a_command_without_its_python_beside_it_runs_through_the_cli(sandbox: Sandbox) -> None:
    """A copied console script (its shebang names the interpreter) still runs the hook."""
    sandbox.remember()
    copy = sandbox.home / ".local" / "bin" / "claimgraph"
    copy.parent.mkdir(parents=True)
    shutil.copy2(COMMAND, copy)
    assert not (copy.parent / "python").exists()
    assert "pytest" in context_of(sandbox.start())


def test_session_end_prints_nothing_and_spools_the_capture(sandbox: Sandbox) -> None:
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph")
    sandbox.extra["CLAIMGRAPH_CAPTURE_CMD"] = "true"  # the capture pass itself is not tested here
    done = sandbox.run("hook", "session-end", payload={
        "session_id": "s-1", "cwd": str(sandbox.project), "hook_event_name": "SessionEnd",
        "reason": "other", "transcript_path": str(sandbox.root / "none.jsonl")})
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    assert list(Path(f"{sandbox.db}.spool").glob("*s-1*")), "the hook spooled nothing"


def test_hooks_registered_in_settings_run_and_the_plugin_steps_aside(sandbox: Sandbox) -> None:
    sandbox.remember()
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph")
    settings = sandbox.home / ".claude" / "settings.json"
    installed = subprocess.run([str(COMMAND), "install", "--agent", "claude-code", "--scope",
                                "user"], env=sandbox.env(), capture_output=True, text=True,
                               timeout=60)
    assert installed.returncode == 0, installed.stderr
    assert "claimgraph-hook:v1" in settings.read_text()
    done = sandbox.start()
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_claimgraph_session_start_says_so_once_a_day(sandbox: Sandbox) -> None:
    done = sandbox.start()
    out = json.loads(done.stdout)
    assert done.returncode == 0 and out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert MISSING in context and "install" in out["systemMessage"]
    marker = sandbox.home / ".cache" / "claimgraph" / "plugin-missing-notice"
    assert stat.S_IMODE(marker.stat().st_mode) == 0o600
    assert stat.S_IMODE(marker.parent.stat().st_mode) == 0o700

    again = sandbox.start()
    assert (again.returncode, again.stdout) == (0, "")
    day_old = time.time() - 25 * 3600
    os.utime(marker, (day_old, day_old))
    assert MISSING in context_of(sandbox.start())


def test_the_notice_marker_lives_in_the_plugin_data_dir_when_claude_code_gives_one(
        sandbox: Sandbox) -> None:
    data = sandbox.root / "plugin-data"
    sandbox.extra["CLAUDE_PLUGIN_DATA"] = str(data)
    assert MISSING in context_of(sandbox.start())
    assert (data / "plugin-missing-notice").is_file()
    assert not (sandbox.home / ".cache" / "claimgraph").exists()


def test_without_claimgraph_session_end_and_bad_calls_do_nothing(sandbox: Sandbox) -> None:
    for args in (("hook", "session-end"), ("hook", "bogus"), ("hook",), ()):
        done = sandbox.run(*args)
        assert (done.returncode, done.stdout) == (0, ""), (args, done.stderr)
    assert not (sandbox.home / ".cache").exists() and not sandbox.db.parent.exists()


def test_the_install_command_names_the_marketplace_checkout(sandbox: Sandbox) -> None:
    """A directory marketplace is the checkout (known_marketplaces.json names it)."""
    checkout = sandbox.root / "my \"odd\" clone"
    checkout.mkdir()
    (checkout / "install.sh").write_text("#!/bin/sh\n")
    (checkout / "pyproject.toml").write_text('[project]\nname = "claimgraph"\n')
    known = {"claimgraph": {"source": {"source": "directory", "path": str(checkout)},
                            "installLocation": str(checkout), "lastUpdated": "2026-12-04"}}
    sandbox.plugins.mkdir(parents=True, exist_ok=True)
    (sandbox.plugins / "known_marketplaces.json").write_text(json.dumps(known, indent=2))
    told = context_of(sandbox.start())  # a path with quotes still makes valid JSON
    assert f"'{checkout}/install.sh' --no-hooks" in told

    tools = sandbox.root / "tools"
    tools.mkdir()
    uv = tools / "uv"  # only its presence on PATH is read: the launcher never runs it
    uv.write_text("#!/bin/sh\nexit 1\n")
    uv.chmod(0o755)
    sandbox.path = f"{tools}:{SYSTEM_PATH}"
    sandbox.extra["CLAUDE_PLUGIN_DATA"] = str(sandbox.root / "fresh-marker")
    assert f"uv tool install '{checkout}[mcp,viewer]'" in context_of(sandbox.start())


def test_a_broken_claimgraph_never_fails_the_session(sandbox: Sandbox) -> None:
    """Fault injected: the environment's interpreter crashes."""
    env_bin = sandbox.root / "broken-venv" / "bin"
    env_bin.mkdir(parents=True)
    for name, body in (("claimgraph", "exit 3"), ("python", "echo boom >&2; exit 3")):
        (env_bin / name).write_text(f"#!/bin/sh\n{body}\n")
        (env_bin / name).chmod(0o755)
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph", env_bin / "claimgraph")
    for event in ("session-start", "session-end"):
        done = sandbox.run("hook", event)
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
        assert "exited 3" in done.stderr


def test_the_mcp_server_starts_through_the_launcher(sandbox: Sandbox) -> None:
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "test", "version": "0"}}}
    done = subprocess.run([SH, str(sandbox.plugin_root / "scripts" / "claimgraph-launch"),
                           "mcp"], input=json.dumps(hello) + "\n", cwd=sandbox.project,
                          env=sandbox.env(), capture_output=True, text=True, timeout=60)
    [answer] = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"], answer


def test_the_mcp_server_without_claimgraph_fails_with_the_install_command(
        sandbox: Sandbox) -> None:
    done = sandbox.run("mcp")
    assert done.returncode != 0 and done.stdout == ""
    assert MISSING in done.stderr and "install" in done.stderr


def test_for_gemini_it_names_the_agent_and_steps_aside_for_gemini_settings(
        sandbox: Sandbox) -> None:
    sandbox.remember()
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph")
    assert "pytest" in context_of(sandbox.run("hook", "session-start", "--agent", "gemini"))
    sandbox.extra["CLAIMGRAPH_CAPTURE_CMD"] = "true"
    sandbox.run("hook", "session-end", "--agent", "gemini", payload={
        "session_id": "g-1", "cwd": str(sandbox.project), "hook_event_name": "SessionEnd",
        "reason": "exit", "transcript_path": str(sandbox.root / "none.jsonl")})
    assert [p.name for p in Path(f"{sandbox.db}.spool").glob("*g-1*")] == ["gemini-g-1.json"]

    settings = sandbox.home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"SessionStart": [{"hooks": [{"command": '
                        '"python -m claimgraph.hooks session-start # claimgraph-hook:v1"}]}]}}')
    done = sandbox.run("hook", "session-start", "--agent", "gemini")
    assert (done.returncode, done.stdout) == (0, "")
    assert MISSING not in sandbox.start().stdout and "pytest" in context_of(sandbox.start()), \
        "Gemini's settings made Claude Code's hook step aside"


def test_an_agent_other_than_claude_code_running_the_plugin_hooks_starts_nothing(
        sandbox: Sandbox) -> None:
    """Codex CLI installs plugins from Claude Code marketplaces; Claude Code, and only it, sets
    CLAUDE_PROJECT_DIR for its hooks. A Codex payload read as Claude Code's would go wrong."""
    sandbox.remember()
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph")
    env_without = {k: v for k, v in sandbox.env().items() if k != "CLAUDE_PROJECT_DIR"}
    for event in ("session-start", "session-end"):
        done = subprocess.run([SH, str(LAUNCHER), "hook", event], input="{}", env=env_without,
                              cwd=sandbox.project, capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not sandbox.db.with_name("claims.db.spool").exists()
    assert "pytest" in context_of(sandbox.start())


def test_for_gemini_the_install_command_names_the_folder_the_extension_came_from(
        sandbox: Sandbox) -> None:
    """`gemini extensions install <checkout>/gemini` notes its source beside the copy."""
    checkout = sandbox.root / "clone"
    (checkout / "gemini").mkdir(parents=True)
    (checkout / "install.sh").write_text("#!/bin/sh\n")
    (checkout / "pyproject.toml").write_text('[project]\nname = "claimgraph"\n')
    extension = sandbox.home / ".gemini" / "extensions" / "claimgraph"
    shutil.copytree(REPO / "gemini", extension)
    (extension / ".gemini-extension-install.json").write_text(json.dumps(
        {"source": str(checkout / "gemini"), "type": "local"}, indent=2))
    env = {k: v for k, v in sandbox.env().items() if not k.startswith("CLAUDE_")}
    done = subprocess.run([SH, str(extension / "scripts" / "claimgraph-launch"), "hook",
                           "session-start", "--agent", "gemini"], input="{}", env=env,
                          cwd=sandbox.project, capture_output=True, text=True, timeout=60)
    assert f"'{checkout}/install.sh' --no-hooks" in context_of(done)


def test_settings_hooks_whose_interpreter_is_gone_do_not_silence_the_plugin(
        sandbox: Sandbox) -> None:
    """Hooks an old install left pointing into a deleted environment cannot run: the plugin's
    do the work (a clone's .venv removed after moving to `uv tool install`, say)."""
    sandbox.remember()
    sandbox.link(sandbox.home / ".local" / "bin" / "claimgraph")
    gone = sandbox.root / "deleted-clone" / ".venv" / "bin" / "python"
    settings = sandbox.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"matcher": "", "hooks": [{
        "type": "command", "timeout": 10,
        "command": f"{gone} -m claimgraph.hooks session-start # claimgraph-hook:v1"}]}]}},
        indent=2))
    assert "pytest" in context_of(sandbox.start())
    gone.parent.mkdir(parents=True)
    gone.symlink_to(sys.executable)
    done = sandbox.start()
    assert (done.returncode, done.stdout) == (0, ""), "a working settings hook was doubled"
