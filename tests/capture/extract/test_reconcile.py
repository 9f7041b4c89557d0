"""Reconcile: candidates held against how the session ended (pure logic, plain data)."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.corroborate import Record
from claimgraph.capture.extract.reconcile import (
    FileChange, Later, digest, options_in, reconcile, taught_at)
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session, only


def _fact(obj: str, evidence: str, *, predicate: str = "x/convention",
          source_type: str = "session-log", rule: str = "instructions",
          scope: str = "project", subject: str = "shop") -> dict:
    return {"subject": subject, "predicate": predicate, "object": obj, "scope": scope,
            "source_type": source_type, "rule": rule, "evidence": [evidence],
            "epistemic": "commitment", "confidence": 0.7}


#: A session record that bears out the agent's notes these tests hold against other checks
#: (an agent's note the record does not back is dropped before any of them: test_corroborate).
BACKED = Record(written={"docs/notes.md": (
    "make docs; Used a Result type instead of exceptions; a queue for the exporter; "
    "the write cache is flushed after every request; "
    "oidc-audience; github-app; the audience parameter as an app selector; "
    "a display is available, headless sessions fail")})


# --- a quoted file line the session took out ---------------------------------------------------

def test_a_rule_from_an_earlier_version_of_a_rewritten_file_is_dropped():
    later = Later(files={"CLAUDE.md": [
        FileChange(3, "write", "", "Always use tabs.\nNever push to main.\n"),
        FileChange(9, "write", "", "Always use spaces.\nNever push to main.\n")]})
    tabs = _fact("Always use tabs", "CLAUDE.md: `Always use tabs.`")
    spaces = _fact("Always use spaces", "CLAUDE.md: `Always use spaces.`")
    push = _fact("Never push to main", "CLAUDE.md: `Never push to main.`")
    assert reconcile([tabs, spaces, push], later) == [spaces, push]


def test_an_edit_that_replaced_the_quoted_line_drops_it_a_later_read_restores_it():
    quoted = _fact("Use the local cache folder", "./docs/setup.md: `Use the local cache folder.`")
    edited = Later(files={"docs/setup.md": [
        FileChange(2, "read", "", "# Setup\nUse the local cache folder.\n"),
        FileChange(5, "edit", "Use the local cache folder.", "Use the shared cache folder.")]})
    assert reconcile([quoted], edited) == []
    restored = Later(files={"docs/setup.md": [
        *edited.files["docs/setup.md"],
        FileChange(8, "read", "", "# Setup\nUse the local cache folder.\n")]})
    assert reconcile([quoted], restored) == [quoted]


def test_a_partial_read_without_the_line_says_nothing():
    quoted = _fact("Always lint", "CLAUDE.md: `Always lint.`")
    later = Later(files={"CLAUDE.md": [FileChange(2, "read", "", "Always lint.\n"),
                                       FileChange(4, "read", "", "## Other\n")]})
    assert reconcile([quoted], later) == [quoted]


# --- a "no X" the session then did anyway ------------------------------------------------------

def test_a_negative_stance_the_session_then_acted_against_is_dropped():
    stance = _fact("No `make docs` target", "transcript#L4: no make docs target",
                   source_type="agent-note", rule="summaries")
    did = Later(done=[(9, "docs:\n\tmake docs\n")], record=BACKED)
    before = Later(done=[(2, "make docs")], record=BACKED)
    assert reconcile([stance], did) == []
    assert reconcile([stance], before) == [stance]


def test_a_turned_down_option_the_session_added_after_all_is_dropped():
    against = _fact("Sobelow", "transcript#L6: Tools: Credo", predicate="core/decided-against",
                    source_type="user-assertion", rule="answers")
    assert reconcile([against], Later(done=[(20, "mix sobelow --config")])) == []
    assert reconcile([against], Later(done=[(20, "mix credo")])) == [against]


def test_the_users_own_words_are_not_overruled_by_what_the_agent_did():
    said = _fact("Never use `print` for logging", "transcript#L3: Never use print for logging",
                 source_type="user-assertion", rule="statements")
    assert reconcile([said], Later(done=[(9, "print('debug')")])) == [said]


# --- the agent's guesses and option lists --------------------------------------------------------

def test_an_agent_note_that_hedges_or_lists_options_is_dropped():
    guess = _fact("the flaky test probably comes from the clock", "transcript#L5: …",
                  predicate="x/decided", source_type="agent-note", rule="summaries")
    option = _fact("Use a sidecar file for the index", "transcript#L7: …",
                   predicate="x/decided", source_type="agent-note", rule="summaries")
    plain = _fact("Used a Result type instead of exceptions", "transcript#L9: …",
                  predicate="x/decided", source_type="agent-note", rule="summaries")
    later = Later(options=[(7, {"1": "Use a sidecar file for the index", "2": "Use both"})],
                  record=BACKED)
    assert reconcile([guess, option, plain], later) == [plain]


def test_options_are_read_from_labelled_lines():
    text = ("Two ways:\n\n**Option 1: Strict decoding** — reject unknown fields\n"
            "- Option 2 - lenient decoding with a warning\n"
            "### Option C\nKeep both behind a flag\n")
    assert options_in(text) == {"1": "Strict decoding — reject unknown fields",
                                "2": "lenient decoding with a warning",
                                "C": "Keep both behind a flag"}
    assert options_in("No choices here.") == {}


def test_a_choice_of_option_in_prose_becomes_what_the_option_says_in_the_project():
    liked = _fact("I like Option 1, it is simpler", "transcript#L12: I like Option 1",
                  predicate="core/prefers", source_type="user-assertion", rule="statements",
                  scope="user", subject="user")
    later = Later(options=[(10, {"1": "Strict decoding", "2": "Lenient decoding"})],
                  project="shop")
    [decided] = reconcile([liked], later)
    assert (decided["subject"], decided["predicate"], decided["object"], decided["scope"]) == (
        "shop", "x/decided", "Strict decoding", "project")
    assert decided["source_type"] == "user-assertion"
    assert decided["evidence"][1].startswith("transcript#L10: ")


def test_a_choice_of_an_option_nobody_offered_is_dropped():
    liked = _fact("I like Option 3", "transcript#L12: I like Option 3", rule="statements",
                  source_type="user-assertion")
    later = Later(options=[(10, {"1": "A", "2": "B"}), (14, {"3": "C", "4": "D"})],
                  project="shop")
    assert reconcile([liked], later) == []


@pytest.mark.parametrize("said", [
    "The export options are read from settings.toml at startup, always",
    "Keep the build choices in one place: the Makefile",
    "The alternatives stay documented in docs/decisions.md",
])
def test_a_plural_of_option_is_no_pick_by_label(said):
    """In "options", "choices", "alternatives" the plural's "s" is no label "S": the user's
    statement is theirs, not a pick among the agent's options."""
    stated = _fact(said, f"transcript#L12: {said}", rule="statements",
                   source_type="user-assertion")
    later = Later(options=[(10, {"1": "Strict decoding", "2": "Lenient decoding"})],
                  project="shop")
    assert reconcile([stated], later) == [stated]


