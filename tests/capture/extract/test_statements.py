"""What the user said: whole sentences that state a convention, a decision or a preference."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.prose import is_paste, sentences
from claimgraph.capture.extract.statements import (
    CONVENTION, DECISION, PREFERS, classify, statement_of)

from .extract_helpers import ROOT, Session, facts, only

PROJECT = "shop"


@pytest.mark.parametrize("sentence, predicate", [
    ("Always use uv for Python dependencies.", CONVENTION),
    ("Never commit directly to main.", CONVENTION),
    ("Don't use mocks in the integration tests.", CONVENTION),
    ("Do not hardcode API URLs.", CONVENTION),
    ("Make sure the migrations run before the tests.", CONVENTION),
    ("From now on, every endpoint gets a rate limit.", CONVENTION),
    ("The tests must pass before merging.", CONVENTION),
    ("No mocks in integration tests.", CONVENTION),
    ("Don't stop until the tests pass and coverage is 100%.", CONVENTION),
    ("We decided to use PostgreSQL.", DECISION),
    ("We decided against GraphQL.", DECISION),
    ("Let's go with fly.io for hosting.", DECISION),
    ("We will keep Redis but connect through the proxy.", DECISION),
    ("We'll have to ship this in two phases.", DECISION),
    ("We can keep the old client while we migrate everything to the new one.", DECISION),
    ("We should start with the billing service.", DECISION),
    ("I want to migrate this app from Flask to FastAPI.", DECISION),
    ("Port this project to Go.", DECISION),
    ("Create a CLI tool (no web UI needed).", DECISION),
    ("Use ruff instead of flake8.", DECISION),
    ("Prefer pytest over unittest.", PREFERS),
    ("We should use the initials from the username if name isn't present", PREFERS),
    ("I prefer small commits.", PREFERS),
])
def test_a_standing_statement_is_classified_by_how_it_is_said(sentence, predicate):
    assert classify(sentence) == predicate


@pytest.mark.parametrize("sentence", [
    "Should we always use uv?",
    "Can you add the first two initials of the user who is logged in",
    "Add a test for it.",
    "Run bd ready to find available subtasks.",
    "Start with the first ready task.",
    "start phoenix in background",
    "mix phx.server doesnt seem to start",
    "Maybe we should never use mocks.",
    "I think we should switch to Postgres.",
    "Don't use mocks for now.",
    "Don't worry about the tests.",
    "Let's explore scrolling when new messages are added.",
    "Please review the entire codebase and propose a solution.",
    "We will see.",
    "ultrathink",
    "scrolling still does not work (maybe because the page catches it)?",
])
def test_requests_questions_and_guesses_are_not_statements(sentence):
    assert classify(sentence) is None


def test_a_sentence_wrapped_over_lines_is_kept_whole():
    prompt = ("We can keep the old client\n  while we gradually\n  migrate everything. We "
              "should\n  start with packages/services. ultrathink")
    assert list(sentences(prompt)) == [
        "We can keep the old client while we gradually migrate everything.",
        "We should start with packages/services.", "ultrathink"]


def test_a_list_inside_a_sentence_is_not_cut_at_its_commas():
    assert list(sentences("Never use print, logging.debug, or warnings in the library.")) == [
        "Never use print, logging.debug, or warnings in the library."]


def test_pasted_code_and_logs_are_not_prose():
    code = 'import { x } from "y";\nconst a = 1;\nexport function f() {\n  return a;\n}\n'
    log = "2026-01-02 10:00:01 ERROR boom\n2026-01-02 10:00:02 ERROR again\nTraceback (most\n"
    assert is_paste(code) and is_paste(log)
    assert not is_paste("Always use uv. Never commit to main.")


def test_a_sentence_that_opens_like_a_keyword_is_still_prose():
    """"let" and "use" open English sentences as well as bindings and imports: only a
    binding's shape is code (issue 23: "let's make sure we're using US English everywhere"
    never reached the sentence model)."""
    for prose_line in ("let's make sure we're using US English everywhere",
                       "use the staging config for this run", "let me know if x = 3 works"):
        assert not is_paste(prose_line), prose_line
    for code in ("let total = 0", "let mut count: u32 = 0", "let { a, b } = props",
                 "use std::collections::HashMap;"):
        assert is_paste(code), code


def test_the_project_is_the_subject_and_the_sentence_the_object():
    session = Session()
    session.prompt("Always use uv for dependencies. Add a test for the cart.")
    [fact] = session.extract()
    assert (fact["subject"], fact["predicate"], fact["object"]) == (
        PROJECT, CONVENTION, "Always use uv for dependencies")
    assert fact["epistemic"] == "commitment" and fact["object_kind"] == "literal"
    assert fact["source_type"] == "user-assertion"
    assert fact["evidence"] == ["transcript#L1: Always use uv for dependencies"]


def test_speaking_for_oneself_is_the_user_scope():
    session = Session()
    session.prompt("I always use uv.")
    [fact] = session.extract()
    assert (fact["subject"], fact["scope"]) == ("user", "user")


def test_an_aside_that_states_a_decision_is_judged_without_the_request_around_it():
    """What the sentence model then makes of the aside is its call (tests/capture/classify)."""
    assert statement_of("Delete the Python files when done (but keep the Justfile - update it "
                        "to run Rust tests instead).") == (
        "keep the Justfile - update it to run Rust tests instead")


def test_a_slash_commands_arguments_are_the_users_words():
    session = Session()
    session.event("meta", derived=True, text="<command-name>/plan</command-name>"
                  "<command-args>We will keep SQLite for the cache.</command-args>")
    [fact] = session.extract()
    assert fact["object"] == "We will keep SQLite for the cache"


def test_only_the_person_counts():
    session = Session()
    session.event("assistant", text="Always use uv. We decided to use Postgres.")
    session.event("meta", derived=True, text="Never commit to main.")
    session.prompt("Always use uv.", is_sidechain=True)
    session.event("compaction", derived=True, text="We decided to use Postgres.")
    assert only(session.extract(), CONVENTION) == [] and only(session.extract(), DECISION) == []


def test_a_pasted_log_in_a_prompt_is_not_a_directive():
    session = Session()
    session.prompt("Never mind this log:\n```\nERROR: must not be null\n```\n"
                   "2026-01-02 10:00 ERROR must retry\n2026-01-02 10:01 ERROR must retry\n"
                   "2026-01-02 10:02 ERROR must retry\n")
    assert session.extract() == []


def test_the_valid_time_is_the_prompts_time():
    session = Session()
    session.prompt("Always use uv for dependencies.", timestamp=1_700_000_000_000)
    [fact] = session.extract()
    assert fact["valid_from"] == 1_700_000_000_000


def test_picking_an_option_is_never_a_personal_preference():
    """The model may call "I like Option 1" personal (it is first person, and "I like" is how
    people state tastes); a pick among the agent's options is about this project."""
    session = Session()
    session.event("assistant", text="Option 1: a queue.\nOption 2: a cron job.\nWhich one?")
    session.prompt("I like Option 1, from a enabling perspective")
    assert all(fact["scope"] != "user" for fact in session.extract())


