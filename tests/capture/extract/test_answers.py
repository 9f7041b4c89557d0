"""Answers to the agent's questions, recommendations turned down, and approved plans."""

from __future__ import annotations

import json

from claimgraph.capture.extract.answers import exclusions, turned_down
from claimgraph.capture.extract.asked import answers, parse_answers
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.statements import user_texts

from .extract_helpers import Session, only

QUESTIONS = {"questions": [
    {"question": "Which database should we use?", "header": "Database",
     "options": [{"label": "PostgreSQL (Recommended)", "description": "Managed, scales"},
                 {"label": "SQLite", "description": "One file, data/app.sqlite3, no server"}]},
    {"question": "Which linters should we set up?", "header": "Linters",
     "options": [{"label": "All three (Recommended)", "description": "ruff + mypy + bandit"},
                 {"label": "ruff + mypy",
                  "description": "Skip bandit (security linter); configured in `[tool.ruff]`"}]},
]}
ANSWERED = ('User has answered your questions: "Which database should we use?"="SQLite", '
            '"Which linters should we set up?"="ruff + mypy". You can now continue with the '
            "user's answers in mind.")


def _answered_and_acted_on() -> Session:
    """The questions answered, then the session writing what the picks named."""
    session = Session()
    session.tool("AskUserQuestion", QUESTIONS, output=ANSWERED)
    session.write("/home/dev/shop/pyproject.toml", '[tool.ruff]\nline-length = 100\n')
    session.write("/home/dev/shop/src/db.py", 'PATH = "data/app.sqlite3"\n')
    return session


def test_each_answer_is_a_decision_in_the_users_terms():
    decided = {c["object"] for c in only(_answered_and_acted_on().extract(), "x/decided")}
    assert decided == {
        'Database: SQLite — One file, data/app.sqlite3, no server '
        '(asked "Which database should we use?")',
        'Linters: ruff + mypy — Skip bandit (security linter); configured in `[tool.ruff]` '
        '(asked "Which linters should we set up?")'}


def test_an_answer_nothing_afterwards_acts_on_is_not_stored():
    session = Session()
    session.tool("AskUserQuestion", QUESTIONS, output=ANSWERED)
    assert only(session.extract(), "x/decided") == []


def test_a_recommendation_turned_down_is_a_decision_against_what_it_added():
    session = _answered_and_acted_on()
    against = only(session.extract(), "core/decided-against")
    # SQLite instead of the recommended PostgreSQL rules nothing out: only the linter the
    # choice left out of the recommended set is turned down
    assert {c["object"] for c in against} == {"bandit (security linter)"}
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
    # "No CI integration yet (separate task)" only puts it off: the next session may well do it
    assert against == {"custom checks"}


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


def test_exclusions_only_put_off_are_no_decisions_against():
    """"Out of scope (future)" leaves them for later work; it decides nothing against them."""
    assert exclusions("## Out of scope (future)\n- runtime tests\n- benchmarks\n") == []
    assert exclusions("**Out of scope:**\n- payments\n- CI integration yet (separate task)\n"
                      "- refunds for now\n") == ["payments"]


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


# Codex's request_user_input: questions carry an id; the result is JSON keyed by that id, with
# the labels picked and the person's own words as "user_note: ..." entries.
CODEX_QUESTIONS = {"questions": [
    {"id": "store", "header": "Storage", "question": "Where should sessions be kept?",
     "options": [{"label": "SQLite file (Recommended)", "description": "One file, store.sqlite3"},
                 {"label": "Plain JSON files", "description": "Easy to read"}]},
    {"id": "scope", "header": "Scope", "question": "Which platforms must work?",
     "options": [{"label": "Linux only", "description": "CI in ci-linux.yml"},
                 {"label": "Linux and macOS", "description": "CI in ci-matrix.yml"}]},
]}


def _codex_answers(table: dict) -> str:
    return json.dumps({"answers": {key: {"answers": value} for key, value in table.items()}})


def test_a_codex_answer_is_parsed_into_what_was_picked_and_what_was_typed():
    session = Session(agent="codex")
    call = session.tool("request_user_input", CODEX_QUESTIONS, output=_codex_answers({
        "store": ["SQLite file (Recommended)", "user_note: keep every write atomic"],
        "scope": ["Linux and macOS"]}))
    result = session.events[-1]
    found = {a.question["id"]: (a.picked, a.typed) for a in answers(call, result)}
    assert found == {"store": ("SQLite file (Recommended)", "keep every write atomic"),
                     "scope": ("Linux and macOS", "")}


def test_a_codex_answer_is_a_decision_and_its_note_the_users_words():
    session = Session(agent="codex")
    session.tool("request_user_input", CODEX_QUESTIONS, output=_codex_answers({
        "store": ["SQLite file (Recommended)",
                  "user_note: Always use pathlib instead of os.path."],
        "scope": ["Linux and macOS"]}))
    session.bash("touch store.sqlite3 .github/workflows/ci-matrix.yml")
    extracted = session.extract()
    decided = {c["object"] for c in only(extracted, "x/decided")}
    assert decided == {
        'Storage: SQLite file — One file, store.sqlite3 (asked "Where should sessions be kept?")',
        'Scope: Linux and macOS — CI in ci-matrix.yml'}  # too short a question to keep
    texts = [text for _, text in user_texts(SessionView.of(session.transcript(), None))]
    assert texts == ["Always use pathlib instead of os.path."]
    said = [c for c in extracted if "pathlib" in c["object"]]
    assert said and all(c["source_type"] == "user-assertion" for c in said)


def test_an_option_not_picked_is_never_a_fact():
    session = Session(agent="codex")
    session.tool("request_user_input", CODEX_QUESTIONS,
                 output=_codex_answers({"scope": ["Linux only"]}))
    session.write("/home/dev/shop/.github/workflows/ci-linux.yml", "runs-on: ubuntu-latest\n")
    objects = " ".join(c["object"] for c in session.extract())
    assert "Linux only" in objects
    assert "macOS" not in objects and "JSON files" not in objects and "SQLite" not in objects


def test_codex_answers_of_an_unknown_shape_or_no_answer_say_nothing():
    for output in ("request_user_input is unavailable in Default mode",
                   json.dumps({"answers": {"scope": {"answers": ["Linux only"],
                                                     "auto_resolved": True}}}),
                   json.dumps({"answers": {"scope": {"answers": []}}}),
                   json.dumps({"answers": ["Linux only"]})):
        session = Session(agent="codex")
        session.tool("request_user_input", CODEX_QUESTIONS, output=output)
        assert session.extract() == [], output


def test_a_codex_entry_that_is_no_offered_label_was_typed():
    session = Session(agent="codex")
    call = session.tool("request_user_input", CODEX_QUESTIONS,
                        output=_codex_answers({"scope": ["FreeBSD too"]}))
    [answer] = answers(call, session.events[-1])
    assert (answer.picked, answer.typed) == ("", "FreeBSD too")


def test_a_recommendation_picked_where_a_timer_picks_it_is_nobodys_choice():
    timed = {"autoResolutionMs": 60000, **CODEX_QUESTIONS}
    session = Session(agent="codex")
    call = session.tool("request_user_input", timed, output=_codex_answers({
        "store": ["SQLite file (Recommended)", "user_note: keep every write atomic"],
        "scope": ["Linux only"]}))
    found = {a.question["id"]: (a.picked, a.typed) for a in answers(call, session.events[-1])}
    assert found == {"store": ("", "keep every write atomic"), "scope": ("Linux only", "")}
