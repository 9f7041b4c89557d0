"""A line of an instruction file keeps the part of the project its heading, parent bullet or
item label names; without it, a rule of one package reads as a rule of the whole project."""

from __future__ import annotations

from claimgraph.capture.extract.instruction_scope import (
    UNKNOWN, line_scopes, names_part, project_parts, scoped)

from .extract_helpers import ROOT, Session, only

GUIDE = """# shop

## Crates

- **shop-core**: All business logic and storage,
  behind traits the other crates implement.
  No direct calls to `print_line`.

- **shop-cli**: Argument parsing and output formatting.
  Always print through `console_out`.

## Frontend

- Prefer named exports in `*.tsx` files.

## Code style

- Keep functions in `src/` under 40 lines.
"""


def conventions(session: Session) -> list[str]:
    return [found["object"] for found in only(session.extract(), "x/convention")]


def test_a_later_line_of_a_labelled_item_keeps_the_items_label():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output=GUIDE)
    found = conventions(session)
    assert "shop-core: No direct calls to `print_line`" in found
    assert "shop-cli: Always print through `console_out`" in found
    assert "No direct calls to `print_line`" not in found


def test_a_heading_that_names_a_layer_scopes_its_lines_and_a_topic_does_not():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output=GUIDE)
    found = conventions(session)
    assert "Frontend: Prefer named exports in `*.tsx` files" in found
    assert "Keep functions in `src/` under 40 lines" in found


def test_a_parent_bullet_naming_a_folder_scopes_the_items_under_it():
    doc = "## Rules\n\n- In `web/`:\n  - Use server components.\n- Never commit `.env`.\n"
    scopes = line_scopes(doc)
    assert scopes["- Use server components."] == "In `web/`"
    assert scopes["- Never commit `.env`."] == ""
    assert scoped("Use server components", scopes["- Use server components."]) == \
        "In `web/`: Use server components"


def test_a_heading_names_a_folder_the_session_saw_only_as_spelled_and_leading():
    parts = project_parts(["packages/billing/src/invoice.ts", ".claude/commands/ship.md"], "shop")
    assert names_part("billing", parts) and names_part("`packages/billing`", parts)
    assert not names_part("Commands", parts)  # a section title, not the folder
    assert not names_part("How billing totals are rounded", parts)
    assert not names_part("shop", parts)  # the project itself is no part of it


def test_topics_and_languages_are_no_part():
    for title in ("Code style", "Guidelines", "Running Tests", "General Python Style",
                  "TypeScript Guidelines", "Crate Responsibilities", "E2E Tests - USE THE SKILL",
                  "CI/CD", "I/O"):
        assert not names_part(title), title
    for title in ("Frontend", "API layer", "Tests", "Backend (FastAPI)", "`crates/cli`",
                  "In web/", "*.tsx files"):
        assert names_part(title), title


def test_the_documents_title_is_the_whole_project():
    scopes = line_scopes("# Backend service\n\n- Always run `make check`.\n")
    assert scopes["- Always run `make check`."] == ""


def test_a_scope_the_rule_names_itself_is_not_repeated():
    assert scoped("Frontend code must use `zod`", "Frontend") == "Frontend code must use `zod`"
    assert scoped("State: Use `zustand`", "Frontend") == "Frontend / State: Use `zustand`"
    assert scoped("Use `zustand`", "") == "Use `zustand`"


def test_a_line_whose_part_cannot_be_stated_is_not_kept():
    cut = "  No direct calls to `print_line`.\n- Always run `cargo fmt`.\n"
    assert line_scopes(cut)["No direct calls to `print_line`."] is UNKNOWN
    long = ("## Rules for everything under `web/` and its generated clients\n\n"
            "- Never edit by hand.\n")
    assert line_scopes(long)["- Never edit by hand."] is UNKNOWN
    assert scoped("Never edit by hand", UNKNOWN) is None
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output=cut)
    assert conventions(session) == ["Always run `cargo fmt`"]
