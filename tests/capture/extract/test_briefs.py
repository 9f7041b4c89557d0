"""Rules inside a brief: the arguments of a command that writes the project's rules."""

from __future__ import annotations

from claimgraph.capture.classify.model import Verdict
from claimgraph.capture.extract.briefs import rules_command
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