def test_a_first_person_wish_for_the_work_in_hand_stays_in_the_project():
    """"I don't want a dark mode" is about this product, not the person everywhere: only a
    habit, a generality or who the person is goes to the user scope."""
    for words in ("i don't want a dark mode, no screen reader features, just aria props",
                  "I don't want any emojis in the docs"):
        session = Session()
        session.prompt(words)
        assert all(fact["scope"] != "user" for fact in session.extract()), words


def test_a_prompt_answering_the_agents_question_or_options_is_marked():
    from claimgraph.capture.extract.session import SessionView
    from claimgraph.capture.extract.statements import after_options

    session = Session()
    first = session.prompt("Set up the project.")
    session.event("assistant", text="Done. Shall I add CI too?")
    answer = session.prompt("yes")
    session.event("assistant", text="Two ways:\n1. GitHub Actions\n2. a Makefile target\n")
    pick = session.prompt("the first")
    again = session.prompt("and keep it small")
    session.event("assistant", text="Added the workflow.")
    plain = session.prompt("thanks")
    marks = after_options(SessionView.of(session.transcript(), "/home/dev/shop"))
    assert [marks[e.line] for e in (first, answer, pick, again, plain)] == [
        None, True, True, None, False]


@pytest.mark.parametrize("sentence, today", [
    # a need the person asks the agent to keep in mind is a rule for the turns to come
    ("keep in mind, you need to run `make env-test` to load the env locally", None),
    ("don't forget, the docs need to be rebuilt after editing the schema", None),
    # a reminder still tied to now stays for today; a need without one stays for today
    ("keep in mind we need to fix the login page now", "tied to now"),
    ("we need to commit both release files", "what the current work needs"),
])
def test_a_need_to_keep_in_mind_stands_and_other_needs_stay_for_today(sentence, today):
    from claimgraph.capture.extract.statements import reminded_scope

    assert reminded_scope(sentence) == today


