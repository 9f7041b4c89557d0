"""Two writers' values of a single-valued predicate become an open conflict at the next
consolidate pass, on every backend the sweep reads from: SQLite's SQL pool, the protocol-only
fallback (any store without it) and PostgreSQL (docs/conflicts.md, "Two writers")."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from claimgraph import location
from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.curator.consolidate import consolidate
from claimgraph.curator.stage_tools import Fence, StageTools
from claimgraph.logic.conflicts import open_conflicts
from claimgraph.logic.names import object_name
from claimgraph.opening import open_store

from .test_incremental import ProtocolOnly

START = 1_800_000_000_000
MINUTE = 60_000
ADA = "sync:w-ada"


@pytest.fixture(params=["sqlite", "protocol-only", "postgres"])
def world(request: pytest.FixtureRequest, tmp_path: Any):
    """A seeded shell on the backend, its location for the fence, and a settable clock."""
    if request.param == "postgres":
        db: Any = location.resolve(request.getfixturevalue("pg_url"))
    else:
        db = tmp_path / "claims.db"
    clock, counter = [START], itertools.count()
    store = open_store(db)
    sh = Shell(ProtocolOnly(store) if request.param == "protocol-only" else store,
               clock=lambda: clock[0], new_id=lambda prefix: f"{prefix}-{next(counter):06d}")
    seed(sh)
    yield sh, db, clock
    store.close()


def consolidate_once(sh: Shell, db: Any) -> dict[str, Any]:
    return consolidate(StageTools(sh, Fence(db, None), "cur-test", False))["counts"]


def from_teammate(sh: Shell, ours: dict[str, Any], value: str, later_ms: int,
                  source: str = ADA) -> str:
    """The row a sync applies for a teammate's assertion: as written, never re-decided here.
    An entity object gets an entity of its own, as the teammate's insert-entity brings it."""
    other: dict[str, Any] = {"object_lit": value}
    if ours["object_kind"] == "entity":
        entity = {"id": sh.new_id("e"), "name": value, "type": None, "scope": ours["scope"],
                  "aliases": []}
        with sh.store.transaction():
            sh.store.insert_entity(entity)
        other = {"object_ref": entity}
    fact = {**ours, **other, "id": sh.new_id("f"), "source_type": source,
            "recorded_at": ours["recorded_at"] + later_ms, "t_valid": ours["t_valid"] + later_ms,
            "last_reinforced_at": ours["recorded_at"] + later_ms, "conflicts": []}
    with sh.store.transaction():
        sh.store.insert_fact(fact)
    return fact["id"]


def open_pairs(sh: Shell) -> list[tuple[str, str]]:
    facts = sh.store.select_facts(conflicted=True)
    every = {f["id"]: f for f in sh.store.select_facts(valid_cheap=True)}
    return sorted((object_name(p["fact"]), object_name(p["candidate"]))
                  for p in open_conflicts(facts, every, sh.now()))


def test_a_teammates_other_version_is_an_open_conflict_after_one_pass(world):
    sh, db, clock = world
    ours = assert_fact(sh, "billing", "has-version", "2.0", scope="p")["fact"]
    from_teammate(sh, ours, "1.0", later_ms=1)
    clock[0] += MINUTE
    assert consolidate_once(sh, db)["conflicts_linked"] == 1
    assert open_pairs(sh) == [("1.0", "2.0")]
    assert len(sh.store.select_facts(valid_cheap=True, predicates=["core/has-version"])) == 2, \
        "flagged, never superseded: both stand until a person settles it"
    assert consolidate_once(sh, db)["conflicts_linked"] == 0  # swept once ever


def test_defined_in_and_has_status_are_swept_like_has_version(world):
    sh, db, clock = world
    where = assert_fact(sh, "Billing", "defined-in", "billing.py", scope="p")["fact"]
    status = assert_fact(sh, "ADR-7", "has-status", "accepted", scope="p")["fact"]
    from_teammate(sh, where, "payments.py", later_ms=1)
    from_teammate(sh, status, "superseded", later_ms=1)
    clock[0] += MINUTE
    assert consolidate_once(sh, db)["conflicts_linked"] == 2
    assert open_pairs(sh) == [("payments.py", "billing.py"), ("superseded", "accepted")]


def test_one_writers_kept_values_and_two_writers_agreeing_stay_unlinked(world):
    sh, db, clock = world
    first = assert_fact(sh, "billing", "has-version", "1.0", scope="p")["fact"]
    clock[0] += 1
    kept = assert_fact(sh, "billing", "has-version", "2.0", scope="p", on_conflict="ignore")
    assert kept["status"] == "created"  # the user said to keep both: a change, not a conflict
    from_teammate(sh, first, "1.0", later_ms=2)  # Ada agrees with one of ours
    clock[0] += MINUTE
    assert consolidate_once(sh, db)["conflicts_linked"] == 0
    assert open_pairs(sh) == []


def test_our_newer_version_still_supersedes_our_old_one(world):
    """Within one writer the write path decides, as before: the old value is retired."""
    sh, _db, clock = world
    assert_fact(sh, "billing", "has-version", "1.0", scope="p")
    clock[0] += 1
    assert assert_fact(sh, "billing", "has-version", "2.0", scope="p")["status"] == "superseded"
    valid = sh.store.select_facts(valid_cheap=True, predicates=["core/has-version"])
    assert [f["object_lit"] for f in valid if f["t_invalid"] is None] == ["2.0"]


def test_a_teammates_fact_arriving_after_a_pass_is_swept_by_the_next_incremental_one(tmp_path):
    """A synced fact names no episode of ours, so the episode feed alone never shows it: the
    watermark also says where the fact table ended (SQLite numbers its facts; sync is SQLite's)."""
    clock, counter = [START], itertools.count()
    store = open_store(tmp_path / "claims.db")
    sh = Shell(store, clock=lambda: clock[0], new_id=lambda prefix: f"{prefix}-{next(counter):06d}")
    try:
        seed(sh)
        ours = assert_fact(sh, "billing", "has-version", "2.0", scope="p")["fact"]
        prefers = assert_fact(sh, "api", "prefers", "REST", scope="p")["fact"]
        clock[0] += MINUTE
        first = consolidate_once(sh, tmp_path / "claims.db")
        assert (first["mode"], first["conflicts_linked"]) == ("full", 0)
        from_teammate(sh, ours, "1.4", later_ms=1)
        from_teammate(sh, prefers, "gRPC", later_ms=1)
        clock[0] += 11 * MINUTE  # past the look-back window: incremental
        counts = consolidate_once(sh, tmp_path / "claims.db")
        assert (counts["mode"], counts["conflicts_linked"]) == ("incremental", 2)
        assert open_pairs(sh) == [("1.4", "2.0"), ("gRPC", "REST")]
        clock[0] += 11 * MINUTE
        quiet = consolidate_once(sh, tmp_path / "claims.db")
        assert (quiet["mode"], quiet["facts_scanned"]) == ("incremental", 0)  # nothing new
    finally:
        store.close()
