"""SessionStart and a config file every command refuses, or one the hook parsed itself.

A refused file (a bad value, TOML that does not parse) was never stamped by the curator, so
every session start found it "changed" and started a curator, which refused it and exited 1:
one futile process per session. Now the refusing curator stamps the refused file's state, and
the hook, while the file stays so, ranks with the values read from it last, logs the refusal
and starts nothing; an edit starts the curator again. And a hook that parsed the file anyway
(its bytes could name ``db``) takes the block's settings from that parse, not from a stamp of
another version: its block is what ``claimgraph context`` prints. Real hooks, real curators,
real SQLite stores.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.hooks.session_start import LIVE_LIMIT_ENV

from .conftest import Hooks, wait_for
from .test_hook_fast_path import imported_modules
from .test_configured_store import Configured
from .test_session_start import (HEAVY, config_file, injected, live_block, remember, stamped,
                                 start_payload, store_shortlists)

HALF_LIFE = "half_life_days"


def curator_exits(hooks: Hooks) -> list[dict]:
    """What each curator the hooks started printed last (``<db>.curate.log``): an error line
    for one that refused the config file, its result for one that ran."""
    path = Path(f"{hooks.db}.curate.log")
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines()
             if line.startswith("{")]
    return [line for line in lines if "error" in line or line.get("event") == "curate.result"]


def session_starts(hooks: Hooks, count: int, env: dict[str, str] | None = None) -> list[str]:
    """``count`` session starts one after another, each waiting until every curator started so
    far has exited, as sessions a while apart would."""
    blocks, before = [], len(curator_exits(hooks)) - curators_started(hooks)
    for _ in range(count):
        blocks.append(injected(hooks.run(start_payload(hooks), "session-start", env=env)))
        exited = before + curators_started(hooks)
        assert wait_for(lambda exited=exited: len(curator_exits(hooks)) >= exited, 60)
    return blocks


def curators_started(hooks: Hooks) -> int:
    return hooks.events().count("hook.curator-spawned")


def refusals(hooks: Hooks) -> list[dict]:
    return [line for line in hooks.log() if line["event"] == "hook.config-refused"]


REFUSED = [("half_life_days = -1\n", "invalid half_life_days"),
           ("half_life_days = 30\nlease_wait_ms = -5\n", "invalid lease_wait_ms"),
           ("half_life_days = [\n", "cannot read config file")]


@pytest.mark.parametrize("text, reason", REFUSED)
def test_a_refused_config_starts_one_curator_not_one_per_session(hooks: Hooks, text, reason):
    """The values read last (half-life 10) stay in use while the file is refused; the one
    curator started to read the edit refuses it and stamps that, and no later start runs
    another; the refusal is in the log each time; fixing the file starts the curator again,
    and the start after it uses the new value."""
    remember(hooks, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"), when=-60)
    config_file(hooks, "half_life_days = 10\n")
    store_shortlists(hooks)
    assert stamped(hooks)["settings"][HALF_LIFE] == 10.0
    config_file(hooks, text)
    blocks = session_starts(hooks, 4)
    assert curators_started(hooks) == 1
    assert "error" in curator_exits(hooks)[-1]  # it did refuse the file (exit 1)
    assert reason in stamped(hooks)["refused"]
    assert blocks == [live_block(hooks, 10.0)] * 4 and blocks[0] != live_block(hooks)
    assert len(refusals(hooks)) == 3  # each start once the curator had judged the file
    for line in refusals(hooks):
        # the refused value is not echoed (a temp path such as ".../pytest-1021/..." may
        # hold the same characters inside a word, so only a free-standing -1 counts)
        assert line["level"] == "warning" and reason in line["reason"] and not re.search(
            r"(?<![\w-])-1\b", line["reason"]) and line["settings"][HALF_LIFE] == 10.0 and line[
            "hint"]
    config_file(hooks, "half_life_days = 20\n")  # fixed: judged anew
    session_starts(hooks, 1)
    assert curators_started(hooks) == 2 and hooks.log()[-1]["setting_changed"] is True
    assert wait_for(lambda: stamped(hooks)["settings"][HALF_LIFE] == 20.0, 60)
    assert "refused" not in stamped(hooks)
    assert session_starts(hooks, 1) == [live_block(hooks, 20.0)]
    assert curators_started(hooks) == 2 and len(refusals(hooks)) == 3


def test_a_refused_config_never_read_before_ranks_by_the_default(hooks: Hooks):
    remember(hooks, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"), when=-60)
    config_file(hooks, "half_life_days = 0\ncontext_budget_chars = 300\n")
    blocks = session_starts(hooks, 3)
    assert curators_started(hooks) == 1
    assert blocks == [live_block(hooks)] * 3
    assert stamped(hooks)["settings"] == {} and len(refusals(hooks)) == 2
    payload = json.dumps(start_payload(hooks)).encode()  # and no parser loaded to know it
    during = imported_modules(["-m", "claimgraph.hooks", "session-start"], hooks, payload)
    assert refusals(hooks)[-1] == hooks.log()[-2] and curators_started(hooks) == 1
    assert not {n for n in during if n in HEAVY or any(n.startswith(h + ".") for h in HEAVY)}


def test_past_the_live_limit_a_refused_config_starts_no_curator_after_the_first(hooks: Hooks):
    """A refused file that names neither of the block's settings: nothing to read for the
    block, but the curator that the over-limit path starts would refuse it too. Once that
    curator has stamped the refusal, the block no longer says the list is being refreshed
    (nothing refreshes it): it names the file and the setting that stop it."""
    remember(hooks, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(30)])
    path = config_file(hooks, "lease_wait_ms = -5\n")
    env = {**hooks.env, LIVE_LIMIT_ENV: "20"}
    blocks = session_starts(hooks, 3, env)
    assert all("more than 20 facts" in block for block in blocks)
    assert "is being refreshed" in blocks[0]  # nothing stamped yet: a curator is started
    assert all(f"invalid lease_wait_ms in config file {path}: expected" in block
               and "is being refreshed" not in block for block in blocks[1:])
    assert curators_started(hooks) == 1
    assert "invalid lease_wait_ms" in stamped(hooks)["refused"]
    assert [line["event"] for line in hooks.log()[-2:]] == ["hook.config-refused",
                                                            "hook.context-injected"]


# The hook parsed the file (it could name db): the block's settings come from that parse.

@pytest.fixture
def world(hooks: Hooks, tmp_path: Path) -> Configured:
    """A hook world whose store is the one its config file names (no ``$CLAIMGRAPH_DB``)."""
    env = {k: v for k, v in hooks.env.items() if k != "CLAIMGRAPH_DB"}
    made = Configured(hooks.home, env, hooks.marks, hooks.transcript,
                      store=tmp_path / "configured" / "memory.db")
    made.configure(f'db = "{made.db}"\n')
    return made


def context_command(world: Configured) -> str:
    done = subprocess.run([sys.executable, "-m", "claimgraph", "context", "--cwd",
                           str(world.home)], env=world.env, capture_output=True, timeout=60,
                          check=True, cwd=world.home)
    return done.stdout.decode()


def configure_settled(world: Configured, text: str) -> None:
    """Write the world's config file long enough ago for a curator to stamp it."""
    config_file(world, text)
    assert world.config.read_text() == text


