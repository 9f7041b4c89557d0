"""The SessionStart context read from a shortlist gives the same block as read whole.

SQLite answers ``select_context_heads``, so ``core.briefing.gather`` ranks light rows and reads
whole only what the block can show. These tests build real SQLite stores with more facts than
every ranked section shows, ties on confidence and on subject names, decay, dormant, suspect,
forgotten, superseded and conflicting facts, and another scope — and compare every compiled
block with the one the same store gives when it is read whole.

The curator's shortlists stage stores a shortlist that lasts; the block rendered from it at a
later instant must be the block compiled live at that instant, and a write after it was stored
must send every reader back to a live compile.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sqlite3
import subprocess
import time
from typing import Any

import pytest

from claimgraph.cli.main import main as cli_main
from claimgraph.configured import HALF_LIFE_SETTING, SETTLED_NS, env_var
from claimgraph.cli.output import jsonable
from claimgraph.core import Shell
from claimgraph.core import briefing as cx
from claimgraph.core import tombstones
from claimgraph.core.briefing import (
    SHORTLIST_MEANING, compile_for, gather, shortlist_key, stored_shortlist)
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.curator.shortlists import RETIRE_MS, refresh_shortlists
from claimgraph.curator.stage_tools import Fence, StageTools
from claimgraph.hooks import session_start
from claimgraph.hooks.own_files import files_loaded
from claimgraph.hooks.session_start import LIVE_LIMIT_ENV
from claimgraph.logic.briefing import window_start as briefing_window_start
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.store.sqlite import SqliteStore

from .conftest import SteppingClock

PROJECT = "github.com/o/a"
SUBJECTS = ["api", "web", "db", "cli", "core", "Api", "module_1.io", "z"]
PREDICATES = ["depends-on", "tested-by", "failure-mode", "defined-in", "written-in", "prefers",
              "decided-against", "x/decided", "x/convention"]
SOURCES = ["user-assertion", "session-log", "failure-report", "agent-note", "code",
           "decision-record", "inferred"]
#: Evidence as capture cites it: instruction files' lines (which the agent that loads the file
#: is not told again, ``logic.own_instructions``), a second file beside one, a transcript line.
EVIDENCE = [[], ["CLAUDE.md: `Use uv`"], ["AGENTS.md: `Use uv`"], ["GEMINI.md: `Use uv`"],
            ["CLAUDE.md: `Use uv`", "docs/dev.md: `Use uv`"], ["transcript#L3: use uv"]]
#: What each agent loads at the root (``hooks.own_files``), and no agent named at all.
LOADED = {"none": frozenset(),
          "claude-code": frozenset({"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}),
          "codex": frozenset({"AGENTS.md"}), "gemini": frozenset({"GEMINI.md"})}


class WholeReads:
    """The same store without the light-row read: ``gather`` falls back to reading it whole."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name in ("select_context_heads", "write_count"):  # nor a stored shortlist
            raise AttributeError(name)
        return getattr(self._store, name)


