"""Fixtures for the daemon tests; the helpers are in daemon_helpers.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# --import-mode=importlib puts no test directory on sys.path; the helpers live beside us.
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


@pytest.fixture
def projects(isolated_home: Path) -> Path:
    path = isolated_home / ".claude" / "projects"
    path.mkdir(parents=True)
    return path
