"""Admission control: the book's golden screen, each signal, and screening invariants."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic.admission import (
    admission_ctx, admission_score, admission_signals, admit, screen_candidates,
)
from claimgraph.logic.predicates import CORE_PREDICATES

BOOK_CTX = admission_ctx([{"name": "AuthService", "aliases": ["auth-service"]}],
                         [{"id": "core/prefers"}, {"id": "core/depends-on"}])
LONG_SUBJECT = ("the whole discussion we had about maybe possibly restructuring the api "
                "at some point")


def test_book_screen_admits_one_and_explains_two_rejections():
    assert len(LONG_SUBJECT) == 84
    screened = screen_candidates([
        {"subject": "AuthService", "predicate": "prefers", "object": "argon2", "confidence": 0.6},
        {"subject": "AuthService", "predicate": "prefers", "object": "argon2", "confidence": 0.1},
        {"subject": LONG_SUBJECT, "predicate": "prefers", "object": "...", "confidence": 0.6},
    ], BOOK_CTX)
    assert screened == {
        "admitted": [
            {"subject": "AuthService", "predicate": "prefers", "object": "argon2",
             "confidence": 0.6, "admission_score": 0.5},
        ],
        "inadmissible": [
            {"subject": "AuthService", "predicate": "prefers", "object": "argon2",
             "confidence": 0.1,
             "admission_signals": {"above_floor": False, "subject_shaped": True,
                                   "object_sane": True, "predicate_known": True,
                                   "subject_known": True, "class_weight": 0.5,
                                   "value_kept": True},
             "admission_score": 0.0},
            {"subject": LONG_SUBJECT, "predicate": "prefers", "object": "...", "confidence": 0.6,
             "admission_signals": {"above_floor": True, "subject_shaped": False,
                                   "object_sane": True, "predicate_known": True,
                                   "subject_known": False, "class_weight": 0.5,
                                   "value_kept": True},
             "admission_score": 0.0},
        ],
    }


def test_the_context_knows_normalized_names_aliases_and_prose_predicates():
    assert BOOK_CTX == {"known_norms": {"authservice"},
                        "known_preds": {"core/prefers", "core/depends-on"},
                        "prose_preds": {"core/prefers"}}


def signals(**candidate):
    return admission_signals({"subject": "AuthService", "predicate": "prefers",
                              "object": "argon2", **candidate}, BOOK_CTX)


@pytest.mark.parametrize("confidence, above", [(None, True), (0.3, True), (0.29, False),
                                               ("high", False)])
def test_the_floor_is_point_three_and_a_missing_confidence_counts_as_half(confidence, above):
    assert signals(confidence=confidence)["above_floor"] is above


def test_subjects_may_be_up_to_eighty_characters():
    assert signals(subject="a" * 80)["subject_shaped"] is True
    assert signals(subject="a" * 81)["subject_shaped"] is False


def test_prose_predicates_allow_a_thousand_character_literal_and_others_250():
    assert signals(object="x" * 1000)["object_sane"] is True
    assert signals(object="x" * 1001)["object_sane"] is False
    assert signals(predicate="depends_on", object="x" * 250)["object_sane"] is True
    assert signals(predicate="depends_on", object="x" * 251)["object_sane"] is False


def test_bare_underscored_and_namespaced_predicates_are_all_recognised():
    assert signals(predicate="depends_on")["predicate_known"] is True
    assert signals(predicate="core/prefers")["predicate_known"] is True
    assert signals(predicate="x/owned-by")["predicate_known"] is False


def test_a_subject_is_known_by_any_spelling_of_a_name_or_alias():
    assert signals(subject="auth service")["subject_known"] is True
    assert signals(subject="Billing")["subject_known"] is False


@pytest.mark.parametrize("fields, weight", [
    ({"epistemic": "commitment"}, 1.0), ({"class": "preference"}, 0.8),
    ({"class": "observation"}, 0.5), ({}, 0.5),
    ({"epistemic": "commitment", "class": "observation"}, 1.0),
])
def test_class_weight_favours_standing_decisions(fields, weight):
    assert signals(**fields)["class_weight"] == weight


def test_score_scales_the_class_weight_by_familiarity():
    assert admission_score(signals(epistemic="commitment")) == 1.0
    assert admission_score(signals(subject="Billing", predicate="x/owns")) == pytest.approx(0.3)
    assert admission_score(signals(confidence=0.1, epistemic="commitment")) == 0.0


def test_unknown_subjects_and_coined_predicates_still_admit():
    assert admit(signals(subject="Billing", predicate="x/owned-by")) is True


candidates = st.lists(st.fixed_dictionaries(
    {"subject": st.text(max_size=100),
     "predicate": st.sampled_from(["prefers", "depends_on", "x/owns"]),
     "object": st.text(max_size=300)},
    optional={"confidence": st.one_of(st.none(), st.floats(-1, 2, allow_nan=False)),
              "epistemic": st.sampled_from(["commitment", "preference", "observation"])},
), max_size=8)
FULL_CTX = admission_ctx([{"name": "AuthService", "aliases": []}], CORE_PREDICATES)


@given(candidates)
def test_screening_is_deterministic_and_idempotent(batch):
    first = screen_candidates(batch, FULL_CTX)
    assert first == screen_candidates(batch, FULL_CTX)
    assert screen_candidates(first["admitted"], FULL_CTX)["admitted"] == first["admitted"]
    assert len(first["admitted"]) + len(first["inadmissible"]) == len(batch)


@given(candidates)
def test_screening_never_admits_a_candidate_that_fails_a_hard_rule(batch):
    for entry in screen_candidates(batch, FULL_CTX)["admitted"]:
        confidence = entry.get("confidence")
        assert (0.5 if confidence is None else confidence) >= 0.3
        assert len(entry["subject"]) <= 80
        assert len(entry["object"]) <= (1000 if entry["predicate"] == "prefers" else 250)
        assert entry["admission_score"] > 0


@pytest.mark.parametrize("field", ["subject", "object"])
def test_a_candidate_whose_value_was_redacted_is_dropped_not_stored(field):
    """Issue 25: "the deploy password is [REDACTED:secret]" has lost its point."""
    candidate = {"subject": "deploy", "predicate": "prefers", "object": "argon2",
                 "confidence": 0.9}
    candidate[field] = "the staging password is [REDACTED:secret]"
    screened = screen_candidates([candidate], BOOK_CTX)
    assert screened["admitted"] == []
    assert screened["inadmissible"][0]["admission_signals"]["value_kept"] is False


def test_an_overlong_object_is_cut_for_a_coined_predicate_and_dropped_for_a_value_one():
    from claimgraph.logic.admission import CUT, DROP, cut_at_sentence, overlong
    ctx = admission_ctx([], [*CORE_PREDICATES, {"id": "x/registered"}])
    assert overlong("x/coined", ctx) == CUT
    assert overlong("core/tested-by", ctx) == overlong("x/registered", ctx) == DROP
    text = "First point holds. Second one v1.2 too! " * 10
    screened = screen_candidates([
        {"subject": "api", "predicate": "x/coined", "object": text, "confidence": 0.6},
        {"subject": "api", "predicate": "x/coined", "object": "no stop " * 40, "confidence": 0.6},
        {"subject": "api", "predicate": "core/tested-by", "object": text, "confidence": 0.6}],
        ctx)
    [kept] = screened["admitted"]
    assert kept["object"] == cut_at_sentence(text, 250) and kept["object"].endswith("too!")
    assert kept["object_cut"] == len(text) and len(kept["object"]) <= 250
    assert [c["predicate"] for c in screened["inadmissible"]] == ["x/coined", "core/tested-by"]


def test_a_sentence_ends_at_its_stop_not_inside_a_version_or_an_abbreviation():
    from claimgraph.logic.admission import cut_at_sentence
    assert cut_at_sentence("Use v1.2.3 here. Then e.g. this stays whole", 40) == \
        "Use v1.2.3 here."
    assert cut_at_sentence("no stop at all in this text", 10) is None
