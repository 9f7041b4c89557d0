"""The hooks use the store the config file names, as every command does (docs/hooks.md,
"Which store").

A ``db`` set in the config file (no ``$CLAIMGRAPH_DB``) used to reach the commands only: the
hooks spooled beside the default store and read it at SessionStart, while the capture pass they
started parsed the file and wrote elsewhere. Here real hooks and real capture passes run in a
temp home, and the same store is written and read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from claimgraph import location
from claimgraph.config import load_settings
from claimgraph.hooks import spool

from .conftest import PYTHON, Hooks, wait_for
from .test_coach_hook import briefing, prompt, stances
from .test_hook_fast_path import FAST_PATH_MODULES, imported_modules
from .test_session_start import injected, remember, start_payload

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code" \
    / "subagent.jsonl"
#: The project directory the fixture's session ran in, which capture files its facts under.
FIXTURE_CWD = "/home/marco/projects/spotter"
FIXTURE_SESSION = "491e126e-1e71-469c-ade2-fcc8af567c74"


@dataclass
class Configured(Hooks):
    """A hook world without ``$CLAIMGRAPH_DB``: the store is the one the config file names."""

    store: Path = Path()

    @property
    def db(self) -> Path:
        return self.store

    @property
    def default_db(self) -> Path:
        return Path(self.env["XDG_DATA_HOME"]) / "claimgraph" / "claims.db"

    @property
    def config(self) -> Path:
        return Path(self.env["XDG_CONFIG_HOME"]) / "claimgraph" / "config.toml"

    def configure(self, text: str) -> None:
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(text)


@pytest.fixture
def world(hooks: Hooks, tmp_path: Path) -> Configured:
    env = {k: v for k, v in hooks.env.items() if k != "CLAIMGRAPH_DB"}
    store = tmp_path / "configured" / "memory.db"
    made = Configured(hooks.home, env, hooks.marks, hooks.transcript, store=store)
    made.configure(f'db = "{store}"\n')
    return made


def real_capture(world: Configured) -> dict[str, str]:
    """The world's environment with the real capture command, not the stand-in."""
    return {k: v for k, v in world.env.items() if k != "CLAIMGRAPH_CAPTURE_CMD"}


def logged(path: Path, event: str) -> list[dict]:
    if not path.exists():
        return []
    return [line for line in map(json.loads, path.read_text().splitlines())
            if line.get("event") == event]


def test_a_real_capture_and_the_next_session_start_share_the_configured_store(world, tmp_path):
    project = world.home / "spotter"
    project.mkdir()
    transcript = tmp_path / f"{FIXTURE_SESSION}.jsonl"
    transcript.write_text(FIXTURE.read_text().replace(FIXTURE_CWD, str(project)))
    env = real_capture(world)
    end = world.run(world.payload(session_id=FIXTURE_SESSION, transcript_path=str(transcript),
                                  cwd=str(project)), "session-end", env=env)
    assert (end.code, end.out, end.err) == (0, b"", b"")
    [report] = wait_for(lambda: logged(world.capture_log, "capture.report"), 120)
    assert report["status"] == "captured" and report["project"] == str(project)
    assert wait_for(lambda: logged(Path(f"{world.db}.curate.log"), "curate.result"), 120)
    assert world.spooled() == []  # the pass found the spool file where the hook left it
    assert not list(world.default_db.parent.glob("claims.db*"))  # the default store: untouched

    start = world.run(start_payload(world) | {"cwd": str(project)}, "session-start", env=env)
    block = injected(start)
    assert f"this project ({project})" in block
    assert world.events()[-1] == "hook.context-injected"
    command = subprocess.run([sys.executable, "-m", "claimgraph", "context", "--cwd",
                              str(project)], env=env, capture_output=True, timeout=60,
                             check=True, cwd=world.home)
    assert command.stdout.decode() == block + "\n"
    assert not list(world.default_db.parent.glob("claims.db*"))


def test_the_coach_reads_the_configured_store(world):
    stances(world)
    run = world.run(prompt(world, "add a retry to the billing webhook"), "user-prompt-submit")
    assert "double charges" in briefing(run)
    assert world.events() == ["hook.coach-pushed"]


