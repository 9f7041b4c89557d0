"""Orders that only steer the day, and the user's words that cannot be read alone
(logic/for_the_day.py): each test names a structure, and the same surface with the structure
missing is left to the other checks."""

from __future__ import annotations

import pytest

from claimgraph.logic.for_the_day import (
    ORDER, PICK, REPLY, UNNAMED, VAGUE, WISH_FOR_IT, about_the_reply, bare_pick,
    cannot_be_read_alone, no_thing_named, order_of_work, steers_the_day, unnamed_thing,
    wish_for_it)


@pytest.mark.parametrize("sentence", [
    "Do not reply with code, just explain the plan",
    "just explain the tradeoffs, no code",
    "please summarize what you changed",
    "Don't add markdown or explanation",
    "do not include a summary",
    "can you walk me through the migration plan",
    "tell me which of these files are still used",
])
def test_an_order_about_the_reply_steers_the_day(sentence):
    assert about_the_reply(sentence) == REPLY
    assert steers_the_day(sentence) == REPLY


@pytest.mark.parametrize("sentence", [
    "Don't use mocks, just use real SQLite files",  # a way of working: no verb of replying
    "Never reply with code blocks",  # a standing way to answer
    "Always explain each migration in the PR description",
    "explain `retry_budget` in the module docstring",  # names a thing of the project
    "I'm on fish shell, so give me commands that work there",  # about the person first
    "dont tell me what to do, do it yourself without asking",  # not handing work back
    "The CLI should show me the diff before it writes",  # what the product shows
    "Do not add markdown files to the root folder",  # markdown files, not the reply's markup
])
def test_a_rule_with_a_reply_like_surface_is_not_an_order_about_the_reply(sentence):
    assert about_the_reply(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Before we merge, run the full test suite",
    "commit the current state before we continue",
    "when you're done, update the changelog",
    "I would like to merge and publish, and then move on to the exporter",
    "let's fix the parser first and then review the docs",
    "after I push the branch, open the PR against develop",
])
def test_a_step_of_todays_order_of_work_steers_the_day(sentence):
    assert order_of_work(sentence) == ORDER


@pytest.mark.parametrize("sentence", [
    "Before merging, run the full test suite",  # a kind of event: a rule for it
    "Always run the linter before we push",  # a word of lasting time
    "after each release, bump the minor version",
    "When we're ready to deploy to production, we'll use a better model",
    "after we release 2.0, drop support for Python 3.8",  # a milestone of the project
    "keep the legacy importer until we migrate the last customer",
    "We'll keep the legacy importer until the last customer migrates, then delete it",
    "I like to see your plan at a high level first before we implement it",  # a habit
    "first write the temp files, then run the commands",  # a procedure, no "we" or "I"
])
def test_a_procedure_for_a_kind_of_event_is_not_a_step_of_today(sentence):
    assert order_of_work(sentence) is None


@pytest.mark.parametrize("sentence", [
    "use your suggested approach",
    "go with what you recommended",
    "ok, the latter",
    "Yeah, let's do proposal 2",
    "sounds good, your recommendation it is",
])
def test_a_pick_whose_options_are_elsewhere_cannot_be_read_alone(sentence):
    assert bare_pick(sentence) == PICK
    assert cannot_be_read_alone(sentence) == PICK


@pytest.mark.parametrize("sentence", [
    "Use your suggested approach, those that require proprietary licensing we must omit",
    "go with your recommendation but keep the cache in SQLite",
    "Let's go with Postgres",
    "the first release must support Windows",
    # read by ``reconcile``, which rewrites them to the option's text
    "Let's go with option 3",
    "ok, the second one",
])
def test_a_pick_that_says_more_or_that_reconcile_reads_is_left_alone(sentence):
    assert bare_pick(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Do not rename the function",
    "please don't touch the file.",
    "don't change the existing test",
])
def test_an_order_about_one_thing_pointed_at_cannot_be_read_alone(sentence):
    assert unnamed_thing(sentence) == UNNAMED


@pytest.mark.parametrize("sentence", [
    "Do not rename the public functions",  # a kind, not one thing
    "Do not touch the generated files",
    "Do not rename the function `load_config`",  # named
    "never edit the migration files by hand",
    "Do not rename the function without updating its callers",  # says when
])
def test_an_order_about_a_kind_or_a_named_thing_is_left_alone(sentence):
    assert unnamed_thing(sentence) is None


@pytest.mark.parametrize("sentence", [
    "I want everything to be clean, simple and easy to maintain",
    "we should keep the code clean and readable",
    "make it better and more robust",
])
def test_an_aspiration_that_names_nothing_is_vague(sentence):
    assert no_thing_named(sentence) == VAGUE


@pytest.mark.parametrize("sentence", [
    "keep the parser simple and readable",  # names a thing of the project
    "The CLI should be usable without a network connection",
    "Keep functions under 50 lines",
    "clean code",  # too short to say
])
def test_an_aspiration_about_a_named_thing_is_not_vague(sentence):
    assert no_thing_named(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Don't add comments, the code should say it",  # the code's comments, not the reply's
    "don't use emojis",  # in commits and code as much as in the reply
    "Explain the reasoning in each commit message",  # a text the project keeps
    "describe every schema change in the PR description",
    "summarize the breaking changes in the changelog",
])
def test_an_order_about_what_the_project_keeps_is_not_about_the_reply(sentence):
    assert about_the_reply(sentence) is None


@pytest.mark.parametrize("sentence", ["Respond in Spanish", "please reply to me in English only"])
def test_the_language_of_every_answer_is_how_the_person_wants_to_be_answered(sentence):
    assert about_the_reply(sentence) is None


@pytest.mark.parametrize("sentence", [
    "explain the error message",  # what the reply is about, not where words go
    "explain in plain English what this function does",  # one thing explained
    "please summarize what you changed in this session",
])
def test_a_reply_order_about_a_project_text_still_steers_the_day(sentence):
    assert about_the_reply(sentence) == REPLY


@pytest.mark.parametrize("sentence", [
    "Explain your reasoning before making changes",
    "Tell me before you run any migration",
    "summarize what changed after each deploy",
])
def test_a_reply_order_for_a_kind_of_event_is_a_way_of_working(sentence):
    assert about_the_reply(sentence) is None


@pytest.mark.parametrize("sentence", [
    "I want it across all projects",
    "we need that to run on every push",
    "so I'd like them shorter",
    "ok I really want this to be faster",
])
def test_a_wish_for_what_it_only_points_at_cannot_be_read_alone(sentence):
    assert wish_for_it(sentence) == WISH_FOR_IT
    assert cannot_be_read_alone(sentence) == WISH_FOR_IT


@pytest.mark.parametrize("sentence", [
    "I want this to use Postgres",  # a name says what is wished for
    "we need it in `src/cli`",  # a thing of the project named
    "I need them cached for 5 minutes",  # a figure a later session can check
    "I want it is clear that we never log tokens",  # no wish for "it": a statement
    "we want the exporter to run nightly",  # the object is named
    "It should always run on every push",  # not a wish of the person's
    "I'd like those services to stay small and easy to run",  # "those" is a determiner
])
def test_a_wish_that_names_its_object_is_left_to_the_other_checks(sentence):
    assert wish_for_it(sentence) is None
