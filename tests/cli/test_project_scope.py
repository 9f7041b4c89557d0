"""Your project is the default: every scoped command reads and writes the scope capture uses.

Each test runs inside a real git repository (with a remote, like a clone) or a plain
directory, so the default scope comes from the same ``claimgraph.project`` resolution a captured
session's facts are filed under.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from claimgraph.project import resolve_project
from claimgraph.cli.demo import session_text

from .conftest import normalize, one_line

REMOTE = "git@github.com:acme/myproj.git"
PROJECT_ID = "github.com/acme/myproj"

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed")


@pytest.fixture
def repo(project_dir: Path) -> Path:
    """The test's directory as a clone of acme/myproj (no commit is needed for its identity)."""
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
    subprocess.run(["git", "-C", str(project_dir), "remote", "add", "origin", REMOTE], check=True)
    assert resolve_project(project_dir).id == PROJECT_ID
    return project_dir


def test_assert_in_a_project_lands_in_its_scope_and_reaches_the_agents_context(ok, repo):
    ok("assert", "myproj", "prefers", "ruff")
    fact = ok("facts", "myproj", "--json").json()["facts"][0]
    assert fact["scope"] == PROJECT_ID
    assert 'myproj prefers "ruff"' in ok("context").out


def test_facts_finds_the_entity_capture_wrote_for_this_project(ok, repo, tmp_path):
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(session_text(repo), encoding="utf-8")
    report = ok("capture", str(transcript), "--no-curate").json()
    assert report["status"] == "captured" and report["project"] == PROJECT_ID
    names = {e["name"] for e in ok("entity", "list", "--json").json()["entities"]
             if e["scope"] == PROJECT_ID}
    assert names
    for name in names:
        facts = ok("facts", name, "--direction", "both", "--json").json()["facts"]
        assert facts and all(f["scope"] == PROJECT_ID for f in facts)


def test_an_entity_of_another_project_is_named_with_the_flag_that_reaches_it(cli, ok, repo,
                                                                             tmp_path):
    ok("assert", "myproj", "prefers", "ruff")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    result = cli("facts", "myproj")
    assert result.code == 1
    assert one_line(result.err) == (
        f"claimgraph: no entity named 'myproj' in scope '{elsewhere}' or 'user'; it exists in "
        f"scope '{PROJECT_ID}' — pass --scope {PROJECT_ID} to read it there")
    assert "myproj prefers ruff" in ok("facts", "myproj", "--scope", PROJECT_ID).out


def test_user_scope_facts_are_written_with_the_flag_and_read_from_any_project(ok, repo):
    ok("assert", "me", "prefers", "uv", "--scope", "user")
    assert ok("facts", "me", "--json").json()["facts"][0]["scope"] == "user"
    assert "me prefers uv" in ok("facts", "--scope", "user").out
    assert ok("facts", "--json").json()["facts"] == []  # not a fact of this project
    assert 'me prefers "uv"' in ok("context").out


def test_facts_without_an_entity_lists_the_projects_facts_most_useful_first(ok, repo):
    ok("assert", "api", "depends-on", "postgres", "--confidence", "0.5")
    ok("assert", "api", "tested-by", "pytest", "--confidence", "0.9")
    ok("assert", "api", "decided-against", "GraphQL", "--confidence", "0.3")
    ok("assert", "web", "depends-on", "react", "--scope", "github.com/acme/other")
    ok("assert", "me", "prefers", "uv", "--scope", "user")
    lines = normalize(ok("facts").out).splitlines()
    assert [line.split("  ")[1] for line in lines] == [
        "api decided-against GraphQL", "api tested-by pytest", "api depends-on postgres"]
    data = ok("facts", "--json", "--limit", "1").json()
    assert data["scope"] == PROJECT_ID and data["total"] == 3 and len(data["facts"]) == 1
    assert ok("facts", "--limit", "1").out.endswith("… 2 more (raise --limit)\n")


