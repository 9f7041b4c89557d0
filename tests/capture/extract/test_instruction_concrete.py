"""An instruction file's generic style advice is not remembered; its concrete rules are."""

from __future__ import annotations

from claimgraph.capture.extract.instruction_concrete import concrete

from .extract_helpers import ROOT, Session, only

GUIDE = """# Guide

## Code style

- Keep modules cohesive.
- Prefer named exports.
- Use absolute imports.
- Always use `@repo/result` for Result types.
- Never edit files under src/generated/ by hand.
- Use British English for comments and documentation.
- Run pnpm lint before pushing.
"""


def conventions(session: Session) -> list[str]:
    return [found["object"] for found in only(session.extract(), "x/convention")]


def test_generic_advice_read_in_an_instruction_file_is_left_out():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"}, output=GUIDE)
    assert conventions(session) == [
        "Always use `@repo/result` for Result types",
        "Never edit files under src/generated/ by hand",
        "Use British English for comments and documentation",
        "Run pnpm lint before pushing"]


def test_a_rule_the_session_wrote_into_the_file_counts_however_generic():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output="# Guide\n\n- Run `make`.\n")
    session.edit(f"{ROOT}/AGENTS.md", "- Run `make`.\n", "- Run `make`.\n- Prefer named exports.\n")
    assert "Prefer named exports" in conventions(session)


def test_what_makes_a_rule_concrete():
    for rule in ("Set `NODE_ENV=test` when running tests", "Avoid index.ts re-exports",
                 "Never touch api/generated", "Use createHandler for routes",
                 "Use join helpers for Supabase data", "Use ruff, not flake8",
                 "Keep GITHUB_TOKEN out of logs"):
        assert concrete(rule), rule
    for rule in ("Keep modules cohesive", "No trailing whitespace", "Do not execute processes via "
                 "a shell", "Don't reference PRs or issues in comments; make everything "
                 "standalone", "Ask: \"Is there real demand?\" before adding it",
                 "Atomic writes: write a temporary file, then rename it",
                 "NEVER write long functions"):
        assert not concrete(rule), rule
    assert concrete("Never push to main") and concrete("NEVER commit secrets")


def test_advice_left_out_still_takes_its_place_among_a_files_first_rules():
    """A file gives at most its first ten rules; generic advice among them is left out, not
    replaced by the eleventh (a long guide gives no more than a short one)."""
    advice = "".join(f"- Keep part {word} small.\n" for word in "abcdefghij")
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output=f"# Guide\n\n{advice}- Always run `make check` first.\n")
    assert conventions(session) == []
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output=f"# Guide\n\n- Always run `make check` first.\n{advice}")
    assert conventions(session) == ["Always run `make check` first"]
