"""assert, facts, history, invalidate: what a person types and exactly what they see."""

from __future__ import annotations

from datetime import date, timedelta

from claimgraph import STORE_FORMAT
from claimgraph.logic.predicates import CAPTURE_PREDICATES, CORE_PREDICATES

from .conftest import normalize, run_process

#: What ``init`` seeds: the curated core and capture's own rows (counted, so that a new
#: capture predicate does not leave this test behind).
SEEDED = len(CORE_PREDICATES) + len(CAPTURE_PREDICATES)


def test_init_creates_the_store_and_says_where(ok, db):
    result = ok("init")
    assert result.out == (f"created: claimgraph store at {db} (format {STORE_FORMAT}, "
                          f"{SEEDED} predicates)\n")
    assert db.exists()


def test_init_is_idempotent(ok, db):
    ok("init")
    again = ok("init", "--json").json()
    assert again == {"status": "exists", "db": str(db), "format": STORE_FORMAT,
                     "predicates": SEEDED}


def test_assert_prints_the_new_fact_on_one_line(ok):
    result = ok("assert", "billing-api", "depends-on", "postgres", "--valid-from", "2026-01-05")
    assert normalize(result.out) == (
        "created  <f>  billing-api depends-on postgres  (conf 0.80, valid since 2026-01-05)\n")


def test_the_first_write_creates_the_store_without_init(ok, db):
    ok("assert", "api", "prefers", "REST")
    assert db.exists()


def test_asserting_the_same_fact_again_reinforces_it(ok):
    ok("assert", "api", "tested-by", "pytest")
    again = ok("assert", "api", "tested-by", "pytest", "--json").json()
    assert again["status"] == "reinforced"


def test_assert_json_names_entities_and_writes_iso_times(ok):
    out = ok("assert", "api", "has-version", "1.2.0", "--valid-from", "2026-01-05T10:00:00Z",
             "--evidence", "pyproject.toml: version = \"1.2.0\"", "--source-type", "code",
             "--confidence", "0.9", "--json").json()
    fact = out["fact"]
    assert out["status"] == "created"
    assert list(fact) == [
        "id", "subject", "predicate", "object", "object_kind", "t_valid", "t_invalid",
        "recorded_at", "last_reinforced_at", "confidence", "epistemic", "scope", "source_type",
        "episode", "conflicts", "invalidation_kind", "invalidation_reason", "successor", "evidence",
        "state", "dormant_since"]
    assert (fact["subject"], fact["predicate"], fact["object"]) == ("api",
                                                                    "core/has-version", "1.2.0")
    assert fact["t_valid"] == "2026-01-05T10:00:00.000Z" and fact["t_invalid"] is None
    assert fact["source_type"] == "code" and fact["confidence"] == 0.9
    assert fact["evidence"] == ['pyproject.toml: version = "1.2.0"']


def test_a_new_single_value_supersedes_the_old_and_history_shows_both(ok):
    ok("assert", "api", "has-version", "1.0", "--valid-from", "2026-01-01")
    result = ok("assert", "api", "has-version", "2.0", "--valid-from", "2026-03-01")
    assert normalize(result.out) == (
        "created  <f>  api has-version 2.0  (conf 0.80, valid since 2026-03-01)\n"
        "  replaces <f>\n")
    history = ok("history", "api", "has-version")
    assert normalize(history.out) == (
        "<f>  api has-version 1.0  (conf 0.80, valid 2026-01-01 → 2026-03-01, superseded by <f>)\n"
        "<f>  api has-version 2.0  (conf 0.80, valid since 2026-03-01)\n")


def test_facts_as_of_shows_what_was_believed_then(ok):
    ok("assert", "api", "has-version", "1.0", "--valid-from", "2026-01-01")
    ok("assert", "api", "has-version", "2.0", "--valid-from", "2026-03-01")
    then = ok("facts", "api", "--as-of", "2026-02-01", "--json").json()
    assert [f["object"] for f in then["facts"]] == ["1.0"]
    assert then["as_of"] == "2026-02-01T00:00:00.000Z"
    everything = ok("facts", "api", "--all", "--json").json()
    assert [f["object"] for f in everything["facts"]] == ["1.0", "2.0"]


