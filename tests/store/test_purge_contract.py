"""The purge half of the storage contract (deletions, episode rewrites, marks by prefix), on
every backend; and, for SQLite on disk, that compact leaves no byte of deleted text behind."""

from __future__ import annotations

import pytest

from claimgraph.errors import ClaimgraphError

from .store_helpers import entity, fact

SECRET = "sk-live-4f9c2a7e1b"


@pytest.fixture
def linked(store):
    """f-1 (with an audit verdict) conflicts with f-2; f-3 points at f-1 from the other side."""
    api = entity(store, "e-api", "api")
    store.insert_facts([fact("f-1", api, "core/prefers", lit=f"token {SECRET}", t_valid=10),
                        fact("f-2", api, "core/prefers", lit="gRPC", t_valid=20),
                        fact("f-3", api, "core/prefers", lit="SOAP", t_valid=30)])
    store.link_conflicts("f-2", ["f-1"])
    store.link_conflicts("f-1", ["f-3"])
    store.record_audit([{"fact_id": "f-1", "evidence": "a.py: x", "verdict": "supported",
                         "checked_at": 5}])
    store.open_episode({"id": "ep-1", "ref": "claude-code:s1@0-10", "summary": "1 fact",
                        "evidence": "sha256-" + "a" * 64, "opened_at": 1})
    return store


def test_delete_facts_takes_links_on_both_sides_and_audit_rows(linked):
    assert linked.delete_facts(["f-1", "f-missing"]) == 1
    assert linked.get_fact("f-1") is None
    assert [f["conflicts"] for f in linked.get_facts_by_ids(["f-2", "f-3"])] == [[], []]
    assert linked.get_audit() == []
    assert linked.search(SECRET)["facts"] == []
    assert linked.search("gRPC")["facts"][0]["id"] == "f-2"
    assert linked.stats()["facts"]["total"] == 2


def test_an_entity_freed_of_its_facts_can_then_be_deleted(linked):
    linked.delete_facts(["f-1", "f-2", "f-3"])
    linked.delete_entity("e-api")
    assert linked.list_entities() == [] and linked.search("api")["entities"] == []


def test_delete_episodes_and_rewrite_one(linked):
    linked.update_episode("ep-1", summary="[purged]", evidence=None)
    assert (linked.get_episode("ep-1")["summary"], linked.get_episode("ep-1")["evidence"]) == (
        "[purged]", None)
    assert linked.search("purged")["episodes"][0]["id"] == "ep-1"
    with pytest.raises(ClaimgraphError) as missing:
        linked.update_episode("ep-none", summary=None, evidence=None)
    assert missing.value.type == "episode-not-found"
    assert linked.delete_episodes(["ep-1", "ep-none"]) == 1
    assert linked.list_episodes() == [] and linked.search("purged")["episodes"] == []


def test_marks_are_listed_by_prefix_and_deleted_by_key(store):
    for key, value in (("tombstone:fact:b", {"n": 2}), ("tombstone:fact:a", 1),
                       ("tombstone:session:x", None), ("curator:watermark", 3)):
        store.set_mark(key, value)
    assert store.list_marks("tombstone:fact:") == {"tombstone:fact:a": 1,
                                                   "tombstone:fact:b": {"n": 2}}
    assert store.delete_marks(["tombstone:fact:a", "nope"]) == 1
    assert list(store.list_marks("tombstone:")) == ["tombstone:fact:b", "tombstone:session:x"]


def test_deletions_inside_a_failed_transaction_roll_back(linked):
    with pytest.raises(RuntimeError):
        with linked.transaction():
            linked.delete_facts(["f-1"])
            linked.delete_marks(["x"])
            raise RuntimeError("boom")
    assert linked.get_fact("f-1")["conflicts"] == ["f-3"]
    assert len(linked.get_audit()) == 1


def test_compact_leaves_no_deleted_text_in_the_files(tmp_path):
    from claimgraph.opening import open_store

    db = tmp_path / "claims.db"
    store = open_store(db)
    api = entity(store, "e-api", "api")
    store.insert_facts([fact(f"f-{n}", api, "core/prefers", lit=f"{SECRET} copy {n}")
                        for n in range(300)])
    store.open_episode({"id": "ep-1", "ref": "r", "summary": f"said {SECRET}", "opened_at": 1})
    store.delete_facts([f"f-{n}" for n in range(300)])
    store.delete_episodes(["ep-1"])
    result = store.compact()
    assert result == {"vacuumed": True, "wal_truncated": True}
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert {p.name for p in files} >= {"claims.db"}
    assert not [p.name for p in files if SECRET.encode() in p.read_bytes()]
    assert store.search("copy")["facts"] == []
    store.close()
