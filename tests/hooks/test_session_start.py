"""SessionStart as the agent runs it: the compiled context as hook JSON on stdout, or silence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from claimgraph import configured
from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store
from claimgraph.project import resolve_project

from claimgraph.core.briefing import shortlist_key
from claimgraph.hooks.session_start import LIVE_LIMIT_ENV

from .conftest import Hooks, wait_for, without_dac_override
from .test_hook_fast_path import imported_modules

#: The session-start path with a store may read SQLite, but never these.
HEAVY = {"structlog", "psutil", "filelock", "apscheduler", "tomli", "tomllib", "argparse",
         "logging", "claimgraph.cli", "claimgraph.config", "claimgraph.logsetup",
         "claimgraph.sidecar", "claimgraph.lease", "claimgraph.curator"}


def start_payload(hooks: Hooks) -> dict:
    return hooks.payload(hook_event_name="SessionStart", source="startup", reason=None)


def remember(hooks: Hooks, *facts: tuple[str, str, str], scope: str | None = None,
             when: int = 0) -> None:
    """Store ``facts`` in ``scope`` (the project's), recorded ``when`` days from now."""
    scope = scope or resolve_project(hooks.home).id
    store = open_store(hooks.db)
    try:
        at = time.time_ns() // 1_000_000 + when * DAY_MS
        sh = Shell(store, clock=lambda: at)
        seed(sh)
        for subject, pred, obj in facts:
            assert_fact(sh, subject, pred, obj, scope=scope)
    finally:
        store.close()


def injected(run) -> str:
    assert run.code == 0 and run.err == b""
    output = json.loads(run.out)
    assert list(output) == ["hookSpecificOutput"]
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return output["hookSpecificOutput"]["additionalContext"]


def test_the_project_memory_is_printed_as_hook_json(hooks: Hooks):
    remember(hooks, ("api", "depends-on", "postgres"), ("api", "tested-by", "pytest"))
    run = hooks.run(start_payload(hooks), "session-start")
    text = injected(run)
    assert text.startswith(CONTEXT_OPEN) and text.endswith(CONTEXT_CLOSE)
    assert "api depends-on postgres" in text and len(text) <= 10_000
    assert hooks.events() == ["hook.context-injected"]
    assert hooks.spooled() == [] and hooks.no_child_started()


def test_another_projects_memory_is_not_injected(hooks: Hooks):
    remember(hooks, ("web", "depends-on", "react"), scope="github.com/some/other")
    run = hooks.run(start_payload(hooks), "session-start")
    assert (run.code, run.out) == (0, b"")
    assert hooks.events() == ["hook.context-empty"]


def test_no_store_means_no_output_and_no_store_created(hooks: Hooks):
    run = hooks.run(start_payload(hooks), "session-start")
    assert (run.code, run.out, run.err) == (0, b"", b"")
    assert not hooks.db.exists()


def test_a_broken_store_is_logged_and_the_agent_sees_nothing(hooks: Hooks):
    hooks.db.parent.mkdir(parents=True, exist_ok=True)
    hooks.db.write_bytes(b"this is not a database" * 100)
    run = hooks.run(start_payload(hooks), "session-start")
    assert (run.code, run.out) == (0, b"")
    [line] = hooks.log()
    assert line["event"] == "hook.context-failed" and line["reason"]


def test_garbage_on_stdin_falls_back_to_the_directory_the_hook_runs_in(hooks: Hooks):
    remember(hooks, ("api", "depends-on", "postgres"))
    run = hooks.run(b"{not json", "session-start", prefix=("env", "-C", str(hooks.home)))
    assert "api depends-on postgres" in injected(run)


def test_the_same_store_gives_the_same_bytes(hooks: Hooks):
    remember(hooks, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(20)])
    first = hooks.run(start_payload(hooks), "session-start").out
    assert first and hooks.run(start_payload(hooks), "session-start").out == first