def test_the_capture_pass_is_told_the_store_the_hook_spooled_beside(world):
    run = world.run(world.payload())
    assert (run.code, run.out, run.err) == (0, b"", b"")
    [spooled] = world.spooled()
    [child] = world.children()
    assert child["argv"] == ["--spool", str(spooled)] and child["db"] == str(world.db)
    assert world.events() == ["hook.spawned"]


def test_a_relative_db_is_the_agents_directory_s_for_the_hook_and_its_capture(world, tmp_path):
    """The capture pass starts in ``/``: it is handed the absolute path the hook resolved."""
    world.configure('db = "rel/memory.db"\n')
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    done = subprocess.run([PYTHON, "-m", "claimgraph.hooks", "session-end"],
                          input=json.dumps(world.payload()).encode(), env=world.env,
                          capture_output=True, timeout=30, cwd=agent_dir)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    store = agent_dir / "rel" / "memory.db"
    assert [p.name for p in Path(f"{store}.spool").iterdir()] == ["claude-code-sess-1.json"]
    assert world.children()[0]["db"] == str(store)


def test_claimgraph_db_wins_over_the_file_and_the_file_is_not_parsed(world, tmp_path):
    env = {**world.env, "CLAIMGRAPH_DB": str(tmp_path / "env.db")}
    payload = json.dumps(world.payload()).encode()
    hooks = Hooks(world.home, env, world.marks, world.transcript)
    before = imported_modules(["-c", "import runpy"], hooks, b"")
    during = imported_modules(["-m", "claimgraph.hooks", "session-end"], hooks, payload) - before
    assert {name for name in during if name.startswith("claimgraph")} == FAST_PATH_MODULES
    assert "tomllib" not in during
    assert (tmp_path / "env.db.spool" / "claude-code-sess-1.json").exists()
    assert not Path(f"{world.db}.spool").exists()


def test_a_config_file_that_never_names_db_changes_no_import(world):
    """The file is read as bytes; only text that could set ``db`` is parsed."""
    world.configure("half_life_days = 30  # and a budget\ncontext_budget_chars = 8000\n")
    payload = json.dumps(world.payload()).encode()
    before = imported_modules(["-c", "import runpy"], world, b"")
    during = imported_modules(["-m", "claimgraph.hooks", "session-end"], world, payload) - before
    assert {name for name in during if name.startswith("claimgraph")} == FAST_PATH_MODULES
    assert not {"tomllib", "tomli"} & during
    assert not Path(f"{world.db}.spool").exists()
    assert (Path(f"{world.default_db}.spool") / "claude-code-sess-1.json").exists()


def test_a_file_that_names_db_is_parsed_then(world):
    payload = json.dumps(world.payload()).encode()
    before = imported_modules(["-c", "import runpy"], world, b"")
    during = imported_modules(["-m", "claimgraph.hooks", "session-end"], world, payload) - before
    assert "claimgraph.config" in during and ("tomllib" in during or "tomli" in during)
    assert world.spooled()


@pytest.mark.parametrize("text", ["db = [1, 2]\n", "db = \n", "db = ''\n", "[db]\nx = 1\n"])
@pytest.mark.parametrize("event", ["session-end", "session-start", "user-prompt-submit"])
def test_a_config_that_cannot_name_the_store_touches_none_and_says_so_on_stderr(world, text,
                                                                                  event):
    remember(world, ("api", "depends-on", "postgres"))  # a store it could have read
    world.configure(text)
    payload = prompt(world, "api") if event == "user-prompt-submit" else world.payload()
    run = world.run(payload, event)
    assert (run.code, run.out) == (0, b"")
    [line] = [json.loads(one) for one in run.err.decode().splitlines()]
    assert line["event"] == "hook.config-invalid" and line["level"] == "error"
    assert str(world.config) in line["reason"] and line["hint"]
    assert world.log() == [] and world.spooled() == [] and world.no_child_started()
    assert not world.default_db.parent.exists()


def test_an_unreadable_config_file_is_the_same_refusal(world):
    world.config.unlink()
    world.config.mkdir()  # a directory: open() fails for root as for a user
    run = world.run(world.payload())
    assert (run.code, run.out) == (0, b"")
    assert json.loads(run.err)["event"] == "hook.config-invalid"
    assert world.no_child_started()