@pytest.mark.parametrize("sentence, order", [
    ("stop trying to run bash one-liners", True),
    ("don't use the global npm cache here", True),
    ("keep the migrations folder, just drop the seed", True),
    ("never mind, i pushed it myself", False),   # a dismissal
    ("keep going with the plan please", False),  # go on
    ("stop", False),                             # names nothing
    ("don't you have the logs for that?", False),  # a question
])
def test_a_short_order_that_corrects_the_agent(sentence, order):
    from claimgraph.capture.extract.statements import stop_order

    assert stop_order(sentence) is order


def _turned_down(said: str) -> Session:
    session = Session()
    session.prompt("look at the failing build")
    session.event("assistant", text="Let me check the shell.")
    session.tool("Bash", {"command": "pwsh -c Get-ChildItem"},
                 output="exec command rejected by user", extras={"turned_down": True})
    session.prompt(said)
    return session


def test_words_quoting_a_refusal_turned_nothing_down():
    """Only a result its reader marked turned down (``Event.turned_down``) is a refusal: the
    agent's message or a command's output that quotes the words is not."""
    session = Session()
    session.prompt("look at the failing build")
    session.event("assistant", text="exec command rejected by user, said the old log.")
    session.tool("Bash", {"command": "grep -r rejected logs/"},
                 output="rejected by user: 3 payments")
    session.prompt("stop trying to run pwsh one-liners")
    assert only(session.extract(), CONVENTION) == []


def test_a_correction_typed_right_after_a_refused_call_is_a_convention_in_the_users_words():
    facts = only(_turned_down("stop trying to run pwsh one-liners").extract(), CONVENTION)
    assert [f["object"] for f in facts] == ["stop trying to run pwsh one-liners"]
    assert facts[0]["source_type"] == "user-assertion"


def test_the_same_order_with_no_refusal_before_it_is_left_to_the_sentence_model():
    from claimgraph.capture.extract.session import SessionView
    from claimgraph.capture.extract.statements import after_refusal

    session = Session()
    session.prompt("look at the failing build")
    session.event("assistant", text="The build fails in the lint step.")
    said = session.prompt("stop trying to run pwsh one-liners")
    refused = _turned_down("stop trying to run pwsh one-liners")
    assert said.line not in after_refusal(SessionView.of(session.transcript(), None))
    assert refused.events[-1].line in after_refusal(SessionView.of(refused.transcript(), None))


def test_a_correction_tied_to_now_stays_for_today_even_after_a_refusal():
    assert only(_turned_down("don't run the linter on it right now").extract(), CONVENTION) == []


