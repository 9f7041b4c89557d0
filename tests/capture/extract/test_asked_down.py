"""Rules the person asked the session to write down (extract/asked_down.py): the lines a write
put into the project's rules file in the turn of a message that names the file, as the file
ends. Every session here is written by hand; the French rules are made up for the test."""

from __future__ import annotations

from claimgraph.capture.extract.asked_down import (
    asked_rule_candidates, blocks, names_file, rule_line, rules_file)
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session


def asked(session: Session) -> list[str]:
    """The rules the new rule yields, in order."""
    view = SessionView.of(session.transcript(), None)
    return [found["object"] for found in asked_rule_candidates(view)]


def test_a_rule_written_into_the_file_the_person_named_is_kept_in_any_language() -> None:
    session = Session(agent="codex")
    session.prompt("ajoute une section sur la base de données dans agents.md")
    session.write(f"{ROOT}/agents.md", "# Agents\n\n## Serveurs\n\n"
                  "- Pour toute question de base, **interroger le serveur Postgres d'abord**.\n"
                  "- Répondre toujours en français, sauf pour le code.\n")
    assert asked(session) == [
        "Pour toute question de base, **interroger le serveur Postgres d'abord**.",
        "Répondre toujours en français, sauf pour le code."]


def test_the_fact_cites_the_file_line_with_a_project_files_trust() -> None:
    session = Session()
    session.prompt("add to the review skill that findings come with the failing line")
    session.write(f"{ROOT}/.claude/skills/review/SKILL.md",
                  "# Review\n\n**CRITICAL**: Every finding quotes the failing line of code\n"
                  "and the file it is in, before any advice.\n")
    view = SessionView.of(session.transcript(), None)
    [found] = asked_rule_candidates(view)
    assert found["object"] == ("**CRITICAL**: Every finding quotes the failing line of code and "
                               "the file it is in, before any advice.")
    assert found["evidence"] == [".claude/skills/review/SKILL.md: `**CRITICAL**: Every finding "
                                 "quotes the failing line of code`"]
    assert found["source_type"] == "session-log" and found["predicate"] == "x/convention"


def test_a_write_in_a_turn_that_does_not_name_the_file_is_the_agents_wording() -> None:
    session = Session()
    session.prompt("set up the project for new contributors")
    session.write(f"{ROOT}/CONTRIBUTING.md",
                  "# Contributing\n\n- Run the whole test suite before opening a pull request.\n")
    assert asked(session) == []


def test_only_the_turn_of_the_naming_message_counts() -> None:
    session = Session()
    session.prompt("add a rule to AGENTS.md that migrations are never edited after release")
    session.write(f"{ROOT}/AGENTS.md",
                  "# Rules\n\n- Never edit a migration once it has been released.\n")
    session.said_next("now tidy up the wording elsewhere")
    session.edit(f"{ROOT}/AGENTS.md", "- Never edit a migration once it has been released.\n",
                 "- Never edit a migration once it has been released.\n"
                 "- Keep every helper function shorter than forty lines of code.\n")
    assert asked(session) == ["Never edit a migration once it has been released."]


def test_a_rule_the_session_took_out_later_is_not_kept() -> None:
    session = Session()
    session.prompt("put the branch rule in CLAUDE.md")
    session.write(f"{ROOT}/CLAUDE.md", "# Rules\n\n- Every task gets its own branch off main.\n")
    session.said_next("actually drop that from CLAUDE.md again")
    session.edit(f"{ROOT}/CLAUDE.md", "- Every task gets its own branch off main.\n", "")
    assert asked(session) == []


def test_the_last_version_of_a_rewritten_rule_is_the_one_kept() -> None:
    session = Session()
    session.prompt("write the release rule into CLAUDE.md")
    session.write(f"{ROOT}/CLAUDE.md", "# Rules\n\n- Releases are cut from the main branch.\n")
    session.said_next("in CLAUDE.md say that releases come from the release branch instead")
    session.edit(f"{ROOT}/CLAUDE.md", "- Releases are cut from the main branch.\n",
                 "- Releases are cut only from a dedicated release branch.\n")
    assert asked(session) == ["Releases are cut only from a dedicated release branch."]


