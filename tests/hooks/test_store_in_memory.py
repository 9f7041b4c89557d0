"""A store named ``:memory:`` or by a relative path never lands in the agent's project.

``:memory:`` is SQLite's store that lives in one process. The hooks used to take it for a file
name, so a SessionEnd hook run with ``CLAIMGRAPH_DB=:memory:`` wrote ``:memory:.spool`` and
``:memory:.capture.log`` into the project the agent ran in, and the capture pass it started
captured into a store gone when it exited. The hooks and the commands whose point is to keep
what they write (capture, the daemon) now refuse it and say so; one-off commands still run in
memory (tests/store/test_memory_sidecars.py).

A relative ``$CLAIMGRAPH_DB`` was handed to the capture pass as it was, and the pass, which
starts in ``/``, wrote the store there while the hook spooled in the agent's directory.
Real hooks and real commands run here, in a temp home and a temp project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.hooks import spool

from .conftest import HOOK, PYTHON, Hooks

EVENTS = ("session-end", "stop", "session-start", "user-prompt-submit")


def project_dir(tmp_path: Path) -> Path:
    made = tmp_path / "project"
    made.mkdir()
    return made


def hook_in(project: Path, hooks: Hooks, event: str, env: dict[str, str]
            ) -> subprocess.CompletedProcess[bytes]:
    payload = hooks.payload(cwd=str(project), prompt="fix the failing test")
    return subprocess.run([*HOOK, event], input=json.dumps(payload).encode(), env=env,
                          cwd=project, capture_output=True, timeout=30)


@pytest.mark.parametrize("event", EVENTS)
def test_a_hook_refuses_an_in_memory_store_on_stderr_and_writes_nothing(hooks, tmp_path, event):
    project = project_dir(tmp_path)
    done = hook_in(project, hooks, event, {**hooks.env, "CLAIMGRAPH_DB": ":memory:"})
    assert (done.returncode, done.stdout) == (0, b"")
    line = json.loads(done.stderr)
    assert (line["event"], line["hook"]) == ("hook.store-in-memory", event)
    assert "CLAIMGRAPH_DB" in line["reason"] and line["hint"]
    assert sorted(os.listdir(project)) == []
    assert hooks.no_child_started()


def test_a_config_file_naming_an_in_memory_store_is_refused_the_same_way(hooks, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('db = ":memory:"\n')
    env = {k: v for k, v in hooks.env.items() if k != "CLAIMGRAPH_DB"}
    project = project_dir(tmp_path)
    done = hook_in(project, hooks, "session-end", {**env, "CLAIMGRAPH_CONFIG": str(config)})
    line = json.loads(done.stderr)
    assert line["event"] == "hook.store-in-memory" and str(config) in line["reason"]
    assert sorted(os.listdir(project)) == []
    assert hooks.no_child_started()


def test_claimgraph_hook_with_db_memory_is_refused_too(hooks, tmp_path):
    """``claimgraph hook EVENT --db :memory:`` hands the flag to the hook as the variable."""
    project = project_dir(tmp_path)
    done = subprocess.run([PYTHON, "-m", "claimgraph", "hook", "session-end", "--db", ":memory:"],
                          input=json.dumps(hooks.payload(cwd=str(project))).encode(),
                          env=hooks.env, cwd=project, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"")
    assert json.loads(done.stderr)["event"] == "hook.store-in-memory"
    assert sorted(os.listdir(project)) == []


def test_a_relative_claimgraph_db_reaches_the_capture_pass_absolute(hooks, tmp_path):
    """The pass starts in ``/``: handed ``rel/claims.db`` it would write ``/rel/claims.db``."""
    project = project_dir(tmp_path)
    done = hook_in(project, hooks, "session-end", {**hooks.env, "CLAIMGRAPH_DB": "rel/claims.db"})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    store = project / "rel" / "claims.db"
    assert [p.name for p in Path(f"{store}.spool").iterdir()] == ["claude-code-sess-1.json"]
    assert hooks.children()[0]["db"] == str(store)


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_claimgraph_db_is_no_store_name(hooks, tmp_path, value):
    """Unset in effect, as every command reads it: the default store, nothing in the project."""
    project = project_dir(tmp_path)
    done = hook_in(project, hooks, "session-end", {**hooks.env, "CLAIMGRAPH_DB": value})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    default = Path(hooks.env["XDG_DATA_HOME"]) / "claimgraph" / "claims.db"
    assert (Path(f"{default}.spool") / "claude-code-sess-1.json").exists()
    assert sorted(os.listdir(project)) == []


@pytest.mark.parametrize("argv", [["capture", "--spool", "x.json"], ["capture", "t.jsonl"],
                                  ["daemon", "start"], ["daemon", "run"], ["daemon", "sweep"],
                                  ["daemon", "install-unit", "--dry-run"]])
def test_commands_that_keep_what_they_write_refuse_an_in_memory_store(tmp_path, argv):
    """Capture would lose what it learned (and remove the spool file), the daemon would hand
    ``:memory:`` on as a file in the directory it started in."""
    project = project_dir(tmp_path)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path),
           "CLAIMGRAPH_DB": ":memory:"}
    done = subprocess.run([sys.executable, "-m", "claimgraph", *argv, "--json"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert json.loads(done.stderr.splitlines()[-1])["type"] == "store-in-memory"
    assert sorted(os.listdir(project)) == []


def test_db_path_never_names_a_memory_file_in_the_current_directory(tmp_path, monkeypatch):
    """The hook's crash handler finds the log by ``db_path`` with the raw environment."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(spool.StoreInMemory):
        spool.db_path({"HOME": str(tmp_path), "CLAIMGRAPH_DB": " :memory: "})


def test_the_curators_refusal_never_takes_memory_for_a_file(tmp_path, monkeypatch):
    """A ``:memory:`` file an older version left in the directory is not the store."""
    from claimgraph.curator.refusal import store_file
    monkeypatch.chdir(tmp_path)
    (tmp_path / ":memory:").write_bytes(b"")
    assert store_file(None, {"CLAIMGRAPH_DB": ":memory:"}) is None
    assert store_file(":memory:", {}) is None
