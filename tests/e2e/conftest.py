"""Finding (or installing) the real agent CLIs for the end-to-end tests.

Each client (Claude Code, Codex CLI, Gemini CLI: ``CLIENTS``) is found in this order:
`$CLAIMGRAPH_<NAME>_BIN` when set (it must work: a broken override is an error, not a skip),
else `<repo>/.cache/<dir>/node_modules/.bin/<bin>`, installed there from the npm registry when
missing or at another version. The npm cache also lives under `<repo>/.cache/`, so nothing
lands in the real home directory and a second run installs nothing. The tests are skipped,
loudly, only when npm itself is absent; with `CLAIMGRAPH_REQUIRE_E2E=1` (CI) even that is a
failure. Versions are pinned: the clients' hook contracts and transcript formats change
between releases (docs/agents.md records what was measured with these).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from filelock import FileLock

# --import-mode=importlib puts no test directory on sys.path; the e2e helpers live beside us.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import World  # noqa: E402
from agents_harness import AgentsWorld  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache"
INSTALL_TIMEOUT = 600


@dataclass(frozen=True)
class Client:
    """One npm-installed agent CLI: its package, pinned version, and where it goes."""

    name: str  # also the env override: CLAIMGRAPH_<NAME>_BIN
    package: str
    version: str
    directory: str
    binary: str

    @property
    def prefix(self) -> Path:
        return CACHE / self.directory

    @property
    def cached_bin(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.binary

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"


CLAUDE = Client("claude", "@anthropic-ai/claude-code", "2.1.332", "claude-code", "claude")
CODEX = Client("codex", "@openai/codex", "0.171.0", "codex", "codex")
GEMINI = Client("gemini", "@google/gemini-cli", "0.61.0", "gemini-cli", "gemini")
CLAUDE_CODE_VERSION = CLAUDE.version
PACKAGE = CLAUDE.spec
PREFIX = CLAUDE.prefix
CACHED_BIN = CLAUDE.cached_bin


def cli_version(binary: Path) -> str:
    """The version the CLI reports (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`, `0.61.0`);
    "" when it does not run."""
    with tempfile.TemporaryDirectory(prefix="agent-home-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        try:
            done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                                  timeout=60, stdin=subprocess.DEVNULL, env=env)
        except (OSError, subprocess.TimeoutExpired):
            return ""
    words = done.stdout.split()
    found = [w for w in words if w[:1].isdigit()]
    return found[0] if done.returncode == 0 and found else ""


def npm_install(npm: str, client: Client = CLAUDE) -> None:
    env = {**os.environ, "npm_config_cache": str(CACHE / "npm"), "npm_config_fund": "false",
           "npm_config_update_notifier": "false", "npm_config_audit": "false"}
    client.prefix.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(client.prefix), client.spec]
    done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                          env=env, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed (exit {done.returncode}):\n"
                    f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}", pytrace=False)


def skip_or_fail(reason: str, who: str = "CLAUDE CODE") -> None:
    loud = f"{who} END-TO-END TESTS NOT RUN: {reason}"
    print(f"\n*** {loud} ***", file=sys.stderr)
    if os.environ.get("CLAIMGRAPH_REQUIRE_E2E") == "1":
        pytest.fail(f"{loud} (and CLAIMGRAPH_REQUIRE_E2E=1 says they must run)", pytrace=False)
    pytest.skip(loud)


def installed(client: Client) -> Path:
    """The client's executable, installed into the repo cache when needed."""
    variable = f"CLAIMGRAPH_{client.name.upper()}_BIN"
    override = os.environ.get(variable)
    if override:
        binary = Path(override)
        if not cli_version(binary):
            pytest.fail(f"{variable}={override} does not run `--version`", pytrace=False)
        return binary
    CACHE.mkdir(exist_ok=True)
    with FileLock(str(CACHE / f"{client.directory}.lock"), timeout=INSTALL_TIMEOUT):
        if cli_version(client.cached_bin) != client.version:
            npm = shutil.which("npm")
            if npm is None:
                skip_or_fail(f"npm is not on PATH, so {client.spec} cannot be installed "
                             f"(install Node.js/npm, or set {variable})", client.name.upper())
            npm_install(npm, client)
        found = cli_version(client.cached_bin)
    if found != client.version:
        pytest.fail(f"{client.cached_bin} reports version {found or '(does not run)'} after "
                    f"installing {client.spec}", pytrace=False)
    return client.cached_bin


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The `claude` executable to drive, installed into the repo cache when needed."""
    return installed(CLAUDE)


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return installed(CODEX)


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    return installed(GEMINI)


@pytest.fixture
def world(claude_bin: Path, isolated_home: Path, tmp_path: Path):
    """A sandbox for one scenario; processes it leaves running are reported, then ended by pid."""
    built = World.build(tmp_path, isolated_home, Path(os.environ["CLAIMGRAPH_DB"]), claude_bin)
    yield built
    for proc in built.leftover_processes():
        try:
            print(f"[e2e] ending leftover process {proc.pid}: {' '.join(proc.cmdline())}",
                  file=sys.stderr)
            proc.kill()
        except psutil.Error:
            continue


def _ended(built: World) -> None:
    for proc in built.leftover_processes():
        try:
            print(f"[e2e] ending leftover process {proc.pid}: {' '.join(proc.cmdline())}",
                  file=sys.stderr)
            proc.kill()
        except psutil.Error:
            continue


@pytest.fixture
def codex_world(codex_bin: Path, isolated_home: Path, tmp_path: Path):
    """A sandbox for Codex scenarios (and any Codex process left running is ended, by pid)."""
    built = AgentsWorld.build(tmp_path, isolated_home, Path(os.environ["CLAIMGRAPH_DB"]), None)
    built.codex = codex_bin
    yield built
    _ended(built)


@pytest.fixture
def gemini_world(gemini_bin: Path, isolated_home: Path, tmp_path: Path):
    built = AgentsWorld.build(tmp_path, isolated_home, Path(os.environ["CLAIMGRAPH_DB"]), None)
    built.gemini = gemini_bin
    yield built
    _ended(built)


@pytest.fixture
def cross_world(claude_bin: Path, codex_bin: Path, isolated_home: Path, tmp_path: Path):
    """Claude Code and Codex in one project, one store."""
    built = AgentsWorld.build(tmp_path, isolated_home, Path(os.environ["CLAIMGRAPH_DB"]),
                              claude_bin)
    built.codex = codex_bin
    yield built
    _ended(built)
