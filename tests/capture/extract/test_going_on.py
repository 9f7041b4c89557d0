"""One reader for "how shall I go on?": a question whose subject is the agent's next step, a
go-ahead or the order of work is about today's task, whatever its options say."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.standing import process_question

from .extract_helpers import Session


@pytest.mark.parametrize("question", [
    "How would you like to proceed?",
    "How do you want me to continue?",
    "How should we go on from here?",
    "Shall I continue?",
    "Should I go ahead with the migration?",
    "Can we move on to the importer?",
    "Ready to proceed?",
    "Proceed with the remaining files?",
    "Want me to commit these changes?",
    "Do you want me to add tests for the parser?",
    "Would you like me to open a pull request?",
    "Shall I write the changelog entry?",
    "Which should I tackle first?",
    "Which of the three fixes do you want me to do first?",
    "In what order should I update the services?",
    "What would you like me to do next?",
    "**Want me to push?**",
    "1. Should I continue with the rest?",
])
def test_a_question_about_going_on_is_read(question):
    assert process_question(question)


@pytest.mark.parametrize("question", [
    "Which database should we use?",
    "Where should the details panel appear?",
    "Should the cache start empty?",
    "Want me to use Redis or SQLite for the queue?",  # alternatives: the options decide
    "Want me to patch the build tool for option 1?",  # one of the options, up for choosing
    "Shall I wire up the second approach?",
    "Which approach do you want me to implement?",
    "Which option should I proceed with?",  # a choice among things, not whether to go on
    "Should we stop using the legacy loader?",  # about the loader, not about going on
    "Would you like the plan to be markdown?",
])
def test_a_question_about_a_thing_is_not(question):
    assert not process_question(question)


def test_only_the_questions_of_a_message_are_read():
    """A message's prose may say "proceed with" or "next step"; only what it asks counts."""
    message = ("I will proceed with the cleanup once this is settled.\n\n"
               "Which queue backend should the workers use?")
    assert not process_question(message)
    assert process_question("Two ways are open. Want me to start on the first one?")
    assert process_question("The next steps are to run the tests")  # no question: each sentence
    # the words of one pattern are never gathered from two sentences
    assert not process_question("What is left is small, and should we want more it can "
                                "wait. The next release is open")


def _picks(question: str) -> list[dict]:
    session = Session()
    session.event("assistant", text=(
        "- **Stateless workers**: every request carries its own state\n"
        "- **Sticky sessions**: the balancer pins a client to one worker\n\n" + question))
    session.prompt("Let's go with stateless workers")
    return [c for c in session.extract() if c["rule"] == "picks"]


def test_a_pick_after_a_question_about_going_on_is_not_stored():
    """picks, answers and approvals share the one reader: after "how do you want to proceed?"
    the user's pick is a choice for today; after "which do you prefer?" it may stand."""
    assert _picks("Which do you prefer for the workers?")
    for question in ("How do you want to proceed?", "Which should I do first?",
                     "Want me to start on the workers?"):
        assert not _picks(question), question