def test_a_commitment_against_a_preference_is_flagged_not_overwritten(ok):
    ok("assert", "api", "prefers", "GraphQL", "--valid-from", "2026-01-10")
    result = ok("assert", "api", "decided-against", "GraphQL", "--valid-from", "2026-02-01")
    assert normalize(result.out) == (
        "flagged  <f>  api decided-against GraphQL  (conf 0.80, commitment, valid since "
        "2026-02-01, conflicts with <f>)\n"
        "  conflicts with <f>  api prefers GraphQL  (conf 0.80, valid since 2026-01-10)\n"
        "  review with `claimgraph conflicts`\n")
    assert len(ok("facts", "api", "--json").json()["facts"]) == 2


def test_facts_lists_an_entitys_facts_by_valid_time(ok):
    ok("assert", "api", "tested-by", "pytest", "--valid-from", "2026-01-02")
    ok("assert", "api", "depends-on", "postgres", "--valid-from", "2026-01-01")
    ok("assert", "api", "prefers", "small pull requests", "--valid-from", "2026-01-03",
       "--scope", "user")
    result = ok("facts", "api")
    assert normalize(result.out) == (
        "<f>  api depends-on postgres  (conf 0.80, valid since 2026-01-01)\n"
        "<f>  api tested-by pytest  (conf 0.80, valid since 2026-01-02)\n")
    user = ok("facts", "api", "--entity-scope", "user")
    assert 'prefers "small pull requests"' in user.out


def test_facts_in_direction_finds_what_points_at_an_entity(ok):
    ok("assert", "api", "depends-on", "postgres")
    ok("assert", "worker", "depends-on", "postgres")
    incoming = ok("facts", "postgres", "--direction", "in", "--json").json()["facts"]
    assert sorted(f["subject"] for f in incoming) == ["api", "worker"]


def test_facts_about_an_entity_with_nothing_valid_says_so(ok):
    ok("assert", "api", "has-version", "1.0", "--valid-from", "2026-01-01",
       "--valid-until", "2026-02-01")
    assert ok("facts", "api").out == "no valid facts about api\n"


def test_the_project_listing_shows_a_fact_set_to_end_later_until_then():
    """``facts`` alone (real processes, the wall clock): a fact whose end is recorded for a
    later day is valid now, so it is listed beside the open-ended one, and a ruling set to end
    later still stands in an open conflict; a fact that ended already is listed only by --all."""
    def day(offset: int) -> str:
        return (date.today() + timedelta(days=offset)).isoformat()

    def done(*argv: str) -> dict:
        result = run_process(*argv, "--json")
        assert result.code == 0, result.err
        return result.json()

    done("assert", "api", "depends-on", "postgres")
    done("assert", "api", "depends-on", "memcached", "--valid-until", day(30))
    done("assert", "api", "depends-on", "redis", "--valid-from", day(-60),
         "--valid-until", day(-30))
    listed = done("facts", "--limit", "0")
    assert sorted(f["object"] for f in listed["facts"]) == ["memcached", "postgres"]
    assert listed["total"] == 2
    shown = run_process("facts").out
    assert "api depends-on memcached" in shown and "redis" not in shown
    everything = done("facts", "--all", "--limit", "0")
    assert sorted(f["object"] for f in everything["facts"]) == ["memcached", "postgres", "redis"]
    done("assert", "api", "prefers", "GraphQL")
    ruling = done("assert", "api", "decided-against", "GraphQL", "--valid-until", day(30))
    assert ruling["status"] == "flagged"
    assert done("conflicts")["open"] == 1


def test_invalidate_accepts_the_short_id_the_output_shows(ok):
    created = ok("assert", "api", "prefers", "REST", "--valid-from", "2026-01-01", "--json").json()
    short = created["fact"]["id"][:10]
    result = ok("invalidate", short, "--at", "2026-02-01", "--reason", "moved to gRPC")
    assert normalize(result.out) == (
        "invalidated  <f>  api prefers REST  (conf 0.80, valid 2026-01-01 → 2026-02-01, manual)\n")
    fact = ok("facts", "api", "--all", "--json").json()["facts"][0]
    assert (fact["invalidation_kind"], fact["invalidation_reason"]) == ("manual", "moved to gRPC")


def test_min_confidence_filters_by_confidence(ok):
    ok("assert", "api", "tested-by", "pytest", "--confidence", "0.9")
    ok("assert", "api", "depends-on", "redis", "--confidence", "0.4")
    kept = ok("facts", "api", "--min-confidence", "0.5", "--json").json()["facts"]
    assert [f["object"] for f in kept] == ["pytest"]
