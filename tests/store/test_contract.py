"""The storage contract: every Store method, run against memory, SQLite in memory and SQLite on
disk.

A behaviour that passes here on all three backends is a behaviour the shell may rely on.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Iterator

import pytest
from .store_helpers import BACKENDS, entity, fact, make_store

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import ENTITY_FIELDS, EPISODE_FIELDS, FACT_FIELDS, PREDICATE_FIELDS


def ids(records):
    return [r["id"] for r in records]


@contextmanager
def refused(kind: str) -> Iterator[pytest.ExceptionInfo]:
    """Expect a ClaimgraphError of exactly this type."""
    with pytest.raises(ClaimgraphError) as info:
        yield info
    assert info.value.type == kind, info.value.to_dict()


@pytest.fixture
def graph(store):
    """auth-service depends on kuzu; a literal preference; one invalidated version."""
    auth = entity(store, "e-auth", "AuthService", type="service", aliases=["auth-svc"])
    kuzu = entity(store, "e-kuzu", "KuzuDB", type="library")
    store.insert_facts([
        fact("f-1", auth, ref=kuzu, t_valid=100),
        fact("f-2", "e-auth", "core/prefers", lit="uv over pip", t_valid=200, source_type="code"),
        fact("f-3", "e-auth", "core/prefers", lit="poetry", t_valid=50, t_invalid=150),
    ])
    return store


# --- entities -----------------------------------------------------------------------------
def test_insert_entity_returns_the_complete_record_with_defaults(store):
    row = store.insert_entity({"id": "e-1", "name": "Core"})
    assert list(row) == list(ENTITY_FIELDS)
    assert row == {"id": "e-1", "name": "Core", "type": None, "scope": "project", "aliases": []}
    assert store.get_entity_by_id("e-1") == row


def test_insert_entity_refuses_a_taken_id_and_a_missing_name(store):
    entity(store, "e-1", "Core")
    with refused("entity-exists"):
        entity(store, "e-1", "Other")
    with refused("invalid-entity"):
        store.insert_entity({"id": "e-2"})


def test_insert_entities_keeps_every_record_or_none(store):
    rows = store.insert_entities([{"id": "e-1", "name": "Core"},
                                  {"id": "e-2", "name": "Auth", "scope": "proj", "aliases": ["a"]}])
    assert rows == [store.get_entity_by_id("e-1"), store.get_entity_by_id("e-2")]
    assert rows[0] == {"id": "e-1", "name": "Core", "type": None, "scope": "project", "aliases": []}
    assert ids(store.find_entities("a", "proj")) == ["e-2"]
    assert store.insert_entities([]) == []
    for taken in ([{"id": "e-3", "name": "New"}, {"id": "e-1", "name": "Again"}],
                  [{"id": "e-4", "name": "New"}, {"id": "e-4", "name": "Twice"}]):
        with refused("entity-exists"):
            with store.transaction():
                store.insert_entities(taken)
    assert store.get_entity_by_id("e-3") is None and store.get_entity_by_id("e-4") is None


def test_get_entity_matches_the_exact_name_within_the_scope(store):
    entity(store, "e-1", "Core", scope="a")
    assert store.get_entity("Core", "a")["id"] == "e-1"
    assert store.get_entity("Core", "b") is None
    assert store.get_entity("core", "a") is None
    assert store.get_entity_by_id("e-missing") is None


def test_find_entities_matches_name_alias_and_their_normalized_forms(store):
    entity(store, "e-1", "AuthService", aliases=["auth-svc"])
    entity(store, "e-2", "Other", aliases=["Kuzu DB"])
    entity(store, "e-3", "Auth Service", scope="elsewhere")
    assert ids(store.find_entities("AuthService", "proj")) == ["e-1"]
    assert ids(store.find_entities("auth_service", "proj")) == ["e-1"]
    assert ids(store.find_entities("auth-svc", "proj")) == ["e-1"]
    assert ids(store.find_entities("AUTH.SVC", "proj")) == ["e-1"]
    assert ids(store.find_entities("kuzu-db", "proj")) == ["e-2"]
    assert ids(store.find_entities("auth service", None)) == ["e-3", "e-1"]
    assert store.find_entities("nothing", None) == []


def test_find_entities_many_answers_what_find_entities_answers_for_each_name(store):
    entity(store, "e-1", "AuthService", aliases=["auth-svc"])
    entity(store, "e-2", "Other", aliases=["Kuzu DB", "auth service"])
    entity(store, "e-3", "Auth Service", scope="elsewhere")
    names = ["AuthService", "auth_service", "AUTH.SVC", "kuzu-db", "nothing", "Other"]
    for scope in ("proj", "elsewhere", None):
        found = store.find_entities_many(names + ["AuthService"], scope)
        assert found == {name: store.find_entities(name, scope) for name in names}
    assert ids(store.find_entities_many(["auth service"], None)["auth service"]) == [
        "e-3", "e-1", "e-2"]
    assert store.find_entities_many([], None) == {}


def test_update_entity_renames_retypes_and_applies_adds_before_removes(store):
    entity(store, "e-1", "Core", aliases=["a"])
    row = store.update_entity("e-1", name="Kernel", type="package",
                              add_aliases=["b", "a", "c"], remove_aliases=["c"])
    assert row == {"id": "e-1", "name": "Kernel", "type": "package", "scope": "proj",
                   "aliases": ["a", "b"]}
    assert store.get_entity_by_id("e-1") == row
    assert store.get_entity("Core", "proj") is None
    assert ids(store.find_entities("b", "proj")) == ["e-1"]
    assert store.find_entities("c", "proj") == []


def test_update_entity_without_changes_keeps_the_record_and_refuses_unknown_ids(store):
    before = entity(store, "e-1", "Core", aliases=["x"])
    assert store.update_entity("e-1") == before
    assert store.update_entity("e-1", remove_aliases=["x"])["aliases"] == []
    assert store.find_entities("x", "proj") == []
    with refused("entity-not-found"):
        store.update_entity("e-missing", name="X")


def test_repoint_facts_moves_subjects_and_objects_and_counts_facts(graph):
    entity(graph, "e-new", "Auth2")
    graph.insert_fact(fact("f-4", "e-kuzu", ref="e-auth", t_valid=300))
    assert graph.repoint_facts("e-auth", "e-new") == 4
    assert {f["subject"]["id"] for f in graph.get_facts("e-new")} == {"e-new"}
    assert ids(graph.get_facts("e-new", "in")) == ["f-4"]
    assert graph.get_facts("e-auth", "both") == []
    assert graph.repoint_facts("e-auth", "e-new") == 0
    with refused("entity-not-found"):
        graph.repoint_facts("e-new", "e-missing")


def test_delete_entity_removes_it_but_never_one_that_facts_name(graph):
    entity(graph, "e-husk", "Husk", aliases=["old-name"])
    graph.delete_entity("e-husk")
    assert graph.get_entity_by_id("e-husk") is None
    assert graph.find_entities("old-name", "proj") == []
    graph.delete_entity("e-husk")
    with refused("entity-in-use"):
        graph.delete_entity("e-kuzu")
    assert graph.get_entity_by_id("e-kuzu") is not None


def test_list_entities_is_sorted_by_name_then_id_and_filters(store):
    entity(store, "e-2", "beta", type="service")
    entity(store, "e-1", "beta", type="library", scope="user")
    entity(store, "e-3", "Alpha", type="service")
    assert ids(store.list_entities()) == ["e-3", "e-1", "e-2"]
    assert ids(store.list_entities(type="service")) == ["e-3", "e-2"]
    assert ids(store.list_entities(scope="user")) == ["e-1"]
    assert ids(store.list_entities(type="service", scope="user")) == []


def test_returned_records_are_copies_the_caller_cannot_corrupt(graph):
    graph.get_entity_by_id("e-auth")["aliases"].append("junk")
    graph.get_fact("f-1")["subject"]["name"] = "junk"
    graph.get_fact("f-2")["evidence"].append("junk")
    assert graph.get_entity_by_id("e-auth")["aliases"] == ["auth-svc"]
    assert graph.get_fact("f-1")["subject"]["name"] == "AuthService"
    assert graph.get_fact("f-2")["evidence"] == []


# --- facts --------------------------------------------------------------------------------
def test_a_stored_fact_has_every_field_in_order_with_entities_hydrated(graph):
    got = graph.get_fact("f-1")
    assert list(got) == list(FACT_FIELDS)
    assert got["subject"] == graph.get_entity_by_id("e-auth")
    assert got["object_ref"] == graph.get_entity_by_id("e-kuzu")
    assert got["conflicts"] == [] and got["evidence"] == []
    assert graph.get_fact("f-2")["object_ref"] is None
    assert graph.get_fact("f-missing") is None


def test_insert_fact_keeps_evidence_order_and_links_unique_and_sorted(store):
    entity(store, "e-1", "Core")
    store.insert_fact(fact("f-1", "e-1", lit="x", confidence=1, conflicts=["f-b", "f-a", "f-b"],
                           evidence=["src/z.py: `z`", "src/a.py: `a`"]))
    got = store.get_fact("f-1")
    assert got["conflicts"] == ["f-a", "f-b"]
    assert got["evidence"] == ["src/z.py: `z`", "src/a.py: `a`"]
    assert got["confidence"] == 1.0 and isinstance(got["confidence"], float)


def test_insert_facts_refuses_a_bad_batch_whole(store):
    entity(store, "e-1", "Core")
    store.insert_facts([])
    with refused("fact-exists"):
        store.insert_facts([fact("f-1", "e-1", lit="a"), fact("f-1", "e-1", lit="b")])
    with refused("entity-not-found"):
        store.insert_facts([fact("f-2", "e-1", lit="a"), fact("f-3", "e-ghost", lit="b")])
    with refused("invalid-fact"):
        store.insert_facts([fact("f-4", "e-1", lit="a", t_valid=None)])
    assert store.all_facts() == []
    store.insert_fact(fact("f-1", "e-1", lit="a"))
    with refused("fact-exists"):
        store.insert_fact(fact("f-1", "e-1", lit="again"))


def test_a_refused_batch_inside_a_transaction_leaves_earlier_writes_alone(store):
    entity(store, "e-1", "Core")
    with store.transaction():
        store.insert_fact(fact("f-1", "e-1", lit="kept"))
        with refused("fact-exists"):
            store.insert_facts([fact("f-2", "e-1", lit="b"), fact("f-1", "e-1", lit="dup")])
        store.set_mark("m", 1)
    assert ids(store.all_facts()) == ["f-1"]
    assert store.get_mark("m") == 1


def test_insert_fact_rows_stores_what_insert_facts_stores(store):
    """Facts given as their rows (the batch ingest's plain inserts) are the same facts, with
    the same refusals, a refused batch leaving nothing."""
    from claimgraph.store.fact_rows import fact_row
    entity(store, "e-1", "Core")
    entity(store, "e-2", "Lib", type="library")
    facts = [fact("f-1", "e-1", lit="x", confidence=1, evidence=["b.py:2", "a.py:1"]),
             fact("f-2", "e-1", ref="e-2", t_valid=5, t_invalid=9, conflicts=["f-1"]),
             fact("f-3", "e-2", "core/prefers", lit="uv over pip", source_type="code")]
    twins = [{**f, "id": "g" + f["id"][1:], "conflicts": ["g" + c[1:] for c in f["conflicts"]]}
             for f in facts]
    store.insert_fact_rows([])
    store.insert_fact_rows([fact_row(f) for f in facts])
    store.insert_facts(twins)
    stored = {f["id"]: f for f in store.all_facts()}
    assert sorted(stored) == ["f-1", "f-2", "f-3", "g-1", "g-2", "g-3"]
    for twin in twins:
        got, expected = stored["f" + twin["id"][1:]], stored[twin["id"]]
        assert got == {**expected, "id": got["id"], "conflicts": ["f" + c[1:]
                                                                  for c in expected["conflicts"]]}
    assert stored["f-1"]["evidence"] == ["b.py:2", "a.py:1"]
    assert stored["f-2"]["conflicts"] == ["f-1"] and stored["f-2"]["object_ref"]["id"] == "e-2"
    with refused("fact-exists"):
        store.insert_fact_rows([fact_row(fact("f-4", "e-1", lit="a")), fact_row(facts[0])])
    with refused("entity-not-found"):
        store.insert_fact_rows([fact_row(fact("f-5", "e-ghost", lit="b"))])
    with refused("invalid-fact"):
        store.insert_fact_rows([fact_row(fact("f-6", "e-1", lit="a", t_valid=None),
                                         checked=True)])
    assert sorted(ids(store.all_facts())) == sorted(stored)


def test_an_unguarded_insert_refused_midway_is_never_stored(store):
    """``insert_fact_rows(guarded=False)`` in a caller's transaction: that transaction is the
    unit. Refused midway, the rows before the refusal are never stored: a backend that guards
    anyway commits the rest of the transaction; SQLite, which skips its savepoint, refuses the
    commit instead (``transaction-doomed``) and keeps nothing of the transaction."""
    from claimgraph.store.fact_rows import fact_row
    entity(store, "e-1", "Core")
    store.insert_fact_rows([fact_row(fact("f-1", "e-1", lit="x"))], guarded=False)
    committed = True
    try:
        with store.transaction():
            store.insert_fact_rows([fact_row(fact("f-2", "e-1", lit="y"))], guarded=False)
            with refused("fact-exists"):
                store.insert_fact_rows([fact_row(fact("f-3", "e-1", lit="a")),
                                        fact_row(fact("f-1", "e-1", lit="x"))], guarded=False)
    except ClaimgraphError as error:
        assert error.type == "transaction-doomed", error.to_dict()
        committed = False
    assert sorted(ids(store.all_facts())) == (["f-1", "f-2"] if committed else ["f-1"])
    skips_its_guard = type(getattr(store, "inner", store)).__name__ == "SqliteStore"
    assert committed is not skips_its_guard
    store.insert_fact_rows([fact_row(fact("f-4", "e-1", lit="z"))], guarded=False)
    assert "f-4" in ids(store.all_facts())  # the next transaction is not doomed


def test_get_facts_by_ids_follows_the_given_order_and_skips_unknown(graph):
    assert ids(graph.get_facts_by_ids(["f-3", "f-missing", "f-1"])) == ["f-3", "f-1"]
    assert graph.get_facts_by_ids([]) == []


def test_get_facts_follows_the_direction_and_includes_invalidated(graph):
    assert ids(graph.get_facts("e-auth")) == ["f-3", "f-1", "f-2"]
    assert ids(graph.get_facts("e-auth", "in")) == []
    assert ids(graph.get_facts("e-kuzu", "in")) == ["f-1"]
    assert ids(graph.get_facts("e-kuzu", "both")) == ["f-1"]
    assert ids(graph.get_facts("e-kuzu", "out")) == []
    with refused("invalid-direction"):
        graph.get_facts("e-auth", "sideways")


def test_get_facts_filters_by_predicates(graph):
    assert ids(graph.get_facts("e-auth", predicates=["core/prefers"])) == ["f-3", "f-2"]
    assert ids(graph.get_facts("e-auth", predicates="core/depends-on")) == ["f-1"]
    assert ids(graph.get_facts("e-auth", predicates=["core/prefers", "core/depends-on"])) == [
        "f-3", "f-1", "f-2"]
    assert graph.get_facts("e-auth", predicates=[]) == []
    assert ids(graph.get_facts("e-kuzu", "both", ["core/depends-on", "x/y"])) == ["f-1"]


def test_get_facts_sorts_by_valid_time_then_id(store):
    entity(store, "e-1", "Core")
    store.insert_facts([fact("f-b", "e-1", lit="x", t_valid=5),
                        fact("f-a", "e-1", lit="y", t_valid=5),
                        fact("f-0", "e-1", lit="z", t_valid=9)])
    assert ids(store.get_facts("e-1")) == ["f-a", "f-b", "f-0"]


def test_get_facts_for_batches_entities_and_returns_each_fact_once(graph):
    graph.insert_fact(fact("f-4", "e-kuzu", ref="e-auth", t_valid=300))
    assert ids(graph.get_facts_for(["e-auth", "e-kuzu"], "both")) == ["f-3", "f-1", "f-2", "f-4"]
    assert ids(graph.get_facts_for(["e-auth", "e-kuzu"], "in")) == ["f-1", "f-4"]
    assert ids(graph.get_facts_for(["e-kuzu"], "out", ["core/depends-on"])) == ["f-4"]
    assert graph.get_facts_for([], "both") == []

def test_get_fact_heads_for_gives_the_same_facts_cut_to_their_heads(graph):
    """Search ranks on heads with a limit (the CLI's default), on every backend."""
    from claimgraph.logic.model import FACT_HEAD_FIELDS
    graph.insert_fact(fact("f-4", "e-kuzu", ref="e-auth", t_valid=300))
    for entities, direction in ((["e-auth", "e-kuzu"], "both"), (["e-kuzu"], "in"),
                                (["e-auth"], "out"), (["e-kuzu"], "out")):
        whole = graph.get_facts_for(entities, direction)
        heads = sorted(graph.get_fact_heads_for(entities, direction), key=lambda h: h["id"])
        assert [list(h) for h in heads] == [list(FACT_HEAD_FIELDS)] * len(whole)
        assert heads == sorted(({**{k: f[k] for k in FACT_HEAD_FIELDS},
                                 "subject": f["subject"]["id"],
                                 "object_ref": f["object_ref"] and f["object_ref"]["id"]}
                                for f in whole), key=lambda h: h["id"])
        bare = sorted(graph.get_fact_heads_for(entities, direction, ends=False),
                      key=lambda h: h["id"])
        assert bare == [{k: v for k, v in h.items() if k not in ("subject", "object_ref")}
                        for h in heads]
    assert graph.get_fact_heads_for([], "both") == []
    with refused("invalid-direction"):
        graph.get_fact_heads_for(["e-auth"], "sideways")



@pytest.mark.parametrize("criteria, expected", [
    ({}, ["f-3", "f-1", "f-2"]),
    ({"ids": ["f-2", "f-3"]}, ["f-3", "f-2"]),
    ({"ids": []}, []),
    ({"source_type": "code"}, ["f-2"]),
    ({"predicates": ["core/prefers"]}, ["f-3", "f-2"]),
    ({"scopes": ["user"]}, ["f-1"]),
    ({"scopes": ["proj", "user"]}, ["f-3", "f-1", "f-2"]),
    ({"episodes": ["ep-1"]}, ["f-1", "f-2"]),
    ({"recorded_before": 200}, ["f-3", "f-1"]),
    ({"conflicted": True}, ["f-2"]),
    ({"valid_cheap": True}, ["f-1", "f-2"]),
    ({"valid_cheap": True, "predicates": ["core/prefers"], "episodes": ["ep-1"]}, ["f-2"]),
    ({"with_evidence": True}, ["f-1"]),
    ({"valid_at": 149}, ["f-3", "f-1", "f-2"]),  # f-3 ends at 150: still valid at 149
    ({"valid_at": 150}, ["f-1", "f-2"]),
    ({"valid_at": 149, "scopes": ["proj"]}, ["f-3", "f-2"]),
    ({"valid_at": 149, "scopes": ["proj", "user"], "predicates": ["core/prefers"]},
     ["f-3", "f-2"]),
    ({"valid_at": 150, "conflicted": True}, ["f-2"]),
    ({"valid_at": 149, "with_evidence": True}, ["f-1"]),
    ({"valid_at": 149, "valid_cheap": True}, ["f-1", "f-2"]),
])
def test_select_facts_ands_its_criteria(store, criteria, expected):
    entity(store, "e-1", "Core")
    store.insert_facts([
        fact("f-1", "e-1", ref="e-1", t_valid=100, scope="user", episode="ep-1",
             evidence=["core.py: `class Core`"]),
        fact("f-2", "e-1", "core/prefers", lit="uv", t_valid=200, source_type="code",
             episode="ep-1", conflicts=["f-3"]),
        fact("f-3", "e-1", "core/prefers", lit="pip", t_valid=50, t_invalid=150, episode="ep-2"),
    ])
    assert ids(store.select_facts(**criteria)) == expected


def test_get_history_lists_every_version_of_subject_and_predicate(graph):
    assert ids(graph.get_history("e-auth", "core/prefers")) == ["f-3", "f-2"]
    assert graph.get_history("e-kuzu", "core/prefers") == []


def test_all_facts_sorts_by_recording_time_then_write_order(store):
    """Ties on the recording time (a batch writes many facts in one millisecond) keep the
    order they were written in, never the ids' (random ids would shuffle a dump run to run)."""
    entity(store, "e-1", "Core")
    store.insert_facts([fact("f-b", "e-1", lit="x", recorded_at=7),
                        fact("f-a", "e-1", lit="y", recorded_at=7),
                        fact("f-0", "e-1", lit="z", recorded_at=3)])
    store.insert_facts([fact("f-9", "e-1", lit="w", recorded_at=7),
                        fact("f-1", "e-1", lit="v", recorded_at=7)])
    assert ids(store.all_facts()) == ["f-0", "f-b", "f-a", "f-9", "f-1"]


def test_repoint_predicate_moves_every_fact_and_counts_them(graph):
    assert graph.repoint_predicate("core/prefers", "x/likes") == 2
    assert graph.predicate_usage() == {"core/depends-on": 1, "x/likes": 2}
    assert graph.repoint_predicate("core/prefers", "x/likes") == 0


def test_invalidate_closes_valid_time_and_records_why(graph):
    graph.invalidate("f-2", 500, kind="superseded", reason="changed mind", successor="f-9")
    got = graph.get_fact("f-2")
    assert (got["t_invalid"], got["invalidation_kind"], got["invalidation_reason"],
            got["successor"]) == (500, "superseded", "changed mind", "f-9")
    graph.invalidate("f-1", 600)
    assert graph.get_fact("f-1")["t_invalid"] == 600
    assert graph.get_fact("f-1")["invalidation_kind"] is None
    with refused("fact-not-found"):
        graph.invalidate("f-missing", 1)


def test_conflict_links_are_added_without_duplicates_and_removed(graph):
    graph.link_conflicts("f-2", ["f-3", "f-1"])
    graph.link_conflicts("f-2", ["f-3"])
    assert graph.get_fact("f-2")["conflicts"] == ["f-1", "f-3"]
    assert ids(graph.select_facts(conflicted=True)) == ["f-2"]
    graph.unlink_conflicts("f-2", ["f-3", "f-never"])
    assert graph.get_fact("f-2")["conflicts"] == ["f-1"]
    graph.unlink_conflicts("f-2", ["f-1"])
    assert graph.select_facts(conflicted=True) == []
    with refused("fact-not-found"):
        graph.link_conflicts("f-missing", ["f-1"])
    with refused("fact-not-found"):
        graph.unlink_conflicts("f-missing", ["f-1"])


def test_reinforce_sets_the_clock_confidence_and_optionally_the_source(graph):
    graph.reinforce("f-2", 900, 0.9)
    got = graph.get_fact("f-2")
    assert (got["last_reinforced_at"], got["confidence"], got["source_type"]) == (900, 0.9, "code")
    graph.reinforce("f-2", 950, 1, source_type="user-assertion")
    got = graph.get_fact("f-2")
    assert (got["last_reinforced_at"], got["confidence"], got["source_type"]) == (
        950, 1.0, "user-assertion")
    with refused("fact-not-found"):
        graph.reinforce("f-missing", 1, 0.5)


def test_usage_counts_facts_per_predicate_and_per_entity(graph):
    graph.insert_fact(fact("f-self", "e-kuzu", ref="e-kuzu", t_valid=400))
    assert graph.predicate_usage() == {"core/depends-on": 2, "core/prefers": 2}
    assert graph.entity_usage() == {"e-auth": 3, "e-kuzu": 2}


def test_old_facts_show_renames_and_merges_of_their_entities(graph):
    graph.update_entity("e-kuzu", name="Kuzu", add_aliases=["KuzuDB"])
    assert graph.get_fact("f-1")["object_ref"]["name"] == "Kuzu"
    assert graph.get_facts("e-auth")[1]["object_ref"]["aliases"] == ["KuzuDB"]
    entity(graph, "e-dst", "Identity")
    graph.repoint_facts("e-auth", "e-dst")
    graph.delete_entity("e-auth")
    assert {f["subject"]["name"] for f in graph.all_facts()} == {"Identity"}


# --- episodes -----------------------------------------------------------------------------
def episode(ep_id: str, ref: str | None, opened_at: int | None, **fields):
    return {"id": ep_id, "source_type": "session-log", "ref": ref, "summary": None,
            "opened_at": opened_at, "closed_at": None, "evidence": None, **fields}


def test_episodes_open_close_and_are_found_by_id_and_ref(store):
    opened = store.open_episode({"id": "ep-1", "ref": "claude:s1@0-10", "opened_at": 5})
    assert list(opened) == list(EPISODE_FIELDS)
    assert opened["summary"] is None and opened["source_type"] is None
    store.close_episode("ep-1", "set up the store", 9)
    got = store.get_episode("ep-1")
    assert (got["summary"], got["closed_at"]) == ("set up the store", 9)
    assert store.get_episode_by_ref("claude:s1@0-10") == got
    assert store.get_episode_by_ref("claude:s2@0-1") is None
    assert store.get_episode("ep-missing") is None
    with refused("episode-not-found"):
        store.close_episode("ep-missing", None, 1)


def test_episode_ids_and_refs_are_unique(store):
    store.open_episode(episode("ep-1", "r1", 1, evidence="sha256-" + "a" * 64))
    store.open_episode(episode("ep-2", None, 2))
    store.open_episode(episode("ep-3", None, 3))
    with refused("episode-exists"):
        store.open_episode(episode("ep-1", "r9", 4))
    with refused("episode-exists"):
        store.open_episode(episode("ep-4", "r1", 4))
    assert store.get_episode("ep-1")["evidence"] == "sha256-" + "a" * 64


def test_list_episodes_is_sorted_by_open_time_then_id(store):
    for ep_id, opened in (("ep-b", 5), ("ep-a", 5), ("ep-c", 1), ("ep-n", None)):
        store.open_episode(episode(ep_id, ep_id, opened))
    assert ids(store.list_episodes()) == ["ep-n", "ep-c", "ep-a", "ep-b"]


# --- predicates ---------------------------------------------------------------------------
def test_curated_predicates_are_reconciled_so_dropped_fields_disappear(store):
    store.register_predicate({"id": "core/prefers", "label": "prefers", "category": "decision",
                              "maps_to": ["LOCAL"], "status": "stable"})
    store.register_predicate({"id": "core/prefers", "label": "prefers", "category": "decision"})
    row = store.get_predicate("core/prefers")
    assert list(row) == list(PREDICATE_FIELDS)
    assert (row["label"], row["maps_to"], row["status"]) == ("prefers", None, None)


def test_staging_predicates_are_amended_field_by_field(store):
    store.register_predicate({"id": "x/likes", "label": "likes", "status": "testing",
                              "cardinality": "many"})
    store.register_predicate({"id": "x/likes", "status": "deprecated", "label": None,
                              "replaced_by": "core/prefers"})
    row = store.get_predicate("x/likes")
    assert (row["label"], row["status"], row["cardinality"], row["replaced_by"]) == (
        "likes", "deprecated", "many", "core/prefers")


def test_list_predicates_filters_and_sorts_by_id(store):
    for pred_id, category, status in (("core/b", "decision", "stable"),
                                      ("core/a", "structural", "stable"),
                                      ("x/c", "experimental", "testing")):
        store.register_predicate({"id": pred_id, "category": category, "status": status})
    assert ids(store.list_predicates()) == ["core/a", "core/b", "x/c"]
    assert ids(store.list_predicates(category="decision")) == ["core/b"]
    assert ids(store.list_predicates(status="stable")) == ["core/a", "core/b"]
    assert store.list_predicates(category="decision", status="testing") == []
    assert store.get_predicate("core/missing") is None


# --- marks, stats, emptiness, transactions ------------------------------------------------
def test_marks_hold_small_json_values(store):
    assert store.get_mark("hw:claude:s1") is None
    store.set_mark("hw:claude:s1", {"offset": 10, "lines": [1, 2]})
    store.set_mark("dirty", True)
    store.set_mark("hw:claude:s1", {"offset": 20, "lines": (3,)})
    assert store.get_mark("hw:claude:s1") == {"offset": 20, "lines": [3]}
    assert store.get_mark("dirty") is True


def test_stats_counts_everything_and_is_empty_ignores_predicates(store):
    store.register_predicate({"id": "core/a", "status": "stable"})
    store.register_predicate({"id": "x/b", "status": "testing"})
    assert store.is_empty()
    assert store.stats() == {"format": STORE_FORMAT, "entities": 0,
                             "facts": {"total": 0, "valid": 0, "invalidated": 0}, "episodes": 0,
                             "predicates": {"stable": 1, "testing": 1}}
    entity(store, "e-1", "Core")
    assert not store.is_empty()
    store.insert_facts([fact("f-1", "e-1", lit="a"), fact("f-2", "e-1", lit="b", t_invalid=5)])
    store.open_episode(episode("ep-1", "r", 1))
    stats = store.stats()
    assert (stats["entities"], stats["facts"], stats["episodes"]) == (
        1, {"total": 2, "valid": 1, "invalidated": 1}, 1)


def test_an_episode_alone_makes_a_store_non_empty(store):
    store.open_episode(episode("ep-1", None, 1))
    assert not store.is_empty()


def test_a_transaction_rolls_every_write_back_on_exception(graph):
    before = (graph.all_facts(), graph.list_entities(), graph.list_episodes())
    with pytest.raises(RuntimeError):
        with graph.transaction():
            entity(graph, "e-new", "New")
            graph.insert_fact(fact("f-new", "e-new", lit="fresh literal"))
            graph.update_entity("e-auth", name="Renamed")
            graph.invalidate("f-1", 999)
            graph.open_episode(episode("ep-x", "rx", 1))
            graph.set_mark("hw", 42)
            with graph.transaction():
                graph.link_conflicts("f-2", ["f-1"])
            assert graph.search("fresh literal")["facts"][0]["id"] == "f-new"
            raise RuntimeError("boom")
    assert (graph.all_facts(), graph.list_entities(), graph.list_episodes()) == before
    assert graph.get_mark("hw") is None
    assert graph.search("fresh literal")["facts"] == []
    assert graph.search("Renamed")["entities"] == []


def test_nested_blocks_join_the_outer_transaction(store):
    with store.transaction():
        with store.transaction():
            entity(store, "e-1", "Core")
        assert store.get_entity_by_id("e-1") is not None
    assert store.get_entity_by_id("e-1") is not None
    with pytest.raises(ValueError):
        with store.transaction():
            entity(store, "e-2", "Two")
            with store.transaction():
                raise ValueError("inner")
    assert store.get_entity_by_id("e-2") is None


# --- search -------------------------------------------------------------------------------
@pytest.fixture
def searchable(graph):
    entity(graph, "e-core", "claimgraph.core", aliases=["cg_core"])
    graph.insert_fact(fact("f-lit", "e-core", "core/failure-mode",
                           lit='Use NEAR( and AND carefully; "quoted" * stars', t_valid=300))
    graph.open_episode(episode("ep-1", "r1", 10, summary="Refactored the Auth layer"))
    graph.open_episode(episode("ep-2", "r2", 20))
    graph.close_episode("ep-2", "auth tokens rotated", 30)
    return graph


def test_search_matches_entity_names_and_aliases_case_insensitively(searchable):
    assert ids(searchable.search("authservice")["entities"]) == ["e-auth"]
    assert ids(searchable.search("SVC")["entities"]) == ["e-auth"]
    assert ids(searchable.search("core")["entities"]) == ["e-core"]
    assert ids(searchable.search("graph.co")["entities"]) == ["e-core"]


def test_search_returns_literal_facts_and_facts_of_matched_entities(searchable):
    hits = searchable.search("kuzu")
    assert ids(hits["entities"]) == ["e-kuzu"] and ids(hits["facts"]) == ["f-1"]
    assert ids(searchable.search("auth")["facts"]) == ["f-2", "f-1", "f-3"]
    assert ids(searchable.search("over pip")["facts"]) == ["f-2"]


@pytest.mark.parametrize("query, limit", [("auth", 50), ("auth", 2), ("kuzu", 50), ("over pip", 1),
                                          ("zzz-nothing", 50)])
def test_search_can_give_its_facts_as_heads_in_the_same_order(searchable, query, limit):
    """Search with a limit ranks on heads (and their literals, which tell apart facts that
    tie on the rest) and reads only the shown facts whole."""
    from claimgraph.store.records import SEARCH_HEAD_FIELDS, search_head
    whole = searchable.search(query, limit)
    as_heads = searchable.search(query, limit, heads=True)
    assert as_heads["facts"] == [search_head(f) for f in whole["facts"]]
    assert all(list(h) == list(SEARCH_HEAD_FIELDS) for h in as_heads["facts"])
    assert {k: v for k, v in as_heads.items() if k != "facts"} == {
        k: v for k, v in whole.items() if k != "facts"}
    assert searchable.search_facts(query, limit, heads=True) == as_heads["facts"]


def test_search_finds_episode_summaries_newest_first(searchable):
    assert ids(searchable.search("AUTH")["episodes"]) == ["ep-2", "ep-1"]
    assert ids(searchable.search("auth", limit=1)["episodes"]) == ["ep-2"]


def test_search_limits_each_list(searchable):
    hits = searchable.search("auth", limit=2)
    assert ids(hits["facts"]) == ["f-2", "f-1"]
    assert len(hits["entities"]) == 1


@pytest.mark.parametrize("query", ["auth", "kuzu", "over pip", "NEAR(", "zzz-none", "ab", ""])
@pytest.mark.parametrize("limit", [1, 50])
def test_search_facts_is_searchs_facts_alone(searchable, query, limit):
    assert searchable.search_facts(query, limit) == searchable.search(query, limit)["facts"]


@pytest.mark.parametrize("query", ['"', "AND", "*", "NEAR(", "a AND b", 'x" OR "y', "(((",
                                   "-auth", "auth*", "^auth", "{col}: x", "", "  ", "ab",
                                   "NOT auth"])
def test_search_treats_hostile_text_as_plain_characters(searchable, query):
    hits = searchable.search(query)
    assert set(hits) == {"entities", "facts", "episodes"}
    if query in ("AND", "NEAR("):
        assert ids(hits["facts"]) == ["f-lit"]


def test_search_finds_fts_operators_literally_when_they_are_in_the_text(searchable):
    assert ids(searchable.search('"quoted" *')["facts"]) == ["f-lit"]
    assert ids(searchable.search("NEAR( and AND")["facts"]) == ["f-lit"]
    assert searchable.search("auth*")["facts"] == []


def test_search_follows_renames_deletions_and_summaries(searchable):
    searchable.update_entity("e-kuzu", name="DuckStore", remove_aliases=["x"])
    assert searchable.search("kuzu")["entities"] == []
    assert ids(searchable.search("duckst")["entities"]) == ["e-kuzu"]
    entity(searchable, "e-tmp", "Temporary")
    searchable.delete_entity("e-tmp")
    assert searchable.search("temporary")["entities"] == []
    searchable.close_episode("ep-1", "nothing left", 40)
    assert ids(searchable.search("auth")["episodes"]) == ["ep-2"]


# --- parity ---------------------------------------------------------------------------------
def _scenario(store) -> str:
    """Drive every read through one script; the JSON must be identical on every backend."""
    auth = entity(store, "e-a", "AuthService", aliases=["auth"])
    entity(store, "e-b", "Billing", type=None, scope="user")
    store.insert_facts([fact(f"f-{i}", auth, ref="e-b" if i % 2 else None,
                             lit=None if i % 2 else f"literal {i}", t_valid=i % 3,
                             evidence=[f"src/{i}.py: x"]) for i in range(6)])
    store.link_conflicts("f-4", ["f-2", "f-0"])
    store.invalidate("f-0", 10, kind="manual", reason="r")
    store.update_entity("e-b", name="Billing2", add_aliases=["bill"])
    store.open_episode(episode("ep-1", "r", None, summary="literal work"))
    store.register_predicate({"id": "x/p", "label": "p", "status": "testing"})
    reads = [store.all_facts(), store.get_facts_for(["e-a", "e-b"], "both"),
             store.select_facts(conflicted=True), store.search("literal"), store.search("bill"),
             store.list_entities(), store.find_entities("auth", None), store.list_episodes(),
             store.list_predicates(), store.stats(), store.entity_usage(), store.predicate_usage()]
    return json.dumps(reads)


def test_every_backend_answers_a_scenario_byte_for_byte_alike(tmp_path):
    outputs = []
    for kind in BACKENDS:
        opened = make_store(kind, tmp_path / kind)
        outputs.append(_scenario(opened))
        opened.close()
    assert outputs[0] == outputs[1] == outputs[2]


# --- ranking by words ---------------------------------------------------------------------
@pytest.fixture
def wordy(store):
    """Turns of a conversation: stems, a rare word, a common one, a closed fact."""
    speaker = entity(store, "e-c", "Priya", type="person")
    store.insert_facts([
        fact("w-1", speaker, "x/said", lit="I went to the chess club meetup yesterday",
             t_valid=10),
        fact("w-2", speaker, "x/said", lit="My friends at the club help a lot, friends are great",
             t_valid=20),
        fact("w-3", speaker, "x/said", lit="Sketching harbours is relaxing", t_valid=30),
        fact("w-4", speaker, "x/said", lit="I sketched a harbour lighthouse last year", t_valid=40),
        fact("w-5", speaker, "x/said", lit="The club meetup moved to Tuesdays", t_valid=5,
             t_invalid=25),
        fact("w-6", "e-c", "x/said", ref=speaker, t_valid=50),
    ])
    return store


def test_rank_words_finds_stems_and_ranks_the_rarer_words_higher(wordy):
    assert ids(wordy.rank_words(["sketches"])) == ["w-3", "w-4"] or ids(
        wordy.rank_words(["sketches"])) == ["w-4", "w-3"]
    assert ids(wordy.rank_words(["chess", "club", "meetup"]))[0] == "w-1"
    assert set(ids(wordy.rank_words(["club"]))) == {"w-1", "w-2"}
    assert ids(wordy.rank_words(["lighthouse", "sketching"]))[0] == "w-4"


def test_rank_words_weighs_a_word_by_its_rarity_on_every_backend(wordy):
    """"club" is on three of the facts, "lighthouse" on one: the fact with the rare word comes
    first whichever backend ranks (PostgreSQL's own rank has no rarity weight)."""
    assert ids(wordy.rank_words(["club", "lighthouse"]))[0] == "w-4"
    assert ids(wordy.rank_words(["lighthouse", "club"]))[0] == "w-4"


def test_rank_words_leaves_out_closed_facts_and_entity_objects(wordy):
    found = ids(wordy.rank_words(["club", "meetup", "tuesdays", "priya"]))
    assert "w-5" not in found and "w-6" not in found
    assert wordy.rank_words(["tuesdays"]) == []


def test_rank_words_at_an_instant_finds_a_fact_until_its_recorded_end(wordy):
    """w-5's end is recorded at 25: before then it is open (search shows a fact set to end
    later), from then on closed, as it is without an instant."""
    assert ids(wordy.rank_words(["tuesdays"], at=24)) == ["w-5"]
    assert wordy.rank_words(["tuesdays"], at=25) == []
    assert ids(wordy.rank_words(["club", "meetup"], at=24, heads=True))[0] in {"w-1", "w-5"}


def test_rank_words_limits_gives_heads_and_treats_operators_as_words(wordy):
    from claimgraph.store.records import SEARCH_HEAD_FIELDS
    assert len(wordy.rank_words(["club", "sketching"], limit=1)) == 1
    heads = wordy.rank_words(["lighthouse"], heads=True)
    assert ids(heads) == ["w-4"] and list(heads[0]) == list(SEARCH_HEAD_FIELDS)
    assert wordy.rank_words(["AND", "NEAR(", '"', "*", "OR"]) == []
    assert wordy.rank_words([]) == [] and wordy.rank_words(["lighthouse"], limit=0) == []


def test_rank_words_sees_a_transactions_own_writes(wordy):
    with wordy.transaction():
        wordy.insert_fact(fact("w-7", "e-c", "x/said", lit="Buying a kayak next week",
                               t_valid=60))
        assert ids(wordy.rank_words(["kayaks"])) == ["w-7"]


def test_episode_neighbours_are_the_same_episodes_facts_recorded_nearby(store):
    """By the order the store took the facts in: another episode's fact between two of one
    episode's takes a place but is never a neighbour; a fact with no episode has none."""
    entity(store, "e-1", "Core")
    store.insert_facts([fact(i, "e-1", lit=i, episode=ep) for i, ep in (
        ("n-1", "ep-1"), ("n-2", "ep-1"), ("m-1", "ep-2"), ("n-3", "ep-1"), ("n-4", "ep-1"),
        ("o-1", None), ("o-2", None))])
    def near(ids, span):
        return sorted((of, offset, head["id"]) for of, offset, head, _ in
                      store.episode_neighbours(ids, span))
    assert near(["n-2"], 2) == [("n-2", -1, "n-1"), ("n-2", 2, "n-3")]
    assert near(["n-3", "m-1"], 2) == [("n-3", -2, "n-2"), ("n-3", 1, "n-4")]
    assert near(["n-2"], 1) == [("n-2", -1, "n-1")]
    assert near(["o-1", "f-nope"], 2) == [] and near(["n-2"], 0) == [] and near([], 2) == []


def test_episode_neighbours_are_heads_as_get_fact_heads_for_gives_them(store):
    from claimgraph.logic.model import FACT_HEAD_FIELDS
    entity(store, "e-1", "Core")
    store.insert_facts([fact("n-1", "e-1", lit="a", episode="ep-1"),
                        fact("n-2", "e-1", lit="b", episode="ep-1", t_invalid=2000)])
    (_, _, head, _), = store.episode_neighbours(["n-1"], 1)
    assert list(head) == list(FACT_HEAD_FIELDS)
    assert head == next(h for h in store.get_fact_heads_for(["e-1"]) if h["id"] == "n-2")


def test_episode_neighbours_say_whether_each_neighbour_follows_a_question(store):
    """Search lends a question's next fact more (its answer): every backend tells which
    neighbours come right after a fact of their episode whose literal holds a question mark;
    a question in another episode, recorded between, asks nothing of this one."""
    entity(store, "e-1", "Core")
    store.insert_facts([fact(i, "e-1", lit=lit, episode=ep) for i, lit, ep in (
        ("s-0", "We fixed the gate", "ep-1"), ("q-1", "How long have you kept bees?", "ep-1"),
        ("a-1", "Three seasons, why?", "ep-1"), ("s-1", "We fixed the gate", "ep-1"),
        ("s-2", "100% sure (no question)", "ep-1"), ("o-1", "Anyone there?", "ep-2"),
        ("s-3", "Back to the gate", "ep-1"))])
    follows = {(of, offset, head["id"]): flag for of, offset, head, flag in
               store.episode_neighbours(["s-0", "a-1", "s-2"], 2)}
    assert follows == {
        ("s-0", 1, "q-1"): False, ("s-0", 2, "a-1"): True,
        ("a-1", -2, "s-0"): False, ("a-1", -1, "q-1"): False, ("a-1", 1, "s-1"): True,
        ("a-1", 2, "s-2"): False,
        ("s-2", -2, "a-1"): True, ("s-2", -1, "s-1"): True, ("s-2", 2, "s-3"): False}
    assert all(type(flag) is bool for flag in follows.values())


def test_episode_members_are_every_fact_of_the_given_facts_episodes(store):
    """Closed facts included; an episode of more than ``cap`` facts gives none; a fact with
    no episode, or unknown, has none."""
    entity(store, "e-1", "Core")
    store.insert_facts([fact(i, "e-1", lit=i, episode=ep, **extra) for i, ep, extra in (
        ("n-1", "ep-1", {}), ("m-1", "ep-2", {}), ("n-2", "ep-1", {"t_invalid": 2000}),
        ("o-1", None, {}), ("n-3", "ep-1", {}), ("m-2", "ep-2", {}), ("p-1", "ep-3", {}))])
    def members(ids, cap):
        return sorted(store.episode_members(ids, cap))
    assert members(["n-3"], 10) == [("n-1", "ep-1"), ("n-2", "ep-1"), ("n-3", "ep-1")]
    assert members(["m-2", "n-1"], 10) == [("m-1", "ep-2"), ("m-2", "ep-2"), ("n-1", "ep-1"),
                                          ("n-2", "ep-1"), ("n-3", "ep-1")]
    assert members(["m-2", "n-1"], 3) == members(["m-2", "n-1"], 10)
    assert members(["m-2", "n-1"], 2) == [("m-1", "ep-2"), ("m-2", "ep-2")]  # ep-1 too big
    assert members(["o-1", "f-nope"], 10) == []
    assert members([], 10) == [] and members(["n-1"], 0) == []


def test_episode_members_among_keeps_only_those_facts_rows(store):
    """``among`` (search's candidates) gives the same rows kept to those facts: the episodes'
    sizes still count every fact, the given facts' own rows only if among them; an episode
    with fewer than two of them gives none."""
    entity(store, "e-1", "Core")
    store.insert_facts([fact(i, "e-1", lit=i, episode=ep, **extra) for i, ep, extra in (
        ("n-1", "ep-1", {}), ("m-1", "ep-2", {}), ("n-2", "ep-1", {"t_invalid": 2000}),
        ("o-1", None, {}), ("n-3", "ep-1", {}), ("m-2", "ep-2", {}), ("p-1", "ep-3", {}))])
    def among(ids, cap, keep):
        return sorted(store.episode_members(ids, cap, among=keep))
    everyone = ["n-1", "m-1", "n-2", "o-1", "n-3", "m-2", "p-1", "f-nope"]
    for ids, cap in ((["n-3"], 10), (["m-2", "n-1"], 10), (["m-2", "n-1"], 2), (["o-1"], 10),
                     (["m-2", "n-1"], 3)):
        assert among(ids, cap, everyone) == sorted(store.episode_members(ids, cap))
    assert among(["n-3"], 10, ["n-1", "n-2", "p-1", "o-1"]) == [("n-1", "ep-1"), ("n-2", "ep-1")]
    assert among(["n-3"], 10, ["n-1", "p-1", "o-1"]) == []  # n-1 alone in ep-1
    # ep-1 is too big at cap 2
    assert among(["m-2", "n-1"], 2, ["m-1", "m-2", "n-1", "n-2"]) == [("m-1", "ep-2"),
                                                                     ("m-2", "ep-2")]
    assert among(["m-2"], 10, []) == [] and among([], 10, ["m-1"]) == []


def test_episode_members_with_episodes_known_give_the_same_rows(store):
    """``episodes`` (search's heads carry theirs) spares reading them again: some known, all
    the given facts' known, a known "none", the rows are those of a read of every one, in
    the same order (search sums the episode shares of floats in it)."""
    entity(store, "e-1", "Core")
    store.insert_facts([fact(i, "e-1", lit=i, episode=ep, **extra) for i, ep, extra in (
        ("n-1", "ep-1", {}), ("m-1", "ep-2", {}), ("n-2", "ep-1", {"t_invalid": 2000}),
        ("o-1", None, {}), ("n-3", "ep-1", {}), ("m-2", "ep-2", {}), ("p-1", "ep-3", {}))])
    truth = {"n-1": "ep-1", "m-1": "ep-2", "n-2": "ep-1", "o-1": None, "n-3": "ep-1",
             "m-2": "ep-2", "p-1": "ep-3"}
    everyone = [*truth, "f-nope"]
    for ids, cap in ((["n-3"], 10), (["m-2", "n-1"], 10), (["m-2", "n-1"], 2), (["o-1"], 10),
                     (["m-2", "n-1"], 3), (["p-1", "o-1"], 10)):
        for keep in (everyone, ["n-1", "n-2", "p-1", "o-1"], ["m-1", "m-2", "n-1", "n-2"]):
            plain = store.episode_members(ids, cap, among=keep)
            for known in (truth, {i: truth[i] for i in ids if i in truth},
                          {i: e for i, e in truth.items() if i not in ids}, {"o-1": None}):
                assert store.episode_members(ids, cap, among=keep,
                                             episodes=known) == plain, (ids, cap, known)


def test_search_inside_a_transaction_sees_its_own_writes(store):
    with store.transaction():
        entity(store, "e-1", "Scheduler", aliases=["timer-jobs"])
        store.insert_fact(fact("f-1", "e-1", lit="runs every minute"))
        assert ids(store.search("schedul")["entities"]) == ["e-1"]
        assert ids(store.search("every minute")["facts"]) == ["f-1"]
        store.update_entity("e-1", name="Cron")
        assert store.search("schedul")["entities"] == []
        assert ids(store.search("jobs")["entities"]) == ["e-1"]


# --- curation state: dormancy and audit verdicts ---------------------------------------------
def test_a_new_fact_is_active_and_a_given_dormant_time_is_kept(store):
    entity(store, "e-1", "Core")
    store.insert_facts([fact("f-1", "e-1", lit="x"), fact("f-2", "e-1", lit="y", dormant_since=7)])
    assert store.get_fact("f-1")["dormant_since"] is None
    assert store.get_fact("f-2")["dormant_since"] == 7
    assert store.dormant_fact_ids() == ["f-2"]


def test_set_dormant_marks_once_keeps_the_first_time_and_ignores_unknown_ids(graph):
    assert graph.set_dormant(["f-2", "f-1", "f-nope"], 500) == 2
    assert graph.set_dormant(["f-1", "f-3"], 900) == 1
    assert [graph.get_fact(i)["dormant_since"] for i in ("f-1", "f-2", "f-3")] == [500, 500, 900]
    assert graph.dormant_fact_ids() == ["f-1", "f-2", "f-3"]
    assert graph.set_dormant([], 1) == 0 and graph.set_dormant("f-1", 1) == 0


def test_revive_clears_the_mark_and_counts_only_dormant_facts(graph):
    graph.set_dormant(["f-1", "f-2"], 500)
    assert graph.revive(["f-1", "f-3", "f-nope"]) == 1
    assert graph.get_fact("f-1")["dormant_since"] is None
    assert graph.dormant_fact_ids() == ["f-2"]
    assert graph.revive([]) == 0


def test_dormancy_rolls_back_with_its_transaction(graph):
    with pytest.raises(RuntimeError):
        with graph.transaction():
            graph.set_dormant(["f-1"], 500)
            raise RuntimeError("boom")
    assert graph.dormant_fact_ids() == []


def test_dormancy_does_not_touch_anything_else_about_a_fact(graph):
    before = graph.get_fact("f-2")
    graph.set_dormant(["f-2"], 500)
    graph.revive(["f-2"])
    assert graph.get_fact("f-2") == before


def _verdict(fact_id, evidence="src/a.py: `alpha`", verdict="supported", **fields):
    row = {"fact_id": fact_id, "evidence": evidence, "file": "src/a.py", "verdict": verdict,
           "reason": None, "content_hash": "sha256-aa", "checked_at": 100,
           "details": {"found": ["alpha"], "missing": []}}
    row.update(fields)
    return row


def test_record_audit_upserts_per_fact_and_citation_and_reads_back_sorted(graph):
    from claimgraph.logic.model import AUDIT_FIELDS
    graph.record_audit([_verdict("f-2"), _verdict("f-1", "src/b.py: `beta`", file="src/b.py"),
                        _verdict("f-1")])
    got = graph.get_audit()
    assert [(r["fact_id"], r["evidence"]) for r in got] == [
        ("f-1", "src/a.py: `alpha`"), ("f-1", "src/b.py: `beta`"), ("f-2", "src/a.py: `alpha`")]
    assert list(got[0]) == list(AUDIT_FIELDS)
    assert got[0]["details"] == {"found": ["alpha"], "missing": []}
    graph.record_audit([_verdict("f-1", verdict="unsupported", content_hash="sha256-bb",
                                 checked_at=200, details={})])
    again = graph.get_audit(["f-1"])
    assert len(again) == 2
    assert again[0]["verdict"] == "unsupported" and again[0]["content_hash"] == "sha256-bb"
    assert again[0]["checked_at"] == 200 and again[0]["details"] == {}
    assert graph.get_audit("f-2") == [got[2]]
    assert graph.get_audit([]) == []


def test_record_audit_refuses_an_unknown_fact_and_writes_none_of_the_batch(graph):
    with refused("fact-not-found") as info:
        graph.record_audit([_verdict("f-1"), _verdict("f-nope")])
    assert info.value.to_dict()["id"] == "f-nope"
    assert graph.get_audit() == []
    with refused("invalid-audit"):
        graph.record_audit([{"fact_id": "f-1", "evidence": "x"}])


def test_suspect_facts_are_those_with_an_unsupported_or_missing_citation(graph):
    graph.record_audit([
        _verdict("f-1"), _verdict("f-1", "src/b.py: `beta`", verdict="file-missing"),
        _verdict("f-2", verdict="partial"), _verdict("f-3", verdict="unsupported")])
    assert graph.suspect_fact_ids() == ["f-1", "f-3"]
    graph.record_audit([_verdict("f-1", "src/b.py: `beta`", verdict="supported"),
                        _verdict("f-3", verdict="file-unreadable")])
    assert graph.suspect_fact_ids() == []


def test_audit_verdicts_roll_back_with_their_transaction(graph):
    with pytest.raises(RuntimeError):
        with graph.transaction():
            graph.record_audit([_verdict("f-1")])
            raise RuntimeError("boom")
    assert graph.get_audit() == []


def test_scope_counts_count_each_scope_without_reading_facts(store):
    entity(store, "e-1", "Core")
    entity(store, "e-2", "Other", scope="other")
    store.insert_facts([
        fact("f-1", "e-1", lit="a", t_valid=100),
        fact("f-2", "e-1", lit="b", t_valid=300),
        fact("f-3", "e-1", lit="c", t_valid=200, t_invalid=250),
        fact("f-4", "e-1", lit="d", t_valid=250, dormant_since=400),
        fact("f-5", "e-2", lit="e", t_valid=500, scope="other"),
    ])
    store.record_audit([_verdict("f-2", verdict="unsupported"),
                        _verdict("f-3", verdict="file-missing"),
                        _verdict("f-1", verdict="supported")])
    assert store.scope_counts() == {
        "other": {"total": 1, "valid": 1, "dormant": 0, "suspect": 0, "last_recorded_at": 500},
        "proj": {"total": 4, "valid": 3, "dormant": 1, "suspect": 1, "last_recorded_at": 300},
    }


def test_scope_counts_of_an_empty_store_are_empty(store):
    assert store.scope_counts() == {}


# --- the write counter (docs/store.md) ------------------------------------------------------
def test_every_write_moves_the_write_counter_and_marks_never_do(graph):
    audit = {"fact_id": "f-1", "evidence": "a.py: x", "file": "a.py", "verdict": "unsupported",
             "checked_at": 5}
    writes = [
        ("insert_entity", lambda: entity(graph, "e-new", "New")),
        ("insert_facts", lambda: graph.insert_facts([fact("f-9", "e-new", lit="x")])),
        ("update_entity", lambda: graph.update_entity("e-new", name="Newer")),
        ("invalidate", lambda: graph.invalidate("f-9", 500, kind="superseded")),
        ("reinforce", lambda: graph.reinforce("f-1", 600, 0.9)),
        ("link_conflicts", lambda: graph.link_conflicts("f-1", ["f-2"])),
        ("unlink_conflicts", lambda: graph.unlink_conflicts("f-1", ["f-2"])),
        ("set_dormant", lambda: graph.set_dormant(["f-1"], 700)),
        ("revive", lambda: graph.revive(["f-1"])),
        ("record_audit", lambda: graph.record_audit([audit])),
        ("open_episode", lambda: graph.open_episode(episode("ep-1", "r", 1))),
        ("close_episode", lambda: graph.close_episode("ep-1", "done", 2)),
        ("update_episode", lambda: graph.update_episode("ep-1", summary="s", evidence=None)),
        ("register_predicate", lambda: graph.register_predicate({"id": "x/new"})),
        ("repoint_facts", lambda: graph.repoint_facts("e-new", "e-kuzu")),
        ("delete_entity", lambda: graph.delete_entity("e-new")),
        ("delete_facts", lambda: graph.delete_facts(["f-9"])),
        ("delete_episodes", lambda: graph.delete_episodes(["ep-1"])),
    ]
    last = graph.write_count()
    for name, write in writes:
        write()
        assert graph.write_count() > last, name
        last = graph.write_count()
    graph.set_mark("context:shortlist:p", {"ids": ["f-1"]})
    graph.delete_marks(["context:shortlist:p", "store:writes"])  # the counter never goes back
    with pytest.raises(RuntimeError), graph.transaction():
        graph.invalidate("f-1", 900)
        raise RuntimeError("rolled back")
    assert graph.write_count() == last


def test_a_transaction_of_several_writes_moves_the_counter_once_it_commits(graph):
    before = graph.write_count()
    with graph.transaction():
        graph.invalidate("f-1", 900)
        graph.set_mark("hw", 1)
        graph.reinforce("f-2", 901, 0.9)
    assert graph.write_count() > before
