"""Answers to the agent's questions, recommendations turned down, and approved plans."""

from __future__ import annotations

from claimgraph.capture.extract.answers import exclusions, parse_answers, turned_down

from .extract_helpers import Session, only

QUESTIONS = {"questions": [
    {"question": "Which database should we use?", "header": "Database",
     "options": [{"label": "PostgreSQL (Recommended)", "description": "Managed, scales"},
                 {"label": "SQLite", "description": "One file, no server"}]},
    {"question": "Which linters should we set up?", "header": "Linters",
     "options": [{"label": "All three (Recommended)", "description": "ruff + mypy + bandit"},
                 {"label": "ruff + mypy", "description": "Skip bandit (security linter)"}]},
]}
ANSWERED = ('User has answered your questions: "Which database should we use?"="SQLite", '
            '"Which linters should we set up?"="ruff + mypy". You can now continue with the '
            "user's answers in mind.")


def test_each_answer_is_a_decision_in_the_users_terms():
    session = Session()
    session.tool("AskUserQuestion", QUESTIONS, output=ANSWERED)
    decided = {c["object"] for c in only(session.extract(), "x/decided")}
    assert decided == {'Database: SQLite (asked "Which database should we use?")',
                       'Linters: ruff + mypy (asked "Which linters should we set up?")'}


def test_a_recommendation_turned_down_is_a_decision_against_what_it_added():
    session = Session()
    session.tool("AskUserQuestion", QUESTIONS, output=ANSWERED)
    against = only(session.extract(), "core/decided-against")
    assert {c["object"] for c in against} == {"PostgreSQL", "bandit (security linter)"}
    assert all(c["epistemic"] == "commitment" and c["source_type"] == "user-assertion"
               for c in against)


def test_a_recommendation_taken_is_not_turned_down():
    options = QUESTIONS["questions"][0]["options"]
    assert turned_down(options, "PostgreSQL (Recommended)") is None
    assert turned_down([{"label": "A"}, {"label": "B"}], "B") is None


def test_an_unanswered_question_is_nothing():
    session = Session()
    session.tool("AskUserQuestion", QUESTIONS, answered=False)
    assert session.extract() == []


def test_answers_are_parsed_with_quotes_and_commas_inside():
    text = ('User has answered your questions: "Use A, or B?"="B, then C", '
            '"Why \\"x\\"?"="because". You can now continue.')
    assert parse_answers(text) == {"Use A, or B?": "B, then C", 'Why "x"?': "because"}


PLAN = """Here is the plan.

## Solution
Add credo and dialyxir.

## No-gos
- No CI integration yet (separate task)
- No custom checks

## Steps
- Run mix deps.get
"""


def test_an_approved_plans_exclusions_are_decisions_against():
    session = Session()
    session.event("assistant", text=PLAN)
    session.tool("ExitPlanMode", {}, output="User has approved exiting plan mode.")
    against = {c["object"] for c in only(session.extract(), "core/decided-against")}
    assert against == {"CI integration yet (separate task)", "custom checks"}


def test_a_rejected_plan_is_not_a_decision_but_the_feedback_is_read():
    session = Session()
    session.event("assistant", text=PLAN)
    session.tool("ExitPlanMode", {"plan": PLAN}, error=True,
                 output="The user doesn't want to proceed with this tool use. The tool use was "
                        "rejected. To tell you how to proceed, the user said:\n"
                        "We will keep the CI integration in scope.")
    found = session.extract()
    assert only(found, "core/decided-against") == []
    assert {c["object"] for c in only(found, "x/decided")} == {
        "We will keep the CI integration in scope"}


def test_exclusions_end_with_their_list():
    assert exclusions("**Out of scope:**\n- payments\n- refunds\n\nThen:\n- ship it") == [
        "payments", "refunds"]


def test_a_rejected_plans_feedback_for_today_is_not_a_decision():
    session = Session()
    session.event("assistant", text=PLAN)
    session.tool("ExitPlanMode", {"plan": PLAN}, error=True,
                 output="The user doesn't want to proceed with this tool use. The tool use was "
                        "rejected. To tell you how to proceed, the user said:\n"
                        "We will keep the CI integration in scope until the release next week.")
    assert [c for c in session.extract() if c["rule"] == "answers"] == []
