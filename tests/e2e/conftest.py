"""Finding (or installing) the real Claude Code CLI for the end-to-end tests.

Order: `$CLAIMGRAPH_CLAUDE_BIN` when set (it must work: a broken override is an error, not a
skip), else `<repo>/.cache/claude-code/node_modules/.bin/claude`, installed there from the npm
registry when missing or at another version. The npm cache also lives under `<repo>/.cache/`,
so nothing lands in the real home directory and a second run installs nothing.
The tests are skipped, loudly, only when npm itself is absent; with
`CLAIMGRAPH_REQUIRE_E2E=1` (CI) even that is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest
from filelock import FileLock

# --import-mode=importlib puts no test directory on sys.path; the e2e helpers live beside us.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import World  # noqa: E402

CLAUDE_CODE_VERSION = "2.1.332"
PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}"
REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache"
PREFIX = CACHE / "claude-code"
CACHED_BIN = PREFIX / "node_modules" / ".bin" / "claude"
INSTALL_TIMEOUT = 600


def cli_version(binary: Path) -> str:
    """`claude --version` prints e.g. `2.1.332 (Claude Code)`; "" when it does not run."""
    with tempfile.TemporaryDirectory(prefix="claude-home-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        try:
            done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                                  timeout=60, stdin=subprocess.DEVNULL, env=env)
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return done.stdout.split(" ", 1)[0].strip() if done.returncode == 0 else ""


def npm_install(npm: str) -> None:
    env = {**os.environ, "npm_config_cache": str(CACHE / "npm"), "npm_config_fund": "false",
           "npm_config_update_notifier": "false", "npm_config_audit": "false"}
    PREFIX.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(PREFIX), PACKAGE]
    done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                          env=env, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed (exit {done.returncode}):\n"
                    f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}", pytrace=False)


def skip_or_fail(reason: str) -> None:
    loud = f"CLAUDE CODE END-TO-END TESTS NOT RUN: {reason}"
    print(f"\n*** {loud} ***", file=sys.stderr)
    if os.environ.get("CLAIMGRAPH_REQUIRE_E2E") == "1":
        pytest.fail(f"{loud} (and CLAIMGRAPH_REQUIRE_E2E=1 says they must run)", pytrace=False)
    pytest.skip(loud)


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The `claude` executable to drive, installed into the repo cache when needed."""
    override = os.environ.get("CLAIMGRAPH_CLAUDE_BIN")
    if override:
        binary = Path(override)
        if not cli_version(binary):
            pytest.fail(f"CLAIMGRAPH_CLAUDE_BIN={override} does not run `--version`", pytrace=False)
        return binary
    CACHE.mkdir(exist_ok=True)
    with FileLock(str(CACHE / "claude-code.lock"), timeout=INSTALL_TIMEOUT):
        if cli_version(CACHED_BIN) != CLAUDE_CODE_VERSION:
            npm = shutil.which("npm")
            if npm is None:
                skip_or_fail(f"npm is not on PATH, so {PACKAGE} cannot be installed "
                             f"(install Node.js/npm, or set CLAIMGRAPH_CLAUDE_BIN)")
            npm_install(npm)
        found = cli_version(CACHED_BIN)
    if found != CLAUDE_CODE_VERSION:
        pytest.fail(f"{CACHED_BIN} reports version {found or '(does not run)'} after installing "
                    f"{PACKAGE}", pytrace=False)
    return CACHED_BIN


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