def test_session_start_with_a_store_imports_no_heavy_module(hooks: Hooks):
    remember(hooks, ("api", "depends-on", "postgres"))
    payload = json.dumps(start_payload(hooks)).encode()
    before = imported_modules(["-c", "import runpy"], hooks, b"")
    during = imported_modules(["-m", "claimgraph.hooks", "session-start"], hooks, payload) - before
    # ``copy`` probes Jython's ``org.python.core`` (a failed import, still listed by -X importtime).
    foreign = {n for n in during if n.split(".")[0] not in sys.stdlib_module_names
               and n.split(".")[0] not in ("claimgraph", "org")}
    assert foreign == set()
    assert not {n for n in during if n in HEAVY or any(n.startswith(h + ".") for h in HEAVY)}


def store_shortlists(hooks: Hooks) -> dict:
    """The curator's shortlists stage, run as users get it (`claimgraph curate`)."""
    done = subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--db", str(hooks.db),
                           "--stage", "shortlists", "--json"], env=hooks.env,
                          capture_output=True, timeout=60, check=True)
    return json.loads(done.stdout.splitlines()[-1])["stages"]["shortlists"]


def live_block(hooks: Hooks, half_life_days: float = 90.0, budget: int = 10_000) -> str:
    """What a full read of the store compiles now (no shortlist, stored or fresh)."""
    from claimgraph.core.briefing import compile_for

    store = open_store(hooks.db, read_only=True)
    try:
        now = time.time_ns() // 1_000_000
        return compile_for(WholeStore(store), resolve_project(hooks.home).id, now,
                           budget_chars=budget, half_life_days=half_life_days)["text"]
    finally:
        store.close()


class WholeStore:
    """A store without its fast paths: no light rows, no write counter (so no stored list)."""

    def __init__(self, store) -> None:
        self._store = store

    def __getattr__(self, name: str):
        if name in ("select_context_heads", "write_count", "reading"):
            raise AttributeError(name)
        return getattr(self._store, name)


def test_the_hook_renders_the_stored_shortlist_and_compiles_live_after_a_write(hooks: Hooks):
    remember(hooks, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(80)],
             ("api", "prefers", "REST"))
    assert store_shortlists(hooks)["counts"]["stored"] == 1
    stored = injected(hooks.run(start_payload(hooks), "session-start"))
    assert hooks.log()[-1]["shortlist"] == "stored"
    assert stored == live_block(hooks)
    remember(hooks, ("api", "decided-against", "GraphQL"))  # a write after it was stored
    fresh = injected(hooks.run(start_payload(hooks), "session-start"))
    assert hooks.log()[-1]["shortlist"] == "live"
    assert "GraphQL" in fresh and fresh == live_block(hooks)
    store_shortlists(hooks)
    assert injected(hooks.run(start_payload(hooks), "session-start")) == fresh
    assert hooks.log()[-1]["shortlist"] == "stored"


def test_a_project_with_no_fact_is_answered_without_the_store_or_the_briefing(hooks: Hooks):
    """The commonest empty block (a new store, a project never captured) loads none of the
    store's modules but the peek, and nothing that ranks or renders (``store.sqlite_peek``);
    one fact of the user's is enough to take the usual path."""
    remember(hooks, ("web", "depends-on", "react"), scope="github.com/some/other")
    payload = json.dumps(start_payload(hooks)).encode()
    argv = ["-m", "claimgraph.hooks", "session-start"]
    during = imported_modules(argv, hooks, payload)
    assert hooks.log()[-1]["event"] == "hook.context-empty"
    assert hooks.log()[-1]["shortlist"] == "no-facts"
    ours = {n for n in during if n.startswith("claimgraph.")}
    assert {n for n in ours if n.startswith("claimgraph.store.")} == {
        "claimgraph.store.sqlite_peek"}
    assert not {n for n in ours if n.startswith(("claimgraph.core", "claimgraph.logic."))
                and n != "claimgraph.logic.lazy_regex"}
    remember(hooks, ("tabs", "prefers", "spaces"), scope="user")
    assert "spaces" in injected(hooks.run(start_payload(hooks), "session-start"))
    assert hooks.log()[-1]["shortlist"] == "live"