@pytest.mark.parametrize("said, picked", [
    ("Not option 1, option 2.", "Lenient decoding"),
    ("Option B rather than A", "Lenient decoding"),
    ("Not option A, option C please", "Reject and log"),
    ("I'd take option 2 over option 1", "Lenient decoding"),
    ("Option 2, not 1", "Lenient decoding"),
])
def test_a_reply_naming_two_labels_picks_the_one_it_does_not_turn_down(said, picked):
    lettered = {"A": "Strict decoding", "B": "Lenient decoding", "C": "Reject and log"}
    numbered = {"1": "Strict decoding", "2": "Lenient decoding", "3": "Reject and log"}
    options = lettered if "A" in said or "B" in said else numbered
    liked = _fact(said, f"transcript#L12: {said}", source_type="user-assertion",
                  rule="statements")
    [decided] = reconcile([liked], Later(options=[(10, options)], project="shop"))
    assert decided["object"] == picked


@pytest.mark.parametrize("said", [
    "Not option 2.",
    "Option 1 won't work here",
    "Option 2 is better than option 1",
    "Option 1 or 2, whichever is quicker",
    "Option 1, not what I had in mind",
])
def test_a_reply_whose_pick_cannot_be_read_safely_stores_nothing(said):
    liked = _fact(said, f"transcript#L12: {said}", source_type="user-assertion",
                  rule="statements")
    later = Later(options=[(10, {"1": "Strict decoding", "2": "Lenient decoding"})],
                  project="shop")
    assert reconcile([liked], later) == []


