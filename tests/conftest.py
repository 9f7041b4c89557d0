"""Suite-wide guards: no test may touch the real home directory or a real user's store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME, the XDG dirs and CLAIMGRAPH_DB at a fresh temp tree for every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config"),
                     ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
        path = home / sub
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(path))
    monkeypatch.setenv("CLAIMGRAPH_DB", str(home / "store" / "claims.db"))
    for var in list(os.environ):
        if var.startswith("CLAIMGRAPH_") and var != "CLAIMGRAPH_DB":
            monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True, scope="session")
def real_home_is_untouched():
    """Fail the run if anything wrote claimgraph files under the real home directory."""
    real = Path(os.path.expanduser("~"))
    watched = [real / ".local/share/claimgraph", real / ".config/claimgraph"]
    before = {p: p.exists() for p in watched}
    yield
    for path, existed in before.items():
        assert path.exists() == existed, f"a test touched the real home directory: {path}"
