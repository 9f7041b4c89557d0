"""The one-off screens of ``standing`` leave a user's standing rule standing: a gate on going
on that "never" makes a rule, stopping a thing (not the agent's work) until something, and a
class of things ("these kinds of errors") rather than the passing things of the task."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.standing import task_scoped


@pytest.mark.parametrize("sentence", [
    "Never proceed until the tests pass.",
    "Never move on to the next module until the linter is clean",
    "never continue until the migration has been reviewed",
    "Never stop the dev server until the e2e suite has finished",
    "Do not stop the database container until the migrations have finished",
    "Don't pause the queue workers until the backlog is empty",
    "Continue using the legacy client until the new SDK supports streaming",
    "Log these kinds of errors at warning level, not error",
    "Treat these types of warnings as errors in CI",
    "Handle those sorts of failures with a retry",
])
def test_a_standing_rule_is_not_screened_as_the_task_in_hand(sentence):
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Don't stop until every test passes.",
    "Never give up until the parser handles all the fixtures",
    "Do not stop working until the importer reads both formats",
    "Keep these changes out of the public API",
])
def test_the_task_bounded_shapes_are_still_screened(sentence):
    assert task_scoped(sentence) is not None


@pytest.mark.parametrize("sentence", [
    "The deploy script should loop until the health check passes",
    "The worker must not stop until the queue is empty",
    "The poller will loop until the job reports done",
])
def test_a_rule_of_what_a_program_does_stands(sentence):
    """A program's behaviour ("the worker must not stop until …") is not the agent going on."""
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "You should keep going until the whole suite passes",
    "we must not stop until the importer reads both formats",
])
def test_the_agent_told_to_go_on_is_still_bounded(sentence):
    assert task_scoped(sentence) == "lasts until the task in hand is done"
