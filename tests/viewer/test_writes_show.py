"""A write shows on the next load of a page, on SQLite and on PostgreSQL (issue 24 item 7).

The viewer keeps pages and placements by the store's state (``Source.state``: its write
counter, on every backend) and reads through stores it keeps open (``viewer.source.Stores``).
On PostgreSQL the state was read from the store file's size and modification time, which a
server store does not have (its local stand-in never changes), so a kept page hid a write
until it aged out; and a kept connection must see every commit a new one would.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from starlette.testclient import TestClient

from claimgraph import location
from claimgraph.opening import open_store
from claimgraph.viewer.app import create_app
from claimgraph.viewer.source import Source, Stores

TOKEN = "t" * 32
NOW = 1_800_000_000_000
PROJECT = "proj"


def fact(i: int, value: str, **fields: Any) -> dict:
    return {"id": f"f-{i:04d}", "subject": "e-1", "predicate": "core/prefers",
            "object_kind": "literal", "object_lit": value, "t_valid": NOW - 1000,
            "recorded_at": NOW - 1000, "confidence": 0.8, "epistemic": "observation",
            "scope": PROJECT, "source_type": "session-log", "evidence": [], **fields}


def build(store: Any, n: int = 30) -> None:
    with store.transaction():
        store.insert_entity({"id": "e-1", "name": "api", "scope": PROJECT, "type": "module"})
        store.insert_facts(fact(i, f"first-{i}") for i in range(n))


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path):
    if request.param == "postgres":
        found = location.resolve(request.getfixturevalue("pg_url"))
    else:
        found = tmp_path / "claims.db"
    store = open_store(found)
    build(store)
    store.close()
    return found


def client_for(source: Source) -> TestClient:
    return TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1:8731")


def page(client: TestClient, **params: str) -> str:
    answer = client.get(f"/{TOKEN}/project", params={"id": PROJECT, **params})
    assert answer.status_code == 200, answer.text[:500]
    return answer.text


def write(db: Any, *facts: dict) -> None:
    store = open_store(db)
    try:
        with store.transaction():
            store.insert_facts(facts)
    finally:
        store.close()


def test_a_write_shows_on_the_next_load_of_the_same_page(db):
    source = Source(db, clock=lambda: NOW)
    with client_for(source) as client:
        for params in ({}, {"predicate": "core/prefers"}):
            assert "brand-new-value" not in page(client, **params)
        before = source.state()
        write(db, fact(900, "brand-new-value"))
        assert source.state() != before
        for params in ({}, {"predicate": "core/prefers"}):  # the same URLs: kept pages
            assert "brand-new-value" in page(client, **params)
        write(db, fact(901, "another-new-value"))
        assert "another-new-value" in page(client)
    assert source.stores.opened >= 1  # the reads went through kept stores
    source.close()


def test_a_write_shows_on_the_next_step_of_time_travel(db):
    """The timeline kept per store state (its instants and counts) is not the one of before
    a write: a new fact's instant is on the slider and counted at the next step."""
    source = Source(db, clock=lambda: NOW)

    def step(at: int) -> str:
        answer = client.get(f"/{TOKEN}/asof", params={"id": PROJECT, "at": str(at)})
        assert answer.status_code == 200, answer.text[:500]
        return answer.text
    with client_for(source) as client:
        assert 'data-total="30"' in step(NOW - 10) and 'data-total="30"' in step(NOW - 20)
        write(db, fact(900, "brand-new-value", t_valid=NOW - 15))
        later, earlier = step(NOW - 10), step(NOW - 20)
    assert 'data-total="31"' in later and "brand-new-value" in later
    assert str(NOW - 15) in later and 'data-total="30"' in earlier
    source.close()


def test_the_state_moves_with_every_write_and_only_then(db):
    source = Source(db, clock=lambda: NOW)
    first = source.state()
    assert source.state() == first
    write(db, fact(950, "x"))
    second = source.state()
    assert second != first
    assert source.state() == second
    source.close()


def test_a_kept_store_is_opened_anew_when_the_file_is_replaced(tmp_path):
    db, other = tmp_path / "claims.db", tmp_path / "other.db"
    for path, value in ((db, "kept-file-value"), (other, "replacing-file-value")):
        store = open_store(path)
        build(store, n=0)
        store.close()
        write(path, fact(1, value))
    source = Source(db, clock=lambda: NOW)
    with client_for(source) as client:
        assert "kept-file-value" in page(client)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{other}{suffix}"):
                os.replace(f"{other}{suffix}", f"{db}{suffix}")
        shown = page(client)
        assert "replacing-file-value" in shown and "kept-file-value" not in shown
    source.close()


def test_a_store_that_failed_is_closed_not_kept(tmp_path):
    db = tmp_path / "claims.db"
    store = open_store(db)
    build(store)
    store.close()
    stores = Stores(kept=2)
    source = Source(db, stores=stores)
    with pytest.raises(RuntimeError):
        with source.shell(kept_open=True):
            raise RuntimeError("a read failed")
    with source.shell(kept_open=True) as sh:
        assert sh.store.write_count() >= 1
    assert stores.opened == 2  # the failed one was not lent again
    with source.shell(kept_open=True):
        pass
    assert stores.opened == 2
    source.close()


def test_kept_stores_are_closed_once_old_in_use_or_waiting(tmp_path):
    db = tmp_path / "claims.db"
    store = open_store(db)
    build(store)
    store.close()
    clock = [0.0]
    stores = Stores(kept=2, max_age_s=5.0, clock=lambda: clock[0])
    source = Source(db, stores=stores)
    with source.shell(kept_open=True):
        pass
    with source.shell(kept_open=True):  # lent again while young
        pass
    assert stores.opened == 1
    clock[0] = 6.0
    stores.sweep()  # waiting and old: closed
    with source.shell(kept_open=True):
        clock[0] = 12.0  # old by the time it comes back: closed, not kept
    assert stores.opened == 2
    clock[0] = 12.5
    with source.shell(kept_open=True):
        pass
    assert stores.opened == 3
    source.close()
