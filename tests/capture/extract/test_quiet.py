"""Noise classes ``quiet`` leaves out: a file role that only says what a glance says, and a
clause cut out of a longer sentence."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.quiet import is_fragment, quiet, role_says_why

from .extract_helpers import ROOT, Session, only


def _fact(predicate: str, said: str, subject: str = "shop") -> dict[str, str]:
    return {"subject": subject, "predicate": predicate, "object": said}


@pytest.mark.parametrize("role", [
    "verifies layer heights and speeds",
    "updates the key-entity definitions and success criteria",
    "holds the retry helpers for every worker",
])
def test_a_file_role_that_says_only_what_it_holds_is_noise(role):
    assert not role_says_why(role)
    assert quiet([_fact("x/role", role, "tests/test_speed.py")]) == []


@pytest.mark.parametrize("role", [
    "records the rejected cache design, so it isn't proposed again",
    "pins the schema version because the mobile client reads it",
    "must stay free of network calls",
])
def test_a_file_role_that_says_why_is_kept(role):
    assert role_says_why(role)
    found = [_fact("x/role", role, "docs/design.md")]
    assert quiet(found) == found


def test_what_a_named_function_does_is_not_a_file_role():
    found = [_fact("x/role", "generates the request id for each call", "make_id")]
    assert quiet(found) == found


@pytest.mark.parametrize("said", [
    'and "Linked" should appear as "Linked docs"',
    "instead of first counting rows and then stating the total",
    "or the worker restarts with the old config",
])
def test_a_clause_cut_from_a_sentence_is_no_decision(said):
    assert is_fragment(said)
    assert quiet([_fact("x/decided", said), _fact("x/convention", said)]) == []


@pytest.mark.parametrize("said", [
    "so keep the old project name for the secrets store",
    "for the login page, no dark mode",
    "And now: every handler logs its request id",
    "Use tabs, and keep imports sorted",
])
def test_a_whole_sentence_is_not_a_fragment(said):
    assert not is_fragment(said)


def test_other_predicates_are_untouched():
    found = [_fact("x/state", "and then the branch was pushed")]
    assert quiet(found) == found


def test_capture_keeps_a_summary_file_role_only_when_it_says_why():
    session = Session()
    session.prompt("Add cart totals.")
    session.write(f"{ROOT}/src/cart.py", "def total():\n    return 0\n")
    session.write(f"{ROOT}/src/tax.py", "def rate():\n    return 0\n")
    session.event("assistant", text=(
        "Done:\n\n- `src/cart.py` computes the totals for every order\n"
        "- `src/tax.py` keeps the rates in cents, so totals never round twice\n"
        "- `src/cart.py` has no I/O\n"))
    roles = {c["subject"] for c in only(session.extract(), "x/role")}
    assert roles == {"src/tax.py"}


STYLE = ("Use strict TypeScript and follow the existing code style: tabs for indentation, "
         "semicolons, and mostly single-quoted strings")


def test_a_convention_another_says_in_more_words_is_told_once():
    short = _fact("x/convention", "Indentation: Use tabs for indentation")
    long = _fact("x/convention", STYLE)
    assert quiet([short, long]) == [long]


@pytest.mark.parametrize("said", [
    "Never use tabs for indentation",  # the opposite rule: its negation is a word
    "Quotes: Use single quotes unless escaping is necessary",  # more than the other says
    "Semicolons: Always use semicolons",  # one word: too little to tell
])
def test_a_convention_with_words_of_its_own_is_kept(said):
    found = [_fact("x/convention", said), _fact("x/convention", STYLE)]
    assert quiet(found) == found


def test_a_decision_is_not_folded_into_a_convention():
    found = [_fact("x/decided", "Use tabs for indentation"), _fact("x/convention", STYLE)]
    assert quiet(found) == found