def test_a_parsed_config_gives_the_block_its_settings_with_no_stamp(world: Configured):
    remember(world, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(40)],
             ("api", "prefers", "REST"), when=-60)
    budget = len(live_block(world, 10.0)) // 2
    configure_settled(world, f'db = "{world.db}"\nhalf_life_days = 10\n'
                             f"context_budget_chars = {budget}\n")
    block = injected(world.run(start_payload(world), "session-start"))
    assert world.log()[-1]["setting_changed"] is False
    assert block + "\n" == context_command(world)
    assert block == live_block(world, 10.0, budget) != live_block(world)
    assert stamped(world) is None and curators_started(world) == 0


def test_a_parsed_config_wins_over_the_stamp_of_its_previous_version(world: Configured):
    remember(world, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"), when=-60)
    configure_settled(world, f'db = "{world.db}"\nhalf_life_days = 10\n')
    store_shortlists(world)
    assert stamped(world)["settings"][HALF_LIFE] == 10.0
    world.configure(f'db = "{world.db}"\nhalf_life_days = 40\n')  # just written: unstamped
    block = injected(world.run(start_payload(world), "session-start"))
    assert world.log()[-1]["setting_changed"] is False and curators_started(world) == 0
    assert block + "\n" == context_command(world)
    assert block == live_block(world, 40.0) not in (live_block(world, 10.0), live_block(world))


@pytest.mark.parametrize("bad", ["-1", "1" + "0" * 400])  # no float holds the second
def test_a_parsed_config_that_is_refused_keeps_the_values_read_last_and_starts_nothing(
        world: Configured, bad: str):
    remember(world, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"), when=-60)
    configure_settled(world, f'db = "{world.db}"\nhalf_life_days = 10\n')
    store_shortlists(world)
    configure_settled(world, f'db = "{world.db}"\nhalf_life_days = {bad}\n')
    blocks = session_starts(world, 3)
    assert curators_started(world) == 0
    assert blocks == [live_block(world, 10.0)] * 3
    assert len(refusals(world)) == 3
    assert "invalid half_life_days" in refusals(world)[0]["reason"]


def test_a_refusing_curator_stamps_only_the_file_the_hook_checks(hooks: Hooks):
    """``--config`` names another file than the hook's, ``--dry-run`` writes nothing: neither
    leaves a stamp; a plain refusal does, and still fails (exit 1, the error printed)."""
    remember(hooks, ("api", "prefers", "REST"))
    other = hooks.home / "other.toml"
    other.write_text("half_life_days = -1\n")
    config_file(hooks, "context_budget_chars = 0\n")

    def curate(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--db",
                               str(hooks.db), "--json", "--stage", "shortlists", *extra],
                              env=hooks.env, capture_output=True, timeout=60)
    for extra in (("--config", str(other)), ("--dry-run",)):
        done = curate(*extra)
        assert done.returncode == 1 and b"invalid" in done.stdout + done.stderr
        assert stamped(hooks) is None
    done = curate()
    assert done.returncode == 1 and b"context_budget_chars" in done.stdout + done.stderr
    assert "invalid context_budget_chars" in stamped(hooks)["refused"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("event", ["session-start", "session-end"])
def test_a_pipe_at_the_config_path_never_holds_the_hook(hooks: Hooks, event: str):
    """A named pipe where the config file should be (nobody writing to it) was opened for
    reading by the hook, which then waited on it until the agent's timeout killed it: with
    memory in the store the SessionStart hook reads the file for the block's settings, and
    every hook reads it to learn whether it could name ``db``. Now it is opened without
    waiting and read only when it is a regular file: the hook returns, prints no block it
    could not compile, and fails nothing."""
    remember(hooks, ("api", "depends-on", "postgres"), when=-60)
    path = config_file(hooks, "half_life_days = 10\n")
    path.unlink()
    os.mkfifo(path)
    payload = start_payload(hooks) if event == "session-start" else \
        hooks.payload(hook_event_name="SessionEnd", reason="exit")
    run = hooks.run(payload, event)  # waited on the pipe: subprocess.TimeoutExpired after 30 s
    assert run.code == 0
    if event == "session-end":
        assert run.out == b""


#: A value pasted into the wrong setting: what no log, output or stamp may repeat.
PASTED = "pasted-token-4f9c2e7a1b"


def test_a_refused_value_is_never_repeated_and_a_person_does_not_wait_for_the_lease(
        hooks: Hooks):
    """``claimgraph curate`` run by a person, the config file refused while another writer
    holds the store's write lease: it refuses at once, naming the file and the setting and
    what the setting expects, never the value, and leaves no stamp (it did not wait for the
    lease); once the lease is free, a curator started detached (as the hook and capture start
    it) stamps the refusal, and its ``<db>.curate.log`` names the setting and file, never
    the value."""
    from claimgraph import lease
    from claimgraph.curator import spawn_curator
    from claimgraph.store import leases

    remember(hooks, ("api", "prefers", "REST"))
    path = config_file(hooks, f'half_life_days = "{PASTED}"\n')
    with leases.write_lease(hooks.db, "test-writer", 0, ttl_ms=lease.DEFAULT_TTL_MS):
        done = subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--db",
                               str(hooks.db)], env=hooks.env, capture_output=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    said = (done.stdout + done.stderr).decode()
    assert done.returncode == 1
    assert f"invalid half_life_days in config file {path}: expected a number" in said
    assert PASTED not in said
    assert stamped(hooks) is None  # the lease was held: no stamp, and no wait for it
    spawn_curator(hooks.db, ("--stage", "shortlists"), hooks.env)
    assert wait_for(lambda: stamped(hooks) is not None, 60)
    assert wait_for(lambda: "error" in "".join(map(str, curator_exits(hooks))), 60)
    log = Path(f"{hooks.db}.curate.log").read_text()
    assert "half_life_days" in log and str(path) in log and PASTED not in log
    assert PASTED not in json.dumps(stamped(hooks))


@pytest.mark.parametrize(("detached", "waits"), [(True, True), (False, False)])
def test_only_a_detached_curate_waits_for_the_lease_to_stamp_a_refusal(detached, waits):
    """The test above cannot tell "did not wait" from "waited, then gave up" (no stamp either
    way): who waits is asked here, of a process started as the hook starts the curator (the
    leader of a session of its own) and of one started as a person's shell starts it."""
    from claimgraph import lease

    code = ("from claimgraph.curator.refusal import lease_wait_ms; print(lease_wait_ms())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                          check=True, start_new_session=detached, stdin=subprocess.DEVNULL)
    assert int(done.stdout) == (lease.DEFAULT_WAIT_MS if waits else 0)
