"""The mood of an agent's sentence: a plan, a guess, a figure about the run, talk about
wording, a change narrated -- none of them a standing fact (pure logic)."""

from __future__ import annotations

import pytest

from claimgraph.logic.claim_mood import asks_for_account, finding, not_a_fact


@pytest.mark.parametrize(("sentence", "why"), [
    ("This is a big rewrite that we'll have to split into stages", "intent"),
    ("We need to move the cache behind the interface", "intent"),
    ("Next step: wire the exporter into the worker", "intent"),
    ("Dovremo spostare la cache dietro l'interfaccia", "intent"),
    ("Wir müssen den Exporter umstellen", "intent"),
    ("The flaky test probably comes from the clock", "hedge"),
    ("Le cache est peut-être trop petit", "hedge"),
    ("1,204,331 input tokens across 17 API calls", "figure"),
    ("The suite took 41 seconds on the runner", "figure"),
    ("218 tests passed after the change", "figure"),
    ('"Fast path for the common case" — the function name already says this', "quote"),
    ("The legacy `sync.sh` step disappears with it", "transition"),
    ("`settings.json` becomes the one source of the port", "transition"),
])
def test_forms_that_are_no_standing_fact(sentence, why):
    assert not_a_fact(sentence) == why


@pytest.mark.parametrize("sentence", [
    "Used `Result<T, E>` instead of exceptions for `parse()`",
    "`retries` must be between 0 and 5",
    "The `timeout: 30 seconds` setting lives in `app.yaml`",  # a figure in code is a setting
    "Requests without a token are rejected with 401",
    "Never push to main; releases go through the tag workflow",
])
def test_a_plain_statement_is_not_judged_by_its_form(sentence):
    assert not_a_fact(sentence) is None


@pytest.mark.parametrize(("role", "is_finding"), [
    ("holds the tracing helpers for every hook script", False),
    ("records the options table so that it is not proposed again", False),
    ("calls `/items/{id}`, missing the `/v2` prefix the others use", True),
    ("retries the whole upload on any error. A bare `except` hides the cause.", True),
    ("invents a limit on page size that the API does not have", True),
])
def test_a_reviewers_finding_is_not_what_a_file_is_for(role, is_finding):
    assert finding(role) is is_finding


@pytest.mark.parametrize(("said", "asks"), [
    ("Please review the entire codebase and propose a migration", True),
    ("can you explain how the project is laid out?", True),
    ("walk me through the auth module", True),
    ("how does the sync service work?", True),
    ("spiega come funziona il progetto", True),
    ("review recent issues on github", False),  # a review, but not of the code
    ("add the json format to export.py", False),
    ("does this PR have the best devex for a maintainer?", False),
])
def test_a_request_for_an_account_of_the_code(said, asks):
    assert asks_for_account(said) is asks
