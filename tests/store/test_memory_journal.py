"""A transaction that fails leaves nothing of any kind of write, on every backend.

The memory store rolls back with an undo journal (``store.memory_journal``): each row's value
before its first change. A write the journal did not see would survive a rollback there and
nowhere else. So one transaction here makes every kind of write the Store protocol has, each
onto rows that exist and rows it adds, then fails; what every read says afterwards, and on
the memory store its tables themselves (their order of keys too), must be what they were. The
list of writes is checked against the memory store's methods: a new method is either a read
named here or a write this test makes, or the test fails.
"""

from __future__ import annotations

import copy

import pytest

from claimgraph.store.fact_rows import fact_row
from claimgraph.store.memory import MemoryStore

from .store_helpers import entity, fact

#: MemoryStore's public methods that write, each made below.
WRITES = {
    "insert_entity", "insert_entities", "update_entity", "repoint_facts", "delete_entity",
    "insert_fact", "insert_facts", "insert_fact_rows", "repoint_predicate", "invalidate",
    "link_conflicts", "unlink_conflicts", "reinforce", "set_dormant", "revive",
    "record_audit", "open_episode", "close_episode", "update_episode", "register_predicate",
    "set_mark", "delete_facts", "delete_episodes", "delete_marks",
}
#: Housekeeping outside any transaction (SQLite cannot VACUUM in one); no row changes.
HOUSEKEEPING = {"compact", "truncate_wal"}
#: Its methods that only read (or hold no state: ``transaction``, ``close``).
READS = {
    "all_facts", "check_integrity", "close", "dormant_fact_ids", "entity_usage",
    "episode_members", "episode_neighbours", "find_entities", "find_entities_many",
    "get_audit", "get_entity", "get_entity_by_id", "get_episode", "get_episode_by_ref",
    "get_fact", "get_fact_heads_for", "get_facts", "get_facts_by_ids", "get_facts_for",
    "get_history", "get_mark", "get_predicate", "is_empty", "list_entities", "list_episodes",
    "list_marks", "list_predicates", "predicate_usage", "rank_words", "scope_counts", "search",
    "search_facts", "select_facts", "stats", "suspect_fact_ids", "transaction", "write_count",
}


def verdict(fact_id: str, evidence: str = "src/a.py: `alpha`", **fields):
    return {"fact_id": fact_id, "evidence": evidence, "file": "src/a.py",
            "verdict": "supported", "reason": None, "content_hash": "sha256-aa",
            "checked_at": 100, "details": {"found": ["alpha"], "missing": []}, **fields}


def populate(store) -> None:
    """A little of everything, every table holding rows the failed transaction changes."""
    entity(store, "e-a", "Alpha", aliases=["a1"])
    entity(store, "e-b", "Beta")
    entity(store, "e-c", "Gamma")
    entity(store, "e-spare", "Spare")
    store.insert_facts([
        fact("f-1", "e-a", ref="e-b", t_valid=100, episode="ep-1"),
        fact("f-2", "e-a", "core/prefers", lit="uv", t_valid=200, episode="ep-1"),
        fact("f-3", "e-b", "core/uses", lit="redis", t_valid=300),
        fact("f-4", "e-c", "core/uses", lit="kafka", t_valid=400),
    ])
    store.link_conflicts("f-3", ["f-4"])
    store.insert_facts([fact("f-5", "e-c", "core/runs", lit="nats", t_valid=450)])
    store.link_conflicts("f-5", ["f-4"])  # changed only by the deletion of f-4 below
    store.set_dormant(["f-2"], 500)
    store.open_episode({"id": "ep-1", "ref": "claude:s1@0-10", "opened_at": 5})
    store.open_episode({"id": "ep-2", "ref": "claude:s2@0-10", "opened_at": 6})
    store.register_predicate({"id": "x/likes", "label": "likes", "status": "testing",
                              "category": "preference"})
    store.set_mark("kept", {"n": 1})
    store.set_mark("gone", [1, 2])
    store.record_audit([verdict("f-1"), verdict("f-3", verdict="unsupported")])


