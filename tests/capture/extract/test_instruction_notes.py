"""A line the agent wrote into an instruction file on its own is its note; a claim one file
says again after a fuller line of another file is said once."""

from __future__ import annotations

from claimgraph.capture.extract.instruction_notes import (asked_for, gives_command,
                                                         names_something, said_again)

from claimgraph.capture.extract.instructions import instruction_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session

GUIDE = ("# Contributing\n\n- **Quotes**: Use single quotes for strings\n"
         "- **Semicolons**: Always use semicolons\n"
         "- **Running Tests**: Run `pnpm test` to build and run the suite\n")


def rules_of(session: Session) -> set[str]:
    """What the ``instructions`` rule kept (the person's own words are another rule's, and
    the extractor merges a line with the person's words that say the same)."""
    return {c["object"] for c in instruction_candidates(SessionView.of(session.transcript(), None))}


def test_a_guide_the_agent_wrote_on_its_own_keeps_only_its_commands():
    """Asked for "a contribution guide", the agent fills it with its own taste: the style
    lines are its advice; how the project is run (a command) is concrete whoever wrote it."""
    session = Session()
    session.prompt("Add a contribution guide")
    session.write(f"{ROOT}/CONTRIBUTING.md", GUIDE)
    assert rules_of(session) == {"Running Tests: Run `pnpm test` to build and run the suite"}


def test_a_rule_the_person_asked_for_is_kept():
    session = Session()
    session.prompt("Write CONTRIBUTING.md. We use single quotes for strings and always "
                   "semicolons")
    session.write(f"{ROOT}/CONTRIBUTING.md", GUIDE)
    assert rules_of(session) == {"Quotes: Use single quotes for strings",
                                 "Semicolons: Always use semicolons",
                                 "Running Tests: Run `pnpm test` to build and run the suite"}


def test_rules_the_person_pasted_are_asked_for():
    """Pasted with "add these", the rules are the person's, though they did not type them."""
    session = Session()
    session.prompt("Add these to AGENTS.md:\n\n# Team rules\n\n" + "\n".join(
        f"- Rule {n}: keep the {word} module free of network calls" for n, word in
        enumerate(["billing", "ledger", "search", "import", "export", "report", "audit",
                   "backup", "sync", "queue"])))
    session.write(f"{ROOT}/AGENTS.md", "# Rules\n\n- Keep the billing module free of network "
                  "calls\n")
    assert rules_of(session) == {"Keep the billing module free of network calls"}


def test_a_line_an_edit_added_on_its_own_is_the_agents_note_not_one_asked_for():
    session = Session(agent="codex")
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output="# Rules\n\n- Always use pathlib for paths\n")
    session.prompt("Tidy up the rules file")
    session.edit(f"{ROOT}/CLAUDE.md", "- Always use pathlib for paths\n",
                 "- Always use pathlib for paths\n- Prefer small focused modules\n")
    assert rules_of(session) == {"Always use pathlib for paths"}  # the file's own line stays


def test_a_file_the_person_asked_for_by_name_keeps_what_names_the_project():
    """ "Update CLAUDE.md with what we learned": the agent words the lessons; what names a
    thing of the project or forbids something is what was asked for, its general advice is
    not. Not asked for by name, only the command stands."""
    lines = ("# Deploy\n\n- Run `fly deploy --remote-only` to deploy\n"
             "- The `billing` worker must be stopped before a migration\n"
             "- The ledger must never call the network\n"
             "- Prefer small focused commits\n")
    asked = Session()
    asked.prompt("Update CLAUDE.md with what we learned today")
    asked.write(f"{ROOT}/CLAUDE.md", lines)
    assert rules_of(asked) == {"Run `fly deploy --remote-only` to deploy",
                               "The `billing` worker must be stopped before a migration",
                               "The ledger must never call the network"}
    unasked = Session()
    unasked.prompt("Fix the deploy, then note what you learned")
    unasked.write(f"{ROOT}/CLAUDE.md", lines)
    assert rules_of(unasked) == {"Run `fly deploy --remote-only` to deploy"}


def test_a_request_after_the_write_does_not_make_it_asked_for():
    session = Session()
    session.write(f"{ROOT}/CLAUDE.md", "# Rules\n\n- Prefer small focused modules\n")
    session.prompt("Good. Prefer small focused modules everywhere, from now on")
    assert "Prefer small focused modules" not in rules_of(session)


def test_a_claim_another_file_says_in_full_is_said_once():
    """A guide written from the AGENTS.md beside it says the same again in fewer words."""
    session = Session(agent="gemini")
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"},
                 output="# Agents\n\n- Write short, imperative commit subjects, with "
                        "lightweight prefixes such as `feat:` or `fix:`.\n")
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"},
                 output="# Contributing\n\n- Use short, imperative commit subjects\n"
                        "- Use lightweight prefixes like `feat:` or `fix:`\n"
                        "- Never commit generated files under `dist/`\n")
    assert rules_of(session) == {
        "Write short, imperative commit subjects, with lightweight prefixes such as `feat:` "
        "or `fix:`",
        "Never commit generated files under `dist/`"}


def test_two_rules_that_share_a_few_words_are_both_kept():
    session = Session(agent="codex")
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output="# Rules\n\n- Never commit directly to main\n")
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"},
                 output="# Contributing\n\n- Use signed commits on the main branch\n")
    assert rules_of(session) == {"Never commit directly to main",
                                 "Use signed commits on the main branch"}


def test_a_command_is_a_program_and_its_subcommand_or_flag():
    assert gives_command("Run `pnpm test` first")
    assert gives_command("Lint with `ruff --fix`")
    assert not gives_command("Fixtures live in `src/test/fixtures/`")
    assert not gives_command("Use prefixes like `feat: add search`")
    assert not gives_command("Use `async` and `await`")


def test_a_name_is_a_code_span_a_path_an_identifier_or_a_proper_name():
    assert names_something("Use British English for comments")
    assert names_something("Keep NODE_ENV set in tests")
    assert names_something("Fixtures live in src/test/fixtures")
    assert not names_something("Use absolute imports")
    assert not names_something("New fields should be optional. Existing configs must work")
    assert not names_something("Quotes: Use single quotes")


def test_asked_for_needs_half_the_words_in_one_earlier_message():
    said = [(1, "mention vercel, hugging face and openinference as standards"),
            (9, "check the ledger module")]
    line = "Check public standards such as Vercel, Hugging Face and OpenInference first"
    assert asked_for(line, 5, said)
    assert not asked_for(line, 1, said)  # said at the write's own line: not before it
    assert not asked_for("Keep the ledger module small and pure", 20, said)


def test_said_again_keeps_the_fuller_line_and_the_first_of_two_alike():
    """Only another file's line makes a repeat: two lines of one file are the file's own
    list (e)."""
    lines = [("a", "CONTRIBUTING.md", "Use short imperative commit subjects"),
             ("b", "AGENTS.md", "History uses short imperative commit subjects with prefixes"),
             ("c", "docs/a.md", "Always run the migration checks"),
             ("d", "docs/b.md", "Always run the migration checks"),
             ("e", "AGENTS.md", "Short imperative commit subjects only")]
    assert said_again(lines) == {"a", "d"}


def test_a_short_tool_name_the_person_typed_counts_toward_asking():
    said = [(1, "we use uv and ruff here")]
    assert asked_for("Use uv and ruff for everything", 5, said)
    assert not asked_for("Use pip and black for everything", 5, said)
