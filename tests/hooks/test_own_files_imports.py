"""Which files each agent loads at its start, read from a real project on disk: the names in
each folder of the chain, what CLAUDE.md and GEMINI.md import with ``@path``, links, Codex's
choice per folder (``hooks.own_files``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimgraph.hooks.own_files import files_loaded

CLAUDE_NAMES = {"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}


def write(root: Path, path: str, text: str) -> Path:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def loaded(agent: str, root: Path, cwd: Path | None = None) -> set[str]:
    return set(files_loaded(agent, str(root), str(cwd or root)))


def test_claude_code_loads_what_claude_md_imports_and_their_imports(tmp_path: Path):
    write(tmp_path, "CLAUDE.md", "# Project\n@AGENTS.md\n")
    write(tmp_path, "AGENTS.md", "- Run the checks.\n- Style: @docs/style.md\n")
    write(tmp_path, "docs/style.md", "Tabs, never spaces.\n")
    write(tmp_path, "docs/other.md", "Not imported.\n")
    assert loaded("claude-code", tmp_path) == CLAUDE_NAMES | {"AGENTS.md", "docs/style.md"}
    # Codex imports nothing: AGENTS.md's reference to a page loads only AGENTS.md
    assert loaded("codex", tmp_path) == {"AGENTS.md"}


def test_an_import_in_code_or_of_a_missing_file_loads_nothing(tmp_path: Path):
    write(tmp_path, "CLAUDE.md", "Keep `@AGENTS.md` in sync.\n```\n@docs/a.md\n```\n@gone.md\n")
    write(tmp_path, "AGENTS.md", "rules\n")
    write(tmp_path, "docs/a.md", "a\n")
    assert loaded("claude-code", tmp_path) == CLAUDE_NAMES


def test_imports_stop_after_five_hops(tmp_path: Path):
    write(tmp_path, "CLAUDE.md", "@h1.md\n")
    for hop in range(1, 7):
        write(tmp_path, f"h{hop}.md", f"@h{hop + 1}.md\n")
    assert loaded("claude-code", tmp_path) - CLAUDE_NAMES == {f"h{n}.md" for n in range(1, 6)}


def test_a_cycle_of_imports_ends(tmp_path: Path):
    write(tmp_path, "CLAUDE.md", "@a.md\n")
    write(tmp_path, "a.md", "@b.md\n")
    write(tmp_path, "b.md", "@a.md\n@CLAUDE.md\n")
    assert loaded("claude-code", tmp_path) == CLAUDE_NAMES | {"a.md", "b.md"}


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions")
def test_an_unreadable_import_is_loaded_but_not_followed(tmp_path: Path):
    write(tmp_path, "CLAUDE.md", "@a.md\n")
    locked = write(tmp_path, "a.md", "@b.md\n")
    write(tmp_path, "b.md", "b\n")
    locked.chmod(0)
    try:
        assert loaded("claude-code", tmp_path) == CLAUDE_NAMES | {"a.md"}
    finally:
        locked.chmod(0o600)


def test_claude_code_counts_an_import_only_inside_the_folder_it_starts_in(tmp_path: Path):
    """From outside the start folder Claude Code asks the user first: not counted."""
    write(tmp_path, "CLAUDE.md", "@AGENTS.md\n@web/NOTES.md\n@../outside.md\n")
    write(tmp_path, "AGENTS.md", "rules\n")
    write(tmp_path, "web/NOTES.md", "notes\n")
    (tmp_path.parent / "outside.md").write_text("x\n")
    web = tmp_path / "web"
    assert loaded("claude-code", tmp_path, web) == (
        CLAUDE_NAMES | {f"web/{n}" for n in CLAUDE_NAMES} | {"web/NOTES.md"})
    assert "AGENTS.md" in loaded("claude-code", tmp_path)
    assert not any(p.startswith("..") for p in loaded("claude-code", tmp_path))


def test_gemini_loads_markdown_imports_below_the_importing_file_in_a_git_project(
        tmp_path: Path):
    """What every Gemini CLI release loads: its first ones took only ``.md`` files below the
    importing file's folder, later ones any file in the git project, none without git."""
    write(tmp_path, "GEMINI.md", "@./AGENTS.md\n@docs/setup.txt\n@~/.gemini/extra.md\n")
    write(tmp_path, "AGENTS.md", "rules\n")
    write(tmp_path, "docs/setup.txt", "not Markdown\n")
    write(tmp_path, "pkg/GEMINI.md", "@../CONTRIBUTING.md\n@./pkg-notes.md\n")
    write(tmp_path, "CONTRIBUTING.md", "above the importing file\n")
    write(tmp_path, "pkg/pkg-notes.md", "notes\n")
    write(tmp_path, "pkg/deep/GEMINI.md", "below the session's folder\n")
    pkg = tmp_path / "pkg"
    assert loaded("gemini", tmp_path, pkg) == {"GEMINI.md", "pkg/GEMINI.md"}  # no git
    (tmp_path / ".git").mkdir()
    assert loaded("gemini", tmp_path, pkg) == {"GEMINI.md", "pkg/GEMINI.md", "AGENTS.md",
                                                "pkg/pkg-notes.md"}


