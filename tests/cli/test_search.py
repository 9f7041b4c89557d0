"""search, neighbor, conflicts: finding beliefs, walking the graph, and the open disagreements."""

from __future__ import annotations

import pytest

from .conftest import normalize


@pytest.fixture
def graph(ok):
    ok("assert", "billing-api", "depends-on", "postgres", "--valid-from", "2026-01-05")
    ok("assert", "billing-api", "tested-by", "pytest", "--valid-from", "2026-01-04")
    ok("assert", "postgres", "has-version", "16.2", "--valid-from", "2026-01-06")
    ok("assert", "billing-api", "prefers", "GraphQL", "--valid-from", "2026-01-10")
    ok("assert", "billing-api", "decided-against", "GraphQL", "--valid-from", "2026-02-01")


def test_search_finds_a_literal_object(graph, ok):
    hits = ok("search", "GraphQL", "--json").json()["facts"]
    assert {h["predicate"] for h in hits} >= {"core/prefers", "core/decided-against"}
    assert all(h["retrieval_score"] > 0 for h in hits)


def test_search_by_entity_name_reaches_its_neighbours_facts(graph, ok):
    hits = ok("search", "billing-api", "--json").json()
    assert hits["matched_entities"][0]["name"] == "billing-api"
    assert "16.2" in {h["object"] for h in hits["facts"]}


def test_search_limit_says_how_many_more_there_are(graph, ok):
    result = ok("search", "billing-api", "--limit", "2")
    lines = result.out.splitlines()
    assert len(lines) == 3 and lines[-1].endswith("more (raise --limit)")


def test_search_for_nothing_known_says_so(graph, ok):
    assert normalize(ok("search", "kubernetes").out) == (
        "nothing found for kubernetes in <project> and user\n")


def test_neighbor_shows_entities_by_depth_then_facts(graph, ok):
    result = ok("neighbor", "pytest", "--depth", "2")
    assert normalize(result.out) == (
        "pytest: 2 neighbours, 4 facts\n"
        "  billing-api  (depth 1)\n"
        "    postgres  (depth 2)\n"
        "  <f>  billing-api tested-by pytest  (conf 0.80, valid since 2026-01-04)\n"
        "  <f>  billing-api depends-on postgres  (conf 0.80, valid since 2026-01-05)\n"
        "  <f>  billing-api prefers GraphQL  (conf 0.80, valid since 2026-01-10)\n"
        "  <f>  billing-api decided-against GraphQL  (conf 0.80, commitment, valid since "
        "2026-02-01, conflicts with <f>)\n")


def test_neighbor_json_reports_depths(graph, ok):
    out = ok("neighbor", "pytest", "--json").json()
    assert out["root"]["name"] == "pytest"
    assert [(e["name"], e["depth"]) for e in out["entities"]] == [("pytest", 0), ("billing-api", 1)]


def test_neighbor_with_a_query_walks_toward_matching_facts(graph, ok):
    out = ok("neighbor", "pytest", "--query", "postgres version", "--budget", "2", "--json").json()
    assert len(out["facts"]) == 2
    assert (out["facts"][0]["predicate"],
            out["facts"][0]["object"]) == ("core/depends-on", "postgres")


def test_conflicts_lists_each_open_pair_newer_first(graph, ok):
    result = ok("conflicts")
    assert normalize(result.out) == (
        "<f>  billing-api decided-against GraphQL  (conf 0.80, commitment, valid since "
        "2026-02-01, conflicts with <f>)\n"
        "  conflicts with <f>  billing-api prefers GraphQL  (conf 0.80, valid since 2026-01-10)\n"
        "1 open conflict; settle one with `claimgraph invalidate <f>` (or the other side)\n")


def test_conflicts_json_pairs_the_flagged_fact_with_its_candidate(graph, ok):
    out = ok("conflicts", "--json").json()
    assert out["open"] == 1
    pair = out["conflicts"][0]
    assert (pair["fact"]["predicate"], pair["candidate"]["predicate"]) == (
        "core/decided-against", "core/prefers")
    assert pair["fact"]["conflicts"] == [pair["candidate"]["id"]]


def test_invalidating_one_side_closes_the_conflict(graph, ok):
    pair = ok("conflicts", "--json").json()["conflicts"][0]
    ok("invalidate", pair["candidate"]["id"], "--reason", "the ADR wins")
    assert ok("conflicts").out == "no open conflicts\n"
    assert ok("conflicts", "--as-of", "2026-03-01", "--json").json()["open"] == 1


def test_search_shows_a_fact_ending_later_but_not_one_ended_or_not_begun(ok):
    """Closed facts are left out of search, a fact still valid is not: one set to end in the
    future is found; one that ended, and one valid only from a later day, are not."""
    ok("assert", "billing-api", "depends-on", "stripe-sdk", "--valid-from", "2026-01-05",
       "--valid-until", "2099-01-01")
    ok("assert", "billing-api", "depends-on", "paypal-sdk", "--valid-from", "2026-01-05",
       "--valid-until", "2026-01-20")
    ok("assert", "billing-api", "depends-on", "adyen-sdk", "--valid-from", "2099-01-01")
    for limit in ("0", "10"):
        hits = ok("search", "billing-api", "sdk", "--limit", limit, "--json").json()["facts"]
        assert {h["object"] for h in hits} == {"stripe-sdk"}, limit
