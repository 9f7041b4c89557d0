"""Core semantics of reads, entities and portability, identical on every backend."""

from __future__ import annotations

import pytest

from claimgraph.core import entities as ents
from claimgraph.core.neighbor import neighbor
from claimgraph.core.portable import dump_lines, load_lines
from claimgraph.core.reads import conflicts, get_facts, scope_facts, search
from claimgraph.core.writes import assert_fact, invalidate
from claimgraph.errors import ClaimgraphError
from claimgraph.store.memory import MemoryStore
from claimgraph.core import Shell
from claimgraph.logic.timeutil import DAY_MS


def small_graph(shell):
    assert_fact(shell, "api", "depends-on", "postgres")
    assert_fact(shell, "postgres", "has-version", "16")
    assert_fact(shell, "api", "tested-by", "pytest")
    assert_fact(shell, "worker", "depends-on", "redis")


def test_search_finds_facts_by_entity_name_and_literal_text(shell):
    small_graph(shell)
    result = search(shell, "postgres")
    found = {(f["subject"]["name"], f["predicate"]) for f in result["facts"]}
    assert ("api", "core/depends-on") in found and ("postgres", "core/has-version") in found
    assert [e["name"] for e in result["matched_entities"]] == ["postgres"]
    assert all(f["retrieval_score"] > 0 for f in result["facts"])


def test_search_never_surfaces_an_invalidated_fact(shell):
    fact = assert_fact(shell, "api", "depends-on", "memcached")["fact"]
    invalidate(shell, fact["id"])
    assert search(shell, "memcached")["facts"] == []


@pytest.mark.parametrize("query", ['"', "AND", "*", "NEAR(", "a:b", "--"])
def test_search_survives_queries_that_look_like_syntax(shell, query):
    small_graph(shell)
    assert isinstance(search(shell, query)["facts"], list)


def test_neighbor_walks_the_graph_by_depth_and_literals_are_terminal(shell):
    small_graph(shell)
    one = neighbor(shell, "api", depth=1)
    assert {e["name"] for e in one["entities"]} == {"api", "postgres", "pytest"}
    two = neighbor(shell, "api", depth=2)
    assert "core/has-version" in {f["predicate"] for f in two["facts"]}
    assert {e["name"] for e in two["entities"]} == {"api", "postgres", "pytest"}


def test_a_guided_walk_prefers_facts_that_mention_the_query(shell):
    small_graph(shell)
    walk = neighbor(shell, "api", query="postgres version")
    assert walk["facts"][0]["predicate"] in {"core/has-version", "core/depends-on"}


def test_a_normalized_name_resolves_and_learns_the_alias(shell):
    ents.ensure_entity(shell, "AuthService")
    entity = ents.ensure_entity(shell, "auth-service")
    assert entity["name"] == "AuthService" and "auth-service" in entity["aliases"]


def test_an_ambiguous_name_is_an_error_that_suggests_merging(shell):
    ents.ensure_entity(shell, "Auth Service")
    shell.store.insert_entity({"id": "e-x", "name": "auth_service", "type": None,
                               "scope": "project", "aliases": []})
    with pytest.raises(ClaimgraphError) as err:
        get_facts(shell, "authservice")
    assert err.value.type == "ambiguous-entity" and "merge" in err.value.hint


def test_rename_keeps_the_old_name_as_an_alias_and_old_facts_follow(shell):
    assert_fact(shell, "api", "depends-on", "postgres")
    ents.rename(shell, "api", "gateway")
    assert get_facts(shell, "gateway")["facts"][0]["subject"]["name"] == "gateway"
    assert get_facts(shell, "api")["entity"]["name"] == "gateway"


def test_merge_moves_facts_keeps_names_and_collapses_duplicates(shell):
    assert_fact(shell, "api", "depends-on", "postgres")
    assert_fact(shell, "gateway", "depends-on", "postgres")
    result = ents.merge(shell, "gateway", "api")
    assert len(result["collapsed"]) == 1
    facts = get_facts(shell, "api")["facts"]
    assert len(facts) == 1
    assert "gateway" in result["entity"]["aliases"]
    history = get_facts(shell, "api", include_invalidated=True)["facts"]
    collapsed = [f for f in history if f["t_invalid"] is not None]
    assert collapsed[0]["invalidation_kind"] == "merge-duplicate"