def test_search_covers_this_project_and_the_user_scope_and_names_each_hits_project(ok, repo):
    ok("assert", "api", "depends-on", "postgres")
    ok("assert", "me", "prefers", "postgres", "--scope", "user")
    ok("assert", "billing", "depends-on", "postgres", "--scope", "github.com/acme/other")
    hits = ok("search", "postgres", "--json").json()["facts"]
    assert sorted(h["scope"] for h in hits) == sorted([PROJECT_ID, "user"])
    out = ok("search", "postgres").out
    assert "api depends-on postgres" in out and f"[{PROJECT_ID}]" in out and "[user]" in out
    assert "billing" not in out
    everywhere = ok("search", "postgres", "--all-projects", "--json").json()["facts"]
    assert {h["scope"] for h in everywhere} == {PROJECT_ID, "user", "github.com/acme/other"}
    only = ok("search", "postgres", "--scope", "github.com/acme/other", "--json").json()
    assert [h["subject"] for h in only["facts"]] == ["billing"]


def test_outside_git_the_directory_is_the_project(ok, project_dir):
    ok("assert", "api", "depends-on", "postgres")
    assert ok("facts", "api", "--json").json()["facts"][0]["scope"] == str(project_dir.resolve())


def test_as_of_never_shows_a_fact_that_began_later_with_or_without_all(ok, repo):
    ok("assert", "api", "depends-on", "postgres", "--valid-from", "2026-12-02")
    ok("assert", "api", "depends-on", "mysql", "--valid-from", "2025-06-01",
       "--valid-until", "2025-09-01")
    assert ok("facts", "api", "--as-of", "2026-01-01", "--json").json()["facts"] == []
    shown = ok("facts", "api", "--as-of", "2026-01-01", "--all", "--json").json()["facts"]
    assert [f["object"] for f in shown] == ["mysql"]  # ended before: --all shows it
    assert ok("facts", "--as-of", "2026-01-01", "--all", "--json").json()["facts"] == shown
    assert [f["object"] for f in ok("facts", "api", "--as-of", "2026-12-03", "--all",
                                    "--json").json()["facts"]] == ["mysql", "postgres"]


def test_decided_against_flags_a_preference_that_names_it_as_a_whole_word(ok, repo):
    ok("assert", "api", "prefers", "GraphQL for the public API", "--epistemic", "preference")
    ok("assert", "api", "prefers", "GraphQLite for tests", "--epistemic", "preference")
    result = ok("assert", "api", "decided-against", "graphql")
    assert normalize(result.out) == (
        "flagged (it names something decided against)  <f>  api decided-against graphql  (conf "
        "0.80, commitment, "
        "valid since <date>, conflicts with <f>)\n"
        "  conflicts with <f>  api prefers \"GraphQL for the public API\"  (conf 0.80, valid since "
        "<date>) — its object names graphql\n"
        "  review with `claimgraph conflicts`\n".replace("<date>", _today(ok)))
    pairs = ok("conflicts", "--json").json()["conflicts"]
    assert [p["candidate"]["object"] for p in pairs] == ["GraphQL for the public API"]


def test_a_mention_is_never_superseded_only_flagged(ok, repo):
    ok("assert", "api", "prefers", "GraphQL for the public API", "--epistemic", "preference")
    result = ok("assert", "api", "decided-against", "GraphQL", "--on-conflict", "supersede",
                "--json").json()
    assert result["status"] == "flagged" and result["reason"] == "names-rejected"
    still = [f["object"] for f in ok("facts", "api", "--json").json()["facts"]]
    assert "GraphQL for the public API" in still
    exact = ok("assert", "api", "prefers", "Kafka", "--json").json()
    assert exact["status"] == "created"
    replaced = ok("assert", "api", "decided-against", "Kafka", "--on-conflict", "supersede",
                  "--json").json()
    assert replaced["status"] == "superseded"


def _today(ok) -> str:
    return ok("facts", "api", "--json").json()["as_of"][:10]
