"""Core semantics of the write path, identical on every backend (REFERENCE §3, §15 core_test)."""

from __future__ import annotations

import pytest

from claimgraph.core import entities as ents
from claimgraph.core.ingest import ingest
from claimgraph.core.reads import conflicts, get_facts, history
from claimgraph.core.writes import assert_fact, invalidate, reinforce
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso


def objects(result):
    return sorted(f["object_lit"] or f["object_ref"]["name"] for f in result["facts"])


def test_seeding_registers_the_23_core_predicates(shell):
    rows = shell.store.list_predicates()
    assert len([r for r in rows if r["id"].startswith("core/")]) == 23


def test_an_asserted_fact_reads_back_with_its_fields(shell):
    result = assert_fact(shell, "api", "depends-on", "postgres",
                         evidence=["src/db.py: import psycopg"])
    assert result["status"] == "created"
    fact = get_facts(shell, "api")["facts"][0]
    assert fact["predicate"] == "core/depends-on"
    assert fact["object_kind"] == "entity" and fact["object_ref"]["name"] == "postgres"
    assert fact["evidence"] == ["src/db.py: import psycopg"]
    assert fact["source_type"] == "user-assertion" and fact["confidence"] == 0.8


def test_asserting_the_same_fact_again_reinforces_instead_of_duplicating(shell):
    first = assert_fact(shell, "api", "depends-on", "postgres", source_type="session-log",
                        confidence=0.6)
    second = assert_fact(shell, "api", "depends-on", "postgres", source_type="session-log",
                         confidence=0.95)
    assert second["status"] == "reinforced"
    assert second["fact"]["id"] == first["fact"]["id"]
    assert second["fact"]["confidence"] == 0.7  # capped by the session-log ceiling
    assert len(get_facts(shell, "api")["facts"]) == 1


def test_a_single_valued_predicate_supersedes_the_old_value(shell):
    old = assert_fact(shell, "api", "has-version", "1.0")
    new = assert_fact(shell, "api", "has-version", "2.0")
    assert new["status"] == "superseded" and new["superseded"] == [old["fact"]["id"]]
    assert objects(get_facts(shell, "api")) == ["2.0"]
    versions = history(shell, "api", "has-version")["history"]
    assert [v["object_lit"] for v in versions] == ["1.0", "2.0"]
    assert versions[0]["invalidation_kind"] == "superseded"
    assert versions[0]["successor"] == new["fact"]["id"]
    assert versions[0]["t_invalid"] == new["fact"]["t_valid"]


def test_many_valued_predicates_accumulate(shell):
    assert_fact(shell, "api", "depends-on", "postgres")
    assert_fact(shell, "api", "depends-on", "redis")
    assert objects(get_facts(shell, "api")) == ["postgres", "redis"]


def test_a_commitment_against_a_standing_preference_is_flagged_not_superseded(shell):
    pref = assert_fact(shell, "api", "prefers", "GraphQL")
    ruling = assert_fact(shell, "api", "decided-against", "GraphQL")
    assert ruling["status"] == "flagged"
    assert ruling["fact"]["conflicts"] == [pref["fact"]["id"]]
    open_ = conflicts(shell)
    assert open_["open"] == 1
    assert open_["conflicts"][0]["candidate"]["id"] == pref["fact"]["id"]


def test_exclusion_antagonists_match_loosely_across_entity_and_literal(shell):
    assert_fact(shell, "api", "prefers", "kuzu-db")
    result = assert_fact(shell, "api", "decided-against", "KuzuDB")
    assert result["status"] == "flagged"


def test_stating_a_stronger_class_escalates_a_duplicate(shell):
    first = assert_fact(shell, "api", "prefers", "tabs")
    again = assert_fact(shell, "api", "prefers", "tabs", epistemic="commitment")
    assert again["status"] == "superseded" and again["superseded"] == [first["fact"]["id"]]
    assert get_facts(shell, "api")["facts"][0]["epistemic"] == "commitment"