def test_the_taught_line_is_read_from_the_first_evidence():
    assert taught_at(_fact("x", "transcript#L42: hi")) == 42
    assert taught_at(_fact("x", "CLAUDE.md: `x`")) is None


# --- through a whole session -------------------------------------------------------------------

DOC_V1 = "# Rules\n\n- Always run `make lint` before committing.\n"
DOC_V2 = "# Rules\n\n- Always run `make check` before committing.\n"


def test_a_doc_the_session_rewrote_keeps_only_its_last_version():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"}, output=DOC_V1)
    session.write(f"{ROOT}/CLAUDE.md", DOC_V2)
    objects = [c["object"] for c in only(session.extract(), "x/convention")]
    assert objects == ["Always run `make check` before committing"]


def test_digest_keeps_what_worked_in_order():
    session = Session()
    session.bash("make lint", error=True, output="boom")
    session.bash("make check", output="ok")
    session.event("assistant", text="Option 1: keep it\nOption 2: drop it\n")
    later = digest(SessionView.of(session.transcript(), None))
    assert [text for _, text in later.done] == ["make check"]
    assert later.options == [(5, {"1": "keep it", "2": "drop it"})]
    assert later.project == "shop"


def test_a_lesson_or_a_written_no_is_not_a_stance_acted_against():
    lesson = _fact("`mix test` failed: no :secret_key_base found; fixed by editing config",
                   "transcript#L4: mix test", predicate="core/failure-mode",
                   source_type="failure-report", rule="lessons")
    against = _fact("custom checks", "transcript#L4: …", predicate="core/decided-against",
                    source_type="user-assertion", rule="answers")
    later = Later(done=[(9, "mix test"), (10, "## Scope\n- No custom checks yet\n")])
    assert reconcile([lesson, against], later) == [lesson, against]


def test_an_agents_note_it_later_took_back_is_dropped():
    claim = _fact("The write cache is flushed after every request", "transcript#L5: …",
                  predicate="x/decided", source_type="agent-note", rule="summaries")
    other = _fact("Used a queue for the exporter", "transcript#L5: …",
                  predicate="x/decided", source_type="agent-note", rule="summaries")
    later = Later(retractions=[(12, "I was wrong: the write cache is not flushed after "
                                    "every request, only on shutdown.")],
                  record=BACKED)
    assert reconcile([claim, other], later) == [other]
    earlier = Later(retractions=[(2, later.retractions[0][1])], record=BACKED)
    assert reconcile([claim], earlier) == [claim]


# --- later words retire an earlier stance on the same named thing -------------------------------

def test_the_users_later_replacement_retires_their_earlier_stance():
    keep = _fact("Keep form `audience` required for the token request",
                 "transcript#L3: Keep form audience required", predicate="x/decided",
                 source_type="user-assertion", rule="statements")
    replaced = Later(user_said=[(9, "replace `audience` with a github_app parameter")])
    assert reconcile([keep], replaced) == []
    earlier = Later(user_said=[(2, "replace `audience` with a github_app parameter")])
    assert reconcile([keep], earlier) == [keep]


