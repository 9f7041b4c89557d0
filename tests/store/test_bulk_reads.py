"""Reads of many facts at once (issue 29, whole-store reads): the ends of every fact come from
one statement however many entities the read names (never a statement per fact, whatever the
entity cache holds), an end whose entity row is gone is hydrated as a dangling entity, each
fact's ends are copies of their own, and the garbage collector paused while the facts are
built (``store.bulk``) is left as the caller had it."""

from __future__ import annotations

import gc
import sqlite3
from typing import Any, Iterator

import pytest

from claimgraph.store import sqlite as sqlite_module
from claimgraph.store.bulk import collector_paused
from claimgraph.store.sqlite import SqliteStore

from .store_helpers import entity, fact


@pytest.fixture
def traced(tmp_path: Any) -> Iterator[tuple[SqliteStore, list[str]]]:
    """A SQLite file store of 12 entities and 30 facts naming them, and the statements its
    connection runs from then on."""
    store = SqliteStore(str(tmp_path / "claims.db"))
    for n in range(12):
        entity(store, f"e-{n:02d}", f"part {n}", aliases=[f"p{n}"])
    store.insert_facts(fact(f"f-{k:02d}", f"e-{k % 12:02d}", ref=f"e-{(k * 5 + 1) % 12:02d}",
                            t_valid=1000 + k % 4) for k in range(30))
    statements: list[str] = []
    connection: sqlite3.Connection = store._db._conn
    connection.set_trace_callback(lambda sql: statements.append(" ".join(sql.split())))
    yield store, statements
    connection.set_trace_callback(None)
    store.close()


def _entity_reads(statements: list[str]) -> list[str]:
    return [s for s in statements if " FROM entities" in s and "SELECT id, name" in s]


def test_a_read_naming_more_entities_than_the_cache_holds_asks_for_them_once(traced,
                                                                             monkeypatch):
    store, statements = traced
    monkeypatch.setattr(sqlite_module, "_ENTITY_CACHE_MAX", 3)  # smaller than the read
    store._entities.clear()
    facts = store.select_facts()
    assert [f["id"] for f in facts] == sorted(
        (f"f-{k:02d}" for k in range(30)), key=lambda i: (1000 + int(i[2:]) % 4, i))
    for f in facts:
        k = int(f["id"][2:])
        assert f["subject"] == {"id": f"e-{k % 12:02d}", "name": f"part {k % 12}",
                                "type": "module", "scope": "proj", "aliases": [f"p{k % 12}"]}
        assert f["object_ref"]["id"] == f"e-{(k * 5 + 1) % 12:02d}"
        assert f["object_ref"]["name"] == f"part {(k * 5 + 1) % 12}"
    assert len(_entity_reads(statements)) == 1, _entity_reads(statements)


def test_cached_ends_are_not_asked_for_again(traced):
    store, statements = traced
    store.select_facts()
    del statements[:]
    store.select_facts(scopes=["proj"])
    assert _entity_reads(statements) == []


def test_an_end_whose_entity_row_is_gone_is_dangling_and_asked_for_once(traced, tmp_path):
    store, statements = traced
    raw = sqlite3.connect(str(tmp_path / "claims.db"))  # foreign keys off: the row can go
    with raw:
        raw.execute("DELETE FROM entity_aliases WHERE entity_id = 'e-00'")
        raw.execute("DELETE FROM entities WHERE id = 'e-00'")
    raw.close()
    store._entities.clear()
    del statements[:]
    facts = {f["id"]: f for f in store.select_facts()}
    assert facts["f-00"]["subject"] == {"id": "e-00", "name": None, "type": None,
                                        "scope": None, "aliases": []}
    assert facts["f-12"]["subject"]["name"] is None  # the same gone row, on another fact
    assert facts["f-01"]["subject"]["name"] == "part 1"
    assert len(_entity_reads(statements)) == 1, _entity_reads(statements)


def test_each_fact_holds_its_own_copy_of_an_end(traced):
    store, _ = traced
    facts = [f for f in store.select_facts() if f["subject"]["id"] == "e-01"]
    assert len(facts) > 1
    facts[0]["subject"]["aliases"].append("changed")
    facts[0]["subject"]["name"] = "changed"
    assert facts[1]["subject"] == {"id": "e-01", "name": "part 1", "type": "module",
                                   "scope": "proj", "aliases": ["p1"]}
    assert store.get_entity_by_id("e-01")["aliases"] == ["p1"]
    assert store.select_facts(ids=[facts[0]["id"]])[0]["subject"]["name"] == "part 1"


def test_the_collector_is_paused_inside_and_on_again_after():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with collector_paused():
            raise RuntimeError("a read failed midway")
    assert gc.isenabled()


def test_a_caller_that_turned_the_collector_off_keeps_it_off():
    gc.disable()
    try:
        with collector_paused():
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_read_leaves_the_collector_as_it_found_it(store):
    entity(store, "e-1", "core")
    store.insert_fact(fact("f-1", "e-1", lit="x"))
    assert [f["id"] for f in store.select_facts()] == ["f-1"]
    assert gc.isenabled()
    gc.disable()
    try:
        assert [f["id"] for f in store.select_facts()] == ["f-1"]
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_batch_paused_while_another_thread_reads_never_leaves_the_collector_off(monkeypatch):
    """A batch (``core.ingest``) and a bulk read pause the one process-wide collector, from
    the MCP server's or the viewer's threads at once. A pause that finds it off leaves it
    alone: had it turned it off again after the other's pause ended just after it looked,
    nobody would turn it back on for the rest of the process (injected here: the other
    thread's pause ends between the look and the switch)."""
    from claimgraph.core import ingest

    real = gc.isenabled

    def looked_then_released() -> bool:
        found = real()
        gc.enable()  # the other thread's pause ends right after this one looked
        return found

    gc.disable()  # the other thread's pause
    try:
        monkeypatch.setattr(gc, "isenabled", looked_then_released)
        with ingest.collector_paused():
            pass
        monkeypatch.undo()
        assert gc.isenabled()
    finally:
        gc.enable()