def test_ingest_never_escalates_its_own_facts(shell):
    items = [{"subject": "api", "predicate": "prefers", "object": "tabs"}] * 2
    report = ingest(shell, items)
    assert report["counts"] == {"created": 1, "reinforced": 1}


def test_a_batch_redacts_every_fact_that_names_a_secret_however_often(shell):
    """Redaction is remembered per text within a batch; every fact still comes out clean."""
    token = "ghp_" + "A" * 36  # assembled here: the right shape, and no real secret
    items = [{"subject": f"deploy-{n % 2}", "predicate": "failure-mode",
              "object": f"push fails with GH_TOKEN={token}"} for n in range(4)]
    items.append({"subject": f"token {token}", "predicate": "tested-by", "object": "ci"})
    report = ingest(shell, items)
    assert report["counts"] == {"created": 3, "reinforced": 2}
    stored = [f for name in ("deploy-0", "deploy-1")
              for f in get_facts(shell, name, scope=None)["facts"]]
    assert len(stored) == 2 and all(token not in f["object_lit"] for f in stored)
    assert all("[REDACTED:github-token]" in f["object_lit"] for f in stored)
    assert ents.resolve_entity(shell, "token [REDACTED:github-token]") is not None


def test_birth_confidence_is_capped_by_the_source_ceiling(shell):
    result = assert_fact(shell, "api", "depends-on", "redis", source_type="agent-note",
                         confidence=0.99)
    assert result["fact"]["confidence"] == 0.65


def test_an_outranked_newcomer_is_flagged_rather_than_superseding(shell):
    assert_fact(shell, "api", "has-version", "1.0", source_type="code")
    result = assert_fact(shell, "api", "has-version", "0.9", source_type="agent-note")
    assert result["status"] == "flagged" and result["reason"] == "outranked"
    assert objects(get_facts(shell, "api")) == ["0.9", "1.0"]


def test_a_revenant_of_an_invalidated_value_is_flagged_against_its_rivals(shell):
    old = assert_fact(shell, "api", "depends-on", "redis", source_type="session-log")["fact"]
    invalidate(shell, old["id"], reason="moved to memcached")
    rival = assert_fact(shell, "api", "depends-on", "memcached", source_type="session-log")["fact"]
    result = assert_fact(shell, "api", "depends-on", "redis", source_type="session-log")
    assert result["status"] == "flagged" and result["reason"] == "revenant"
    assert result["fact"]["conflicts"] == [rival["id"]]


def test_a_trusted_source_may_bring_a_value_back_without_a_flag(shell):
    old = assert_fact(shell, "api", "depends-on", "redis")["fact"]
    invalidate(shell, old["id"])
    assert_fact(shell, "api", "depends-on", "memcached")
    assert assert_fact(shell, "api", "depends-on", "redis",
                       source_type="code")["status"] == "created"


def test_a_backdated_assertion_overlapping_a_newer_value_is_flagged(shell):
    shell.clock.advance_days(90)
    assert_fact(shell, "api", "has-version", "2.0", valid_from=from_iso("2026-03-01"))
    result = assert_fact(shell, "api", "has-version", "1.5", valid_from=from_iso("2026-02-01"))
    assert result["status"] == "flagged" and result["reason"] == "backdated-overlap"


def test_an_old_session_replayed_after_a_newer_one_never_supersedes_the_newer_value(shell):
    shell.clock.advance_days(90)
    assert_fact(shell, "api", "has-version", "2.0", valid_from=from_iso("2026-03-01"))
    replayed = assert_fact(shell, "api", "has-version", "1.0", valid_from=from_iso("2026-01-10"))
    assert replayed["status"] == "flagged"  # for review, never a silent overwrite
    assert "2.0" in objects(get_facts(shell, "api"))
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-01-15"))) == ["1.0"]