def test_the_users_later_i_dont_want_retires_the_agents_praise_of_the_old_design():
    note = _fact("Weekly-salted visitor ids prevent long-term tracking", "transcript#L5: …",
                 predicate="x/decided", source_type="agent-note", rule="summaries")
    refused = Later(user_said=[(9, "i don't want weekly-salted visitor ids, I need real counts")],
                    record=BACKED_IDS)
    assert reconcile([note], refused) == []
    unrelated = Later(user_said=[(9, "i don't want a dark mode")], record=BACKED_IDS)
    assert reconcile([note], unrelated) == [note]
    agreeing = _fact("Do not keep weekly-salted visitor ids", "transcript#L5: …",
                     predicate="x/decided", source_type="agent-note", rule="summaries")
    assert reconcile([agreeing], refused) == [agreeing]  # says no to it already


BACKED_IDS = Record(written={"docs/ids.md": "Weekly-salted visitor ids prevent long-term "
                                             "tracking; Do not keep weekly-salted visitor ids"})


def test_the_user_forgetting_or_ditching_a_named_thing_retires_a_stance_on_it():
    note = _fact("Weekly-salted visitor ids prevent long-term tracking", "transcript#L5: …",
                 predicate="x/decided", source_type="agent-note", rule="summaries")
    for said in ("forget the weekly-salted visitor ids, count plainly",
                 "ditch weekly-salted ids", "no more weekly-salted ids please"):
        assert reconcile([note], Later(user_said=[(9, said)], record=BACKED_IDS)) == [], said
    assert reconcile([note], Later(user_said=[(9, "forget the dark mode")],
                                   record=BACKED_IDS)) == [note]


def test_the_user_asking_not_to_forget_a_named_thing_keeps_a_stance_on_it():
    note = _fact("Weekly-salted visitor ids prevent long-term tracking", "transcript#L5: …",
                 predicate="x/decided", source_type="agent-note", rule="summaries")
    for said in ("don't forget the weekly-salted visitor ids in the export",
                 "do not forget about weekly-salted ids", "never ditch weekly-salted ids",
                 "Don\u2019t forget weekly-salted ids"):
        assert reconcile([note], Later(user_said=[(9, said)], record=BACKED_IDS)) == [note], said


def test_the_agents_report_retires_its_own_note_but_never_the_users_words():
    note = _fact("The form `audience` selects the app", "transcript#L5: …", predicate="x/decided",
                 source_type="agent-note", rule="summaries")
    said = _fact("Keep form `audience` required", "transcript#L3: …", predicate="x/decided",
                 source_type="user-assertion", rule="statements")
    report = Later(agent_said=[(20, "- Replaced the external `audience` input with `github-app`.")])
    assert reconcile([note, said], report) == [said]


def test_a_no_to_a_thing_agrees_with_its_later_removal():
    against = _fact("Do not add `oidc-audience` or any equivalent input", "transcript#L5: …",
                    source_type="agent-note", rule="summaries")
    report = Later(agent_said=[(20, "Removed `oidc-audience` from the action.")], record=BACKED)
    assert reconcile([against], report) == [against]


def test_what_replaced_the_thing_is_not_retired():
    kept = _fact("Send `github-app` as the app selector", "transcript#L5: …",
                 source_type="agent-note", rule="summaries")
    report = Later(agent_said=[(20, "Replaced the external `audience` input with `github-app`.")],
                   record=BACKED)
    assert reconcile([kept], report) == [kept]


def test_an_agent_note_whose_referent_is_elsewhere_is_dropped():
    lost = _fact("Do not use it as an app selector", "transcript#L5: …",
                 source_type="agent-note", rule="summaries")
    whole = _fact("Do not use the audience parameter as an app selector", "transcript#L5: …",
                  source_type="agent-note", rule="summaries")
    assert reconcile([lost, whole], Later(record=BACKED)) == [whole]


def test_a_reported_replacement_names_what_it_retired_not_what_it_asserts():
    from claimgraph.capture.extract.reconcile import asserted_terms

    assert asserted_terms("Replaced the `audience` input with `github-app`") == ["github-app"]