#: What the hook's own process leaves unloaded (``session_start.defer_unused``, the peek's
#: file URI, the remote split without ``urlsplit``): ``pathlib`` and its Windows half, URL
#: parsing, and ``datetime``'s Python half (``_datetime``, the C module, is what it uses).
DEFERRED = {"pathlib", "ntpath", "fnmatch", "urllib.parse", "ipaddress", "datetime"}


def a_github_checkout(hooks: Hooks) -> str:
    """The session's directory made a git checkout with an ``https`` origin, as most are;
    its project id."""
    subprocess.run(["git", "init", "-q", str(hooks.home)], check=True)
    subprocess.run(["git", "-C", str(hooks.home), "remote", "add", "origin",
                    "https://github.com/Some-Org/api.git"], check=True)
    project = resolve_project(hooks.home).id
    assert project == "github.com/Some-Org/api"
    return project


def test_in_a_checkout_with_no_fact_the_hook_loads_no_path_url_or_calendar_module(
        hooks: Hooks):
    """The commonest empty answer (a project the store never heard of, in a checkout with an
    ``https`` remote) names the project without ``urllib.parse`` and asks the store without
    ``pathlib``; ``sqlite3`` gets ``datetime``'s C classes without the Python module that
    builds them over again (a few ms of each such session's start, issue 29's <= 3x)."""
    project = a_github_checkout(hooks)
    remember(hooks, ("web", "depends-on", "react"), scope="github.com/some/other")
    during = imported_modules(["-m", "claimgraph.hooks", "session-start"], hooks,
                              json.dumps(start_payload(hooks)).encode())
    assert (hooks.log()[-1]["shortlist"], hooks.log()[-1]["project"]) == ("no-facts", project)
    assert "sqlite3" in during and "_datetime" in during
    assert DEFERRED & during == set()


def test_in_a_checkout_the_stored_block_is_the_live_one_with_those_modules_left_out(
        hooks: Hooks):
    """The stored and live paths render the same block as a compile in this process, where
    every module is loaded for real: dates, times and the project's name come out the same
    with the stand-ins in place, and the block itself needs none of the real modules."""
    a_github_checkout(hooks)
    remember(hooks, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"),
             when=-3)
    argv = ["-m", "claimgraph.hooks", "session-start"]
    payload = json.dumps(start_payload(hooks)).encode()
    for path in ("live", "stored"):
        during = imported_modules(argv, hooks, payload)
        assert hooks.log()[-1]["shortlist"] == path
        assert "claimgraph.core.briefing" in during and "pathlib" in during
        assert {"urllib.parse", "ntpath", "ipaddress", "datetime"} & during == set()
        assert injected(hooks.run(start_payload(hooks), "session-start")) == live_block(hooks)
        store_shortlists(hooks)


def test_a_store_of_a_newer_format_is_still_reported_not_taken_for_empty(hooks: Hooks):
    import sqlite3

    from claimgraph import STORE_FORMAT
    remember(hooks, ("web", "depends-on", "react"), scope="github.com/some/other")
    conn = sqlite3.connect(hooks.db, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {STORE_FORMAT + 1}")
    conn.close()
    run = hooks.run(start_payload(hooks), "session-start")
    assert (run.code, run.out) == (0, b"")
    line = hooks.log()[-1]
    assert line["event"] == "hook.context-failed" and "format" in line["reason"]


def stored_record(hooks: Hooks) -> dict | None:
    store = open_store(hooks.db, read_only=True)
    try:
        return store.get_mark(shortlist_key(resolve_project(hooks.home).id))
    finally:
        store.close()


def test_past_the_live_limit_the_hook_says_so_and_the_curator_it_starts_fixes_it(
        hooks: Hooks):
    """No shortlist holds and a live compile would read more than the limit: the agent is told
    the block is not ready (no fact, stale or not), and the next start renders the shortlist
    that the curator the hook started stored meanwhile."""
    remember(hooks, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(30)],
             ("api", "prefers", "REST"))
    env = {**hooks.env, LIVE_LIMIT_ENV: "20"}
    text = injected(hooks.run(start_payload(hooks), "session-start", env=env))
    assert text.startswith(CONTEXT_OPEN) and text.endswith(CONTEXT_CLOSE)
    assert "more than 20 facts" in text and "svc" not in text and "REST" not in text
    assert hooks.log()[-2]["event"] == "hook.curator-spawned"
    assert hooks.log()[-1]["shortlist"] == "over-limit"
    assert wait_for(lambda: stored_record(hooks), 60)
    stored = injected(hooks.run(start_payload(hooks), "session-start", env=env))
    assert hooks.log()[-1]["shortlist"] == "stored"
    assert stored == live_block(hooks) and "REST" in stored and "svc0" in stored
    remember(hooks, ("api", "decided-against", "GraphQL"))  # the stored list is stale now
    stale = injected(hooks.run(start_payload(hooks), "session-start", env=env))
    assert hooks.log()[-1]["shortlist"] == "over-limit" and "REST" not in stale
    within = injected(hooks.run(start_payload(hooks), "session-start"))  # the default limit
    assert hooks.log()[-1]["shortlist"] == "live"
    assert within == live_block(hooks) and "GraphQL" in within


