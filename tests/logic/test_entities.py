"""Entity resolution: name normalization, match precedence, duplicate facts and entity clusters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic.entities import (
    collapse_plan, duplicate_groups, entity_duplicate_clusters, pick_entity_match,
)
from claimgraph.logic.names import normalize_entity_name
from claimgraph.logic.timeutil import DAY_MS, from_iso

NOW = from_iso("2026-07-18")


def entity(entity_id, name, aliases=(), type=None, scope="project"):
    return {"id": entity_id, "name": name, "type": type, "scope": scope, "aliases": list(aliases)}


@pytest.mark.parametrize("spelling",
                         ["AuthService", "auth-service", "auth_service", "Auth Service"])
def test_separators_and_case_do_not_change_a_normalized_name(spelling):
    assert normalize_entity_name(spelling) == "authservice"


def test_dots_and_slashes_are_separators_too():
    assert normalize_entity_name("claimgraph.core") == "claimgraphcore"
    assert normalize_entity_name("src/claimgraph") == "srcclaimgraph"


def test_an_exact_name_wins_over_an_alias_holder():
    exact, holder = entity("e-1", "auth"), entity("e-2", "AuthService", aliases=["auth"])
    assert pick_entity_match("auth", [holder, exact]) == {"via": "exact", "entity": exact}


def test_a_single_alias_holder_matches_by_alias():
    holder = entity("e-2", "AuthService", aliases=["authsvc"])
    assert pick_entity_match("authsvc", [holder]) == {"via": "alias", "entity": holder}


def test_two_alias_holders_are_ambiguous():
    first, second = entity("e-1", "Auth", aliases=["svc"]), entity("e-2", "Billing",
                                                                   aliases=["svc"])
    assert pick_entity_match("svc", [first, second]) == {
        "via": "ambiguous", "candidates": [first, second]}


def test_an_alias_holder_wins_over_a_normalized_match():
    holder, loose = entity("e-1", "Gateway", aliases=["auth-service"]), entity("e-2", "AuthService")
    assert pick_entity_match("auth-service", [loose, holder])["entity"] is holder


def test_a_normalized_match_on_a_name_or_an_alias_resolves():
    by_name = entity("e-1", "AuthService")
    by_alias = entity("e-2", "Gateway", aliases=["api-gw"])
    assert pick_entity_match("auth service", [by_name]) == {"via": "normalized", "entity": by_name}
    assert pick_entity_match("API_GW", [by_alias]) == {"via": "normalized", "entity": by_alias}


def test_normalized_matches_must_have_compatible_types():
    service = entity("e-1", "Auth", type="service")
    untyped = entity("e-2", "auth", type=None)
    assert pick_entity_match("AUTH", [service], type="module") is None
    assert pick_entity_match("AUTH", [service], type="service")["entity"] is service
    assert pick_entity_match("AUTH", [service, untyped], type="module")["entity"] is untyped


def test_several_normalized_matches_are_ambiguous():
    first, second = entity("e-1", "auth-service"), entity("e-2", "auth_service")
    assert pick_entity_match("AuthService", [first, second]) == {
        "via": "ambiguous", "candidates": [first, second]}


def test_no_match_is_none():
    assert pick_entity_match("Billing", [entity("e-1", "AuthService")]) is None
    assert pick_entity_match("Billing", []) is None


AUTH = entity("e-auth", "AuthService")


def claim(fact_id, recorded_days_ago, **fields):
    base = {"id": fact_id, "subject": AUTH, "predicate": "core/depends-on", "object_kind": "entity",
            "object_ref": {"id": "e-pg", "name": "Postgres"}, "object_lit": None,
            "scope": "project",
            "epistemic": "observation", "t_valid": NOW - 400 * DAY_MS, "t_invalid": None,
            "recorded_at": NOW - recorded_days_ago * DAY_MS}
    return {**base, **fields}


def test_duplicate_collapse_keeps_the_earliest_recorded_fact():
    facts = [claim("f-b", 10), claim("f-a", 30), claim("f-c", 20)]
    assert collapse_plan(facts, NOW) == [{"keep": "f-a", "invalidate": ["f-c", "f-b"]}]


def test_duplicate_collapse_breaks_recording_ties_by_id():
    plan = collapse_plan([claim("f-z", 5), claim("f-y", 5)], NOW)
    assert plan == [{"keep": "f-y", "invalidate": ["f-z"]}]


@pytest.mark.parametrize("difference", [
    {"object_ref": {"id": "e-mysql", "name": "MySQL"}}, {"predicate": "core/built-with"},
    {"scope": "user"}, {"epistemic": "commitment"}, {"subject": {"id": "e-other", "name": "Other"}},
    {"object_kind": "literal", "object_ref": None, "object_lit": "Postgres"},
])
def test_facts_differing_in_any_key_part_are_not_duplicates(difference):
    assert duplicate_groups([claim("f-a", 30), claim("f-b", 10, **difference)], NOW) == []


def test_only_facts_valid_at_the_instant_are_collapsed():
    retired = claim("f-old", 50, t_invalid=NOW - DAY_MS)
    assert collapse_plan([retired, claim("f-a", 30), claim("f-b", 10)], NOW) == [
        {"keep": "f-a", "invalidate": ["f-b"]}]


def test_literal_duplicates_group_by_the_exact_string():
    literal = {"object_kind": "literal", "object_ref": None}
    facts = [claim("f-1", 3, object_lit="uv", **literal),
             claim("f-2", 2, object_lit="uv", **literal),
             claim("f-3", 1, object_lit="UV", **literal)]
    assert [[f["id"] for f in group] for group in duplicate_groups(facts, NOW)] == [["f-1", "f-2"]]


@given(st.permutations([claim(f"f-{i}", days) for i, days in enumerate([4, 9, 1, 9, 6])]))
def test_the_collapse_plan_does_not_depend_on_input_order(facts):
    assert collapse_plan(facts,
                         NOW) == [{"keep": "f-1", "invalidate": ["f-3", "f-4", "f-0", "f-2"]}]


def test_entity_clusters_group_by_scope_and_normalized_name():
    entities = [entity("e-3", "auth_service"), entity("e-1", "AuthService"),
                entity("e-2", "Billing"),
                entity("e-4", "AuthService", scope="user"), entity("e-5", "billing"),
                entity("e-6", "Gateway")]
    assert entity_duplicate_clusters(entities) == [
        {"scope": "project", "normalized": "authservice",
         "entities": [entities[1], entities[0]]},
        {"scope": "project", "normalized": "billing", "entities": [entities[2], entities[4]]},
    ]


def test_a_store_without_look_alike_names_has_no_clusters():
    assert entity_duplicate_clusters([entity("e-1", "Auth"), entity("e-2", "Billing")]) == []
