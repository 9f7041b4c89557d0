"""``Store.touched_since``: which facts the writes after a write counter value touched (format 7).

The viewer keeps a project's placement made at counter N and places again only the facts
``touched_since(N)`` names, so every way a fact's place can change must touch it, whoever
writes: its row (insert, invalidate, reinforce, dormancy, delete, repoint), its audit
verdicts, its conflict links (both ends) and its subject's or object's name. On SQLite (in
memory and a file) and PostgreSQL; the memory store has no such record (the viewer places a
project whole there).
"""

from __future__ import annotations

import sqlite3

import pytest

from .store_helpers import entity, fact


@pytest.fixture
def touching(store):
    if not hasattr(store, "touched_since"):
        pytest.skip(f"{type(store).__name__} keeps no touches (the viewer places it whole)")
    entity(store, "e-a", "alpha")
    entity(store, "e-b", "beta")
    entity(store, "e-c", "gamma")
    with store.transaction():
        store.insert_facts([fact("f-1", "e-a", lit="one"), fact("f-2", "e-a", ref="e-b"),
                            fact("f-3", "e-c", lit="three"), fact("f-4", "e-c", lit="four")])
    return store


def after(store, write) -> set[str] | None:
    """The ids a write (one transaction) touched, as a reader at the mark before it sees."""
    before = store.touch_mark()
    with store.transaction():
        write()
    assert store.touch_mark()[0] == before[0] + 1
    touched = store.touched_since(before, 100)
    return None if touched is None else set(touched)


AUDIT = {"evidence": "a.py: `x`", "file": "a.py", "verdict": "file-missing", "reason": None,
         "content_hash": None, "checked_at": 5, "details": {}}


@pytest.mark.parametrize("what,write,expected", [
    ("insert", lambda s: s.insert_facts([fact("f-9", "e-a", lit="nine")]), {"f-9"}),
    ("invalidate", lambda s: s.invalidate("f-1", 2000, "superseded", None, "f-3"), {"f-1"}),
    ("reinforce", lambda s: s.reinforce("f-3", 3000, 0.9), {"f-3"}),
    ("dormant", lambda s: s.set_dormant(["f-1", "f-4"], 10), {"f-1", "f-4"}),
    ("audit", lambda s: s.record_audit([{"fact_id": "f-4", **AUDIT}]), {"f-4"}),
    ("link", lambda s: s.link_conflicts("f-1", ["f-3"]), {"f-1", "f-3"}),
    ("rename", lambda s: s.update_entity("e-b", name="bravo"), {"f-2"}),
    ("rename subject", lambda s: s.update_entity("e-c", name="charlie"), {"f-3", "f-4"}),
])
def test_every_way_a_facts_place_changes_touches_it(touching, what, write, expected):
    assert after(touching, lambda: write(touching)) == expected, what


def test_an_unlink_a_revival_and_a_later_verdict_touch_too(touching):
    with touching.transaction():
        touching.link_conflicts("f-1", ["f-2"])
        touching.set_dormant(["f-3"], 10)
        touching.record_audit([{"fact_id": "f-4", **AUDIT}])
    assert after(touching, lambda: touching.unlink_conflicts("f-1", ["f-2"])) == {"f-1", "f-2"}
    assert after(touching, lambda: touching.revive(["f-3"])) == {"f-3"}
    assert after(touching, lambda: touching.record_audit(
        [{"fact_id": "f-4", **AUDIT, "verdict": "supported"}])) == {"f-4"}


def test_a_deletion_says_place_whole_and_keeps_no_purged_id(touching):
    """A purge must leave no trace of what it removed, so a deleted fact's touch names no id
    (its links and verdicts touched it too: those touches go with it), and ``touched_since``
    answers None: the viewer places the project whole."""
    with touching.transaction():
        touching.link_conflicts("f-4", ["f-1"])
        touching.record_audit([{"fact_id": "f-4", **AUDIT}])
    before = touching.touch_mark()
    with touching.transaction():
        touching.delete_facts(["f-4"])
    assert touching.touched_since(before, 100) is None
    rows = touching._db.rows("SELECT id FROM fact_touches")
    assert "f-4" not in {r[0] for r in rows} and "f-1" in {r[0] for r in rows}


def test_touches_are_counted_per_write_and_a_rename_that_keeps_the_name_touches_nothing(
        touching):
    start = touching.touch_mark()
    after(touching, lambda: touching.reinforce("f-1", 3000, 0.9))
    middle = touching.touch_mark()
    after(touching, lambda: touching.reinforce("f-2", 3000, 0.9))
    assert touching.touched_since(start, 100) == ["f-1", "f-2"]  # in write order
    assert touching.touched_since(middle, 100) == ["f-2"]
    assert touching.touched_since(touching.touch_mark(), 100) == []
    assert touching.touched_since(start, 1) is None  # more than asked for: place it whole
    assert after(touching, lambda: touching.update_entity("e-a", type="library")) == set()


def test_a_store_of_the_format_before_touches_nothing_and_reads_as_unknown(tmp_path):
    from claimgraph.store import sqlite_schema
    from claimgraph.store.sqlite import SqliteStore
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    sqlite_schema.migrate(conn, str(path), sqlite_schema.MIGRATIONS[:6])
    conn.close()
    old = SqliteStore(path, read_only=True)
    try:
        assert old.touched_since((0, 0), 10) is None
    finally:
        old.close()


def test_the_touches_since_a_count_are_one_index_range(tmp_path):
    from claimgraph.opening import open_store
    from claimgraph.store.sql_dialect import INSERTED_AFTER, TOUCHED_SINCE
    store = open_store(tmp_path / "claims.db")
    store.close()
    conn = sqlite3.connect(tmp_path / "claims.db")
    plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + TOUCHED_SINCE, (0, 5)))
    inserted = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + INSERTED_AFTER,
                                                       (0, 5)))
    conn.close()
    assert plan == "SEARCH fact_touches USING COVERING INDEX fact_touches_writes (writes>?)"
    assert inserted == "SEARCH facts USING INTEGER PRIMARY KEY (rowid>?)"