def test_a_decision_naming_a_file_the_next_turn_deleted_was_todays_request():
    """What the turn after the sentence did decides: the file it names is gone."""
    def session(delete: bool) -> Session:
        s = Session()
        s.prompt("We can drop notes.md and the related pre-push hook.")
        if delete:
            s.bash(f"rm {ROOT}/notes.md", output="")
        s.prompt("thanks")
        return s
    kept = [f for f in facts(session(False).extract()) if "notes.md" in f[2]]
    assert kept == [("shop", "x/decided", "We can drop notes.md and the related pre-push hook")]
    assert [f for f in facts(session(True).extract()) if "notes.md" in f[2]] == []


def test_a_preference_for_a_prototype_holds_for_that_prototype_only():
    """The message calls the work in hand a prototype: what it asks of it is for it alone,
    unless the sentence itself says it holds beyond the task."""
    def kept(message: str) -> list[str]:
        session = Session()
        session.prompt(message)
        return [c["object"] for c in session.extract() if c["rule"] == "statements"]

    assert kept("Keep the UI functional rather than polished.") == [
        "Keep the UI functional rather than polished"]
    assert kept("We're building a quick prototype. Keep the UI functional rather than "
                "polished.") == []
    assert kept("This is an MVP. Keep the UI functional rather than polished.") == []
    assert kept("We're building a quick prototype. Always keep the UI functional rather "
                "than polished.") == ["Always keep the UI functional rather than polished"]


def test_a_sentence_that_does_not_stand_alone_is_not_stored():
    """An example or the next step cut out of the message, an "instead of" with no main
    clause, a vague aspiration: the sentence model may keep each, but read alone later it
    says nothing the next session can act on (logic/standalone.py)."""
    def kept(message: str) -> list[str]:
        session = Session()
        session.prompt(message)
        return [c["object"] for c in session.extract() if c["rule"] == "statements"]

    assert kept("Now I'd like the settings page to have tabs. For example, Cart, Checkout, "
                "Orders, etc. Then each tab should have the fields grouped so similar "
                "settings are together.") == []
    assert kept("yes please. Then let's make sure our cli, api, exporters, rules, etc. all "
                "support all our new features.") == []
    assert kept("instead of first counting the orders and then printing how many were "
                "skipped") == []
    assert kept("The service should be as simple as possible. The service should be more "
                "robust for production use.") == []
    assert kept("Always use uv for dependencies.") == ["Always use uv for dependencies"]


def test_an_order_that_only_steers_the_day_is_not_stored():
    """An order about the reply, a step of today's order of work and an order about one thing
    pointed at: the model or the lasting rule may keep
    each ("Do not …" reads like a prohibition), but none governs later work
    (logic/for_the_day.py). The rule beside them, with the same surface, still stands."""
    def kept(message: str) -> list[str]:
        session = Session()
        session.prompt(message)
        session.event("assistant", text="Understood.")
        return [c["object"] for c in session.extract(ROOT) if c["rule"] == "statements"]

    assert kept("Do not reply with code, just explain the plan.") == []
    assert kept("Do not rename the function.") == []
    assert kept("Instead of finishing the tests, I would like to merge and publish, and then "
                "move on to the exporter.") == []
    assert kept("Don't use mocks, just use real SQLite files.") == [
        "Don't use mocks, just use real SQLite files"]


def test_review_findings_pasted_into_a_message_are_not_the_persons_decisions():
    """A finding anchored to a file's lines is the reviewer's proposal, whatever the session
    then does with it (logic/review_findings.py); the person's own sentences before it stay."""
    session = Session()
    session.prompt("We always use uv for dependencies.\nReview comments:\n"
                   "In `@src/shop/cart.py` around lines 12 - 30, The total should use Decimal "
                   "instead of float; update the cart so the total is always a Decimal.")
    assert [fact["object"] for fact in session.extract()] == [
        "We always use uv for dependencies"]