def every_write(store) -> set[str]:
    """Each write of the protocol once or more, on existing rows and new ones; the names
    of the methods called."""
    entity(store, "e-new", "Newcomer")
    store.insert_entities([{"id": "e-new2", "name": "Second", "scope": "proj", "aliases": []}])
    store.update_entity("e-a", name="Renamed", add_aliases=["a2"], remove_aliases=["a1"])
    store.insert_fact(fact("f-new", "e-new", lit="fresh literal", t_valid=600))
    store.insert_facts([fact("f-new2", "e-new2", ref="e-a", t_valid=700)])
    store.insert_fact_rows([fact_row(fact("f-new3", "e-a", lit="by row", t_valid=800))])
    store.repoint_facts("e-b", "e-new")
    store.delete_entity("e-spare")
    store.repoint_predicate("core/uses", "core/depends-on")
    store.invalidate("f-1", 999, "superseded", "newer", "f-new")
    store.link_conflicts("f-1", ["f-2", "f-new"])
    store.unlink_conflicts("f-3", ["f-4"])
    store.reinforce("f-2", 1000, 0.95, "user-assertion")
    store.set_dormant(["f-3", "f-new"], 1001)
    store.revive(["f-2"])
    store.record_audit([verdict("f-1", verdict="unsupported", checked_at=200),
                        verdict("f-new")])
    store.open_episode({"id": "ep-3", "ref": "claude:s3@0-10", "opened_at": 7})
    store.close_episode("ep-1", "what it did", 1002)
    store.update_episode("ep-2", summary="edited", evidence="transcript#L1")
    store.register_predicate({"id": "x/likes", "label": "likes", "status": "active",
                              "category": "preference"})
    store.register_predicate({"id": "x/new", "label": "new", "category": "preference"})
    store.set_mark("kept", {"n": 2})
    store.set_mark("added", "x")
    store.delete_facts(["f-4", "f-new3"])
    store.delete_episodes(["ep-3", "ep-2"])
    store.delete_marks(["gone"])
    return set(WRITES)


def everything(store) -> dict:
    """What every read of the whole store says."""
    return {
        "facts": store.all_facts(), "entities": store.list_entities(),
        "episodes": store.list_episodes(), "predicates": store.list_predicates(),
        "marks": store.list_marks(""), "audit": store.get_audit(),
        "dormant": store.dormant_fact_ids(), "suspect": store.suspect_fact_ids(),
        "stats": store.stats(), "scopes": store.scope_counts(),
        "found": store.search("fresh literal"), "usage": store.predicate_usage(),
    }


def test_every_method_is_a_read_or_a_write_this_test_makes():
    public = {name for name in dir(MemoryStore) if not name.startswith("_")}
    known = WRITES | READS | HOUSEKEEPING
    assert public == known, f"new: {sorted(public - known)}; gone: {sorted(known - public)}"


def test_a_failed_transaction_leaves_nothing_of_any_kind_of_write(store):
    populate(store)
    before = everything(store)
    tables = copy.deepcopy(store._s) if isinstance(store, MemoryStore) else None
    with pytest.raises(RuntimeError):
        with store.transaction():
            assert every_write(store) == WRITES
            assert everything(store) != before  # the writes were made, and are seen
            raise RuntimeError("rolled back")
    assert everything(store) == before
    if tables is not None:  # the tables themselves, and each one's order of keys
        assert store._s == tables
        assert {name: list(rows) for name, rows in store._s.items()} == {
            name: list(rows) for name, rows in tables.items()}
        assert all(list(row) == list(tables[name][key])
                   for name, rows in store._s.items() for key, row in rows.items()
                   if isinstance(row, dict))
    with store.transaction():  # and the store takes the same writes afterwards
        every_write(store)
    assert store.get_fact("f-new")["subject"]["id"] == "e-new"


def test_a_committed_transaction_keeps_its_writes_and_a_later_failure_only_its_own():
    store = MemoryStore()
    populate(store)
    with store.transaction():
        store.set_mark("kept", {"n": 3})
        store.invalidate("f-1", 900)
    committed = everything(store)
    with pytest.raises(RuntimeError), store.transaction():
        store.delete_facts(["f-1"])
        store.set_mark("kept", {"n": 4})
        raise RuntimeError("rolled back")
    assert everything(store) == committed
    assert store.get_mark("kept") == {"n": 3} and store.get_fact("f-1")["t_invalid"] == 900


def test_reading_the_memory_write_counter_reads_no_row(monkeypatch):
    """The counter is bumped by the writes the tables report, so reading it costs the same
    in a store of any size: it no longer renders every row to compare with the last read."""
    from claimgraph.store import memory_journal
    store = MemoryStore()
    populate(store)
    rendered = []
    monkeypatch.setattr(memory_journal.Row, "__repr__",
                        lambda row: rendered.append(row.key) or dict.__repr__(row))
    before = store.write_count()
    store.reinforce("f-1", 900, 0.9)
    assert store.write_count() > before
    assert rendered == []
