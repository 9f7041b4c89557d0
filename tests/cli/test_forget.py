"""``forget``: the fact is hidden from context, search and coach, and history shows it with
its reason."""

from __future__ import annotations



def fact_id(ok, entity: str, obj: str) -> str:
    return next(f["id"] for f in ok("facts", entity, "--all", "--json").json()["facts"]
                if f["object"] == obj)


def test_forget_hides_a_fact_from_context_and_search_but_history_keeps_it(ok):
    ok("assert", "api", "prefers", "REST")
    ok("assert", "api", "depends-on", "kuzu")
    target = fact_id(ok, "api", "REST")
    assert "REST" in ok("context").out and "REST" in ok("search", "REST").out
    done = ok("forget", target[:10], "--reason", "we never used REST")
    assert done.out.startswith("forgot 1 fact (we never used REST)")
    assert "REST" not in ok("context").out
    assert ok("search", "REST").out.startswith("nothing found for REST")
    assert "REST" not in ok("coach", "change", "the", "api", "REST", "layer").out
    assert "REST" not in ok("facts", "api").out
    history = ok("history", "api", "prefers", "--json").json()["history"]
    assert [(f["object"], f["invalidation_kind"], f["invalidation_reason"]) for f in history] == [
        ("REST", "forgotten", "we never used REST")]
    listed = ok("facts", "api", "--all").out
    assert "REST" in listed and "forgotten" in listed


def test_a_forgotten_fact_is_not_shown_by_time_travel_either(ok):
    ok("assert", "api", "prefers", "REST", "--valid-from", "2024-01-01")
    ok("forget", fact_id(ok, "api", "REST"))
    assert "REST" not in ok("facts", "api", "--as-of", "2024-06-01").out


def test_forget_entity_forgets_every_fact_naming_it(ok):
    ok("assert", "api", "depends-on", "kuzu")
    ok("assert", "kuzu", "has-version", "0.4")
    ok("assert", "api", "prefers", "REST")
    result = ok("forget", "--entity", "kuzu", "--json").json()
    assert sorted(f["object"] for f in result["forgotten"]) == ["0.4", "kuzu"]
    assert [f["object"] for f in ok("facts", "api", "--json").json()["facts"]] == ["REST"]
    again = ok("forget", "--entity", "kuzu", "--json").json()
    assert again["forgotten"] == []


def test_forgetting_a_superseded_fact_keeps_when_it_ended_and_leaves_recent_changes(ok):
    ok("assert", "db", "has-version", "1")
    ok("assert", "db", "has-version", "2")
    assert '"1" → "2"' in ok("context").out
    old = fact_id(ok, "db", "1")
    before = ok("facts", "db", "--all", "--json").json()["facts"]
    ended = next(f["t_invalid"] for f in before if f["id"] == old)
    ok("forget", old, "--reason", "typo")
    after = next(f for f in ok("history", "db", "has-version", "--json").json()["history"]
                 if f["id"] == old)
    assert after["t_invalid"] == ended and after["invalidation_kind"] == "forgotten"
    assert after["invalidation_reason"].startswith("typo (was superseded")
    assert "Changed recently" not in ok("context").out


def test_forget_refuses_an_unknown_id_and_needs_something_to_forget(cli, ok):
    ok("assert", "api", "prefers", "REST")
    missing = cli("forget", "f-0000dead", "--json")
    assert missing.code == 1 and missing.error()["type"] == "unknown-fact"
    assert "REST" in ok("facts", "api").out
    nothing = cli("forget")
    assert nothing.code == 1 and "--entity" in nothing.err
