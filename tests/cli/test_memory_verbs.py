"""recall, coach, outcome and mcp from the command line; facts and search log what they showed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph import retrievals
from claimgraph.project import resolve_project

from .conftest import normalize, one_line


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A git project to work in (the current directory); its id as capture names it."""
    root = tmp_path / "shop"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=30)
    monkeypatch.chdir(root)
    return resolve_project(root).id


@pytest.fixture
def memory(ok, project):
    ok("assert", "billing", "decided-against", "GraphQL", "--scope", project)
    ok("assert", "billing", "failure-mode", "double charges when the webhook retries",
       "--scope", project)
    ok("assert", "user", "prefers", "uv", "--scope", "user")
    ok("assert", "billing", "depends-on", "stripe-legacy", "--scope", "github.com/acme/other")
    return project


def test_recall_answers_from_this_projects_and_the_users_facts(memory, ok):
    result = ok("recall", "stripe-legacy")
    assert result.out == "nothing in memory about 'stripe-legacy'\n"
    found = ok("recall", "GraphQL").out
    assert normalize(found).startswith(
        "answered from facts\n  <f>  billing decided-against GraphQL")


def test_recall_all_projects_reaches_the_others(memory, ok):
    assert "stripe-legacy" in ok("recall", "stripe-legacy", "--all-projects").out


def test_recall_json_names_the_tier(memory, ok):
    out = ok("recall", "webhook", "--json").json()
    assert out["tier"] == "facts" and out["facts"][0]["predicate"] == "core/failure-mode"


def test_recall_names_how_each_fact_was_learned(memory, ok):
    """As the context block's lines do: "you said" for the user's words (``assert``'s
    default source), so the asking agent weighs each answer by its tier."""
    out = ok("recall", "webhook", "--json").json()
    assert [f["learned"] for f in out["facts"]] == ["you said"]
    assert "[you said]" in ok("recall", "GraphQL").out


def test_recall_refuses_min_hits_below_one(memory, cli):
    result = cli("recall", "x", "--min-hits", "0")
    assert result.code == 1 and "--min-hits" in one_line(result.err)


def test_coach_prints_the_briefing_or_says_nothing_bears_on_it(memory, ok):
    briefing = ok("coach", "retry", "the", "billing", "webhook").out
    assert "<claimgraph-context>" in briefing and "double charges" in briefing
    assert ok("coach", "write", "a", "haiku").out == "nothing in memory bears on this task\n"


def test_outcome_accepted_reinforces_what_reads_surfaced_since_the_last_outcome(memory, ok, db):
    ok("search", "GraphQL")
    before = {f["id"]: f for f in ok("facts", "billing", "--entity-scope", memory,
                                      "--json").json()["facts"]}
    result = ok("outcome", "accepted")
    assert result.out.startswith("reinforced 2 facts surfaced by 2 reads since the last outcome")
    after = {f["id"]: f for f in ok("facts", "billing", "--entity-scope", memory,
                                     "--json").json()["facts"]}
    assert all(after[i]["last_reinforced_at"] > before[i]["last_reinforced_at"] for i in before)
    assert all(after[i]["confidence"] == before[i]["confidence"] for i in before)
    entries = retrievals.entries(db)
    assert [e["type"] for e in entries][-1] == "read"  # the last `facts` read, after the mark


def test_outcome_with_nothing_surfaced_is_a_no_op(memory, ok, db):
    assert ok("outcome", "accepted").out == ("nothing was surfaced since the last outcome; "
                                             "nothing to judge\n")
    assert not retrievals.path_for(db).exists()


def test_outcome_rejected_lists_review_candidates_and_changes_nothing(memory, ok):
    ok("search", "GraphQL")
    result = ok("outcome", "rejected")
    head, listed = normalize(result.out).splitlines()[:2]
    assert head == "1 fact to review (surfaced by 1 read); nothing was changed"
    assert listed.startswith("  <f>  billing decided-against GraphQL  (conf 0.80, commitment")
    assert ok("outcome", "rejected").out.startswith("nothing was surfaced")


def test_facts_and_search_log_exactly_the_facts_they_showed(memory, ok, db):
    shown = ok("search", "billing", "--limit", "1", "--json").json()["facts"]
    listed = ok("facts", "billing", "--entity-scope", memory, "--json").json()["facts"]
    reads = [e for e in retrievals.entries(db) if e["type"] == "read"]
    assert [(r["verb"], r["fact_ids"]) for r in reads] == [
        ("search", [f["id"] for f in shown]), ("facts", [f["id"] for f in listed])]


def test_mcp_without_the_sdk_says_how_to_install_it(db):
    script = ("import sys; sys.modules['mcp'] = None\n"
              "from claimgraph.cli.main import main; sys.exit(main(['mcp']))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ), stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""
    assert "./install.sh in your claimgraph checkout" in one_line(done.stderr)


def imported(argv: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "claimgraph", *argv],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ),
                          stdin=subprocess.DEVNULL)
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:")}


@pytest.mark.parametrize("argv", [["facts", "billing"], ["search", "billing"], ["--help"],
                                  ["recall", "billing"], ["coach", "billing"]])
def test_commands_other_than_mcp_never_load_the_mcp_sdk(memory, argv):
    loaded = imported(argv)
    assert "claimgraph.cli.main" in loaded, "the probe did not run the CLI"
    heavy = {m for m in loaded if m.split(".")[0] in ("mcp", "mcp_types", "pydantic",
                                                      "starlette", "anyio", "httpx")
             or m.startswith("claimgraph.mcp")}
    assert heavy == set()


def test_mcp_help_works_without_starting_a_server(ok):
    assert "MCP server" in ok("mcp", "--help").out



def test_recall_names_a_teammate_once(memory, ok, db):
    """A synced fact's line already says whom it is from (``fact_line``): the tier label is
    not added again."""
    from claimgraph.core import Shell
    from claimgraph.core.ingest import ingest
    from claimgraph.opening import open_store
    store = open_store(str(db))
    try:
        ingest(Shell(store), [{"subject": "billing", "predicate": "depends-on",
                               "object": "ledger-svc", "scope": memory,
                               "source_type": "sync:w-ada"}])
    finally:
        store.close()
    line = next(x for x in ok("recall", "ledger-svc").out.splitlines() if "ledger-svc" in x)
    assert line.count("w-ada") == 1, line
