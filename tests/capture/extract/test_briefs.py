"""Rules inside a brief: a list under a label naming rules, a command that writes the rules."""

from __future__ import annotations

from claimgraph.capture.classify.model import Verdict
from claimgraph.capture.extract.briefs import rule_items, rules_command
from claimgraph.capture.extract.statements import BRIEF_FLOOR, CONVENTION, stated_rule

from .extract_helpers import Session

BRIEF = """Pick up the billing refactor where we left it.

Read the handoff notes first.

Important constraints:
  - Keep the invoice numbers stable across migrations
  - Treat generated clients as read-only; regenerate them instead

Then report what is left."""


def _verdict(score: float) -> Verdict:
    rest = (1.0 - score) / 3
    return Verdict("request", score, False,
                   {"convention": score / 2, "decision": score / 2, "preference": 0.0,
                    "personal": 0.0, "request": rest, "question": rest, "other": rest})


def test_the_items_of_a_list_a_label_naming_rules_introduces():
    assert rule_items(BRIEF) == ["Keep the invoice numbers stable across migrations",
                                 "Treat generated clients as read-only; regenerate them instead"]
    for label in ("## Coding conventions", "**Rules:**", "Règles :", "Regole:", "Guidelines:"):
        assert rule_items(f"{label}\n- one rule here\n\n- another rule here\nprose") == [
            "one rule here", "another rule here"], label


def test_a_label_naming_requirements_or_a_plan_or_a_sentence_about_rules_is_not_one():
    for label in ("Requirements:", "## Plan", "Steps:", "can we add this as a lint rule?",
                  "the rules of the game are below"):
        assert rule_items(f"{label}\n- one rule here\n- another rule here") == [], label


def test_a_command_that_writes_the_projects_rules():
    assert rules_command("$speckit-constitution Swift 6. The code should be simple.")
    assert rules_command("<command-name>/speckit.constitution</command-name>")
    assert rules_command("/project:conventions tabs everywhere")
    assert not rules_command("/speckit.specify add a login page")
    assert not rules_command("please follow the constitution")


def test_a_listed_rule_needs_no_score_a_commanded_one_does():
    rule = "Keep the invoice numbers stable across migrations"
    assert stated_rule(_verdict(0.01), rule, listed=True).label == "convention"
    assert stated_rule(_verdict(0.01), rule, listed=False) is None
    assert stated_rule(_verdict(BRIEF_FLOOR), "The code should stay simple", listed=False).kept
    assert stated_rule(_verdict(0.9), "The library is called Resting", listed=False) is None
    assert stated_rule(_verdict(0.9), "Should invoices stay stable?", listed=True) is None
    assert stated_rule(_verdict(0.9), "Keep it", listed=True) is None


def test_a_listed_rule_is_stored_in_the_users_words_and_todays_work_is_not():
    session = Session()
    session.prompt(BRIEF)
    stored = {f["object"] for f in session.extract() if f["predicate"] == CONVENTION}
    assert stored == {"Keep the invoice numbers stable across migrations",
                      "Treat generated clients as read-only; regenerate them instead"}


def test_a_listed_item_tied_to_now_stays_for_today():
    session = Session()
    session.prompt("Constraints:\n- do not touch the billing tables right now\n- and report back")
    assert [f for f in session.extract() if f["predicate"] == CONVENTION] == []
