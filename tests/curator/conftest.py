"""Shared set-up for the curator tests: a real SQLite store file and real curator processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.opening import open_store


@pytest.fixture
def db() -> Path:
    path = Path(os.environ["CLAIMGRAPH_DB"])
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def clock() -> list[int]:
    """A settable clock: tests move time by assigning clock[0]."""
    return [1_800_000_000_000]


@pytest.fixture
def shell(db: Path, clock: list[int]) -> Shell:
    store = open_store(db)
    sh = Shell(store, clock=lambda: clock[0])
    seed(sh)
    yield sh
    store.close()


@pytest.fixture
def curate_proc() -> Callable[..., subprocess.Popen]:
    """Start a real ``claimgraph curate --json`` (stdout: the result; stderr: the log)."""
    started: list[subprocess.Popen] = []

    def start(*argv: str, env: dict[str, str] | None = None, cwd: Any = None) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-m", "claimgraph", "curate", "--json", *argv],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **(env or {})}, cwd=cwd)
        started.append(proc)
        return proc

    yield start
    for proc in started:  # guaranteed cleanup, whatever the test did
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def finish(proc: subprocess.Popen, timeout: float = 60) -> tuple[int, dict[str, Any], list[dict]]:
    out, err = proc.communicate(timeout=timeout)
    logs = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    return proc.returncode, json.loads(out), logs


@pytest.fixture
def finish_proc() -> Callable[..., tuple[int, dict[str, Any], list[dict]]]:
    return finish
