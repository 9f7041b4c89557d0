"""Every place a person types reaches the sentence reader, tagged with where it was typed,
and a template's or a harness's words never do (docs/capture.md, "The sources it reads")."""

from __future__ import annotations

import json

from claimgraph.capture.classify import tally
from claimgraph.capture.extract.asked import answers, parse_notes
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.statements import not_generated, typed_in, user_texts

from .extract_helpers import Session

#: A saved prompt as a harness puts it into the message unexpanded: its headings, its
#: behaviour rules, its slot left as written, then the line the person typed.
SAVED_PROMPT = """# Update the reports and apply the change

## Behavior
 - Propose changes based only on the request and the project's sources.
 - Do not make unrelated edits.
 - Keep the original language of documents.

## Steps
1. Read the reports folder.
2. Propose the edits.
3. Wait for approval.
4. Apply the approved edits.

<h2 id="the-request">User's Request</h2>

$ARGUMENTS
{typed}"""


def _typed(text: str, agent: str = "codex") -> list[str]:
    session = Session(agent=agent)
    session.prompt(text)
    return [typed for _, typed in user_texts(SessionView.of(session.transcript(), None))]


def test_the_line_typed_after_a_saved_prompts_unfilled_slot_is_the_persons():
    said = "Invoices are always rounded to whole cents."
    assert _typed(SAVED_PROMPT.format(typed=said)) == [said]


def test_a_saved_prompt_with_nothing_typed_after_its_slot_says_nothing():
    assert _typed(SAVED_PROMPT.format(typed="")) == []
    assert not_generated(SAVED_PROMPT.format(typed="")) == ""


def test_a_template_going_on_after_its_unfilled_slot_is_not_read_as_typed():
    """After the slot comes more of the template (a heading, a fence, a list of steps): none
    of it is the person's."""
    for rest in ("## Outline\nAlways write the summary first.",
                 "```\nYou MUST consider the user input before proceeding.",
                 "Then:\n1. Always read the spec.\n2. Never skip a step.\n3. Report."):
        assert _typed(SAVED_PROMPT.format(typed=rest)) == [], rest


def test_the_line_typed_after_a_fenced_unfilled_slot_is_the_persons():
    fenced = SAVED_PROMPT.replace("$ARGUMENTS\n{typed}", "```text\n$ARGUMENTS\n```\n{typed}")
    said = "Reports never include personal data."
    assert _typed(fenced.format(typed=said)) == [said]
    assert _typed(fenced.format(typed="")) == []


def test_an_unfilled_slot_inside_a_fenced_slot_still_reads_as_empty():
    text = ("---\ndescription: Write the spec\n---\n\n## User Input\n\n```text\n$ARGUMENTS\n```"
            "\n\nYou **MUST** consider the user input before proceeding.\n")
    assert _typed(text) == []


def test_a_placeholder_without_a_template_before_it_changes_nothing():
    """No heading or front matter before it: a person quoting a placeholder in a message."""
    text = "The command file should end with\n$ARGUMENTS\nand nothing else after it."
    assert not_generated(text) == text


def test_a_filled_slot_under_an_html_heading_is_the_persons():
    filled = SAVED_PROMPT.replace("$ARGUMENTS\n{typed}", "Reports are always written in UTF-8.")
    assert _typed(filled) == ["Reports are always written in UTF-8."]


def test_a_users_request_heading_followed_by_more_headings_is_a_document_not_a_slot():
    text = ("## User request\nAs an editor I want drafts saved.\n\n## Design\n"
            "Drafts live in the drafts table.\n")
    assert not_generated(text) == text


def test_a_sentence_typed_after_a_template_is_classified_and_tagged_where_it_was_typed():
    session = Session(agent="codex")
    session.prompt(SAVED_PROMPT.format(typed="Never commit generated files to the repository."))
    with tally.collecting() as heard:
        session.extract()
    read = {entry["sentence"].rstrip("."): entry for entry in heard}
    assert set(read) == {"Never commit generated files to the repository"}  # no rule of
    entry = read["Never commit generated files to the repository"]  # the template's is read
    assert entry["typed_in"] == "the slot of a prompt template"
    assert entry["kept"]  # the same model and threshold as any typed sentence


# Claude Code's AskUserQuestion: newer versions add the person's notes after an answer.
QUESTIONS = {"questions": [
    {"question": "Which store should sessions use?", "header": "Store",
     "options": [{"label": "SQLite", "description": "One file"},
                 {"label": "Postgres", "description": "A server"}]},
    {"question": "Which platforms must work?", "header": "Platforms",
     "options": [{"label": "Linux only", "description": "One CI job"},
                 {"label": "Linux and macOS", "description": "Two CI jobs"}]},
]}
CLOSING = " You can now continue with the user's answers in mind."


def _asked(output: str) -> Session:
    session = Session()
    session.prompt("Set up session storage.")
    session.tool("AskUserQuestion", QUESTIONS, output=output)
    return session


