"""``claimgraph context``: the SessionStart block, printed for a person (or as JSON)."""

from __future__ import annotations

from claimgraph.project import resolve_project
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN


def test_context_prints_the_block_for_the_directory_given(ok, tmp_path):
    scope = resolve_project(tmp_path).id
    ok("assert", "api", "depends-on", "postgres", "--scope", scope)
    ok("assert", "web", "depends-on", "react", "--scope", "elsewhere")
    result = ok("context", "--cwd", str(tmp_path))
    assert result.out.startswith(CONTEXT_OPEN) and result.out.rstrip().endswith(CONTEXT_CLOSE)
    assert "api depends-on postgres" in result.out and "react" not in result.out
    assert result.err.startswith(f"context for {scope}: 1 current")


def test_context_as_json_reports_sections_and_honours_the_budget(ok, tmp_path):
    scope = resolve_project(tmp_path).id
    for n in range(30):
        ok("assert", f"svc{n:02d}", "depends-on", f"library-number-{n}", "--scope", scope)
    data = ok("context", "--cwd", str(tmp_path), "--budget", "600", "--json").json()
    assert data["project"] == scope and data["chars"] == len(data["text"]) <= 600
    assert 0 < data["sections"]["current"]["shown"] < data["sections"]["current"]["total"] == 30


def test_context_with_nothing_to_say_says_so(ok, tmp_path):
    ok("assert", "web", "depends-on", "react", "--scope", "elsewhere")
    assert ok("context", "--cwd", str(tmp_path)).out.startswith("nothing to inject for ")


def test_context_refuses_a_tiny_budget_and_a_missing_directory(cli, ok, tmp_path):
    ok("assert", "web", "depends-on", "react")
    assert cli("context", "--budget", "50").code == 2
    assert cli("context", "--cwd", str(tmp_path / "nope")).code == 1
