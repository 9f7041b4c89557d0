"""The predicate vocabulary: the core/* seed table, checks, x/* coinage and name resolution."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import PREDICATE_FIELDS
from claimgraph.logic.predicates import (
    CORE_BY_ID, CORE_PREDICATES, auto_row, check_predicate, did_you_mean, group_mates,
    levenshtein, object_shape, predicate_error, prepare_registration, resolve_predicate_id,
)

CORE_IDS = list(CORE_BY_ID)


def test_the_seed_has_exactly_23_stable_core_predicates():
    assert len(CORE_PREDICATES) == 23
    assert len(CORE_BY_ID) == 23
    assert all(row["id"].startswith("core/") for row in CORE_PREDICATES)
    assert {row["status"] for row in CORE_PREDICATES} == {"stable"}


def test_every_seed_row_has_every_predicate_field():
    for row in CORE_PREDICATES:
        assert set(row) == set(PREDICATE_FIELDS), row["id"]
        assert row["replaced_by"] is None


def test_labels_are_the_name_in_words_and_every_row_is_defined():
    assert CORE_BY_ID["core/depends-on"]["label"] == "depends on"
    assert CORE_BY_ID["core/decided-against"]["label"] == "decided against"
    for row in CORE_PREDICATES:
        assert row["definition"].endswith(".") and row["definition"].count(". ") == 0
        assert isinstance(row["maps_to"], list) and all(isinstance(m, str) for m in row["maps_to"])


def _table_values(pred_id):
    row = CORE_BY_ID[pred_id]
    keys = ("category", "object_kind", "cardinality", "inverse_of", "exclusion_group",
            "value_exclusivity", "object_shape", "default_epistemic", "maps_to")
    return tuple(row[key] for key in keys)


@pytest.mark.parametrize("pred_id, expected", [
    ("core/depends-on", ("structural", "entity", "many", "core/dependency-of", None, None, None,
                         "observation", ["spdx:DEPENDS_ON"])),
    ("core/defined-in", ("structural", "entity", "one", None, None, None, None,
                         "observation", ["spdx:CONTAINED_BY"])),
    ("core/contains", ("structural", "entity", "many", "core/part-of", None, None, None,
                       "observation", ["spdx:CONTAINS", "dcterms:hasPart"])),
    ("core/has-version", ("structural", "literal", "one", None, None, None, None,
                          "observation", ["dcterms:hasVersion"])),
    ("core/deployed-via", ("procedural", "either", "many", None, None, None, None,
                           "observation", ["LOCAL"])),
    ("core/failure-mode", ("procedural", "literal", "many", None, None, None, "prose",
                           "observation", ["LOCAL"])),
    ("core/supersedes", ("decision", "entity", "many", "core/superseded-by", "revision", None, None,
                         "commitment", ["prov:wasRevisionOf", "dcterms:replaces"])),
    ("core/decided-against", ("decision", "either", "many", None, "stance", None, "prose",
                              "commitment", ["LOCAL"])),
    ("core/prefers", ("decision", "either", "many", None, "stance", "exclusive", "prose",
                      "preference", ["LOCAL"])),
    ("core/has-status", ("decision", "literal", "one", None, None, None, None,
                         "commitment", ["LOCAL"])),
    ("core/primary-source", ("provenance", "either", "many", None, None, None, None,
                             "observation", ["prov:hadPrimarySource", "dcterms:provenance"])),
])
def test_seed_rows_match_the_reference_table(pred_id, expected):
    assert _table_values(pred_id) == expected


def test_exactly_four_predicates_are_prose_shaped():
    prose = {row["id"] for row in CORE_PREDICATES if row["object_shape"] == "prose"}
    assert prose == {"core/failure-mode", "core/decided-against", "core/prefers",
                     "core/motivated-by"}
    assert {row["object_shape"] for row in CORE_PREDICATES} == {"prose", None}


def test_only_prefers_is_value_exclusive():
    exclusive = [row["id"] for row in CORE_PREDICATES if row["value_exclusivity"]]
    assert exclusive == ["core/prefers"]


def test_inverse_of_is_a_bijection():
    pairs = {row["id"]: row["inverse_of"] for row in CORE_PREDICATES if row["inverse_of"]}
    assert len(set(pairs.values())) == len(pairs)
    for pred_id, inverse in pairs.items():
        assert CORE_BY_ID[inverse]["inverse_of"] == pred_id
    assert CORE_BY_ID["core/defined-in"]["inverse_of"] is None


def test_object_shape_prefers_the_rows_own_then_the_seed_then_value():
    assert object_shape({"id": "core/prefers", "object_shape": "value"}) == "value"
    assert object_shape({"id": "core/prefers"}) == "prose"
    assert object_shape({"id": "core/depends-on"}) == "value"
    assert object_shape({"id": "x/lesson", "object_shape": "prose"}) == "prose"
    assert object_shape({"id": "x/unknown"}) == "value"


def test_check_accepts_a_present_row():
    row = CORE_BY_ID["core/prefers"]
    assert check_predicate("core/prefers", row) == {"ok": row}


def test_check_refuses_a_deprecated_row_and_names_its_replacement():
    row = {**auto_row("x/owns"), "status": "deprecated", "replaced_by": "core/owns"}
    assert check_predicate("x/owns", row) == {
        "error": {"type": "deprecated-predicate", "replaced_by": "core/owns"}}


def test_check_registers_an_unseen_experimental_predicate():
    assert check_predicate("x/owned-by", None) == {"register": auto_row("x/owned-by")}


def test_check_refuses_an_unknown_curated_predicate():
    assert check_predicate("core/owns", None) == {"error": {"type": "unknown-predicate"}}
    assert check_predicate("owns", None) == {"error": {"type": "unknown-predicate"}}


def test_auto_row_is_permissive_and_marked_testing():
    row = auto_row("x/owned-by")
    assert set(row) == set(PREDICATE_FIELDS)
    assert row["label"] == "owned by"
    assert (row["category"], row["object_kind"], row["object_shape"], row["cardinality"],
            row["status"]) == ("experimental", "either", "value", "many", "testing")
    assert row["exclusion_group"] is None and row["default_epistemic"] is None


@pytest.mark.parametrize("typed, resolved", [
    ("prefers", "core/prefers"),
    (":depends_on", "core/depends-on"),
    ("core/prefers", "core/prefers"),
    ("x/owned_by", "x/owned-by"),
    ("owns", "owns"),
])
def test_resolution_strips_colon_hyphenates_and_prefers_core(typed, resolved):
    assert resolve_predicate_id(typed, CORE_IDS) == resolved


def test_levenshtein_counts_single_character_edits():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("prefers", "prefers") == 0


@given(st.text(max_size=12), st.text(max_size=12))
def test_levenshtein_is_symmetric_and_bounded_by_the_longer_string(a, b):
    assert levenshtein(a, b) == levenshtein(b, a)
    assert abs(len(a) - len(b)) <= levenshtein(a, b) <= max(len(a), len(b))


def test_did_you_mean_compares_name_parts_nearest_first():
    assert did_you_mean("core/prefer", CORE_IDS)[0] == "core/prefers"
    assert did_you_mean("x/depends", CORE_IDS)[0] == "core/depends-on"


def test_did_you_mean_offers_at_most_three_and_nothing_far_away():
    assert did_you_mean("x/a", ["x/ad", "x/ac", "x/ab", "x/aa"]) == ["x/aa", "x/ab", "x/ac"]
    assert did_you_mean("core/part", CORE_IDS) == ["core/part-of", "core/imports", "core/prefers"]
    assert did_you_mean("core/completely-unrelated-words", CORE_IDS) == []


def test_did_you_mean_breaks_ties_by_id():
    assert did_you_mean("b", ["x/c", "x/a", "core/z"], max_distance=1) == ["core/z", "x/a", "x/c"]


def test_registration_fills_an_experimental_row():
    row = prepare_registration({"id": "x/owned-by", "cardinality": "one", "label": "is owned by"})
    assert row["cardinality"] == "one" and row["label"] == "is owned by"
    assert row["status"] == "testing" and set(row) == set(PREDICATE_FIELDS)


@pytest.mark.parametrize("row, error_type", [
    ({"id": "core/owns"}, "curated-predicate"),
    ({"id": "owns"}, "invalid-predicate-id"),
    ({"id": None}, "invalid-predicate-id"),
    ({"id": "x/owns", "cardinality": "several"}, "invalid-predicate-row"),
    ({"id": "x/owns", "colour": "red"}, "invalid-predicate-row"),
])
def test_registration_refuses_anything_but_a_valid_experimental_row(row, error_type):
    with pytest.raises(ClaimgraphError) as caught:
        prepare_registration(row)
    assert caught.value.type == error_type and caught.value.hint


def test_group_mates_are_the_other_members_of_the_exclusion_group():
    assert group_mates(CORE_BY_ID["core/prefers"], CORE_PREDICATES) == ["core/decided-against"]
    assert group_mates(CORE_BY_ID["core/supersedes"], CORE_PREDICATES) == ["core/superseded-by"]
    assert group_mates(CORE_BY_ID["core/depends-on"], CORE_PREDICATES) == []


def test_unknown_predicate_error_suggests_near_misses():
    error = predicate_error("core/prefer", check_predicate("core/prefer", None), CORE_IDS)
    assert error.type == "unknown-predicate"
    assert "core/prefer" in error.message
    assert error.hint.startswith("did you mean core/prefers")
    assert error.data["did_you_mean"][0] == "core/prefers"


def test_unknown_predicate_error_without_near_misses_says_how_to_coin_one():
    error = predicate_error("core/zzzzzzzzzzzzzzzz",
                            {"error": {"type": "unknown-predicate"}}, CORE_IDS)
    assert error.data["did_you_mean"] == [] and "x/<name>" in error.hint


def test_deprecated_predicate_error_names_the_replacement():
    result = {"error": {"type": "deprecated-predicate", "replaced_by": "core/owns"}}
    error = predicate_error("x/owns", result, CORE_IDS)
    assert error.type == "deprecated-predicate"
    assert error.hint == "use core/owns instead" and error.data["replaced_by"] == "core/owns"
