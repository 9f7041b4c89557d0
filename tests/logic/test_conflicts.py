"""Conflicts, purely (REFERENCE §8): flagged links still open, and the pairs worth a verdict."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.logic.conflicts import conflict_candidates, conflict_pair_key, open_conflicts
from claimgraph.logic.timeutil import DAY_MS, from_iso

T0 = from_iso("2026-01-01")
NOW = from_iso("2026-07-18")

# Local rows for the predicates these tests need (the registry module is written separately).
PREDS = {
    "core/prefers": {"id": "core/prefers", "category": "decision",
                     "value_exclusivity": "exclusive", "exclusion_group": "stance"},
    "core/decided-against": {"id": "core/decided-against", "category": "decision",
                             "value_exclusivity": None, "exclusion_group": "stance"},
    "core/depends-on": {"id": "core/depends-on", "category": "structural",
                        "value_exclusivity": None, "exclusion_group": None},
    "core/written-in": {"id": "core/written-in", "category": "structural",
                        "value_exclusivity": None, "exclusion_group": None},
    "core/has-version": {"id": "core/has-version", "category": "structural",
                         "cardinality": "one", "value_exclusivity": None, "exclusion_group": None},
}
#: Where a teammate's fact comes from here (docs/sync.md); ours carry their own source types.
ADA, BOB = "sync:w-ada", "sync:w-bob"


def entity(eid: str, name: str) -> dict[str, Any]:
    return {"id": eid, "name": name, "type": None, "scope": "project", "aliases": []}


SHOPLY, BILLING = entity("e-shoply", "shoply"), entity("e-billing", "billing")
KUZU = entity("e-kuzu", "KuzuDB")


def make_fact(fid: str, predicate: str, obj: str | dict, *, day: int = 0,
              subject: dict = SHOPLY, **over: Any) -> dict[str, Any]:
    is_entity = isinstance(obj, dict)
    fact = {
        "id": fid, "subject": subject, "predicate": predicate,
        "object_kind": "entity" if is_entity else "literal",
        "object_ref": obj if is_entity else None, "object_lit": None if is_entity else obj,
        "t_valid": T0 + day * DAY_MS, "t_invalid": None, "recorded_at": T0 + day * DAY_MS,
        "last_reinforced_at": None, "confidence": 0.8, "epistemic": "observation",
        "scope": "project", "source_type": "session-log", "conflicts": [],
    }
    fact.update(over)
    return fact


def summary(pairs: list[dict]) -> list[tuple]:
    return [(p["fact"]["id"], p["candidate"]["id"], p.get("reason")) for p in pairs]


# --- conflict_pair_key --------------------------------------------------------------------

def test_a_pair_key_is_the_same_whichever_side_comes_first():
    assert conflict_pair_key("f-b", "f-a") == conflict_pair_key("f-a", "f-b") == ("f-a", "f-b")


# --- open_conflicts -----------------------------------------------------------------------

def test_an_open_conflict_pairs_the_flagged_newer_fact_with_its_candidate():
    old = make_fact("f-old", "core/has-version", "1.0")
    new = make_fact("f-new", "core/has-version", "2.0", day=1, conflicts=["f-old"])
    assert summary(open_conflicts([new], {"f-old": old}, NOW)) == [("f-new", "f-old", None)]


def test_candidates_may_come_from_the_facts_themselves():
    old = make_fact("f-old", "core/has-version", "1.0")
    new = make_fact("f-new", "core/has-version", "2.0", day=1, conflicts=["f-old"])
    assert summary(open_conflicts([old, new], {}, NOW)) == [("f-new", "f-old", None)]


def test_a_conflict_closes_once_either_side_is_no_longer_valid():
    old = make_fact("f-old", "core/has-version", "1.0", t_invalid=T0 + 5 * DAY_MS)
    new = make_fact("f-new", "core/has-version", "2.0", day=1, conflicts=["f-old"])
    assert open_conflicts([new], {"f-old": old}, NOW) == []
    assert summary(open_conflicts([new], {"f-old": old}, T0 + 2 * DAY_MS)) == [
        ("f-new", "f-old", None)]
    dead_new = {**new, "t_invalid": T0 + 3 * DAY_MS}
    assert open_conflicts([dead_new], {"f-old": {**old, "t_invalid": None}}, NOW) == []


def test_a_dangling_conflict_link_is_not_reported():
    new = make_fact("f-new", "core/has-version", "2.0", conflicts=["f-gone"])
    assert open_conflicts([new], {}, NOW) == []


# --- conflict_candidates ------------------------------------------------------------------

def test_two_preferences_on_one_subject_pair_newer_first():
    tabs = make_fact("f-tabs", "core/prefers", "tabs", day=0)
    spaces = make_fact("f-spaces", "core/prefers", "spaces", day=1)
    pairs = conflict_candidates([tabs, spaces], PREDS, NOW)
    assert summary(pairs) == [("f-spaces", "f-tabs", "exclusive-values")]


def test_depends_on_an_entity_meets_a_decision_against_its_loosely_named_literal():
    uses = make_fact("f-uses", "core/depends-on", KUZU, day=2)
    against = make_fact("f-against", "core/decided-against", "kuzu-db", day=1)
    pairs = conflict_candidates([against, uses], PREDS, NOW)
    assert summary(pairs) == [("f-uses", "f-against", "cross-predicate")]


def test_two_structural_predicates_never_pair_even_on_the_same_object():
    a = make_fact("f-a", "core/depends-on", KUZU)
    b = make_fact("f-b", "core/written-in", "kuzudb", day=1)
    c = make_fact("f-c", "core/depends-on", "Kuzu DB", day=2)
    assert conflict_candidates([a, b, c], PREDS, NOW) == []


def test_facts_on_different_subjects_never_pair():
    tabs = make_fact("f-tabs", "core/prefers", "tabs")
    spaces = make_fact("f-spaces", "core/prefers", "spaces", day=1, subject=BILLING)
    against = make_fact("f-against", "core/decided-against", "tabs", day=2, subject=BILLING)
    assert conflict_candidates([tabs, spaces, against], PREDS, NOW) == []


def test_pairs_already_linked_either_way_are_skipped():
    tabs = make_fact("f-tabs", "core/prefers", "tabs")
    spaces = make_fact("f-spaces", "core/prefers", "spaces", day=1, conflicts=["f-tabs"])
    assert conflict_candidates([tabs, spaces], PREDS, NOW) == []
    backwards = [{**tabs, "conflicts": ["f-spaces"]}, {**spaces, "conflicts": []}]
    assert conflict_candidates(backwards, PREDS, NOW) == []


def test_a_decision_needs_the_same_object_to_pair_across_predicates():
    against = make_fact("f-against", "core/decided-against", "GraphQL")
    uses = make_fact("f-uses", "core/depends-on", "REST", day=1)
    assert conflict_candidates([against, uses], PREDS, NOW) == []


def test_two_decision_predicates_on_one_object_pair_across_predicates():
    prefers = make_fact("f-prefers", "core/prefers", "GraphQL", day=3)
    against = make_fact("f-against", "core/decided-against", "graphql")
    assert summary(conflict_candidates([prefers, against], PREDS, NOW)) == [
        ("f-prefers", "f-against", "cross-predicate")]


def test_a_non_exclusive_predicate_does_not_pair_its_own_values():
    a = make_fact("f-a", "core/decided-against", "GraphQL")
    b = make_fact("f-b", "core/decided-against", "SOAP", day=1)
    assert conflict_candidates([a, b], PREDS, NOW) == []


def test_facts_invalid_at_the_instant_never_pair():
    tabs = make_fact("f-tabs", "core/prefers", "tabs", t_invalid=T0 + DAY_MS)
    spaces = make_fact("f-spaces", "core/prefers", "spaces", day=2)
    assert conflict_candidates([tabs, spaces], PREDS, NOW) == []
    assert len(conflict_candidates([tabs, {**spaces, "t_valid": T0}], PREDS, T0 + 1)) == 1


def test_unknown_predicates_are_neither_exclusive_nor_decisions():
    a = make_fact("f-a", "x/likes", "tabs")
    b = make_fact("f-b", "x/likes", "spaces", day=1)
    c = make_fact("f-c", "x/avoids", "tabs", day=2)
    assert conflict_candidates([a, b, c], PREDS, NOW) == []


def test_equal_record_times_call_the_larger_id_newer():
    tabs = make_fact("f-tabs", "core/prefers", "tabs")
    spaces = make_fact("f-spaces", "core/prefers", "spaces")
    for facts in ([tabs, spaces], [spaces, tabs]):
        assert summary(conflict_candidates(facts, PREDS, NOW)) == [
            ("f-tabs", "f-spaces", "exclusive-values")]


def test_a_fact_listed_twice_never_pairs_with_itself():
    tabs = make_fact("f-tabs", "core/prefers", "tabs")
    assert conflict_candidates([tabs, tabs], PREDS, NOW) == []


def test_candidates_come_newest_pair_first():
    facts = [make_fact("f-1", "core/prefers", "tabs", day=1),
             make_fact("f-2", "core/prefers", "spaces", day=2),
             make_fact("f-3", "core/prefers", "both", day=3)]
    assert summary(conflict_candidates(facts, PREDS, NOW)) == [
        ("f-3", "f-1", "exclusive-values"), ("f-3", "f-2", "exclusive-values"),
        ("f-2", "f-1", "exclusive-values")]


# --- single-valued predicates: two writers' values ---------------------------------------

def test_a_teammates_other_version_pairs_with_ours_newer_first():
    ours = make_fact("f-ours", "core/has-version", "2.0", day=1, source_type="user-assertion")
    adas = make_fact("f-ada", "core/has-version", "1.0", day=2, source_type=ADA)
    assert summary(conflict_candidates([ours, adas], PREDS, NOW)) == [
        ("f-ada", "f-ours", "single-valued")]


def test_two_teammates_versions_pair_too():
    adas = make_fact("f-ada", "core/has-version", "1.0", source_type=ADA)
    bobs = make_fact("f-bob", "core/has-version", "1.1", day=1, source_type=BOB)
    assert summary(conflict_candidates([adas, bobs], PREDS, NOW)) == [
        ("f-bob", "f-ada", "single-valued")]


def test_one_writers_two_versions_are_a_change_not_a_conflict():
    """Both standing from one writer means its write path was told to keep both
    (``--on-conflict ignore``) or flagged them already: the sweep adds nothing."""
    for source in ("user-assertion", ADA):
        old = make_fact("f-old", "core/has-version", "1.0", source_type=source)
        new = make_fact("f-new", "core/has-version", "2.0", day=1, source_type=source)
        assert conflict_candidates([old, new], PREDS, NOW) == []


def test_two_writers_agreeing_on_a_version_do_not_pair():
    ours = make_fact("f-ours", "core/has-version", "1.0", source_type="user-assertion")
    adas = make_fact("f-ada", "core/has-version", "1.0", day=1, source_type=ADA)
    assert conflict_candidates([ours, adas], PREDS, NOW) == []


def test_every_single_valued_predicate_pairs_not_just_has_version():
    """The registry row decides (cardinality one): the seed's three, and an x/* one."""
    from claimgraph.logic.predicates import CORE_PREDICATES

    single = sorted(r["id"] for r in CORE_PREDICATES if r["cardinality"] == "one")
    assert single == ["core/defined-in", "core/has-status", "core/has-version"]
    rows = {**{r["id"]: r for r in CORE_PREDICATES},
            "x/owner": {"id": "x/owner", "category": "experimental", "cardinality": "one"}}
    for predicate in [*single, "x/owner"]:
        ours = make_fact("f-ours", predicate, "a", source_type="user-assertion")
        adas = make_fact("f-ada", predicate, "b", day=1, source_type=ADA)
        assert summary(conflict_candidates([ours, adas], rows, NOW)) == [
            ("f-ada", "f-ours", "single-valued")], predicate
    many = make_fact("f-many", "core/depends-on", "a", source_type="user-assertion")
    other = make_fact("f-other", "core/depends-on", "b", day=1, source_type=ADA)
    assert conflict_candidates([many, other], rows, NOW) == []