def test_lines_that_were_there_before_or_only_reworded_are_not_the_persons_rules() -> None:
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"},
                 output="     1\t# Rules\n     2\t\n     3\t- Run the lint-notes skill before a "
                        "release to check the notes.\n")
    session.prompt("rename the lint-notes skill to release-notes in AGENTS.md")
    session.edit(f"{ROOT}/AGENTS.md",
                 "- Run the lint-notes skill before a release to check the notes.\n",
                 "- Run the release-notes skill before a release to check the notes.\n")
    assert asked(session) == []


def test_a_file_that_holds_no_rules_is_not_read() -> None:
    session = Session()
    session.prompt("update README.md with the install steps for new users")
    session.write(f"{ROOT}/README.md",
                  "# Shop\n\n- Install the package with pip and run the server locally.\n")
    assert asked(session) == []


def test_at_most_five_rules_of_a_file_those_sharing_the_asking_words_first() -> None:
    filler = "".join(f"- Keep module number {n} documented with a short paragraph.\n"
                     for n in range(8))
    session = Session()
    session.prompt("in AGENTS.md add that database migrations need a review")
    session.write(f"{ROOT}/AGENTS.md",
                  f"# Rules\n\n{filler}- Database migrations need a second review.\n")
    found = asked(session)
    assert len(found) == 5
    assert found[0] == "Database migrations need a second review."


def test_names_file_reads_the_name_the_stem_and_a_skills_folder() -> None:
    assert names_file("put it in @AGENTS.md please", "AGENTS.md")
    assert names_file("mets à jour la constitution", ".specify/memory/constitution.md")
    assert names_file("update the review skill too", ".claude/skills/review/SKILL.md")
    assert not names_file("look at the docs folder", "docs/rules.md")
    assert names_file("also in agents md mention the standards", "AGENTS.md")
    assert names_file("$speckit-constitution Go only", ".specify/memory/constitution.md")
    assert not names_file("the subagents will run it", "AGENTS.md")
    assert not names_file("claude, add a test for the parser", "CLAUDE.md")
    assert not names_file("thanks for contributing this", "CONTRIBUTING.md")


def test_rules_file_knows_instruction_files_skills_and_rules_pages() -> None:
    assert rules_file("AGENTS.md") and rules_file(".claude/skills/x/SKILL.md")
    assert rules_file("docs/coding-conventions.md")
    assert rules_file(".specify/memory/constitution.md")
    assert rules_file(".cursor/rules/testing.mdc")
    assert not rules_file("README.md") and not rules_file("src/rules.py")
    assert not rules_file("docs/architecture.md")


def test_blocks_join_wrapped_lines_and_skip_code_comments_and_tables() -> None:
    text = ("---\nname: x\n---\n# Title\n\n- First rule that wraps\n  onto a second line.\n"
            "- Second rule.\n\n```sh\nmake test and more words here\n```\n"
            "<!--\nSync report: everything changed here today\n-->\n"
            "| a | b |\n\nA paragraph rule\nthat wraps too.\n")
    assert [block for _, block in blocks(text)] == [
        ["name: x"], ["- First rule that wraps", "onto a second line."], ["- Second rule."],
        ["A paragraph rule", "that wraps too."]]


def test_rule_line_leaves_out_steps_metadata_and_short_lines() -> None:
    assert rule_line("- Never push directly to main, always open a PR.") == (
        "Never push directly to main, always open a PR.")
    assert rule_line("1. Pull the latest changes from origin") is None
    assert rule_line("**Version** : 1.1 | **Ratified** : 2025 | **Amended** : 2026") is None
    assert rule_line("- Use tabs.") is None
    assert rule_line("name: review the code") is None
    assert rule_line("Principles:") is None


def test_a_rule_about_the_file_itself_is_left_out() -> None:
    session = Session()
    session.prompt("fill in the constitution: a Go service with the standard library only")
    session.write(f"{ROOT}/.specify/memory/constitution.md",
                  "# Constitution\n\n- The service is written in Go with the standard library.\n"
                  "- This constitution overrides every other guidance of the project.\n")
    assert asked(session) == ["The service is written in Go with the standard library."]


def test_an_instruction_file_named_in_its_own_capitals_is_named() -> None:
    session = Session(agent="codex")
    session.prompt("il faut aussi le préciser dans le fichier AGENTS")
    session.edit(f"{ROOT}/AGENTS.md", "# Règles\n",
                 "# Règles\n\n- Toutes les réponses de l'agent sont écrites en français.\n")
    assert asked(session) == ["Toutes les réponses de l'agent sont écrites en français."]
