"""A line of an instruction file the session's own agent loads on its own is not stored."""

from __future__ import annotations

import pytest

from .extract_helpers import ROOT, Session, only

RULES = "# Rules\n\n- Always use tabs in `*.go` files\n- Never edit `gen/` by hand\n"
BOTH = {"Always use tabs in `*.go` files", "Never edit `gen/` by hand"}


def rules_after(session: Session, project_root: str | None = None) -> set[str]:
    return {c["object"] for c in only(session.extract(project_root), "x/convention")}


def read(session: Session, cited: str, text: str = RULES) -> Session:
    session.tool("Read", {"file_path": f"{ROOT}/{cited}"}, output=text)
    return session


@pytest.mark.parametrize(("agent", "cited", "kept"), [
    ("claude-code", "CLAUDE.md", False), ("claude-code", ".claude/CLAUDE.md", False),
    ("claude-code", "AGENTS.md", True), ("claude-code", "GEMINI.md", True),
    ("codex", "AGENTS.md", False), ("codex", "CLAUDE.md", True), ("codex", "GEMINI.md", True),
    ("gemini", "GEMINI.md", False), ("gemini", "AGENTS.md", True),
    ("gemini", "CLAUDE.md", True), ("text", "CLAUDE.md", True), ("text", "AGENTS.md", True)])
def test_a_file_the_agent_loads_itself_is_a_repeat_another_agents_file_is_news(
        agent: str, cited: str, kept: bool) -> None:
    assert rules_after(read(Session(agent=agent), cited)) == (BOTH if kept else set())


def test_a_codex_shell_read_of_its_own_agents_md_is_a_repeat_too():
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "cat AGENTS.md"], "workdir": ROOT},
                 output=RULES, extras={"exit_code": 0})
    assert rules_after(session) == set()
    session.tool("shell", {"command": ["bash", "-lc", "cat CLAUDE.md"], "workdir": ROOT},
                 output=RULES, extras={"exit_code": 0})
    assert rules_after(session) == BOTH


def test_a_line_the_session_put_into_its_own_file_still_counts():
    """The file's own lines are what the next agent loads; the line the session added is what
    the project now says -- stored, and shown to every other agent."""
    session = read(Session(), "CLAUDE.md", "# Rules\n\n- Always use tabs in `*.go` files\n")
    session.edit(f"{ROOT}/CLAUDE.md", "- Always use tabs in `*.go` files\n",
                 "- Always use tabs in `*.go` files\n- Never edit `gen/` by hand\n")
    assert rules_after(session) == {"Never edit `gen/` by hand"}
    written = Session()
    written.write(f"{ROOT}/CLAUDE.md", RULES)
    assert rules_after(written) == BOTH  # written whole in the session


def test_a_nested_file_counts_for_the_agents_that_load_it_where_they_work():
    """Claude Code and Gemini CLI load a folder's file when they work in it; Codex loads only
    the folders from the root down to where it started."""
    assert rules_after(read(Session(), "packages/api/CLAUDE.md")) == set()
    assert rules_after(read(Session(agent="gemini"), "packages/api/GEMINI.md")) == set()
    assert rules_after(read(Session(agent="codex"), "packages/api/AGENTS.md")) == BOTH
    started_there = Session(agent="codex", cwd=f"{ROOT}/packages/api")
    assert rules_after(read(started_there, "packages/api/AGENTS.md"), ROOT) == set()
    assert rules_after(read(Session(agent="codex", cwd=f"{ROOT}/packages/api"), "AGENTS.md"),
                       ROOT) == set()


def test_a_sibling_folder_of_the_session_is_not_loaded():
    session = Session(cwd=f"{ROOT}/web")
    assert rules_after(read(session, "api/CLAUDE.md"), ROOT) == BOTH
    assert rules_after(read(Session(cwd=f"{ROOT}/web"), "web/CLAUDE.md"), ROOT) == set()


def test_a_session_outside_the_project_cannot_tell_and_keeps():
    session = Session(cwd="/home/dev/elsewhere")
    assert rules_after(read(session, "CLAUDE.md"), ROOT) == BOTH


def test_an_import_the_session_saw_loads_the_imported_file():
    session = read(Session(), "CLAUDE.md", "# Claude\n\n@AGENTS.md\n")
    assert rules_after(read(session, "AGENTS.md")) == set()
    spanned = read(Session(), "CLAUDE.md", "# Claude\n\nSee `@AGENTS.md` for the rules.\n")
    assert rules_after(read(spanned, "AGENTS.md")) == BOTH  # in a code span: no import
    unseen = read(Session(), "AGENTS.md")
    assert rules_after(unseen) == BOTH  # the importing file never shown: cannot tell
    chained = read(Session(), "CLAUDE.md", "@docs/agents.md\n")
    chained = read(chained, "docs/agents.md", "# Guide\n\n@../CONTRIBUTING.md\n")
    assert rules_after(read(chained, "CONTRIBUTING.md")) == set()  # an import of an import


def test_codex_imports_nothing():
    session = read(Session(agent="codex"), "AGENTS.md", "# Codex\n\n@CONTRIBUTING.md\n")
    assert rules_after(read(session, "CONTRIBUTING.md")) == BOTH


def test_gemini_imports_only_markdown_below_the_importing_file():
    session = read(Session(agent="gemini"), "GEMINI.md", "@docs/style.md\n")
    assert rules_after(read(session, "docs/style.md")) == set()
    nested = read(Session(agent="gemini"), "app/GEMINI.md", "@../CONTRIBUTING.md\n")
    assert rules_after(read(nested, "CONTRIBUTING.md")) == BOTH


def test_claude_rules_load_at_start_unless_their_front_matter_names_paths():
    assert rules_after(read(Session(), ".claude/rules/style.md")) == set()
    scoped = "---\npaths:\n  - \"src/**/*.ts\"\n---\n" + RULES
    assert rules_after(read(Session(), ".claude/rules/style.md", scoped)) == BOTH
    assert rules_after(read(Session(agent="codex"), ".claude/rules/style.md")) == BOTH


def test_codex_loads_the_override_instead_of_agents_md():
    session = read(Session(agent="codex"), "AGENTS.override.md", "# Local\n\nUse the staging db.\n")
    assert rules_after(read(session, "AGENTS.md")) == BOTH
