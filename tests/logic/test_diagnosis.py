"""A diagnosis is a settled cause about the world in one clean sentence: not a guess, a
plan, a status line, the speaker's report or a list's lead-in."""

from __future__ import annotations

import pytest

from claimgraph.logic.diagnosis import clean, is_diagnosis


@pytest.mark.parametrize("sentence", [
    "The build image lacks `libfoo`, so the loader fails on import.",
    "Root cause: `app.main` imports the dialog at module import.",
    "The `pack` command doesn't accept the `--resource` flag.",
    "The problem is that the cache directory is not shared between the workers.",
    "The tool only supports relative paths in its manifest.",
    "The fixture fails because both specs reuse the same order ids.",
    "Cause: the subcommands were registered twice in `cli/main.py`.",  # a report's label
    "The remaining failures stemmed from a duplicate subcommand registration.",
])
def test_settled_causes_are_diagnoses(sentence):
    assert is_diagnosis(sentence)


@pytest.mark.parametrize("sentence", [
    "It might be because the cache directory is not shared.",        # hedged
    "The cache is probably stale because the key ignores the lockfile.",
    "Is it because the cache directory is not shared?",              # a question
    "I'll fix the loader because the image lacks `libfoo`.",          # the speaker's plan
    "You can't run the tests without the database container.",       # advice to the person
    "The tests are skipped because they require:",                   # a list's lead-in
    "| cache | not shared because of the key |",                     # table debris
    "The run still fails because the cache directory is not shared.",  # a status line
    "If the key ignores the lockfile, the cache cannot be reused.",   # a condition
    "The tests pass now after the change to the loader.",            # no cause at all
    "Root cause found.",                                             # a label, no cause
    "Cause: I forgot to register the subcommand.",                   # the speaker's report
    "Fix: removed the duplicate block from the CLI module.",          # the fix, not the cause
])
def test_guesses_plans_and_debris_are_not(sentence):
    assert not is_diagnosis(sentence)


def test_clean_drops_emphasis_markers_and_the_label():
    assert clean("- **Root cause:** the key ignores the lockfile.") == \
        "The key ignores the lockfile."
    assert clean("The problem is that `tool` lacks `--flag`.") == "`tool` lacks `--flag`."


def test_clean_keeps_a_names_own_underscores_and_drops_underscore_emphasis():
    assert clean("Cause: `opk/cli/__main__.py` registers the subcommands twice.") == \
        "`opk/cli/__main__.py` registers the subcommands twice."
    assert clean("__Root cause:__ the `__init__` module imports Qt.") == \
        "The `__init__` module imports Qt."


def test_a_problem_said_as_a_label_is_a_diagnosis():
    from claimgraph.logic.diagnosis import clean, is_diagnosis
    sentence = "The problem: the cache key leaves out the locale of the page."
    assert is_diagnosis(sentence)
    assert clean(sentence) == "The cache key leaves out the locale of the page."
    assert not is_diagnosis("Problem: it might be the cache key of the page.")