# --- answers that fed a plan the user turned down ------------------------------------------------

def _answer(line: int, obj: str = "Storage: One file per run") -> dict:
    return _fact(obj, f"transcript#L{line}: Where should runs be stored?", predicate="x/decided",
                 source_type="user-assertion", rule="answers")


def test_answers_that_fed_a_plan_the_user_turned_down_are_dropped():
    later = Later(plan_verdicts=[(30, False)], asked=frozenset({10, 11}))
    assert reconcile([_answer(10)], later) == []


def test_answers_stand_when_a_later_plan_was_approved_or_no_plan_followed():
    revised = Later(plan_verdicts=[(30, False), (40, True)], asked=frozenset({10}))
    assert reconcile([_answer(10)], revised) == [_answer(10)]
    plain = Later(plan_verdicts=[(5, False)], asked=frozenset({10}))
    assert reconcile([_answer(10)], plain) == [_answer(10)]


def test_only_answers_to_the_agents_questions_go_with_the_plan():
    """The words typed while turning the plan down, and anything not an answer, stay."""
    feedback = _fact("Use a switch instead of chained ifs", "transcript#L30: …",
                     source_type="user-assertion", rule="answers")
    said = _fact("Never push to main", "transcript#L12: Never push to main",
                 source_type="user-assertion", rule="statements")
    later = Later(plan_verdicts=[(30, False), (35, False)], asked=frozenset({10, 11}))
    assert reconcile([feedback, said], later) == [feedback, said]


def _asked_then_planned(verdict: str) -> tuple[Session, object, object]:
    session = Session()
    ask = session.tool("AskUserQuestion", {"questions": [{
        "question": "Where should runs be stored?", "header": "Storage",
        "options": [{"label": "One file per run"}, {"label": "One database"}]}]},
        output='User has answered your questions: '
               '"Where should runs be stored?"="One file per run".')
    plan = session.tool("ExitPlanMode", {"plan": "# Plan\n- write one file per run"},
                        output=verdict)
    return session, ask, plan


def test_digest_reads_plan_verdicts_and_the_questions_asked():
    refused = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
               "(eg. if it was a file edit, the new_string was NOT written to the file).")
    session, ask, plan = _asked_then_planned(refused)
    later = digest(SessionView.of(session.transcript(), ROOT))
    assert later.plan_verdicts == [(plan.line, False)]
    assert ask.line in later.asked
    assert not [f for f in session.extract() if f["rule"] == "answers"]
    approved, _, _ = _asked_then_planned("User has approved your plan. You can now start coding.")
    approved.write(f"{ROOT}/store.py", "LAYOUT = 'one-file-per-run'\n")  # the pick, acted on
    assert [f["object"] for f in approved.extract() if f["rule"] == "answers"] == [
        'Storage: One file per run (asked "Where should runs be stored?")']


# --- an answer taken back at once; an agent's note the person denies -------------------------

def test_an_answer_the_persons_next_words_take_back_is_dropped():
    corrected = Later(asked=frozenset({10, 11}), user_said=[(14, "actually make it shop-cloud")])
    assert reconcile([_answer(10)], corrected) == []
    for later_words in ("and keep the old name in the README", "Actually fine, go on"):
        kept = Later(asked=frozenset({10}), user_said=[(14, later_words)])
        assert reconcile([_answer(10)], kept) == ([] if later_words.startswith("Actually")
                                                  else [_answer(10)])
    earlier = Later(asked=frozenset({10}), user_said=[(4, "No, not that one"), (14, "thanks")])
    assert reconcile([_answer(10)], earlier) == [_answer(10)]