def store_shortlists(sh: Shell, environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the curator's shortlists stage on the shell's store, as a pass ends (in the
    environment ``environ``, where it finds the config file)."""
    fence = Fence(sh.store.path, None, epoch=tombstones.epoch(sh.store))
    return refresh_shortlists(StageTools(sh, fence, "test-run", environ=environ or {}))


def build(tmp_path, rng: random.Random, facts: int) -> Shell:
    counter = itertools.count(1)
    clock = SteppingClock()
    sh = Shell(store=SqliteStore(str(tmp_path / "claims.db")), clock=clock,
               new_id=lambda p: f"{p}-{next(counter):05d}")
    seed(sh)
    made = []
    for n in range(facts):
        if rng.random() < 0.05:
            clock.advance_days(rng.choice([1, 20, 45, 200]))
        made.append(_one(sh, rng, n))
    _disturb(sh, rng, [f for f in made if f is not None])
    return sh


def _one(sh: Shell, rng: random.Random, n: int) -> dict[str, Any] | None:
    scope = "github.com/o/b" if rng.random() < 0.08 else ("user" if rng.random() < 0.1
                                                           else PROJECT)
    source = rng.choice(SOURCES)
    result = assert_fact(sh, rng.choice(SUBJECTS), rng.choice(PREDICATES),
                         f"thing{rng.randrange(40)}", scope=scope, source_type=source,
                         confidence=rng.choice([0.5, 0.6, 0.6, 0.6, 0.65]),
                         evidence=rng.choice(EVIDENCE),
                         on_conflict=rng.choice(["supersede", "flag",
                                                                        "ignore"]))
    return result.get("fact")


def _disturb(sh: Shell, rng: random.Random, facts: list[dict[str, Any]]) -> None:
    """Dormant, suspect, forgotten, superseded and linked facts, and reinforcement."""
    now = sh.now()
    for fact in rng.sample(facts, len(facts) // 10):
        sh.store.set_dormant([fact["id"]], now)
    for fact in rng.sample(facts, len(facts) // 15):
        sh.store.record_audit([{"fact_id": fact["id"], "evidence": "a.py: x", "file": "a.py",
                                "verdict": "unsupported", "checked_at": now}])
    for old, new in zip(rng.sample(facts, 12), rng.sample(facts, 12)):
        kind = rng.choice(["superseded", "superseded", "forgotten", "duplicate"])
        sh.store.invalidate(old["id"], now - rng.choice([0, 5, 40]) * DAY_MS, kind=kind,
                            successor=new["id"] if kind == "superseded" else None)
    for a, b in zip(rng.sample(facts, 10), rng.sample(facts, 10)):
        if a["id"] != b["id"]:
            sh.store.link_conflicts(a["id"], [b["id"]])
    for fact in rng.sample(facts, len(facts) // 8):
        sh.store.reinforce(fact["id"], now - rng.randrange(100) * DAY_MS, fact["confidence"])


@pytest.mark.parametrize("seed_value", range(6))
def test_the_shortlisted_block_is_the_block_read_whole(tmp_path, seed_value):
    rng = random.Random(seed_value)
    sh = build(tmp_path, rng, 260)
    whole = WholeReads(sh.store)
    left_out = 0
    for later_days, budget in [(0, 10_000), (0, 1_500), (10, 10_000), (120, 4_000),
                               (400, 10_000)]:
        now = sh.now() + later_days * DAY_MS
        for (agent, loaded), project in itertools.product(LOADED.items(),
                                                          (PROJECT, "github.com/o/b")):
            fast = compile_for(sh.store, project, now, budget, loaded=loaded)
            slow = compile_for(whole, project, now, budget, loaded=loaded)
            assert fast == slow, (seed_value, later_days, budget, project, agent)
            left_out += fast["read_anyway"]
    assert left_out > 0  # the agents' own rules were there to leave out
    sh.store.close()


def test_ranked_sections_are_cut_to_their_caps_and_the_shortlist_reads_fewer_facts(tmp_path):
    sh = build(tmp_path, random.Random(99), 700)
    now = sh.now()
    read_whole = gather(WholeReads(sh.store), PROJECT, now)["facts"]
    shortlisted = gather(sh.store, PROJECT, now)["facts"]
    assert {f["id"] for f in shortlisted} < {f["id"] for f in read_whole}
    result = compile_for(sh.store, PROJECT, now)
    assert result["sections"]["current"]["total"] == 50  # more than 50 compete
    assert result == compile_for(WholeReads(sh.store), PROJECT, now)
    sh.store.close()


def test_a_store_without_light_rows_is_read_whole(shell):
    assert_fact(shell, "api", "depends-on", "postgres", scope=PROJECT)
    store = WholeReads(shell.store) if hasattr(shell.store, "select_context_heads") \
        else shell.store
    assert "api depends-on postgres" in compile_for(store, PROJECT, shell.now())["text"]


LATER_MS = [0, 3_600_000, DAY_MS, 7 * DAY_MS, 30 * DAY_MS]


@pytest.mark.parametrize("seed_value", range(6))
def test_the_stored_shortlist_renders_the_live_block_at_later_instants(tmp_path, seed_value):
    rng = random.Random(seed_value)
    sh = build(tmp_path, rng, 260)
    outcome = store_shortlists(sh)
    assert outcome["counts"]["stored"] == 2  # github.com/o/a and github.com/o/b
    whole = WholeReads(sh.store)
    stored_at = sh.store.get_mark(shortlist_key(PROJECT))["at"]
    for later in LATER_MS + [120 * DAY_MS, 400 * DAY_MS]:
        now = stored_at + later
        for project in (PROJECT, "github.com/o/b"):
            record = sh.store.get_mark(shortlist_key(project))
            if later in LATER_MS:  # the shortlist must be the one read, not a live compile
                assert stored_shortlist(sh.store, project, now) is not None, (project, later)
                assert record["until"] is None or record["until"] > now
            for budget, (agent, loaded) in itertools.product((10_000, 1_500), LOADED.items()):
                fast = compile_for(sh.store, project, now, budget, loaded=loaded)
                assert fast == compile_for(whole, project, now, budget, loaded=loaded), (
                    seed_value, later, budget, project, agent)
    sh.store.close()


#: Two versions of one long list that differ only past the 300-character cut.
SCRIPTS = "; ".join(f"`make step{n}` runs `tool --stage {n} --verbose`" for n in range(9))
LONGER = SCRIPTS.replace("; `make step7`", "; `make extra` runs `tool --extra`; `make step7`")


def test_the_stored_shortlist_renders_tiers_and_twins_as_the_live_block(tmp_path):
    """The line kinds that name their tier (a change of belief with and without a successor,
    a contention) and lines cut where they part from a twin render the same bytes from the
    stored shortlist as read whole, at later instants too."""
    sh = build(tmp_path, random.Random(7), 120)
    for subject, predicate in (("package.json", "failure-mode"), ("team", "x/convention")):
        for text in (SCRIPTS, LONGER):
            assert_fact(sh, subject, predicate, text, object_kind="literal", scope=PROJECT,
                        source_type="session-log", evidence=["package.json: `scripts`"],
                        on_conflict="ignore")
    old = assert_fact(sh, "api", "prefers", "REST", object_kind="literal", scope=PROJECT,
                      source_type="user-assertion")["fact"]
    new = assert_fact(sh, "api", "prefers", "gRPC", object_kind="literal", scope=PROJECT,
                      source_type="session-log", on_conflict="ignore")["fact"]
    gone = assert_fact(sh, "db", "depends-on", "mysql", scope=PROJECT,
                       source_type="user-assertion")["fact"]
    a = assert_fact(sh, "cache", "depends-on", "redis", scope=PROJECT)["fact"]
    b = assert_fact(sh, "cache", "depends-on", "memcached", scope=PROJECT,
                    source_type="session-log", on_conflict="ignore")["fact"]
    sh.store.invalidate(old["id"], sh.now(), kind="superseded", successor=new["id"])
    sh.store.invalidate(gone["id"], sh.now(), kind="superseded")
    sh.store.link_conflicts(b["id"], [a["id"]])
    store_shortlists(sh)
    stored_at = sh.store.get_mark(shortlist_key(PROJECT))["at"]
    for later in LATER_MS[:-1]:  # the changes leave "Changed recently" after 30 days
        now = stored_at + later
        assert stored_shortlist(sh.store, PROJECT, now) is not None, later
        fast = compile_for(sh.store, PROJECT, now)
        assert fast == compile_for(WholeReads(sh.store), PROJECT, now), later
        lines = [ln for ln in fast["text"].splitlines() if ln.startswith("- ")]
        assert len(lines) == len(set(lines)), later  # no two lines read the same
        assert '- api prefers: "REST" → "gRPC" (seen, ' in fast["text"]
        assert "- db depends-on: mysql (you said) → (no longer) (" in fast["text"]
        assert ("- cache depends-on: 2 claims in contention — memcached (seen) / redis "
                "(you said)") in fast["text"]
        twins = [ln for ln in lines if "`make step0`" in ln]
        assert len(twins) == 4 and all(" … " in ln for ln in twins), twins
        assert len([ln for ln in twins if "`make extra` runs" in ln]) == 2
    sh.store.close()


def test_a_write_after_the_shortlist_was_stored_makes_every_reader_compile_live(tmp_path):
    sh = build(tmp_path, random.Random(3), 200)
    store_shortlists(sh)
    now = sh.now()
    assert stored_shortlist(sh.store, PROJECT, now) is not None
    sh.store.set_mark("capture:claude-code:s1", {"offset": 10})  # a mark is not a write
    assert stored_shortlist(sh.store, PROJECT, now) is not None
    assert_fact(sh, "api", "x/decided", "keep the REST api", scope=PROJECT)
    later = sh.now() + DAY_MS
    assert stored_shortlist(sh.store, PROJECT, later) is None
    block = compile_for(sh.store, PROJECT, later)["text"]
    assert "keep the REST api" in block
    assert block == compile_for(WholeReads(sh.store), PROJECT, later)["text"]
    store_shortlists(sh)  # the next pass stores it again, with the new decision
    assert [f for f in stored_shortlist(sh.store, PROJECT, later)
            if f["object_lit"] == "keep the REST api"]
    sh.store.close()


def test_a_pass_that_wrote_nothing_keeps_the_stored_shortlists(tmp_path):
    sh = build(tmp_path, random.Random(4), 120)
    assert store_shortlists(sh)["counts"]["stored"] == 2
    again = store_shortlists(sh)["counts"]
    assert (again["stored"], again["current"]) == (0, 2)


def test_storing_the_shortlists_skips_when_a_write_lands_meanwhile(tmp_path, monkeypatch):
    sh = build(tmp_path, random.Random(5), 120)
    from claimgraph.core import briefing as cx
    real = cx.lasting_record

    def with_a_capture_meanwhile(store, project, at, half_life_days):
        record = real(store, project, at, half_life_days)
        assert_fact(sh, "web", "depends-on", f"thing-{project}", scope=PROJECT)
        return record

    monkeypatch.setattr(cx, "lasting_record", with_a_capture_meanwhile)
    assert store_shortlists(sh)["counts"]["written_meanwhile"] == 1
    assert sh.store.get_mark(shortlist_key(PROJECT)) is None


def test_a_record_stored_under_another_meaning_never_holds(tmp_path):
    """A shortlist stored by code whose block shows other facts (another ``meaning``, or
    none: records from before the field) is not read; the next pass stores it again."""
    sh = build(tmp_path, random.Random(6), 150)
    store_shortlists(sh)
    key, now = shortlist_key(PROJECT), sh.now()
    record = sh.store.get_mark(key)
    assert stored_shortlist(sh.store, PROJECT, now) is not None
    for other in ({**record, "meaning": SHORTLIST_MEANING + 1},
                  {k: v for k, v in record.items() if k != "meaning"}):
        sh.store.set_mark(key, other)
        assert stored_shortlist(sh.store, PROJECT, now) is None
        assert compile_for(sh.store, PROJECT, now) == compile_for(WholeReads(sh.store),
                                                                  PROJECT, now)
    assert store_shortlists(sh)["counts"]["stored"] == 1  # github.com/o/b's still holds
    assert stored_shortlist(sh.store, PROJECT, sh.now()) is not None
    sh.store.close()


#: What a claimgraph from before records were kept per meaning stores (one key for every
#: meaning, and the one refresh mark), as an old curator still running on the store would.
LEGACY_KEY, LEGACY_REFRESHED = "context:shortlist:", "curator:shortlists"


def _as_meaning(monkeypatch, meaning: int) -> None:
    """Run what follows as a claimgraph whose block has ``meaning`` (another version)."""
    monkeypatch.setattr(cx, "SHORTLIST_MEANING", meaning)


def test_two_versions_on_one_store_each_keep_and_read_their_own_shortlist(tmp_path,
                                                                          monkeypatch):
    """An upgrade while an old curator still runs, or two virtualenvs on one store: the two
    versions' curators store in turn (and a claimgraph from before records were kept per
    meaning writes its one record too), and each version's hook still finds its own list,
    past the live limit as well; were it one record, each pass would undo the other's and the
    hook would say "not ready" every other session."""
    environ = {"HOME": str(tmp_path), LIVE_LIMIT_ENV: "40"}
    sh = build(tmp_path, random.Random(12), 200)
    cwd = checkout(tmp_path)
    ours, theirs = SHORTLIST_MEANING, SHORTLIST_MEANING + 1
    for round_ in range(3):
        for meaning in (ours, theirs):
            _as_meaning(monkeypatch, meaning)
            assert store_shortlists(sh)["counts"]["stored"] == 2, (round_, meaning)
            sh.store.set_mark(LEGACY_KEY + PROJECT, {  # the old curator's, of its meaning
                **sh.store.get_mark(cx.shortlist_key(PROJECT)), "meaning": ours - 1})
        now = sh.clock()
        for meaning in (theirs, ours):
            _as_meaning(monkeypatch, meaning)
            hook = hook_block(sh, cwd, now, environ, monkeypatch)
            assert hook["shortlist"] == "stored", (round_, meaning)
            assert hook["text"] == live(sh.store, cwd, now, agent="claude-code")["text"]
        # what an old curator lists as its own records: its one key, none of ours
        assert list(sh.store.list_marks(LEGACY_KEY)) == [LEGACY_KEY + PROJECT]
        assert_fact(sh, "api", "x/decided", f"keep plan {round_}", scope=PROJECT)  # stale
    sh.store.close()


def test_each_version_reads_its_own_record_on_every_backend(shell, monkeypatch):
    """The same on every store: a record stored under one meaning is read by that version
    alone, whichever was stored last."""
    for n in range(30):
        assert_fact(shell, f"part{n}", "depends-on", f"lib{n}", scope=PROJECT)
    ours, theirs = SHORTLIST_MEANING, SHORTLIST_MEANING + 1
    now = shell.now()
    for first, second in ((ours, theirs), (theirs, ours)):
        for meaning in (first, second):
            _as_meaning(monkeypatch, meaning)
            record = cx.lasting_record(shell.store, PROJECT, now)
            shell.store.set_mark(cx.shortlist_key(PROJECT),
                                 {**record, "writes": shell.store.write_count()})
        for meaning in (first, second):
            _as_meaning(monkeypatch, meaning)
            found = stored_shortlist(shell.store, PROJECT, now + 1)
            assert found is not None and len(found) == 30, meaning


def test_a_version_whose_curator_stopped_long_ago_leaves_no_shortlists(tmp_path, monkeypatch):
    """Records of another meaning are kept while that version's curator still runs, and go
    (with its refresh mark) once it has not run for ``RETIRE_MS``: a store keeps a shortlist
    per project for each version that curated it within that time, and no more."""
    sh = build(tmp_path, random.Random(13), 150)
    ours, theirs = SHORTLIST_MEANING, SHORTLIST_MEANING + 1
    _as_meaning(monkeypatch, theirs)
    store_shortlists(sh)
    sh.store.set_mark(LEGACY_KEY + PROJECT, {**sh.store.get_mark(cx.shortlist_key(PROJECT)),
                                             "meaning": ours - 1})
    sh.store.set_mark(LEGACY_REFRESHED, {"at": sh.now(), "episodes": 1})
    theirs_keys = set(sh.store.list_marks(f"context:shortlist@{theirs}:"))
    assert len(theirs_keys) == 2
    _as_meaning(monkeypatch, ours)
    store_shortlists(sh)
    before = set(sh.store.list_marks("context:shortlist")) | set(
        sh.store.list_marks("curator:shortlists"))
    assert theirs_keys | {LEGACY_KEY + PROJECT, LEGACY_REFRESHED} < before
    sh.clock.advance_days(RETIRE_MS / DAY_MS - 1)
    store_shortlists(sh)  # the other versions ran within RETIRE_MS: all kept
    assert set(sh.store.list_marks("context:shortlist")) | set(
        sh.store.list_marks("curator:shortlists")) == before
    sh.clock.advance_days(2)
    store_shortlists(sh)
    ours_only = {cx.shortlist_key(PROJECT), cx.shortlist_key("github.com/o/b"),
                 f"curator:shortlists@{ours}"}
    assert set(sh.store.list_marks("context:shortlist")) | set(
        sh.store.list_marks("curator:shortlists")) == ours_only
    assert stored_shortlist(sh.store, PROJECT, sh.now()) is not None
    sh.store.close()


def _back_to_format_7(path: str) -> None:
    """Undo format 8's step on a real file (what a format-7 claimgraph left), and stamp its
    stored shortlists with the store format they would have carried."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER facts_ends_moved")
        conn.execute("DROP INDEX facts_text_keys")
        conn.execute("ALTER TABLE entities DROP COLUMN ends")
        conn.execute("PRAGMA user_version = 7")
    finally:
        conn.close()


