"""Every bad input fails with exit 1 and ONE line naming the problem (or the error dict under
--json)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from claimgraph import STORE_FORMAT

from .conftest import one_line


def fails(cli, *argv: str) -> str:
    """Run a command that must fail; return its single stderr line."""
    result = cli(*argv)
    assert result.code == 1, result.out
    assert result.out == ""
    return one_line(result.err)


def fails_as_json(cli, *argv: str) -> dict:
    result = cli(*argv, "--json")
    assert result.code == 1
    assert result.out == ""
    return json.loads(one_line(result.err))


def test_an_unknown_predicate_suggests_the_nearest_ones(cli):
    line = fails(cli, "assert", "api", "prefer", "REST")
    assert line == ("claimgraph: unknown predicate prefer — "
                    "did you mean core/prefers, x/role, core/part-of?")
    error = fails_as_json(cli, "assert", "api", "prefer", "REST")
    assert error["type"] == "unknown-predicate"
    assert error["did_you_mean"][0] == "core/prefers"


def test_a_deprecated_predicate_names_its_replacement(ok, cli):
    ok("predicates", "register", "x/owner")
    ok("predicates", "register", "x/owned-by", "--status", "deprecated", "--replaced-by", "x/owner")
    line = fails(cli, "assert", "api", "x/owned-by", "payments-team")
    assert line == "claimgraph: predicate x/owned-by is deprecated — use x/owner instead"
    error = fails_as_json(cli, "assert", "api", "x/owned-by", "payments-team")
    assert (error["type"], error["replaced_by"]) == ("deprecated-predicate", "x/owner")


def test_an_object_of_the_wrong_kind_is_refused(cli):
    line = fails(cli, "assert", "api", "depends-on", "postgres", "--object-kind", "literal")
    assert line.startswith("claimgraph: core/depends-on takes entity objects, not literal ones")
    error = fails_as_json(cli, "assert", "api", "depends-on", "postgres",
                          "--object-kind", "literal")
    assert (error["type"], error["expected"]) == ("object-kind-mismatch", "entity")


def test_valid_until_before_valid_from_is_refused(cli, db):
    argv = ("assert", "api", "has-version", "1.0", "--valid-from", "2026-02-01",
            "--valid-until", "2026-01-01")
    assert "t_invalid must be strictly after t_valid" in fails(cli, *argv)
    assert fails_as_json(cli, *argv)["type"] == "invalid-interval"


@pytest.mark.parametrize("value, problem", [("1.5", "1.5 is out of range"),
                                            ("-0.1", "-0.1 is out of range"),
                                            ("high", "'high' is not a number"),
                                            ("nan", "'nan' is not a number")])
def test_a_confidence_outside_zero_to_one_or_not_a_number_is_refused(cli, value, problem):
    line = fails(cli, "assert", "api", "prefers", "REST", "--confidence", value)
    assert line == (f"claimgraph: --confidence {problem} — "
                    "give --confidence a number between 0 and 1, e.g. 0.8")
    error = fails_as_json(cli, "assert", "api", "prefers", "REST", "--confidence", value)
    assert (error["type"], error["value"]) == ("invalid-confidence", value)


def test_an_empty_subject_is_refused(cli):
    assert fails(cli, "assert", "  ", "prefers", "REST") == \
        "claimgraph: the subject is empty — give a non-blank subject"


def test_an_empty_object_is_refused(cli):
    line = fails(cli, "assert", "api", "prefers", "")
    assert line.startswith("claimgraph: the object is empty — ")
    assert fails_as_json(cli, "assert", "api", "prefers", " ")["type"] == "missing-object"


def test_a_name_matching_several_entities_is_ambiguous_not_a_guess(ok, cli):
    ok("entity", "ensure", "auth-service", "--type", "service")
    ok("entity", "ensure", "Auth Service", "--type", "library")
    line = fails(cli, "facts", "authservice")
    assert line == ("claimgraph: 'authservice' matches several entities: Auth Service, "
                    "auth-service — name one exactly, or merge them with "
                    "`claimgraph entity merge SRC DST`")
    error = fails_as_json(cli, "facts", "authservice")
    assert error["type"] == "ambiguous-entity" and len(error["candidates"]) == 2


def test_an_unknown_entity_says_how_to_find_one(ok, cli):
    ok("init")
    assert fails(cli, "facts",
                 "nobody").startswith("claimgraph: no entity named 'nobody' in scope ")


def test_an_unreadable_time_is_refused_naming_the_flag(cli):
    line = fails(cli, "assert", "api", "prefers", "REST", "--valid-from", "last tuesday")
    assert line.startswith(
        "claimgraph: --valid-from 'last tuesday' is not a date or time — use ISO")


@pytest.mark.parametrize("command", [["facts", "api"], ["stats"], ["assert", "a", "prefers", "b"]])
def test_a_file_that_is_not_sqlite_is_refused_as_corrupt(cli, db, command):
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"these are my notes, not a database\n" * 200)
    line = fails(cli, *command)
    assert line.startswith(f"claimgraph: cannot read the store {db}")
    assert fails_as_json(cli, *command)["type"] == "corrupt-store"
    assert db.read_bytes().startswith(b"these are my notes")


def test_a_sqlite_file_of_another_program_is_refused(cli, db):
    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    conn.close()
    line = fails(cli, "stats")
    assert line.startswith(f"claimgraph: {db} is a SQLite database, but not a claimgraph store")


def test_a_store_from_a_future_format_is_refused(ok, cli, db):
    ok("init")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    line = fails(cli, "facts", "api")
    assert "has store format 99" in line and "upgrade claimgraph" in line
    error = fails_as_json(cli, "assert", "api", "prefers", "REST")
    assert (error["type"], error["found"]) == ("future-format", 99)


def test_a_store_stamped_with_a_future_format_is_refused_before_sqlite_opens_it(ok, cli, db):
    ok("init")
    newer = STORE_FORMAT + 1
    db.with_name(db.name + ".version").write_text(f'{{"format": {newer}, "version": "0.9.0"}}\n')
    line = fails(cli, "stats")
    assert line == (f"claimgraph: {db} has store format {newer} (written by claimgraph 0.9.0), but "
                    f"this claimgraph reads format {STORE_FORMAT} at most — upgrade claimgraph "
                    "(pip install -U claimgraph) to open this store")


def test_a_multi_line_message_still_prints_as_one_line(cli, monkeypatch):
    from claimgraph.cli import info
    from claimgraph.errors import ClaimgraphError

    def refuse(ctx, args):
        raise ClaimgraphError("x", "first\nsecond", hint="fix it")
    monkeypatch.setitem(info.COMMANDS, "stats", refuse)
    assert fails(cli, "stats") == "claimgraph: first second — fix it"


def test_invalidating_an_unknown_fact_says_how_to_find_ids(ok, cli):
    ok("init")
    assert fails(cli, "invalidate",
                 "f-00000000").startswith("claimgraph: no fact with id 'f-00000000'")


def test_invalidating_twice_is_refused(ok, cli):
    fact_id = ok("assert", "api", "prefers", "REST", "--json").json()["fact"]["id"]
    ok("invalidate", fact_id)
    assert fails(cli, "invalidate",
                 fact_id).startswith(f"claimgraph: fact {fact_id} is already invalidated")


def test_a_bad_setting_in_the_environment_names_the_variable(cli, monkeypatch):
    monkeypatch.setenv("CLAIMGRAPH_LEASE_WAIT_MS", "soon")
    line = fails(cli, "assert", "api", "prefers", "REST")
    assert line == ("claimgraph: invalid lease_wait_ms 'soon' from environment variable "
                    "CLAIMGRAPH_LEASE_WAIT_MS: expected an integer ≥ 0 — "
                    "fix or unset CLAIMGRAPH_LEASE_WAIT_MS")


def test_a_curated_predicate_cannot_be_registered(cli):
    line = fails(cli, "predicates", "register", "core/owned-by")
    assert line == ("claimgraph: cannot register core/owned-by: core/* is curated — "
                    "coin it as x/owned-by and promote it later")


def test_a_negative_search_limit_is_refused(ok, cli):
    ok("init")
    assert fails(cli, "search", "api", "--limit",
                 "-1").startswith("claimgraph: --limit -1 is negative")