def test_an_agents_note_resting_on_what_the_person_then_denies_is_dropped():
    note = _fact("Ensure a display is available: headless sessions will fail",
                 "transcript#L20: …", source_type="agent-note", rule="summaries")
    assert reconcile([note], Later(user_said=[(25, "I'm not headless, I run a desktop")],
                                   record=BACKED)) == []
    assert reconcile([note], Later(user_said=[(15, "I'm not headless")], record=BACKED)) == [note]
    fine = Later(user_said=[(25, "the display is fine")], record=BACKED)
    assert reconcile([note], fine) == [note]
    said = _fact("Ensure a display is available: headless sessions will fail",
                 "transcript#L20: …", source_type="user-assertion", rule="statements")
    assert reconcile([said], Later(user_said=[(25, "I'm not headless")])) == [said]


# --- an ask the agent put back to the person as a question -------------------------------------

_ASKED_BACK = ("You asked for the search index and collections to live in app.db itself. The "
               "indexer keeps its own SQLite file. How should I handle this?")


def test_an_ask_put_back_as_a_question_and_answered_gives_way_to_the_answer():
    said = _fact("I'd like the search index and collections stored in app.db, not elsewhere",
                 "transcript#L10: I'd like the search index", predicate="core/prefers",
                 source_type="user-assertion", rule="statements")
    assert reconcile([said], Later(questions=[(20, _ASKED_BACK)])) == []
    # asked before the person said it, or a question that does not restate their ask: kept
    assert reconcile([said], Later(questions=[(5, _ASKED_BACK)])) == [said]
    plain = "Where should the search index and collections live: app.db or a sibling file?"
    assert reconcile([said], Later(questions=[(20, plain)])) == [said]
    # a question restating someone's ask about something else leaves it alone
    other = "You asked for dark mode in the settings page. Which palette should I use?"
    assert reconcile([said], Later(questions=[(20, other)])) == [said]


def test_the_answer_to_an_ask_put_back_stays_and_the_first_wording_goes():
    session = Session()
    session.prompt("We always keep the search index and collections stored in app.db, "
                   "never in a separate file.")
    question = {"questions": [{"question": _ASKED_BACK, "header": "Index location",
                               "options": [{"label": "Sibling file", "description": "own file"},
                                           {"label": "Inside app.db", "description": "risky"}]}]}
    session.tool("AskUserQuestion", question,
                 output=f'User has answered your questions: "{_ASKED_BACK}"="Sibling file". '
                        "You can now continue with the user's answers in mind.")
    session.write(f"{ROOT}/index.py", "PATH = 'index.sqlite'  # a sibling file of app.db\n")
    objects = [str(c["object"]) for c in session.extract()]
    assert any(o.startswith("Index location: Sibling file") for o in objects)
    assert not any("never in a separate file" in o for o in objects)


def test_answered_questions_lists_only_questions_the_person_answered():
    session = Session()
    ask = {"questions": [{"question": "Which database?", "header": "Database",
                          "options": [{"label": "SQLite", "description": "file"},
                                      {"label": "PostgreSQL", "description": "server"}]}]}
    session.tool("AskUserQuestion", ask, output='User has answered your questions: '
                 '"Which database?"="SQLite". You can now continue.')
    session.tool("AskUserQuestion", {"questions": [{**ask["questions"][0],
                                                     "question": "Which cache?"}]},
                 answered=False)
    later = digest(SessionView.of(session.transcript(), ROOT))
    assert [text for _, text in later.questions] == ["Which database?"]


def test_bare_letter_options_count_only_among_their_siblings():
    laid_out = ("The decision needs you:\n\n- **A — Keep 17:** follows upstream.\n"
                "- **B — Pin 21:** drops the old image.\n\nI'd lean **B**.")
    assert options_in(laid_out) == {"A": "Keep 17: follows upstream",
                                    "B": "Pin 21: drops the old image"}
    assert options_in("- **A:** the only one") == {}
    assert options_in("- **B:** a second without a first\n- **C:** and a third") == {}
    note = _fact("B — Pin 21: drops the old image", "transcript#L7: B — Pin 21",
                 predicate="x/decided", source_type="agent-note", rule="summaries")
    assert reconcile([note], Later(options=[(7, options_in(laid_out))])) == []