def test_the_cli_form_honours_config(world, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text(f"db = '{tmp_path / 'via-flag.db'}'\n")
    done = subprocess.run([PYTHON, "-m", "claimgraph", "hook", "session-end", "--config",
                           str(other)], input=json.dumps(world.payload()).encode(),
                          env=world.env, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, b"")
    assert (tmp_path / "via-flag.db.spool" / "claude-code-sess-1.json").exists()
    assert not Path(f"{world.db}.spool").exists()


# The rule itself, against claimgraph.config's: every file and environment gives one store.

HOME = "/home/u"
CONFIG_TEXTS = [
    None,
    "",
    "half_life_days = 7\n",
    "# the db lives in the default place\n",
    'db = "/srv/memory/claims.db"\n',
    '  db="~/notes/claims.db"  # indented, no spaces\n',
    '"db" = "/quoted/claims.db"\n',
    "'db' = '/literal/claims.db'\n",
    '"\\u0064\\u0062" = "/escaped/claims.db"\n',
    '[server]\ndb = "/inside/a/table.db"\n',
    'sync_dir = "/data/dbs/oplog"\n',
    'db = "postgresql://memory@pg.example/claims"\n',
    'db = "relative/claims.db"\n',
]


@pytest.mark.parametrize("text", CONFIG_TEXTS)
@pytest.mark.parametrize("variables", [{}, {"CLAIMGRAPH_DB": "/env/claims.db"},
                                       {"CLAIMGRAPH_DB": "  "}, {"XDG_DATA_HOME": "/data"}])
def test_the_hook_resolves_the_store_as_every_command_does(tmp_path, text, variables):
    path = tmp_path / "config.toml"
    if text is not None:
        path.write_text(text)
    environ = {"HOME": HOME, "CLAIMGRAPH_CONFIG": str(path),
               "XDG_DATA_HOME": str(tmp_path / "data"), **variables}
    command = location.resolve(load_settings({}, environ).value("db"), environ)
    assert spool.db_path(environ) == os.path.abspath(command)
    handed = spool.store_environ(environ)
    assert spool.db_path(handed) == spool.db_path(environ)
    from_file = (not environ.get("CLAIMGRAPH_DB", "").strip()
                 and load_settings({}, environ).source("db").startswith("file:"))
    assert (handed is environ) == (not from_file)


@pytest.mark.parametrize("text", [
    'db = "/a.db"', '  db="/a.db"', '"db" = "/a.db"', "'db' = '/a.db'", 'db.x = 1', '[db]',
    '"\\u0064\\u0062" = "/a.db"', '"\\U00000064b" = "/a.db"', '"d\\u0062" = "/a.db"',
    '"\\x64\\x62" = "/a.db"'])
def test_no_text_that_sets_db_escapes_the_byte_check(text):
    assert spool.may_name_db(text.encode())
    assert not spool.may_name_db(b'half_life_days = 7\nsync_dir = "/srv/oplog"\n')


def test_a_relative_config_file_is_the_agents_directory_s_for_what_the_hook_starts(
        tmp_path, monkeypatch):
    """The capture pass and the curator start in ``/``: handed a relative
    ``$CLAIMGRAPH_CONFIG`` they would read another file than the hook did (and the curator
    would never stamp the one the hook reads, so every session start would start it again)."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "memory.toml").write_text(f'db = "{tmp_path / "m.db"}"\nhalf_life_days = 30\n')
    monkeypatch.chdir(agent_dir)
    environ = {"HOME": str(tmp_path), "CLAIMGRAPH_CONFIG": "memory.toml"}
    for variables in ({}, {"CLAIMGRAPH_DB": str(tmp_path / "env.db")}):
        handed = spool.store_environ({**environ, **variables})
        assert handed["CLAIMGRAPH_CONFIG"] == str(agent_dir / "memory.toml")
        monkeypatch.chdir("/")
        assert load_settings(environ=handed).value("half_life_days") == 30.0
        monkeypatch.chdir(agent_dir)
