"""The form of a check that works: proved by a failure and a pass with nothing changed between."""

from __future__ import annotations

from claimgraph.logic.working_form import FAILED, PASSED, UNKNOWN, Run, working_form

PLAIN = ("python3", "-m", "unittest")


def run(line, outcome, settings=(), words=PLAIN, changed=False):
    return Run(line, outcome, tuple(settings), tuple(words), changed)


def test_a_setting_added_between_a_failure_and_a_pass_is_the_working_form():
    found = working_form([run(1, FAILED), run(2, PASSED, ["PYTHONPATH=src"]),
                          run(9, PASSED, ["PYTHONPATH=src"])])
    assert found is not None
    assert (found.learned, found.failed_line, found.passed_line) == (("PYTHONPATH=src",), 1, 2)
    assert found.run.line == 9  # the end state's run is the one told


def test_settings_and_words_learned_at_different_times_are_told_together():
    wider = (*PLAIN, "discover", "-s", "tests")
    found = working_form([
        run(1, FAILED), run(2, PASSED, ["A=1"]),
        run(3, FAILED, ["A=1"], changed=True), run(4, PASSED, ["A=1"], wider)],
        proves=lambda word: word != "-s")
    assert found is not None
    assert found.learned == ("A=1", "discover", "tests")
    assert (found.run.settings, found.run.significant) == (("A=1",), wider)


def test_a_change_between_the_failure_and_the_pass_proves_nothing():
    assert working_form([run(1, FAILED), run(2, PASSED, ["A=1"], changed=True)]) is None


def test_the_same_command_passing_again_proves_no_setting():
    assert working_form([run(1, FAILED), run(2, PASSED), run(3, PASSED)]) is None


def test_a_gain_that_may_not_prove_anything_is_not_a_working_form():
    verbose = (*PLAIN, "-v")
    assert working_form([run(1, FAILED), run(2, PASSED, words=verbose)],
                        proves=lambda word: word != "-v") is None


def test_the_session_ending_with_the_check_failing_stores_nothing():
    assert working_form([run(1, FAILED), run(2, PASSED, ["A=1"]),
                         run(3, FAILED, ["A=1"], changed=True)]) is None


def test_a_setting_the_end_state_dropped_was_not_what_made_it_pass():
    assert working_form([run(1, FAILED), run(2, PASSED, ["A=1"]),
                         run(3, PASSED, changed=True)]) is None


def test_runs_whose_outcome_is_unknown_neither_prove_nor_end_the_session():
    found = working_form([run(1, FAILED), run(2, PASSED, ["A=1"]), run(3, UNKNOWN)])
    assert found is not None and found.run.line == 2
    assert working_form([run(1, FAILED), run(2, UNKNOWN, ["A=1"]),
                         run(3, PASSED, ["A=1"])]) is None


def test_a_failure_after_a_failure_proves_nothing():
    assert working_form([run(1, FAILED), run(2, FAILED, ["A=1"])]) is None