def test_a_retired_version_never_pairs():
    ours = make_fact("f-ours", "core/has-version", "1.0", source_type="user-assertion",
                     t_invalid=T0 + DAY_MS)
    adas = make_fact("f-ada", "core/has-version", "2.0", day=2, source_type=ADA)
    assert conflict_candidates([ours, adas], PREDS, NOW) == []


@st.composite
def subject_facts(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A few facts over two subjects, the test predicates and loosely overlapping objects."""
    facts = []
    for n in range(draw(st.integers(0, 7))):
        facts.append(make_fact(
            f"f-{n}", draw(st.sampled_from(sorted(PREDS))),
            draw(st.sampled_from(["tabs", "Tabs", "spaces", KUZU, "kuzu-db"])),
            day=draw(st.integers(0, 3)), subject=draw(st.sampled_from([SHOPLY, BILLING])),
            source_type=draw(st.sampled_from(["session-log", ADA, BOB]))))
    return facts


@settings(deadline=None)  # behaviour, not speed: a loaded machine is slow, not wrong
@given(subject_facts(), st.randoms(use_true_random=False))
def test_candidates_do_not_depend_on_the_order_facts_arrive_in(facts, rng):
    shuffled = list(facts)
    rng.shuffle(shuffled)
    assert conflict_candidates(shuffled, PREDS, NOW) == conflict_candidates(facts, PREDS, NOW)


@settings(deadline=None)  # behaviour, not speed: a loaded machine is slow, not wrong
@given(subject_facts())
def test_every_candidate_is_one_subject_newer_first_and_unique(facts):
    pairs = conflict_candidates(facts, PREDS, NOW)
    keys = [conflict_pair_key(p["fact"]["id"], p["candidate"]["id"]) for p in pairs]
    assert len(keys) == len(set(keys))
    for pair in pairs:
        newer, older = pair["fact"], pair["candidate"]
        assert newer["subject"]["id"] == older["subject"]["id"] and newer["id"] != older["id"]
        assert (newer["recorded_at"], newer["id"]) > (older["recorded_at"], older["id"])


def test_without_a_judge_only_opposite_stances_and_exclusive_or_single_values_contradict():
    from claimgraph.logic.conflicts import contradicts_without_judge

    def pair(a, b, reason="cross-predicate"):
        return {"fact": {"predicate": a}, "candidate": {"predicate": b}, "reason": reason}
    assert contradicts_without_judge(pair("core/decided-against", "core/prefers"))
    assert contradicts_without_judge(pair("core/depends-on", "core/decided-against"))
    assert not contradicts_without_judge(pair("core/prefers", "core/tested-by"))
    assert contradicts_without_judge(pair("core/prefers", "core/prefers", "exclusive-values"))
    assert contradicts_without_judge(pair("core/has-version", "core/has-version", "single-valued"))