def test_a_dump_reloads_into_an_empty_store_and_dumps_identically(shell):
    small_graph(shell)
    assert_fact(shell, "api", "prefers", "GraphQL")
    assert_fact(shell, "api", "decided-against", "GraphQL")
    fact = assert_fact(shell, "api", "has-version", "1")["fact"]
    invalidate(shell, fact["id"])
    first = list(dump_lines(shell))
    copy = Shell(store=MemoryStore(), clock=shell.clock, new_id=shell.new_id)
    counts = load_lines(copy, first)
    assert counts["fact"] == 7
    assert list(dump_lines(copy)) == first


def test_load_refuses_a_store_that_already_holds_data(shell):
    small_graph(shell)
    lines = list(dump_lines(shell))
    with pytest.raises(ClaimgraphError) as err:
        load_lines(shell, lines)
    assert err.value.type == "store-not-empty"


@pytest.mark.parametrize("lines,kind", [
    ([], "empty-dump"),
    (['{"record":"claimgraph-dump","format":99}'], "future-format"),
    (['{"record":"claimgraph-dump","format":"1"}'], "invalid-dump"),
    (['{"record":"claimgraph-dump","format":1}', '{"type":"fact"}'], "unstamped-record"),
    (['{"record":"claimgraph-dump","format":1}', '{"record":"widget"}'], "unknown-record"),
    (['{"record":"claimgraph-dump","format":1}', "not json"], "invalid-dump"),
])
def test_load_refuses_bad_dumps_before_writing_anything(lines, kind):
    sh = Shell(store=MemoryStore())
    with pytest.raises(ClaimgraphError) as err:
        load_lines(sh, lines)
    assert err.value.type == kind
    assert sh.store.is_empty()


def test_a_scope_as_of_a_past_instant_shows_what_was_believed_then_even_if_invalidated_since(shell):
    old = assert_fact(shell, "api", "depends-on", "memcached", scope="proj")["fact"]
    shell.clock.advance_days(2)
    invalidate(shell, old["id"])
    shell.clock.advance_days(1)
    then = old["t_valid"] + 1
    assert [f["id"] for f in scope_facts(shell, ["proj"], as_of=then)["facts"]] == [old["id"]]
    assert scope_facts(shell, ["proj"])["facts"] == []


def test_a_fact_set_to_end_later_is_listed_until_its_end(shell):
    """``assert --valid-until`` a later day: the project's default listing shows the fact
    until that day (not only facts with no end recorded), and from then on only ``--all``."""
    kept = assert_fact(shell, "api", "depends-on", "postgres", scope="proj")["fact"]
    ends = assert_fact(shell, "api", "depends-on", "memcached", scope="proj",
                       valid_until=shell.clock.now + 2 * DAY_MS)["fact"]
    ended = assert_fact(shell, "api", "depends-on", "redis", scope="proj")["fact"]
    invalidate(shell, ended["id"])

    def listed(**options) -> set[str]:
        return {f["id"] for f in scope_facts(shell, ["proj"], **options)["facts"]}

    assert listed() == {kept["id"], ends["id"]}
    assert listed(as_of=shell.clock.now) == {kept["id"], ends["id"]}
    shell.clock.advance_days(3)
    assert listed() == {kept["id"]}
    assert listed(as_of=ends["t_valid"] + 1) == {kept["id"], ends["id"], ended["id"]}
    assert listed(include_invalidated=True) == {kept["id"], ends["id"], ended["id"]}


def test_a_flagged_fact_set_to_end_later_stands_in_an_open_conflict_until_then(shell):
    """The conflict list asks the store for flagged facts not ended now: a ruling whose end is
    recorded for later still contends with the preference it was flagged against."""
    pref = assert_fact(shell, "api", "prefers", "GraphQL")["fact"]
    ruling = assert_fact(shell, "api", "decided-against", "GraphQL",
                         valid_until=shell.clock.now + 2 * DAY_MS)
    assert ruling["status"] == "flagged"
    found = conflicts(shell)
    assert found["open"] == 1
    assert (found["conflicts"][0]["fact"]["id"],
            found["conflicts"][0]["candidate"]["id"]) == (ruling["fact"]["id"], pref["id"])
    shell.clock.advance_days(3)
    assert conflicts(shell)["open"] == 0


def test_search_finds_a_fact_set_to_end_later_by_its_words_until_its_end(shell):
    """Only the word route (stems: "paintings" finds "painted") reaches this fact; it ranks
    the facts not ended now, so one whose end is recorded for later is found until then."""
    fact = assert_fact(shell, "ana", "prefers", "I painted the garden fence", scope="proj",
                       valid_until=shell.clock.now + 2 * DAY_MS)["fact"]
    assert [f["id"] for f in search(shell, "paintings", ["proj"])["facts"]] == [fact["id"]]
    shell.clock.advance_days(3)
    assert search(shell, "paintings", ["proj"])["facts"] == []
