"""A check whose plain form failed and whose form with a setting passed is told as it worked."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.shell import invocations
from claimgraph.capture.extract.working_forms import settings_of, significant

from .extract_helpers import Session, facts, only

PROJECT = "shop"
MISSING = "ModuleNotFoundError: No module named 'shop'"


def test_the_form_that_passed_replaces_the_plain_form_seen_to_fail():
    session = Session()
    session.bash("python3 -m unittest", error=True, output=MISSING)
    session.bash("ls src")
    session.bash("PYTHONPATH=src python3 -m unittest tests.test_cart", output="OK")
    session.edit("/repo/src/shop/cart.py", "a", "b")
    session.bash("PYTHONPATH=src python3 -m unittest discover -s tests", output="OK")
    found = [fact for fact in session.extract() if fact["predicate"] == "core/tested-by"]
    assert facts(found) == {
        (PROJECT, "core/tested-by", "PYTHONPATH=src python3 -m unittest discover -s tests")}
    [fact] = found
    assert fact["evidence"][1] == "transcript#L1: python3 -m unittest"


def test_an_edit_between_the_failure_and_the_pass_keeps_the_plain_form():
    session = Session()
    session.bash("python3 -m unittest", error=True, output=MISSING)
    session.edit("/repo/src/shop/cart.py", "a", "b")
    session.bash("PYTHONPATH=src python3 -m unittest", output="OK")
    assert _checks(session) == {(PROJECT, "core/tested-by", "python3 -m unittest")}


def test_a_command_that_changes_things_between_them_proves_nothing_either():
    session = Session()
    session.bash("pytest", error=True, output=MISSING)
    session.bash("pip install -e .")
    session.bash("PYTHONPATH=src pytest")
    # no working form; and the plain one, which no run was seen passing, is left to the
    # lesson that shows it failing (workflow.one_fact_per_command)
    assert _checks(session) == set()
    assert only(session.extract(), "core/failure-mode")


def test_a_narrower_run_passing_after_a_failure_is_no_working_form():
    session = Session()
    session.bash("pytest", error=True, output="1 failed")
    session.bash("pytest tests/test_cart.py -k total -v", output="1 passed")
    assert _checks(session) == {(PROJECT, "core/tested-by", "pytest")}


def test_a_session_ending_with_the_plain_form_passing_keeps_it():
    session = Session()
    session.bash("pytest", error=True, output=MISSING)
    session.bash("PYTHONPATH=src pytest")
    session.edit("/repo/src/shop/cart.py", "a", "b")
    session.bash("pytest")
    assert _checks(session) == {(PROJECT, "core/tested-by", "pytest")}


def _checks(session: Session) -> set[tuple[str, str, str]]:
    return {fact for fact in facts(session.extract()) if fact[1] == "core/tested-by"}


@pytest.mark.parametrize(("command", "words"), [
    ("python3 -m unittest discover -s tests -v", ("python3", "-m", "unittest", "discover",
                                                  "-s", "tests")),
    ("pytest tests/test_cart.py -k total -q", ("pytest",)),
    ("python3 -m unittest tests.test_cart", ("python3", "-m", "unittest")),
    ("go test ./... -run TestParse", ("go", "test")),
])
def test_significant_words_leave_out_targets_filters_and_reporting(command, words):
    [run] = invocations(command)
    assert significant(run.argv) == words


def test_settings_are_read_from_the_line_as_typed():
    line = "cd app && GOCACHE=/tmp/cache GOFLAGS=-mod=mod go test ./..."
    run = invocations(line)[-1]
    assert settings_of(line, run) == ("GOCACHE=/tmp/cache", "GOFLAGS=-mod=mod")



def test_a_message_of_the_person_between_them_may_have_been_the_fix():
    session = Session()
    session.bash("pytest", error=True, output=MISSING)
    session.prompt("I installed the package in the venv, try again")
    session.bash("PYTHONPATH=src pytest")
    assert _checks(session) == {(PROJECT, "core/tested-by", "pytest")}


def test_a_tool_whose_effect_is_unknown_between_them_proves_nothing():
    session = Session()
    session.bash("pytest", error=True, output=MISSING)
    session.tool("Task", {"prompt": "set up the environment"})
    session.bash("PYTHONPATH=src pytest")
    assert _checks(session) == set()  # as above: no working form, the plain one the lesson's


def test_without_a_change_the_same_two_runs_give_the_working_form():
    session = Session()
    session.bash("pytest", error=True, output=MISSING)
    session.bash("PYTHONPATH=src pytest")
    assert _checks(session) == {(PROJECT, "core/tested-by", "PYTHONPATH=src pytest")}


@pytest.mark.parametrize(("command", "looks_only"), [
    ("ls src", True), ("cd app", True), ("git status", True), ("cat setup.cfg", True),
    ("pip install -e .", False), ("export PYTHONPATH=src", False), ("rm -rf build", False),
])
def test_what_counts_as_only_looking_between_two_runs(command, looks_only):
    from claimgraph.capture.extract.shell import looks
    [run] = invocations(command)
    assert looks(run.argv) is looks_only
