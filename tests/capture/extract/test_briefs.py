"""Rules inside a brief: the arguments of a command that writes the project's rules."""

from __future__ import annotations

from claimgraph.capture.classify.model import Verdict
from claimgraph.capture.extract.briefs import rule_lines, rules_command, states_a_rule
from claimgraph.capture.extract.statements import BRIEF_FLOOR, CONVENTION, stated_rule

from .extract_helpers import Session


def _verdict(score: float) -> Verdict:
    rest = (1.0 - score) / 3
    return Verdict("request", score, False,
                   {"convention": score / 2, "decision": score / 2, "preference": 0.0,
                    "personal": 0.0, "request": rest, "question": rest, "other": rest})


def test_a_command_that_writes_the_projects_rules():
    assert rules_command("$speckit-constitution Swift 6. The code should be simple.")
    assert rules_command("<command-name>/speckit.constitution</command-name>")
    assert rules_command("/project:conventions tabs everywhere")
    assert not rules_command("/speckit.specify add a login page")
    assert not rules_command("please follow the constitution")
    assert not rules_command("Rules:\n- never push to main")


def test_a_sentence_with_a_rules_word_scored_from_the_floor_on_is_a_convention():
    kept = stated_rule(_verdict(BRIEF_FLOOR), "The code should stay simple")
    assert kept is not None and kept.kept and kept.label == "convention"
    assert stated_rule(_verdict(BRIEF_FLOOR - 0.01), "The code should stay simple") is None
    assert stated_rule(_verdict(0.9), "The library is called Resting") is None  # no rule word
    assert stated_rule(_verdict(0.9), "Should the code stay simple?") is None
    assert stated_rule(_verdict(0.9), "Keep it simple") is None  # too short


def _commanded(arguments: str) -> list[str]:
    session = Session(agent="codex")
    session.prompt(f"$speckit-constitution {arguments}")
    return [f["object"] for f in session.extract() if f["predicate"] == CONVENTION]


def test_a_rule_in_a_constitution_brief_is_stored_and_the_same_words_elsewhere_are_not():
    rule = "Functions should be short with clear names"  # the model alone: a request, 0.64
    brief = f"Rust 1.80. {rule}. Error messages go to stderr."
    assert rule in _commanded(brief)
    session = Session(agent="codex")
    session.prompt(f"$speckit-specify {brief}")
    assert all(f["object"] != rule for f in session.extract())


def test_a_rule_in_a_constitution_brief_tied_to_now_stays_for_today():
    assert _commanded("The code should stay simple for now, we refactor later.") == []


HANDOFF = """Continue the migration work from the handoff on branch `feature-x`.

Current state:
- The importer was rewritten and its tests pass
- Do not trust the old fixture counts, they were wrong

Next required action:
1. Run the import tests again

Important constraints:
- Use the project's task runner for tests; do not call `pytest` directly
- Treat the checkout as shared state; never reset files you did not change
- If a migration is edited, record why in `MIGRATIONS.md`
- Keep costs minimal (use free tiers)
"""


def test_the_lines_under_a_label_that_says_it_holds_rules():
    lines = rule_lines(HANDOFF)
    assert [line for line, _ in lines] == [
        "Use the project's task runner for tests; do not call `pytest` directly",
        "Treat the checkout as shared state; never reset files you did not change",
        "If a migration is edited, record why in `MIGRATIONS.md`",
        "Keep costs minimal (use free tiers)"]
    assert not any(standing for _, standing in lines)  # constraints: only some are rules
    assert [states_a_rule(line) for line, _ in lines] == [True, True, True, False]


def test_a_label_naming_principles_holds_rules_on_every_line():
    brief = "### Principes de code\n\n- **Type hints** partout\n- **DRY** : factoriser\n"
    assert rule_lines(brief) == [("Type hints partout", True), ("DRY : factoriser", True)]


def test_a_label_naming_what_the_rules_are_about_or_no_rules_holds_none():
    assert rule_lines("Alert rules:\n- never send more than three alerts an hour\n") == []
    assert rule_lines("Requirements:\n- must serve JSON with HTTP 200\n") == []
    assert rule_lines("Then continue with:\n- never stop\n") == []


def test_a_brief_that_shows_the_reply_it_wants_gives_no_rules():
    brief = ("Give a synopsis in this format:\n\n**Summary:** [one or two sentences]\n\n"
             "Rules:\n- NEVER start with conversational words\n")
    assert rule_lines(brief) == []
    assert rule_lines(brief.replace("[one or two sentences]", "[docs](docs/a.md)")) != []


def test_a_wrapped_rule_is_read_whole():
    brief = "Constraints:\n  - Never push to the release branch from a\n    worktree\n  - b\n"
    assert rule_lines(brief)[0] == ("Never push to the release branch from a worktree", False)


def _conventions(text: str) -> list[str]:
    session = Session(agent="codex")
    session.prompt(text)
    return [f["object"] for f in session.extract() if f["predicate"] == CONVENTION]


def test_a_handoffs_constraints_that_read_as_rules_are_stored_and_nothing_else():
    assert _conventions(HANDOFF) == [
        "Use the project's task runner for tests; do not call `pytest` directly",
        "Treat the checkout as shared state; never reset files you did not change",
        "If a migration is edited, record why in `MIGRATIONS.md`"]


def test_the_principles_of_a_brief_written_as_a_document_are_stored():
    brief = ("# Brief for the agent\n\n## Stack\n\n- Python 3.12\n- SQLite\n\n## Phases\n\n"
             "- Config loader\n- Collectors\n\n### Coding principles\n\n"
             "- Type hints on every function\n- Google style docstrings\n")
    assert _conventions(brief) == ["Type hints on every function", "Google style docstrings"]
    assert _conventions(brief.replace("Coding principles", "Phase notes")) == []


def test_the_constraints_of_a_plan_handed_over_are_the_plans():
    assert _conventions("Implement the following plan:\n\n" + HANDOFF) == []


def test_a_rule_under_a_constraints_label_tied_to_now_stays_for_today():
    assert _conventions("Constraints:\n- Do not touch the CI config for now\n") == []
