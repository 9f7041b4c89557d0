"""Driving the CLI in-process (``main([...])`` with captured output) and as a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claimgraph.cli.main import main

UUID = r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"
_SHORT_OR_FULL_ID = re.compile(rf"\b(f|e|ep)-(?:{UUID}|[0-9a-f]{{8}})\b")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def error(self) -> dict[str, Any]:
        return json.loads(self.err)


def normalize(text: str) -> str:
    """Ids become <f>, <e>, <ep>, full timestamps <time> and the test's project directory (the
    default scope) <project>; dates the tests chose stay."""
    text = text.replace(os.path.realpath(os.getcwd()), "<project>")
    text = _SHORT_OR_FULL_ID.sub(lambda m: f"<{m.group(1)}>", text)
    return _ISO.sub("<time>", text)


@pytest.fixture(autouse=True)
def project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every CLI test runs inside a fresh directory outside git, so its project (the default
    scope of facts, assert, search ...) is that directory's path, whatever the checkout."""
    here = tmp_path / "project"
    here.mkdir(exist_ok=True)
    monkeypatch.chdir(here)
    return here


@pytest.fixture
def db(isolated_home: Path) -> Path:
    """The store path the suite-wide fixture put in CLAIMGRAPH_DB."""
    return Path(os.environ["CLAIMGRAPH_DB"])


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """``cli("facts", "api")`` runs ``main`` and returns its exit code and captured output."""
    def run(*argv: str) -> Run:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)
    return run


@pytest.fixture
def ok(cli):
    """Like ``cli`` but the command must succeed."""
    def run(*argv: str) -> Run:
        result = cli(*argv)
        assert result.code == 0, result.err
        return result
    return run


def run_process(*argv: str, stdin: str | None = None, timeout: float = 60) -> Run:
    """``python -m claimgraph ...`` as a real process, with the test's environment."""
    done = subprocess.run([sys.executable, "-m", "claimgraph", *argv], input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=dict(os.environ))
    return Run(done.returncode, done.stdout, done.stderr)


def one_line(text: str) -> str:
    """The error output must be exactly one line; return it."""
    lines = text.strip("\n").split("\n")
    assert len(lines) == 1, f"expected one line on stderr, got: {text!r}"
    return lines[0]


def without_dac_override() -> tuple[str, ...]:
    """A command prefix that takes away root's power to ignore file permissions, so a test of
    a read-only store means the same for root (CI) as for a user (see tests/hooks too)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux): cannot drop the capability "
                    "that makes every file writable, so a read-only store cannot be staged")
    return (setpriv, "--bounding-set", "-dac_override,-dac_read_search")