def test_a_session_re_captured_after_its_value_was_superseded_reinforces_the_old_record(shell):
    shell.clock.advance_days(90)
    first = assert_fact(shell, "api", "has-version", "1.0", valid_from=from_iso("2026-01-10"))
    assert_fact(shell, "api", "has-version", "2.0", valid_from=from_iso("2026-02-01"))
    again = assert_fact(shell, "api", "has-version", "1.0", valid_from=from_iso("2026-01-10"))
    assert again["status"] == "reinforced" and again["fact"]["id"] == first["fact"]["id"]
    assert objects(get_facts(shell, "api")) == ["2.0"]  # no live copy of the retired value
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-01-15"))) == ["1.0"]
    assert len(shell.store.all_facts()) == 2


def test_valid_time_supersession_closes_the_old_interval_at_the_new_start(shell):
    assert_fact(shell, "api", "has-version", "1.0", valid_from=from_iso("2026-01-01"))
    assert_fact(shell, "api", "has-version", "2.0", valid_from=from_iso("2026-02-01"))
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-01-15"))) == ["1.0"]
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-02-15"))) == ["2.0"]


def test_a_closed_interval_expires_on_its_own(shell):
    assert_fact(shell, "api", "has-status", "beta", valid_from=from_iso("2026-01-01"),
                valid_until=from_iso("2026-01-10"))
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-01-05"))) == ["beta"]
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-01-20"))) == []
    assert objects(get_facts(shell, "api", as_of=from_iso("2026-01-20"),
                             include_invalidated=True)) == ["beta"]


def test_t_invalid_before_t_valid_is_refused(shell):
    with pytest.raises(ClaimgraphError) as err:
        assert_fact(shell, "api", "has-status", "beta", valid_from=from_iso("2026-02-01"),
                    valid_until=from_iso("2026-01-01"))
    assert err.value.type == "invalid-interval"


def test_an_unknown_predicate_suggests_the_nearest_ones(shell):
    with pytest.raises(ClaimgraphError) as err:
        assert_fact(shell, "api", "depend-on", "postgres")
    assert err.value.type == "unknown-predicate"
    assert "core/depends-on" in err.value.hint


def test_an_experimental_predicate_registers_itself_on_first_use(shell):
    result = assert_fact(shell, "api", "x/owned-by", "team-a")
    assert result["status"] == "created"
    assert shell.store.get_predicate("x/owned-by")["status"] == "testing"


def test_an_entity_only_predicate_refuses_a_literal_kind(shell):
    with pytest.raises(ClaimgraphError) as err:
        assert_fact(shell, "api", "depends-on", "postgres", object_kind="literal")
    assert err.value.type == "object-kind-mismatch"


def test_either_kind_objects_become_entities_only_when_the_name_resolves(shell):
    ents.ensure_entity(shell, "Python")
    assert assert_fact(shell, "api", "written-in", "python")["fact"]["object_kind"] == "entity"
    assert assert_fact(shell, "cli", "written-in", "Rust")["fact"]["object_kind"] == "literal"


@pytest.mark.parametrize("confidence", [1.5, -0.2])
def test_confidence_out_of_range_is_clamped_into_the_source_ceiling(shell, confidence):
    fact = assert_fact(shell, "api", "depends-on", "x", confidence=confidence)["fact"]
    assert 0.0 <= fact["confidence"] <= 0.9


def test_a_confidence_that_is_not_a_number_is_refused(shell):
    with pytest.raises(ClaimgraphError) as err:
        assert_fact(shell, "api", "depends-on", "x", confidence="very")
    assert err.value.type == "invalid-confidence"


@pytest.mark.parametrize("subject,obj,kind",
                         [("", "x", "empty-name"), ("api", "  ", "missing-object")])
def test_an_empty_subject_or_object_is_refused(shell, subject, obj, kind):
    with pytest.raises(ClaimgraphError) as err:
        assert_fact(shell, subject, "depends-on", obj)
    assert err.value.type == kind


def test_manual_invalidation_closes_the_fact_and_says_why(shell):
    fact = assert_fact(shell, "api", "depends-on", "redis")["fact"]
    out = invalidate(shell, fact["id"], reason="moved to memcached")["fact"]
    assert out["invalidation_kind"] == "manual"
    assert out["invalidation_reason"] == "moved to memcached"
    assert get_facts(shell, "api")["facts"] == []
    with pytest.raises(ClaimgraphError):
        invalidate(shell, fact["id"])


