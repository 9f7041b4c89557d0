"""Which typed requests ask for a change to the project, and how a carried-out one is marked
(logic.requested)."""

from __future__ import annotations

import pytest

from claimgraph.capture.classify.features import cue_names
from claimgraph.logic.requested import (
    ASKED_DONE, LASTING, ONCE, asked_and_done, asks_for_a_change, done_once, left_to_the_agent,
    mark, one_act, specifies_behaviour)
from claimgraph.logic import requested
from claimgraph.logic.trust_tiers import tier


def _asks(sentence: str) -> bool:
    return asks_for_a_change(sentence, cue_names(sentence))


@pytest.mark.parametrize("sentence", [
    "create a sample workspace by default when running `init` (with a flag to skip)",
    "can we change this flag to only turn on when the env var is set?",
    "I want to update the spec to remove the queue split and just have one queue",
    "the export command should write one file per table",
    "add a validate command that scans every hook in the config",
])
def test_a_request_for_a_change_to_the_project(sentence):
    assert _asks(sentence)


@pytest.mark.parametrize("sentence", [
    "run the integration tests every time before you push",   # running something
    "commit and push all the changes",                         # a git operation
    "review the docs and make sure they are consistent",       # reviewing
    "can you explain why the cache is only filled on startup?",  # explaining
    "fix the failing import in the parser module",             # a one-off fix
    "wire this into the tree view and the extension",          # points at the thing in hand
    "is there a way to make the build faster?",                # a question, not an ask
    "The should be derived from the commit of the session",    # words were lost
    "align it with https://example.org/spec when you can",     # a pasted address
    "add it",                                                  # too short
])
def test_not_a_request_for_a_change(sentence):
    assert not _asks(sentence)


def test_behaviour_from_now_on_against_one_step():
    assert specifies_behaviour("re-run the embed step on every ingest")
    assert specifies_behaviour("fold progress messages by default")
    assert not specifies_behaviour("add a status bar to the bottom of the window")


def _fact(*evidence: str) -> dict:
    return {"source_type": "user-assertion", "evidence": list(evidence)}


def test_the_mark_a_carried_out_request_carries_names_its_tier():
    lasting = _fact("transcript#L3: fold them by default", "transcript#L5: asked and done: a.ts")
    once = _fact("transcript#L3: rename it", "transcript#L5: asked and done once: a.ts")
    said = _fact("transcript#L3: we use uv")
    assert (mark(lasting), mark(once), mark(said)) == (LASTING, ONCE, None)
    assert asked_and_done(lasting) and not done_once(lasting) and done_once(once)
    assert tier(lasting) == tier(once) == ASKED_DONE
    assert tier(said) == "you said"
    # the agent's words never read as the user's ask, whatever their evidence says
    assert tier({**lasting, "source_type": "agent-note"}) == "agent's note"


@pytest.mark.parametrize("sentence", [
    "add tooltips to all form fields and a help page that covers every flag",
    "add a command that scans every hook in the file and reports unresolved names",
    "make the settings panel read-only",
    "add any missing icons to the toolbar",
])
def test_a_quantifier_over_the_things_one_step_touches_is_no_behaviour(sentence):
    """"all", "every", "each", "any" naming what one act touches, and "only" inside a
    hyphenated word, are no rule for later work."""
    assert not specifies_behaviour(sentence)


@pytest.mark.parametrize("sentence", [
    "refresh the index each time the folder changes",
    "run the linter after every edit",
    "show only the last ten entries",
    "open the last project, not a new one every time",
])
def test_a_quantifier_over_time_or_events_is_behaviour(sentence):
    assert specifies_behaviour(sentence)


@pytest.mark.parametrize("sentence", [
    "each field should get an appropriate input type",
    "make changes in the parser if needed",
    "maybe the export should also write a header row",
    "it may be that the cache should expire after a day",
    "give the command a suitable name",
])
def test_a_request_the_user_hedged_or_left_to_the_agent(sentence):
    assert left_to_the_agent(sentence)


@pytest.mark.parametrize("sentence", [
    "the export command should write one file per table",
    "create a sample workspace by default when running `init`",
    "the list may be empty, handle that",
])
def test_a_request_that_decides_for_itself(sentence):
    assert not left_to_the_agent(sentence)


@pytest.mark.parametrize("sentence", [
    'and "Archived" should appear as "Archived items"',
    "yes add the retry flag, and rename the old flag as --legacy",
    "update the README to describe the new flag",
    "please refresh the docs for the export command",
])
def test_a_request_that_is_one_act_whatever_its_form(sentence):
    assert one_act(sentence)


@pytest.mark.parametrize("sentence", [
    "errors should appear as toasts when saving fails",
    "the export command should write one file per table",
    "add the retry flag and update the README",  # the docs follow; the flag is the ask
    # "to" of another clause is no rename's target
    "rename the helper and remember to run the tests after every change",
    "we renamed it, so going forward use the new name in imports",
])
def test_a_request_that_is_no_single_act(sentence):
    assert not one_act(sentence)


def test_see_if_asks_for_no_change():
    assert not _asks("see if the export can skip empty rows when the table is empty")


@pytest.mark.parametrize("sentence, names", [
    ("split it as orpheus-head and orpheus-head-app", ("orpheus-head", "orpheus-head-app")),
    ("return the entries as `SessionEntry` in src/models.ts", ("SessionEntry", "src/models.ts")),
    ("support LinuxCNC and IdeaMaker too", ("LinuxCNC", "IdeaMaker")),
    ("use os.path.join and keep max_depth at 3", ("os.path.join", "max_depth")),
    ("add a Help page and make the export faster", ()),
    ("e.g. put it on the Settings screen", ()),
    ("add a function called multiply_numbers next to `add_numbers`", ("add_numbers",)),
])
def test_the_names_of_things_a_request_gives(sentence, names):
    assert requested.named_things(sentence) == names


@pytest.mark.parametrize("path, prose", [
    ("docs/setup.py", True), ("README", True), ("CHANGELOG.md", True), ("notes/plan.yml", True),
    ("guide.rst", True), ("src/readme_parser.py", False), ("pyproject.toml", False),
    (".github/workflows/ci.yml", False),
])
def test_a_file_that_tells_about_the_project_rather_than_makes_it(path, prose):
    assert requested.prose_path(path) is prose