def test_a_store_format_upgrade_keeps_the_stored_shortlists(tmp_path):
    """Upgrading the store's format changes no fact and writes nothing the counter counts:
    the shortlists stored before it still give the live block, at once and later."""
    sh = build(tmp_path, random.Random(7), 200)
    store_shortlists(sh)
    path = sh.store.path
    for project in (PROJECT, "github.com/o/b"):
        record = sh.store.get_mark(shortlist_key(project))
        sh.store.set_mark(shortlist_key(project), {**record, "format": 7})
    sh.store.close()
    _back_to_format_7(str(path))
    upgraded = SqliteStore(str(path))  # a writer's open upgrades the file
    assert upgraded.stats()["format"] == 8
    stored_at = upgraded.get_mark(shortlist_key(PROJECT))["at"]
    for later in LATER_MS:
        now = stored_at + later
        for project in (PROJECT, "github.com/o/b"):
            found = gather(upgraded, project, now)
            assert found["stored"], (project, later)
            assert compile_for(upgraded, project, now) == compile_for(
                WholeReads(upgraded), project, now)
    upgraded.close()


def test_past_the_live_limit_nothing_is_compiled_but_a_stored_shortlist_still_is(tmp_path):
    sh = build(tmp_path, random.Random(8), 150)
    now = sh.now()
    heads = sh.store.select_context_heads([PROJECT, "user"], briefing_window_start(now))
    counted = sh.store.count_context_heads([PROJECT, "user"], briefing_window_start(now),
                                           10**6)
    assert counted >= len(heads) > 40  # dormant facts are counted too: never fewer
    assert sh.store.count_context_heads([PROJECT, "user"], briefing_window_start(now),
                                        40) == 40
    over = gather(sh.store, PROJECT, now, live_limit=40)
    assert (over["over_limit"], over["stored"], over["facts"]) == (True, False, [])
    under = gather(sh.store, PROJECT, now, live_limit=counted)
    assert not under["over_limit"] and under["facts"]
    assert under == {**gather(sh.store, PROJECT, now), "over_limit": False}
    store_shortlists(sh)
    kept = gather(sh.store, PROJECT, sh.now(), live_limit=40)
    assert kept["stored"] and not kept["over_limit"] and kept["facts"]
    assert_fact(sh, "api", "x/decided", "keep the REST api", scope=PROJECT)  # now stale
    stale = gather(sh.store, PROJECT, sh.now(), live_limit=40)
    assert (stale["over_limit"], stale["facts"]) == (True, [])
    sh.store.close()


