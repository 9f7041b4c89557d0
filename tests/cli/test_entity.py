"""entity ensure|list|rename|alias|merge|duplicates: curating names without losing references."""

from __future__ import annotations

from .conftest import normalize, one_line


def test_ensure_creates_once_and_then_finds_the_same_entity(ok):
    first = ok("entity", "ensure", "billing-api", "--type", "service", "--json").json()
    again = ok("entity", "ensure", "billing-api", "--json").json()
    assert first["entity"]["id"] == again["entity"]["id"]
    assert normalize(ok("entity", "ensure", "billing-api").out) == (
        "ok  <e>  billing-api  (service, scope <project>)\n")


def test_list_shows_every_entity_by_name(ok):
    ok("assert", "api", "depends-on", "postgres")
    ok("entity", "ensure", "alice", "--type", "person", "--scope", "user")
    result = ok("entity", "list")
    assert normalize(result.out) == (
        "<e>  alice  (person, scope user)\n"
        "<e>  api  (scope <project>)\n"
        "<e>  postgres  (scope <project>)\n"
        "3 entities\n")
    assert [e["name"]
            for e in ok("entity", "list", "--scope", "user",
                        "--json").json()["entities"]] == ["alice"]


def test_rename_keeps_the_old_name_as_an_alias_so_facts_still_resolve(ok):
    ok("assert", "api", "depends-on", "postgres")
    result = ok("entity", "rename", "api", "billing-api")
    assert normalize(result.out) == "renamed  <e>  billing-api  (scope <project>, aka api)\n"
    facts = ok("facts", "api", "--json").json()
    assert facts["entity"]["name"] == "billing-api" and len(facts["facts"]) == 1


def test_alias_teaches_another_name(ok):
    ok("assert", "postgres", "has-version", "16")
    ok("entity", "alias", "postgres", "pg")
    assert ok("facts", "pg", "--json").json()["facts"][0]["object"] == "16"


def test_an_alias_naming_another_entity_is_refused(ok, cli):
    ok("entity", "ensure", "postgres")
    ok("entity", "ensure", "mysql")
    result = cli("entity", "alias", "postgres", "mysql")
    assert result.code == 1
    assert one_line(result.err).startswith("claimgraph: 'mysql' is the name of another entity")


def test_merge_moves_facts_and_collapses_duplicates(ok):
    ok("assert", "api", "depends-on", "postgres")
    ok("assert", "billing-api", "depends-on", "postgres")
    ok("assert", "billing-api", "tested-by", "pytest")
    out = ok("entity", "merge", "api", "billing-api", "--json").json()
    assert out["repointed"] == 1 and len(out["collapsed"]) == 1
    assert out["entity"]["aliases"] == ["api"]
    valid = ok("facts", "billing-api", "--json").json()["facts"]
    assert sorted(f["object"] for f in valid) == ["postgres", "pytest"]


def test_merge_prints_what_moved(ok):
    ok("assert", "api", "depends-on", "postgres")
    ok("entity", "ensure", "billing-api")
    result = ok("entity", "merge", "api", "billing-api")
    assert normalize(result.out) == (
        "merged  <e>  billing-api  (scope <project>, aka api)\n"
        "  1 fact moved, 0 duplicates collapsed\n")


def test_duplicates_lists_look_alike_names_as_merge_candidates(ok):
    ok("entity", "ensure", "auth-service", "--type", "service")
    ok("entity", "ensure", "Auth Service", "--type", "library")
    result = ok("entity", "duplicates")
    assert normalize(result.out) == ("authservice (scope <project>): 'Auth Service', "
                                     "'auth-service'\n"
                          "merge one into another with `claimgraph entity merge SOURCE TARGET`\n")
    clusters = ok("entity", "duplicates", "--json").json()["clusters"]
    assert [len(c["entities"]) for c in clusters] == [2]


def test_no_duplicates_says_so(ok):
    ok("init")
    assert ok("entity", "duplicates").out == "no look-alike entities\n"


def test_entity_without_an_action_is_a_usage_error(cli):
    result = cli("entity")
    assert result.code == 2 and "ACTION" in result.err