def test_invalidating_before_the_fact_was_valid_is_refused(shell):
    fact = assert_fact(shell, "api", "depends-on", "redis",
                       valid_from=from_iso("2026-05-01"))["fact"]
    with pytest.raises(ClaimgraphError) as err:
        invalidate(shell, fact["id"], at=from_iso("2026-04-01"))
    assert err.value.type == "invalid-interval"


def test_reinforcement_resets_the_decay_clock(shell):
    fact = assert_fact(shell, "api", "depends-on", "redis", source_type="session-log",
                       confidence=0.6)["fact"]
    shell.clock.advance_days(90)
    assert get_facts(shell,
                     "api")["facts"][0]["effective_confidence"] == pytest.approx(0.3, abs=1e-3)
    reinforce(shell, fact["id"])
    assert get_facts(shell,
                     "api")["facts"][0]["effective_confidence"] == pytest.approx(0.6, abs=1e-3)


def test_min_confidence_filters_on_effective_confidence(shell):
    assert_fact(shell, "api", "depends-on", "redis", source_type="session-log", confidence=0.6)
    shell.clock.advance_days(180)
    assert get_facts(shell, "api", min_confidence=0.2)["facts"] == []
    assert len(get_facts(shell, "api", min_confidence=0.1)["facts"]) == 1


def test_ingest_reports_errors_without_stopping_its_neighbours(shell):
    report = ingest(shell, [
        {"subject": "api", "predicate": "depends-on", "object": "redis"},
        {"subject": "api", "predicate": "no-such-pred", "object": "x"},
        {"subject": "api", "predicate": "prefers", "object": "tabs", "class": "preference"},
    ])
    assert report["total"] == 3 and report["counts"] == {"created": 2, "error": 1}
    assert report["errors"][0]["type"] == "unknown-predicate"
    facts = get_facts(shell, "api")["facts"]
    assert {f["episode"] for f in facts} == {report["episode"]["id"]}


def test_ingest_reads_iso_times_as_milliseconds(shell):
    """Items from a file or another tool carry ISO text; stored as text, a time would break
    every later comparison with the facts beside it (a raw TypeError on the next write)."""
    report = ingest(shell, [
        {"subject": "api", "predicate": "prefers", "object": "tabs",
         "valid_from": "2026-01-02T03:04:05Z", "valid_until": "2026-03-01"},
        {"subject": "api", "predicate": "depends-on", "object": "redis",
         "valid_from": "2026-01-05"},
    ])
    assert report["counts"] == {"created": 2}, report["errors"]
    again = ingest(shell, [{"subject": "api", "predicate": "depends-on", "object": "kafka",
                            "valid_from": from_iso("2026-01-06")}])
    assert again["counts"] == {"created": 1}, again["errors"]
    facts = {f["object_lit"] or f["object_ref"]["name"]: f for f in shell.store.all_facts()}
    assert facts["tabs"]["t_valid"] == from_iso("2026-01-02T03:04:05Z")
    assert facts["tabs"]["t_invalid"] == from_iso("2026-03-01")
    assert facts["redis"]["t_valid"] == from_iso("2026-01-05")
    assert all(isinstance(f["t_valid"], int) for f in facts.values())


@pytest.mark.parametrize("given", ["garbage", "1767225600000", True, 1.5e12, [1], 10**20])
def test_ingest_refuses_a_time_it_cannot_read_and_keeps_the_item(shell, given):
    item = {"subject": "api", "predicate": "prefers", "object": "tabs", "valid_from": given}
    report = ingest(shell, [item, {"subject": "api", "predicate": "depends-on",
                                   "object": "redis"}])
    assert report["counts"] == {"error": 1, "created": 1}
    [error] = report["errors"]
    assert error["type"] == "invalid-time" and "valid_from" in error["message"]
    assert error["input"]["valid_from"] == given  # the item comes back whole
    assert [f.get("object_lit") or f["object_ref"]["name"]
            for f in shell.store.all_facts()] == ["redis"]