# ``claimgraph context``: the command renders the stored shortlist exactly when the hook would,
# at its own current instant, and compiles live otherwise (never the hook's short block).

REMOTE = "https://github.com/o/a.git"  # the project id github.com/o/a, as PROJECT


def checkout(tmp_path) -> str:
    """A git checkout of PROJECT, with the instruction files each agent loads on its own."""
    root = tmp_path / "checkout"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", REMOTE], check=True,
                   timeout=60)
    for name in ("CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        (root / name).write_text("- Use uv\n")
    return str(root)


class ContextCommand:
    """``claimgraph context --db DB --cwd DIR ...`` run in-process, its clock pinned."""

    def __init__(self, db: str, cwd: str, capsys, monkeypatch) -> None:
        self.db, self.cwd, self.capsys, self.monkeypatch = db, cwd, capsys, monkeypatch

    def __call__(self, now: int, *argv: str) -> tuple[str, str]:
        self.capsys.readouterr()
        with self.monkeypatch.context() as pinned:
            pinned.setattr(Shell, "now", lambda _self: now)
            code = cli_main(["context", "--db", self.db, "--cwd", self.cwd, *argv])
        captured = self.capsys.readouterr()
        assert code == 0, captured.err
        return captured.out, captured.err

    def json(self, now: int, *argv: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self(now, "--json", *argv)[0])
        return data


def live(store: SqliteStore, cwd: str, now: int, budget: int = 10_000, agent: str | None = None,
         half_life_days: float = 90.0) -> dict[str, Any]:
    """The block a full read compiles at ``now``, as ``claimgraph context --json`` prints it
    (less the path it took)."""
    loaded = files_loaded(agent, cwd, cwd) if agent else frozenset()
    found = compile_for(WholeReads(store), PROJECT, now, budget, half_life_days, loaded)
    shown: dict[str, Any] = jsonable({**found, "source": "remote"})
    return shown


def _same_as_live(command: ContextCommand, sh: Shell, cwd: str, now: int,
                  path: str | None) -> int:
    """Every option of the command at ``now`` against a full read; how many stances the
    agents' own files left out. ``path``: the one the command must have taken (None: any)."""
    left_out = 0
    for budget, agent in itertools.product((10_000, 1_500), (None, "claude-code", "codex")):
        argv = ["--budget", str(budget)] + (["--agent", agent] if agent else [])
        expected = live(sh.store, cwd, now, budget, agent)
        data = command.json(now, *argv)
        assert path in (None, data["shortlist"]), (now, argv, data["shortlist"])
        assert {k: v for k, v in data.items() if k != "shortlist"} == expected, (now, argv)
        out, err = command(now, *argv)
        assert out == expected["text"] + "\n", (now, argv)  # the block, byte for byte
        assert err.startswith(f"context for {PROJECT}: ")
        left_out += data["read_anyway"]
    return left_out


@pytest.mark.parametrize("seed_value", range(3))
def test_the_context_command_prints_the_live_block_from_the_stored_shortlist(
        tmp_path, capsys, monkeypatch, seed_value):
    sh = build(tmp_path, random.Random(seed_value), 260)
    store_shortlists(sh)
    cwd = checkout(tmp_path)
    command = ContextCommand(str(sh.store.path), cwd, capsys, monkeypatch)
    stored_at = sh.store.get_mark(shortlist_key(PROJECT))["at"]
    left_out = 0
    for later in LATER_MS + [120 * DAY_MS, 400 * DAY_MS]:
        path = "stored" if later in LATER_MS else None  # past the list's life: either
        left_out += _same_as_live(command, sh, cwd, stored_at + later, path)
    assert left_out > 0  # the agents' own rules were there to leave out
    sh.store.close()


def test_the_context_command_never_prints_a_shortlist_a_write_made_stale(
        tmp_path, capsys, monkeypatch):
    sh = build(tmp_path, random.Random(3), 200)
    store_shortlists(sh)
    cwd = checkout(tmp_path)
    command = ContextCommand(str(sh.store.path), cwd, capsys, monkeypatch)
    assert command.json(sh.clock())["shortlist"] == "stored"
    assert_fact(sh, "api", "x/decided", "keep the REST api", scope=PROJECT)
    later = sh.clock() + DAY_MS
    monkeypatch.setenv(LIVE_LIMIT_ENV, "1")  # the hook would print its short block here
    data = command.json(later)
    assert data["shortlist"] == "live" and "keep the REST api" in data["text"]
    assert {k: v for k, v in data.items() if k != "shortlist"} == live(sh.store, cwd, later)
    store_shortlists(sh)  # the next pass stores the list again, with the new decision
    again = command.json(later)
    assert again["shortlist"] == "stored" and again["text"] == data["text"]
    sh.store.close()


def test_the_context_command_compiles_live_once_the_stored_list_runs_out(
        tmp_path, capsys, monkeypatch):
    """A record whose life ended is not read: were it read, the block would miss the
    decision this test takes out of it (it does, while the record still holds)."""
    sh = build(tmp_path, random.Random(4), 200)
    store_shortlists(sh)
    cwd = checkout(tmp_path)
    command = ContextCommand(str(sh.store.path), cwd, capsys, monkeypatch)
    key = shortlist_key(PROJECT)
    record = sh.store.get_mark(key)
    at = record["at"]
    shown = live(sh.store, cwd, at + 1)["text"]
    decision = next(f for f in gather(WholeReads(sh.store), PROJECT, at + 1)["facts"]
                    if f["predicate"] == "x/decided" and f.get("t_invalid") is None
                    and f["object_lit"] in shown)
    ids = [i for i in record["ids"] if i != decision["id"]]
    sh.store.set_mark(key, {**record, "ids": ids, "until": at + 3_600_000})  # not a write
    within = command.json(at + 60_000)
    assert within["shortlist"] == "stored"
    assert within["text"] != live(sh.store, cwd, at + 60_000)["text"]  # the list it read
    after = command.json(at + 2 * 3_600_000)
    assert after["shortlist"] == "live"
    assert {k: v for k, v in after.items() if k != "shortlist"} == live(
        sh.store, cwd, at + 2 * 3_600_000)
    sh.store.close()


def test_a_configured_half_life_compiles_the_context_command_live(tmp_path, capsys,
                                                                   monkeypatch):
    """The list was stored for the default half-life; another one (here given to the command
    alone) ranks the facts differently, so ``claimgraph context`` under it compiles live."""
    sh = build(tmp_path, random.Random(5), 200)
    store_shortlists(sh)
    cwd = checkout(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text("half_life_days = 30\n")
    command = ContextCommand(str(sh.store.path), cwd, capsys, monkeypatch)
    now = sh.clock() + 7 * DAY_MS
    assert command.json(now)["shortlist"] == "stored"
    data = command.json(now, "--config", str(config))
    assert data["shortlist"] == "live"
    assert {k: v for k, v in data.items() if k != "shortlist"} == live(
        sh.store, cwd, now, half_life_days=30.0)
    sh.store.close()


def configure(tmp_path, half_life_how: str, budget_how: str, half_life: float = 20.0,
              budget: int = 1500) -> dict[str, str]:
    """The environment that sets ``half_life_days`` and ``context_budget_chars`` each ``how``:
    not at all ("default"), in the config file ("file", written long ago:
    ``configured.SETTLED_NS``) or in the environment ("env"); the command reads them from
    ``os.environ``, the hook and the curator from this."""
    config = tmp_path / "config.toml"
    config.write_text('llm_cmd = "claude -p"\n'
                      + (f"half_life_days = {half_life}\n" if half_life_how == "file" else "")
                      + (f"context-budget-chars = {budget}\n" if budget_how == "file" else ""))
    written = config.stat().st_mtime_ns - 10 * SETTLED_NS
    os.utime(config, ns=(written, written))
    environ = {"HOME": str(tmp_path), "CLAIMGRAPH_CONFIG": str(config)}
    if half_life_how == "env":
        environ[env_var(HALF_LIFE_SETTING)] = str(half_life)
    if budget_how == "env":
        environ["CLAIMGRAPH_CONTEXT_BUDGET_CHARS"] = str(budget)
    return environ


def hook_block(sh: Shell, cwd: str, now: int, environ: dict[str, str],
               monkeypatch) -> dict[str, Any]:
    """What the SessionStart hook compiles at ``now`` in ``environ``."""
    monkeypatch.setattr(session_start, "time", _Pinned(now))
    return session_start.compile_block(str(sh.store.path), cwd, environ, "claude-code")


@pytest.mark.parametrize("half_life_how, budget_how", [
    ("default", "default"), ("file", "file"), ("env", "env"), ("file", "env"),
    ("env", "file"), ("default", "file"), ("default", "env")])
def test_the_context_command_prints_what_the_hook_injects_at_the_same_instant(
        tmp_path, capsys, monkeypatch, half_life_how, budget_how):
    """With ``half_life_days`` and ``context_budget_chars`` set or not, in the file or the
    environment, the hook renders the list the curator stored and prints the command's bytes;
    a set half-life or budget gives a block other than the default's, so a hook that ignored
    either would fail here."""
    half_life = 90.0 if half_life_how == "default" else 20.0
    budget = 10_000 if budget_how == "default" else 1500
    environ = configure(tmp_path, half_life_how, budget_how)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    sh = build(tmp_path, random.Random(6), 200)
    curator = Shell(store=sh.store, clock=sh.clock, half_life_days=half_life)
    store_shortlists(curator, environ)
    assert sh.store.get_mark(shortlist_key(PROJECT))["half_life"] == half_life
    cwd = checkout(tmp_path)
    command = ContextCommand(str(sh.store.path), cwd, capsys, monkeypatch)
    for now in (sh.clock(), sh.clock() + 7 * DAY_MS):
        hook = hook_block(sh, cwd, now, environ, monkeypatch)
        assert hook["shortlist"] == "stored" and not hook["setting_changed"]
        out, _ = command(now, "--agent", "claude-code")
        assert out == hook["text"] + "\n"
        expected = live(sh.store, cwd, now, budget, "claude-code", half_life)
        assert hook["text"] == expected["text"] and hook["chars"] <= budget
        default = live(sh.store, cwd, now, agent="claude-code")["text"]
        assert len(default) > 1500  # so a budget of 1500 cuts it
        assert (hook["text"] == default) is (half_life_how == budget_how == "default")
        uncut = live(sh.store, cwd, now, 10_000, "claude-code", half_life)["text"]
        assert (hook["text"] == uncut) is (budget_how == "default")
    sh.store.close()


def test_a_changed_config_file_is_read_as_last_read_until_the_next_pass(
        tmp_path, capsys, monkeypatch):
    """The file changed since the curator read it: the hook cannot tell the new half-life and
    budget without parsing it, so it uses the ones the curator read last (the command, which
    parses it, compiles live with the new ones); the next pass stamps the new file and stores
    lists for its half-life, and both agree again."""
    environ = configure(tmp_path, "file", "file", 20.0, 1500)
    monkeypatch.setenv("CLAIMGRAPH_CONFIG", environ["CLAIMGRAPH_CONFIG"])
    sh = build(tmp_path, random.Random(7), 200)
    store_shortlists(Shell(store=sh.store, clock=sh.clock, half_life_days=20.0), environ)
    cwd = checkout(tmp_path)
    command = ContextCommand(str(sh.store.path), cwd, capsys, monkeypatch)
    now = sh.clock() + DAY_MS
    assert hook_block(sh, cwd, now, environ, monkeypatch)["shortlist"] == "stored"
    config = tmp_path / "config.toml"
    config.write_text("half_life_days = 45\ncontext_budget_chars = 3000\n")
    hook = hook_block(sh, cwd, now, environ, monkeypatch)
    assert hook["setting_changed"] and hook["shortlist"] == "stored"  # still the 20-day list
    assert hook["text"] == live(sh.store, cwd, now, 1500, "claude-code", 20.0)["text"]
    data = command.json(now)
    assert data["shortlist"] == "live"
    assert data["text"] == live(sh.store, cwd, now, 3000, half_life_days=45.0)["text"]
    written = config.stat().st_mtime_ns - 10 * SETTLED_NS  # as a pass a while later finds it
    os.utime(config, ns=(written, written))
    store_shortlists(Shell(store=sh.store, clock=sh.clock, half_life_days=45.0), environ)
    hook = hook_block(sh, cwd, now, environ, monkeypatch)
    assert hook["shortlist"] == "stored" and not hook["setting_changed"]
    assert command(now, "--agent", "claude-code")[0] == hook["text"] + "\n"
    assert hook["text"] == live(sh.store, cwd, now, 3000, "claude-code", 45.0)["text"]
    assert command.json(now)["shortlist"] == "stored"
    sh.store.close()


class _Pinned:
    """The hook's ``time`` module with its wall clock pinned at ``now`` (milliseconds)."""

    def __init__(self, now: int) -> None:
        self._now = now

    def time_ns(self) -> int:
        return self._now * 1_000_000

    @staticmethod
    def monotonic() -> float:
        return time.monotonic()
