"""A stance told as one change competes among the current facts; the block read from the
shortlist (live, or stored by the curator) is still the block read whole.

Light rows carry neither the object nor the evidence that ``logic.one_change`` reads, so the
shortlist keeps such a stance whole (as it keeps every standing one) and ``plan`` decides:
these tests build real SQLite stores where such stances win, lose and tie for ranked places.
"""

from __future__ import annotations

import itertools
import random

import pytest

from claimgraph.core import Shell
from claimgraph.core.briefing import compile_for, shortlist_key, stored_shortlist
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.store.sqlite import SqliteStore

from .conftest import SteppingClock
from .test_briefing_shortlist import PROJECT, WholeReads, store_shortlists

MADE = "transcript#L5: asked and done: view.ts"


def build(tmp_path, rng: random.Random) -> Shell:
    counter = itertools.count(1)
    clock = SteppingClock()
    sh = Shell(store=SqliteStore(str(tmp_path / "claims.db")), clock=clock,
               new_id=lambda p: f"{p}-{next(counter):05d}")
    seed(sh)
    for n in range(90):
        if rng.random() < 0.1:
            clock.advance_days(rng.choice([1, 20, 45]))
        assert_fact(sh, rng.choice(["api", "web", "db"]), rng.choice(["depends-on", "tested-by"]),
                    f"thing{n}", scope=PROJECT, source_type="session-log",
                    confidence=rng.choice([0.6, 0.7, 0.8, 0.9]))
    for n in range(12):
        lasting = rng.random() < 0.4
        text = (f"fold panel {n} by default" if lasting else f"I'd like to support format {n}")
        assert_fact(sh, rng.choice(["api", "web"]), "x/decided", text, scope=PROJECT,
                    source_type="user-assertion", epistemic="commitment",
                    confidence=rng.choice([0.6, 0.7, 0.8]),
                    evidence=[f"transcript#L3: {text}", MADE])
    return sh


def _decisions(text: str) -> str:
    return text.split("### Standing decisions")[1].split("###")[0]


@pytest.mark.parametrize("seed_value", range(4))
def test_one_change_stances_rank_among_current_facts_and_the_shortlist_stays_exact(
        tmp_path, seed_value):
    sh = build(tmp_path, random.Random(seed_value))
    whole = WholeReads(sh.store)
    now = sh.now()
    fast = compile_for(sh.store, PROJECT, now)
    assert fast == compile_for(whole, PROJECT, now)
    decisions = _decisions(fast["text"])
    assert "I'd like to support" not in decisions and "by default" in decisions
    assert "I'd like to support format" in fast["text"].split("### Current facts")[1]
    assert fast["sections"]["current"]["total"] == 50  # more compete for the capped places
    for budget in (10_000, 2_000):
        for later in (0, 10 * DAY_MS, 200 * DAY_MS):
            at = now + later
            assert compile_for(sh.store, PROJECT, at, budget) == compile_for(
                whole, PROJECT, at, budget), (later, budget)
    sh.store.close()


@pytest.mark.parametrize("seed_value", range(3))
def test_the_stored_shortlist_gives_the_live_block_with_one_change_stances(tmp_path,
                                                                          seed_value):
    sh = build(tmp_path, random.Random(10 + seed_value))
    assert store_shortlists(sh)["counts"]["stored"] == 1
    whole = WholeReads(sh.store)
    stored_at = sh.store.get_mark(shortlist_key(PROJECT))["at"]
    for later in (0, DAY_MS, 30 * DAY_MS, 120 * DAY_MS):
        now = stored_at + later
        if later <= DAY_MS:
            assert stored_shortlist(sh.store, PROJECT, now) is not None
        assert compile_for(sh.store, PROJECT, now) == compile_for(whole, PROJECT, now), later
    sh.store.close()