def test_a_linked_instruction_file_loads_its_target(tmp_path: Path):
    write(tmp_path, "AGENTS.md", "shared rules\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    assert "AGENTS.md" in loaded("claude-code", tmp_path)
    assert "CLAUDE.md" not in loaded("codex", tmp_path)
    (tmp_path / "CLAUDE.md").unlink()
    (tmp_path / "AGENTS.md").rename(tmp_path / "CLAUDE.md")
    (tmp_path / "AGENTS.md").symlink_to("CLAUDE.md")
    assert loaded("codex", tmp_path) == {"AGENTS.md", "CLAUDE.md"}


def test_a_dangling_override_link_still_shadows_agents_md(tmp_path: Path):
    write(tmp_path, "AGENTS.md", "rules\n")
    (tmp_path / "AGENTS.override.md").symlink_to("missing.md")
    assert loaded("codex", tmp_path) == {"AGENTS.override.md"}


def test_an_unknown_agent_or_no_root_loads_nothing(tmp_path: Path):
    write(tmp_path, "CLAUDE.md", "@AGENTS.md\n")
    assert loaded("cursor", tmp_path) == set()
    assert files_loaded("claude-code", None, str(tmp_path)) == frozenset()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_or_a_folder_where_a_file_was_expected_is_not_read(tmp_path: Path):
    os.mkfifo(tmp_path / "CLAUDE.md")  # opened, it would block the hook
    write(tmp_path, "CLAUDE.local.md", "@docs\n@big.md\n")
    (tmp_path / "docs").mkdir()
    write(tmp_path, "big.md", "@AGENTS.md\n" + "x" * 300_000)
    write(tmp_path, "AGENTS.md", "rules\n")
    assert loaded("claude-code", tmp_path) == CLAUDE_NAMES | {"big.md"}


def test_claude_code_loads_the_rules_that_name_no_paths(tmp_path: Path):
    write(tmp_path, ".claude/rules/testing.md", "- Always run the suite.\n")
    write(tmp_path, ".claude/rules/api/errors.md", "---\ndescription: errors\n---\n- Wrap.\n")
    write(tmp_path, ".claude/rules/api/handlers.md", "---\npaths: src/api/**\n---\n- Check.\n")
    write(tmp_path, ".claude/rules/notes.txt", "not a rules file\n")
    rules = {".claude/rules/testing.md", ".claude/rules/api/errors.md"}
    assert loaded("claude-code", tmp_path) == CLAUDE_NAMES | rules
    assert loaded("gemini", tmp_path) == {"GEMINI.md"}