def test_past_the_live_limit_a_store_we_may_not_write_starts_no_curator(hooks: Hooks):
    remember(hooks, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(30)])
    env = {**hooks.env, LIVE_LIMIT_ENV: "20"}
    hooks.db.chmod(0o400)
    try:
        run = hooks.run(start_payload(hooks), "session-start", env=env,
                        prefix=without_dac_override())
    finally:
        hooks.db.chmod(0o600)
    assert "more than 20 facts" in injected(run)
    assert hooks.events() == ["hook.context-injected"]
    assert hooks.log()[-1]["shortlist"] == "over-limit"


def test_the_stored_path_imports_nothing_the_live_path_does_not(hooks: Hooks):
    remember(hooks, ("api", "depends-on", "postgres"))
    payload = json.dumps(start_payload(hooks)).encode()
    argv = ["-m", "claimgraph.hooks", "session-start"]
    live = imported_modules(argv, hooks, payload)
    store_shortlists(hooks)
    stored = imported_modules(argv, hooks, payload)
    assert hooks.log()[-1]["shortlist"] == "stored"
    assert stored - live == set()


def test_either_path_loads_neither_typing_nor_ipaddress(hooks: Hooks):
    """``typing`` is for type checkers on this path, and ``ipaddress`` (which ``urllib.parse``
    loads, for ``pathlib``) parses no host here: together a few ms of every session's start."""
    remember(hooks, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"))
    payload = json.dumps(start_payload(hooks)).encode()
    argv = ["-m", "claimgraph.hooks", "session-start"]
    for path in ("live", "stored"):
        during = imported_modules(argv, hooks, payload)
        assert hooks.log()[-1]["shortlist"] == path
        assert "claimgraph.core.briefing" in during
        assert not {"typing", "ipaddress"} & during
        store_shortlists(hooks)


def test_in_process_the_hook_leaves_the_callers_collector_alone(hooks: Hooks, capsys):
    """Only the hook's own process turns the collector off and freezes what it loaded
    (``own_process``); the block is the same either way."""
    import gc

    from claimgraph.hooks import session_start
    remember(hooks, ("api", "depends-on", "postgres"))
    frozen = gc.get_freeze_count()
    session_start.inject(json.dumps(start_payload(hooks)).encode(), "claude-code", hooks.env)
    assert gc.isenabled() and gc.get_freeze_count() <= frozen  # (frozen objects may die)
    in_process = json.loads(capsys.readouterr().out)["hookSpecificOutput"]["additionalContext"]
    assert in_process == injected(hooks.run(start_payload(hooks), "session-start"))


def config_file(hooks: Hooks, text: str):
    """The user's config file (where ``$XDG_CONFIG_HOME`` puts it), written long enough ago
    for the curator to stamp it (``configured.SETTLED_NS``)."""
    path = Path(configured.config_file(hooks.env))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    written = path.stat().st_mtime_ns - 10 * configured.SETTLED_NS
    os.utime(path, ns=(written, written))
    return path


def test_a_configured_half_life_is_read_from_the_curators_stamp_without_the_config(
        hooks: Hooks):
    """The config file sets half_life_days: after a curator pass the hook renders the stored
    list for it, loading no TOML parser nor ``claimgraph.config``; the block is not the
    default half-life's."""
    remember(hooks, ("api", "depends-on", "postgres"), ("api", "prefers", "REST"), when=-60)
    config_file(hooks, "half_life_days = 10\n")
    first = injected(hooks.run(start_payload(hooks), "session-start"))  # never stamped yet:
    assert hooks.log()[-1]["setting_changed"] is True  # ranked by the default until then
    assert first == live_block(hooks)
    assert wait_for(lambda: stamped(hooks), 60)  # the curator it started stamped the file
    payload = json.dumps(start_payload(hooks)).encode()
    during = imported_modules(["-m", "claimgraph.hooks", "session-start"], hooks, payload)
    assert hooks.log()[-1]["shortlist"] == "stored" and not hooks.log()[-1]["setting_changed"]
    assert not {n for n in during if n in HEAVY or any(n.startswith(h + ".") for h in HEAVY)}
    block = injected(hooks.run(start_payload(hooks), "session-start"))
    assert "REST" in block and block == live_block(hooks, 10.0)
    assert block != live_block(hooks)


def stamped(hooks: Hooks, key: str | None = None) -> dict | None:
    """The curator's stamp of the hook's config file (or the mark ``key``)."""
    store = open_store(hooks.db, read_only=True)
    try:
        return store.get_mark(key or configured.settings_mark(configured.config_file(hooks.env)))
    finally:
        store.close()


def test_a_configured_budget_cuts_the_block_as_the_context_command_does(hooks: Hooks):
    """``context_budget_chars`` in the config file: after a curator pass the hook's block is
    cut to it (what ``claimgraph context`` prints), loading no config parser; before the pass,
    the file never read, the hook keeps the default budget and starts that pass. In the
    environment, the variable wins at once."""
    remember(hooks, *[(f"svc{n}", "depends-on", f"lib{n}") for n in range(40)])
    default = live_block(hooks)
    budget = len(default) // 2
    config_file(hooks, f"context-budget-chars = {budget}\n")
    first = injected(hooks.run(start_payload(hooks), "session-start"))
    assert hooks.log()[-1]["setting_changed"] is True and first == default
    assert wait_for(lambda: stamped(hooks), 60)
    payload = json.dumps(start_payload(hooks)).encode()
    during = imported_modules(["-m", "claimgraph.hooks", "session-start"], hooks, payload)
    assert not hooks.log()[-1]["setting_changed"]
    assert not {n for n in during if n in HEAVY or any(n.startswith(h + ".") for h in HEAVY)}
    block = injected(hooks.run(start_payload(hooks), "session-start"))
    assert block == live_block(hooks, budget=budget) != default and len(block) <= budget
    command = subprocess.run([sys.executable, "-m", "claimgraph", "context", "--cwd",
                              str(hooks.home)], env=hooks.env, capture_output=True, timeout=60,
                             check=True, cwd=hooks.home)
    assert command.stdout.decode() == block + "\n"
    env = {**hooks.env, "CLAIMGRAPH_CONTEXT_BUDGET_CHARS": str(budget + 300)}
    wider = injected(hooks.run(start_payload(hooks), "session-start", env=env))
    assert wider == live_block(hooks, budget=budget + 300) not in (block, default)


def test_an_unstamped_config_on_a_store_we_may_not_write_ranks_by_the_default_and_starts_nothing(
        hooks: Hooks):
    """No curator could stamp the file for this user: the hook ranks by the default half-life
    (the last one any curator read: none) and starts no curator."""
    remember(hooks, ("api", "prefers", "REST"))
    config_file(hooks, "half-life-days = 10\n")
    hooks.db.chmod(0o400)
    try:
        run = hooks.run(start_payload(hooks), "session-start", prefix=without_dac_override())
    finally:
        hooks.db.chmod(0o600)
    text = injected(run)
    assert "REST" in text and text == live_block(hooks)
    assert hooks.events() == ["hook.context-injected"]
    assert hooks.log()[-1]["setting_changed"] is True
    assert stamped(hooks) is None
