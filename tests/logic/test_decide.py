"""The write path's decisions: build_fact, object kinds, decision inputs, every decide_assert
branch."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.facts import (
    build_fact, decide_assert, decision_inputs, fact_valid_at, resolve_object_kind,
)
from claimgraph.logic.model import FACT_FIELDS, SOURCE_TYPES, confidence_ceiling
from claimgraph.logic.predicates import CORE_BY_ID
from claimgraph.logic.timeutil import from_iso, to_iso

JAN, JUL = from_iso("2026-01-01"), from_iso("2026-07-01")
NOW = from_iso("2026-07-18")
AUTH = {"id": "e-auth", "name": "AuthService", "type": None, "scope": "project", "aliases": []}
MANY = {"id": "core/deployed-via", "cardinality": "many"}
ONE = {"id": "core/has-version", "cardinality": "one"}


def lit(fact_id, value, **fields):
    """A literal fact with only the fields decide_assert reads."""
    base = {"id": fact_id, "predicate": "core/has-version", "object_kind": "literal",
            "object_lit": value, "epistemic": "observation", "source_type": "session-log",
            "t_valid": JAN, "t_invalid": None}
    return {**base, **fields}


def decide(fact, pred=ONE, existing=(), exclusion=(), revenants=(), rivals=(), **options):
    return decide_assert(fact=fact, pred=pred, existing=list(existing), exclusion=list(exclusion),
                         revenants=list(revenants), rivals=list(rivals), **options)


# --- the book, §10.1 -------------------------------------------------------------------------

STANDING_COMMITMENT = {"id": "f-adr", "predicate": "core/decided-against", "object_kind": "literal",
                       "object_lit": "GraphQL", "epistemic": "commitment",
                       "source_type": "decision-record", "t_valid": JAN}
PREFERS_ROW = {"id": "core/prefers", "cardinality": "many", "exclusion_group": "stance"}


def new_preference(**fields):
    return {"id": "f-new", "predicate": "core/prefers", "object_kind": "literal",
            "object_lit": "GraphQL", "epistemic": "preference", "source_type": "session-log",
            "t_valid": JUL, **fields}


def test_book_a_commitment_threatened_by_a_new_claim_produces_a_flag_plan():
    fact = new_preference()
    plan = decide_assert(fact=fact, pred=PREFERS_ROW, existing=[], exclusion=[STANDING_COMMITMENT],
                         revenants=[], rivals=[], on_conflict=None)
    assert plan == {"action": "flag", "fact": fact, "link": ["f-adr"],
                    "candidates": [STANDING_COMMITMENT]}
    assert to_iso(plan["fact"]["t_valid"]) == "2026-07-01T00:00:00.000Z"
    assert to_iso(plan["candidates"][0]["t_valid"]) == "2026-01-01T00:00:00.000Z"


def test_book_decision_records_on_both_sides_still_flag():
    fact = new_preference(source_type="decision-record")
    plan = decide(fact, PREFERS_ROW, exclusion=[STANDING_COMMITMENT])
    assert plan == {"action": "flag", "fact": fact, "link": ["f-adr"],
                    "candidates": [STANDING_COMMITMENT]}


def test_book_an_observation_on_a_single_valued_predicate_is_superseded():
    standing = lit("f-old", "1.0")
    fact = lit("f-new", "2.0", t_valid=JUL)
    plan = decide(fact, ONE, existing=[standing], rivals=[standing])
    assert plan == {"action": "supersede", "fact": fact, "invalidate": ["f-old"],
                    "effective_at": JUL}


# --- 1. duplicates and escalation -------------------------------------------------------------

def test_the_same_literal_again_reinforces_the_standing_fact():
    standing = lit("f-old", "2.0")
    fact = lit("f-new", "2.0", t_valid=JUL)
    plan = decide(fact, existing=[standing])
    assert plan == {"action": "reinforce", "existing": standing, "fact": fact}


def test_entity_objects_are_the_same_by_id_not_by_name():
    standing = {**lit("f-old", None), "object_kind": "entity",
                "object_ref": {"id": "e-1", "name": "Old"}}
    fact = {**lit("f-new", None), "object_kind": "entity",
            "object_ref": {"id": "e-1", "name": "New"}}
    assert decide(fact, MANY, existing=[standing])["action"] == "reinforce"


def test_literals_are_compared_case_sensitively_for_reinforcement():
    standing = lit("f-old", "GraphQL", predicate="core/deployed-via")
    fact = lit("f-new", "graphql", predicate="core/deployed-via")
    assert decide(fact, MANY, existing=[standing]) == {"action": "insert", "fact": fact}


def test_a_stated_stronger_class_escalates_by_superseding_the_duplicate():
    standing = lit("f-old", "2.0")
    fact = lit("f-new", "2.0", t_valid=JUL, epistemic="commitment")
    plan = decide(fact, existing=[standing], stated_epistemic="commitment")
    assert plan == {"action": "supersede", "fact": fact, "invalidate": ["f-old"],
                    "effective_at": JUL}


@pytest.mark.parametrize("stated", ["observation", None])
def test_an_equal_or_unstated_class_reinforces_even_when_the_resolved_class_is_stronger(stated):
    standing = lit("f-old", "2.0")
    fact = lit("f-new", "2.0", epistemic="commitment")
    assert decide(fact, existing=[standing], stated_epistemic=stated)["action"] == "reinforce"


def test_a_weaker_stated_class_reinforces():
    standing = lit("f-old", "2.0", epistemic="commitment")
    fact = lit("f-new", "2.0", epistemic="preference")
    assert decide(fact, existing=[standing], stated_epistemic="preference")["action"] == "reinforce"


def test_escalation_needs_a_known_class_on_the_duplicate():
    standing = lit("f-old", "2.0", epistemic=None)
    assert decide(lit("f-new", "2.0"), existing=[standing],
                  stated_epistemic="commitment")["action"] == "reinforce"


def test_escalating_onto_a_later_starting_duplicate_flags_backdated_overlap():
    standing = lit("f-old", "2.0", t_valid=JUL)
    fact = lit("f-new", "2.0", t_valid=JAN, epistemic="commitment")
    plan = decide(fact, existing=[standing], stated_epistemic="commitment")
    assert plan == {"action": "flag", "fact": fact, "reason": "backdated-overlap",
                    "link": ["f-old"], "candidates": [standing]}


# --- 2. conflicts -------------------------------------------------------------------------------

def test_many_valued_predicates_never_conflict_among_themselves():
    standing = lit("f-old", "Heroku", predicate="core/deployed-via")
    fact = lit("f-new", "Fly.io", predicate="core/deployed-via", t_valid=JUL)
    plan = decide(fact, MANY, existing=[standing], rivals=[standing])
    assert plan == {"action": "insert", "fact": fact}


@pytest.mark.parametrize("new_class, old_class", [("commitment", "observation"),
                                                  ("observation", "commitment")])
def test_a_commitment_on_either_side_flags_without_a_reason(new_class, old_class):
    standing = lit("f-old", "proposed", epistemic=old_class)
    fact = lit("f-new", "accepted", t_valid=JUL, epistemic=new_class)
    plan = decide(fact, existing=[standing])
    assert plan == {"action": "flag", "fact": fact, "link": ["f-old"], "candidates": [standing]}


def test_an_explicit_flag_policy_flags_without_a_reason():
    standing = lit("f-old", "1.0")
    plan = decide(lit("f-new", "2.0", t_valid=JUL), existing=[standing], on_conflict="flag")
    assert plan["action"] == "flag" and "reason" not in plan and plan["link"] == ["f-old"]


def test_an_ignore_policy_inserts_beside_the_conflict():
    standing = lit("f-old", "1.0", epistemic="commitment", source_type="code")
    fact = lit("f-new", "2.0", t_valid=JUL)
    assert decide(fact, existing=[standing], on_conflict="ignore") == {"action": "insert",
                                                                       "fact": fact}


def test_an_explicit_supersede_policy_overrides_the_commitment_flag():
    standing = lit("f-old", "proposed", epistemic="commitment")
    fact = lit("f-new", "accepted", t_valid=JUL)
    plan = decide(fact, existing=[standing], on_conflict="supersede")
    assert plan == {"action": "supersede", "fact": fact, "invalidate": ["f-old"],
                    "effective_at": JUL}


def test_an_explicit_supersede_policy_still_flags_a_backdated_successor():
    standing = lit("f-old", "1.0", t_valid=JUL)
    fact = lit("f-new", "2.0", t_valid=JAN)
    plan = decide(fact, existing=[standing], on_conflict="supersede")
    assert plan["action"] == "flag" and plan["reason"] == "backdated-overlap"


def test_an_explicit_supersede_policy_still_flags_an_outranked_source():
    standing = lit("f-old", "2.0.0", source_type="code")
    fact = lit("f-new", "9.9.9", t_valid=JUL, source_type="agent-note")
    plan = decide(fact, existing=[standing], on_conflict="supersede")
    assert plan["action"] == "flag" and plan["reason"] == "outranked"


def test_an_unknown_conflict_policy_is_refused():
    with pytest.raises(ClaimgraphError) as caught:
        decide(lit("f-new", "2.0"), on_conflict="overwrite")
    assert caught.value.type == "invalid-on-conflict"


# --- exclusion antagonists ---------------------------------------------------------------------

def test_a_decided_against_commitment_flags_a_standing_preference_for_the_same_thing():
    preference = {"id": "f-pref", "subject": AUTH, "predicate": "core/prefers",
                  "object_kind": "entity",
                  "object_ref": {"id": "e-gql", "name": "GraphQL"}, "object_lit": None,
                  "epistemic": "preference", "source_type": "session-log", "t_valid": JAN,
                  "t_invalid": None}
    fact = build_fact(id="f-against", now=JUL, subject=AUTH, predicate="core/decided-against",
                      object_kind="literal", object="graphql", epistemic="commitment")
    inputs = decision_inputs(fact, [preference], NOW)
    assert inputs["exclusion"] == [preference] and inputs["existing"] == []
    plan = decide_assert(fact=fact, pred=CORE_BY_ID["core/decided-against"], **inputs)
    assert plan["action"] == "flag" and plan["link"] == ["f-pref"] and "reason" not in plan


# --- valid time in plans --------------------------------------------------------------------------

def test_a_supersede_closes_predecessors_at_the_successors_valid_from():
    plan = decide(lit("f-new", "2.0", t_valid=JUL), existing=[lit("f-old", "1.0")])
    assert plan["effective_at"] == JUL


def test_a_successor_starting_before_its_predecessor_flags_backdated_overlap():
    standing = lit("f-old", "1.0", t_valid=JUL)
    fact = lit("f-new", "2.0", t_valid=JAN)
    plan = decide(fact, existing=[standing])
    assert plan == {"action": "flag", "fact": fact, "reason": "backdated-overlap",
                    "link": ["f-old"], "candidates": [standing]}


def test_equal_starts_supersede_because_backdating_is_strict():
    plan = decide(lit("f-new", "2.0", t_valid=JAN), existing=[lit("f-old", "1.0", t_valid=JAN)])
    assert plan["action"] == "supersede" and plan["effective_at"] == JAN


# --- replayed history (ours: a backdated fact already on record) ----------------------------------

APR = from_iso("2026-04-01")


def test_a_backdated_fact_already_on_record_for_its_time_reinforces_that_record():
    retired = lit("f-old", "1.0", t_valid=JAN, t_invalid=APR)
    successor = lit("f-succ", "2.0", t_valid=APR)
    fact = lit("f-again", "1.0", t_valid=from_iso("2026-02-01"))
    plan = decide(fact, existing=[successor], revenants=[retired], rivals=[successor])
    assert plan == {"action": "reinforce", "existing": retired, "fact": fact}


@pytest.mark.parametrize("start", [JUL, APR, from_iso("2025-12-31")])
def test_a_retired_record_that_does_not_hold_the_new_start_is_not_reinforced(start):
    retired = lit("f-old", "1.0", t_valid=JAN, t_invalid=APR)  # [JAN, APR): APR is outside
    successor = lit("f-succ", "2.0", t_valid=APR)
    plan = decide(lit("f-again", "1.0", t_valid=start), existing=[successor],
                  revenants=[retired], rivals=[successor])
    assert plan["action"] != "reinforce"


def test_a_fact_valid_from_now_never_meets_a_retired_record_so_the_original_branches_hold():
    retired = lit("f-old", "redis", predicate="core/deployed-via", t_valid=JAN, t_invalid=JUL)
    rival = lit("f-rival", "memcached", predicate="core/deployed-via", t_valid=JUL)
    fact = lit("f-now", "redis", predicate="core/deployed-via", t_valid=NOW)
    inputs = decision_inputs(fact, [retired, rival], NOW)
    plan = decide_assert(fact=fact, pred=MANY, **inputs)
    assert plan["action"] == "flag" and plan["reason"] == "revenant"


# --- trust defenses ------------------------------------------------------------------------------

def test_a_weaker_source_contradicting_a_stronger_one_is_flagged_outranked():
    standing = lit("f-code", "2.0.0", source_type="code")
    fact = lit("f-note", "9.9.9", t_valid=JUL, source_type="agent-note")
    plan = decide(fact, existing=[standing])
    assert plan == {"action": "flag", "fact": fact, "reason": "outranked",
                    "link": ["f-code"], "candidates": [standing]}


def test_an_equally_trusted_source_supersedes():
    plan = decide(lit("f-code3", "3.0.0", t_valid=JUL, source_type="code"),
                  existing=[lit("f-code", "2.0.0", source_type="code")])
    assert plan["action"] == "supersede" and plan["invalidate"] == ["f-code"]


@pytest.mark.parametrize("old_source", ["mystery-source", None])
def test_unknown_and_missing_sources_rank_two(old_source):
    standing = lit("f-old", "1.0", source_type=old_source)
    by_log = decide(lit("f-log", "2.0", t_valid=JUL, source_type="session-log"),
                    existing=[standing])
    by_note = decide(lit("f-note", "2.0", t_valid=JUL, source_type="agent-note"),
                     existing=[standing])
    assert by_log["action"] == "supersede"
    assert by_note["reason"] == "outranked"


HEROKU = lit("f-heroku", "Heroku", predicate="core/deployed-via", t_invalid=JUL)
FLY = lit("f-fly", "Fly.io", predicate="core/deployed-via", t_valid=JUL)


def test_a_session_log_reasserting_a_retired_belief_is_flagged_revenant():
    fact = lit("f-again", "Heroku", predicate="core/deployed-via", t_valid=NOW)
    plan = decide(fact, MANY, existing=[FLY], revenants=[HEROKU], rivals=[FLY])
    assert plan == {"action": "flag", "fact": fact, "reason": "revenant",
                    "link": ["f-fly"], "candidates": [FLY]}


def test_a_trusted_source_may_bring_a_retired_belief_back():
    fact = lit("f-again", "Heroku", predicate="core/deployed-via", t_valid=NOW, source_type="code")
    assert decide(fact, MANY, existing=[FLY], revenants=[HEROKU],
                  rivals=[FLY])["action"] == "insert"


@pytest.mark.parametrize("policy, action", [("supersede", "insert"), ("ignore", "insert"),
                                            ("flag", "flag"), (None, "flag")])
def test_only_supersede_and_ignore_policies_silence_the_revenant_defense(policy, action):
    fact = lit("f-again", "Heroku", predicate="core/deployed-via", t_valid=NOW)
    plan = decide(fact, MANY, existing=[FLY], revenants=[HEROKU], rivals=[FLY], on_conflict=policy)
    assert plan["action"] == action


def test_a_revenant_needs_a_standing_rival():
    fact = lit("f-again", "Heroku", predicate="core/deployed-via", t_valid=NOW)
    assert decide(fact, MANY, revenants=[HEROKU])["action"] == "insert"


# --- decision inputs ------------------------------------------------------------------------------

def test_decision_inputs_sort_the_subjects_facts_as_the_reference_says():
    valid = lit("f-valid", "2.0")
    retired = lit("f-retired", "1.0", t_invalid=JUL)
    future = lit("f-future", "3.0", t_valid=from_iso("2027-01-01"))
    antagonist = lit("f-against", "2-0", predicate="core/decided-against")
    unrelated = lit("f-other", "Rust", predicate="core/decided-against")
    fact = lit("f-new", "2.0", t_valid=NOW)
    inputs = decision_inputs(fact, [valid, retired, future, antagonist, unrelated], NOW)
    assert inputs == {"existing": [valid], "exclusion": [antagonist],
                      "revenants": [retired], "rivals": [valid], "mentions": []}


def test_validity_is_closed_at_the_start_and_open_at_the_end():
    fact = lit("f", "x", t_valid=JAN, t_invalid=JUL)
    assert fact_valid_at(fact, JAN) and not fact_valid_at(fact, JUL)
    assert not fact_valid_at(fact, JAN - 1) and not fact_valid_at({"t_valid": None}, NOW)


# --- build_fact ---------------------------------------------------------------------------------

def test_build_fact_fills_every_field_with_the_documented_defaults():
    fact = build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version",
                      object_kind="literal", object=2)
    assert tuple(fact) == FACT_FIELDS
    assert (fact["t_valid"], fact["recorded_at"], fact["last_reinforced_at"]) == (NOW, NOW, NOW)
    assert (fact["object_lit"], fact["object_ref"]) == ("2", None)
    assert (fact["confidence"], fact["scope"], fact["source_type"], fact["epistemic"]) == (
        0.8, "project", "user-assertion", "observation")
    assert fact["conflicts"] == [] and fact["evidence"] == [] and fact["t_invalid"] is None


def test_an_entity_object_keeps_its_reference_and_no_literal():
    fact = build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/depends-on",
                      object_kind="entity", object_ref={"id": "e-db", "name": "Postgres"},
                      object="Postgres")
    assert fact["object_ref"]["id"] == "e-db" and fact["object_lit"] is None


@pytest.mark.parametrize("source, given_confidence, born", [
    ("session-log", 0.95, 0.7), ("session-log", None, 0.7), ("agent-note", None, 0.65),
    ("decision-record", 1.5, 1.0), ("code", -0.2, 0.0), ("user-assertion", 0, 0.0),
    ("mystery-source", 0.99, 0.9), ("inferred", 0.5, 0.5),
])
def test_a_fact_is_born_clamped_and_capped_at_its_source_ceiling(source, given_confidence, born):
    fact = build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version",
                      object_kind="literal", object="1", confidence=given_confidence,
                      source_type=source)
    assert fact["confidence"] == born


@given(st.floats(allow_nan=False), st.sampled_from([*SOURCE_TYPES, "mystery-source"]))
def test_birth_confidence_always_lies_between_zero_and_the_ceiling(confidence, source):
    fact = build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version",
                      object_kind="literal", object="1", confidence=confidence, source_type=source)
    assert 0.0 <= fact["confidence"] <= confidence_ceiling(source)


@pytest.mark.parametrize("bad", ["high", True, float("nan"), [0.5]])
def test_a_confidence_that_is_not_a_number_is_refused(bad):
    with pytest.raises(ClaimgraphError) as caught:
        build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version",
                   object_kind="literal", object="1", confidence=bad)
    assert caught.value.type == "invalid-confidence"


@pytest.mark.parametrize("t_invalid", [JAN, JAN - 1])
def test_an_interval_must_end_strictly_after_it_starts(t_invalid):
    with pytest.raises(ClaimgraphError) as caught:
        build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version",
                   object_kind="literal", object="1", t_valid=JAN, t_invalid=t_invalid)
    assert caught.value.type == "invalid-interval"


def test_a_closed_interval_after_its_start_is_kept():
    fact = build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version",
                      object_kind="literal", object="1", t_valid=JAN, t_invalid=JAN + 1)
    assert (fact["t_valid"], fact["t_invalid"]) == (JAN, JAN + 1)


@pytest.mark.parametrize("fields, error_type", [
    ({"object_kind": "literal", "object": None}, "missing-object"),
    ({"object_kind": "entity", "object": "Postgres"}, "missing-object"),
    ({"object_kind": "blob", "object": "x"}, "invalid-object-kind"),
    ({"object_kind": "literal", "object": "x", "epistemic": "hunch"}, "invalid-epistemic"),
])
def test_build_fact_refuses_malformed_input(fields, error_type):
    with pytest.raises(ClaimgraphError) as caught:
        build_fact(id="f-1", now=NOW, subject=AUTH, predicate="core/has-version", **fields)
    assert caught.value.type == error_type


# --- object kinds --------------------------------------------------------------------------------

def test_typed_predicates_force_their_object_kind():
    assert resolve_object_kind(CORE_BY_ID["core/depends-on"], None, False) == "entity"
    assert resolve_object_kind(CORE_BY_ID["core/has-version"], None, True) == "literal"
    assert resolve_object_kind(CORE_BY_ID["core/depends-on"], "entity", False) == "entity"


def test_an_explicit_kind_against_a_typed_predicate_is_a_mismatch():
    with pytest.raises(ClaimgraphError) as caught:
        resolve_object_kind(CORE_BY_ID["core/has-version"], "entity", True)
    assert caught.value.type == "object-kind-mismatch" and caught.value.hint


@pytest.mark.parametrize("explicit, resolves, kind", [
    ("literal", True, "literal"), ("entity", False, "entity"),
    (None, True, "entity"), (None, False, "literal"),
])
def test_either_predicates_take_the_explicit_kind_then_a_known_entity(explicit, resolves, kind):
    assert resolve_object_kind(CORE_BY_ID["core/prefers"], explicit, resolves) == kind


# --- a rejection naming a standing preference -------------------------------------------------

def _pref(fact_id, text, **fields):
    return lit(fact_id, text, predicate="core/prefers", epistemic="preference", **fields)


def test_a_rejection_flags_the_preferences_that_name_it_as_a_whole_word_in_any_case():
    named, longer, unrelated = (_pref("f-1", "GraphQL for the public API"),
                                _pref("f-2", "GraphQLite"),
                                _pref("f-3", "small pull requests"))
    fact = lit("f-new", "graphql", predicate="core/decided-against", epistemic="commitment")
    inputs = decision_inputs(fact, [named, longer, unrelated], NOW)
    assert inputs["mentions"] == [named]
    plan = decide_assert(fact=fact, pred=CORE_BY_ID["core/decided-against"], **inputs)
    assert plan["action"] == "flag" and plan["link"] == ["f-1"]
    assert plan["reason"] == "names-rejected"


@pytest.mark.parametrize("agreeing", ["REST over GraphQL", "REST rather than GraphQL",
                                      "plain SQL, not GraphQL", "tRPC vs. GraphQL: tRPC"])
def test_a_preference_that_ranks_the_rejected_thing_below_another_agrees_with_it(agreeing):
    fact = lit("f-new", "GraphQL", predicate="core/decided-against", epistemic="commitment")
    assert decision_inputs(fact, [_pref("f-1", agreeing)], NOW)["mentions"] == []


def test_a_mention_is_flagged_even_under_supersede_and_skipped_only_by_ignore():
    fact = lit("f-new", "GraphQL", predicate="core/decided-against", epistemic="commitment")
    inputs = decision_inputs(fact, [_pref("f-1", "GraphQL for the public API")], NOW)
    pred = CORE_BY_ID["core/decided-against"]
    assert decide_assert(fact=fact, pred=pred, **inputs,
                         on_conflict="supersede")["action"] == "flag"
    assert decide_assert(fact=fact, pred=pred, **inputs, on_conflict="ignore")["action"] == "insert"


def test_only_rejections_look_for_mentions_and_retired_preferences_are_not_standing():
    retired = _pref("f-1", "REST over GraphQL", t_invalid=JUL)
    against = lit("f-new", "GraphQL", predicate="core/decided-against")
    assert decision_inputs(against, [retired], NOW)["mentions"] == []
    uses = lit("f-new", "GraphQL", predicate="core/depends-on")
    assert decision_inputs(uses, [_pref("f-1", "REST over GraphQL")], NOW)["mentions"] == []


# --- the one-pass inputs and the empty shortcut, against their definitions ----------------------

def _reference_inputs(fact, raw, now):
    """decision_inputs as the reference words it, one list at a time."""
    from claimgraph.logic.facts import named_preferences
    from claimgraph.logic.names import same_object_loosely
    fetched = [f for f in raw if fact_valid_at(f, now)]
    same = [f for f in fetched if f["predicate"] == fact["predicate"]]
    exclusion = [f for f in fetched if f["predicate"] != fact["predicate"]
                 and same_object_loosely(f, fact)]
    revenants = [f for f in raw if f["predicate"] == fact["predicate"]
                 and f.get("t_invalid") is not None and not fact_valid_at(f, now)]
    return {"existing": same, "exclusion": exclusion, "revenants": revenants,
            "rivals": list(same), "mentions": named_preferences(fact, fetched, exclusion)}


_PREDICATES = ["core/has-version", "core/decided-against", "core/prefers", "x/convention"]
_raw_fact = st.builds(
    lambda n, pred, value, start, length, epistemic, source: lit(
        f"f-{n}", value, predicate=pred, t_valid=start, epistemic=epistemic, source_type=source,
        t_invalid=None if length is None else start + length),
    st.integers(0, 10**6), st.sampled_from(_PREDICATES),
    st.sampled_from(["2.0", "2-0", "GraphQL", "REST over GraphQL", "never GraphQL"]),
    st.sampled_from([JAN, JUL, NOW, NOW + 1]), st.one_of(st.none(), st.integers(1, 10**11)),
    st.sampled_from(["observation", "preference", "commitment"]),
    st.sampled_from(["session-log", "human", "code"]))


@given(st.lists(_raw_fact, max_size=6), _raw_fact,
       st.sampled_from([None, "supersede", "flag", "ignore"]), st.sampled_from([ONE, MANY]))
def test_one_pass_inputs_and_the_empty_shortcut_decide_as_the_definition(raw, fact, policy, pred):
    from claimgraph.logic.facts import decide as decide_plan
    assert decision_inputs(fact, raw, NOW) == _reference_inputs(fact, raw, NOW)
    wanted = decide_assert(fact=fact, pred=pred, **_reference_inputs(fact, raw, NOW),
                           on_conflict=policy)
    assert decide_plan(fact=fact, pred=pred, raw_facts=raw, now=NOW, on_conflict=policy) == wanted


def test_the_empty_shortcut_still_refuses_an_unknown_policy():
    from claimgraph.logic.facts import decide as decide_plan
    with pytest.raises(ClaimgraphError) as caught:
        decide_plan(fact=lit("f-1", "1"), pred=ONE, raw_facts=[], now=NOW, on_conflict="merge")
    assert caught.value.type == "invalid-on-conflict"