def test_a_note_added_to_a_picked_option_is_the_persons_words():
    output = ('User has answered your questions: "Which store should sessions use?"="SQLite" '
              'user notes: keep every write in one transaction, "Which platforms must work?"='
              '"Linux only".' + CLOSING)
    session = _asked(output)
    found = {a.question["header"]: (a.picked, a.typed)
             for a in answers(session.events[-2], session.events[-1])}
    assert found == {"Store": ("SQLite", "keep every write in one transaction"),
                     "Platforms": ("Linux only", "")}
    view = SessionView.of(session.transcript(), None)
    assert [text for _, text in user_texts(view)] == [
        "Set up session storage.", "keep every write in one transaction"]


def test_a_note_that_repeats_a_typed_answer_is_read_once_and_tagged_as_an_answer():
    output = ('User has answered your questions: "Which store should sessions use?"='
              '"Always use SQLite for local state" user notes: Always use SQLite for local '
              'state.' + CLOSING)
    session = _asked(output)
    view = SessionView.of(session.transcript(), None)
    typed = [(event, text) for event, text in user_texts(view) if event.kind == "tool_result"]
    assert [text for _, text in typed] == ["Always use SQLite for local state"]
    assert typed_in(view, typed[0][0]) == "an answer to the agent's question"


def test_a_preview_shown_with_the_pick_is_the_agents_not_a_typed_answer():
    output = ('User has answered your questions: "Which store should sessions use?"="SQLite" '
              'selected markdown:\n```sql\ncreate table s (id int);\n```.' + CLOSING)
    session = _asked(output)
    [answer] = answers(session.events[-2], session.events[-1])
    assert (answer.picked, answer.typed) == ("SQLite", "")
    view = SessionView.of(session.transcript(), None)
    assert [text for _, text in user_texts(view)] == ["Set up session storage."]


def test_notes_stop_at_the_harness_closing_sentence_whatever_it_says():
    output = ('The user answered: "Which platforms must work?"="Linux only" user notes: no '
              'macOS runners, ever. Read the answers carefully and follow what they say.')
    assert parse_notes(output) == {"Which platforms must work?": "no macOS runners, ever"}
    assert parse_notes('"Which platforms must work?"="Linux only".' + CLOSING) == {}


# Gemini's ask_user: {"answers": {"<index>": "<label or typed words>"}}.
GEMINI_QUESTIONS = {"questions": [
    {"question": "Which store should sessions use?", "header": "Store", "type": "choice",
     "options": [{"label": "SQLite", "description": "One file"},
                 {"label": "Postgres", "description": "A server"}]},
    {"question": "Anything else about storage?", "header": "Notes", "type": "text"},
    {"question": "Run the migration now?", "header": "Migrate", "type": "yesno"},
]}


def test_gemini_ask_user_answers_are_picks_and_typed_words_by_index():
    session = Session(agent="gemini")
    call = session.tool("ask_user", GEMINI_QUESTIONS, output=json.dumps({"answers": {
        "0": "SQLite", "1": "Never store secrets in the session table.", "2": "Yes"}}))
    found = [(a.question["header"], a.picked, a.typed) for a in answers(call, session.events[-1])]
    assert found == [("Store", "SQLite", ""),
                     ("Notes", "", "Never store secrets in the session table."),
                     ("Migrate", "Yes", "")]
    view = SessionView.of(session.transcript(), None)
    assert [text for _, text in user_texts(view)] == ["Never store secrets in the session table."]


def test_a_gemini_answer_typed_instead_of_an_option_is_the_persons():
    session = Session(agent="gemini")
    call = session.tool("ask_user", GEMINI_QUESTIONS,
                        output=json.dumps({"answers": {"0": "a flat file per day"}}))
    [answer] = answers(call, session.events[-1])
    assert (answer.picked, answer.typed) == ("", "a flat file per day")


def test_a_dismissed_gemini_question_says_nothing():
    session = Session(agent="gemini")
    session.tool("ask_user", GEMINI_QUESTIONS,
                 output="User dismissed ask_user dialog without answering.")
    assert list(user_texts(SessionView.of(session.transcript(), None))) == []


def test_words_typed_while_turning_a_call_down_are_tagged_as_such():
    session = Session()
    session.tool("Bash", {"command": "rm -rf build"}, error=True, output=(
        "The user doesn't want to proceed with this tool use. The tool use was rejected. To "
        "tell you how to proceed, the user said:\nnever delete the build cache by hand"))
    view = SessionView.of(session.transcript(), None)
    [(event, text)] = user_texts(view)
    assert text == "never delete the build cache by hand"
    assert typed_in(view, event) == "while turning a call down"


def test_words_typed_before_a_template_with_nothing_after_its_slot_stay_the_persons():
    text = ("Generated files are never committed.\n\n"
            + SAVED_PROMPT.replace("<h2 id=\"the-request\">User's Request</h2>\n\n", "")
            .format(typed=""))
    assert [typed.strip() for typed in _typed(text)] == ["Generated files are never committed."]
