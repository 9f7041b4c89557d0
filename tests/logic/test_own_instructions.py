"""Which stored rules the starting agent has from its own instruction files (pure)."""

from __future__ import annotations

from claimgraph.logic.own_instructions import (
    candidate_files, cited_lines, folder_chain, read_anyway)

CLAUDE_ROOT = frozenset({"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"})


def rule(*evidence: str, source: str = "session-log", predicate: str = "x/convention",
         epistemic: str = "commitment") -> dict:
    return {"id": "f1", "predicate": predicate, "epistemic": epistemic, "source_type": source,
            "evidence": list(evidence)}


def test_the_chain_runs_from_the_root_down_to_the_session_directory():
    assert folder_chain("") == [""]
    assert folder_chain(".") == [""]
    assert folder_chain("pkg/web") == ["", "pkg", "pkg/web"]
    assert folder_chain("../elsewhere") == [""]  # not inside the project: the root alone
    assert folder_chain(None) == [""]


def test_each_agent_loads_its_own_names_in_every_folder_of_the_chain():
    assert candidate_files("claude-code", ["", "pkg"]) == [
        ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"),
        ("pkg/CLAUDE.md", "pkg/.claude/CLAUDE.md", "pkg/CLAUDE.local.md")]
    assert candidate_files("codex", [""]) == [("AGENTS.override.md", "AGENTS.md")]
    assert candidate_files("gemini", ["", "a"]) == [("GEMINI.md",), ("a/GEMINI.md",)]
    assert candidate_files("cursor", ["", "a"]) == []


def test_a_rule_quoted_from_the_agents_own_file_is_read_anyway():
    fact = rule("CLAUDE.md: `Never commit generated files`")
    assert read_anyway(fact, CLAUDE_ROOT)
    assert read_anyway(rule(".claude/CLAUDE.md: `Use uv, not pip`"), CLAUDE_ROOT)
    assert not read_anyway(fact, frozenset({"AGENTS.md"}))  # Codex does not load CLAUDE.md
    assert not read_anyway(fact, frozenset())


def test_the_same_name_in_another_folder_is_not_the_loaded_file():
    assert not read_anyway(rule("pkg/CLAUDE.md: `Run make check first`"), CLAUDE_ROOT)
    assert read_anyway(rule("pkg/CLAUDE.md: `Run make check first`"),
                       CLAUDE_ROOT | {"pkg/CLAUDE.md"})
    assert not read_anyway(rule("docs/CLAUDE.md.bak: `x`"), CLAUDE_ROOT)


def test_any_other_source_keeps_the_fact():
    loaded = CLAUDE_ROOT
    assert not read_anyway(rule("CLAUDE.md: `Use uv`", source="user-assertion"), loaded)
    assert not read_anyway(rule("CLAUDE.md: `Use uv`", source="agent-note"), loaded)
    assert not read_anyway(rule("CLAUDE.md: `Use uv`", source="sync:ada"), loaded)
    # a second file, a transcript line, a note without a file: more than the agent's file
    assert not read_anyway(rule("CLAUDE.md: `Use uv`", "CONTRIBUTING.md: `Use uv`"), loaded)
    assert not read_anyway(rule("CLAUDE.md: `Use uv`", "transcript#L12: use uv"), loaded)
    assert not read_anyway(rule("CLAUDE.md: `Use uv`", "the user said so"), loaded)
    assert not read_anyway(rule(), loaded)  # no evidence: nothing says where it came from


def test_only_stances_are_left_out():
    quoted = "CLAUDE.md: `pytest runs the tests`"
    assert not read_anyway(rule(quoted, predicate="tested-by", epistemic="observation"),
                           CLAUDE_ROOT)
    assert read_anyway(rule(quoted, predicate="x/decided", epistemic="observation"), CLAUDE_ROOT)
    assert read_anyway(rule(quoted, predicate="tested-by", epistemic="commitment"), CLAUDE_ROOT)


def test_cited_lines_reads_the_capture_citation_shape():
    assert cited_lines(rule("CLAUDE.md: `Use `uv` always`", "./Makefile: `test:`")) == [
        ("CLAUDE.md", "Use `uv` always"), ("Makefile", "test:")]
    assert cited_lines(rule("transcript#L4: `x`")) is None
    assert cited_lines(rule()) is None


def test_claude_code_and_gemini_import_at_references_in_prose_only():
    from claimgraph.logic.own_instructions import import_references
    text = ("@AGENTS.md\n- style: @docs/style.md#naming\nmail me@example.com, see (@paren.md)\n"
            "`@span.md` and ``@double.md``\n```\n@fenced.md\n```\n<!-- @comment.md -->\n"
            "~~~\n@tilde.md\n~~~\n@./local.md @~/.claude/mine.md\n@AGENTS.md\n")
    assert import_references("claude-code", text) == [
        "AGENTS.md", "docs/style.md", "./local.md", "~/.claude/mine.md"]
    # Gemini keeps the fragment (no such file) and takes no home path
    assert import_references("gemini", text) == ["AGENTS.md", "docs/style.md#naming",
                                                 "./local.md"]


def test_an_agent_that_imports_nothing_gets_no_references():
    from claimgraph.logic.own_instructions import import_references
    assert import_references("codex", "@CLAUDE.md\n") == []
    assert import_references("claude-code", "no imports here, only an @ sign") == []


def test_an_unclosed_fence_hides_every_reference_after_it():
    from claimgraph.logic.own_instructions import import_references
    assert import_references("claude-code", "@before.md\n```sh\n@inside.md\n") == ["before.md"]


def test_a_rules_file_loads_at_start_unless_its_front_matter_names_paths():
    from claimgraph.logic.own_instructions import always_loaded_rule
    assert always_loaded_rule("# Testing\n- Always run the suite.\n")
    assert always_loaded_rule("---\ndescription: style\n---\n- Tabs.\n")
    assert not always_loaded_rule('---\npaths:\n  - "src/api/**/*.ts"\n---\n- Validate.\n')
    assert not always_loaded_rule("---\nglobs: src/**\n---\n")
    assert not always_loaded_rule("---\ndescription: never closed\n")


def test_code_spans_pair_as_each_agent_reads_them():
    from claimgraph.logic.own_instructions import import_references
    # Markdown: a run closes only at a run as long; Gemini CLI: at one at least as long
    text = "``a ` @inner.md`` @after.md ` @lone.md"
    assert import_references("claude-code", text) == ["after.md"]
    assert import_references("gemini", text) == ["after.md"]
    assert import_references("gemini", "`x`` @hidden.md `\n@seen.md") == ["seen.md"]
