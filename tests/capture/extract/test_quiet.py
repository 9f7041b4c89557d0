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


def test_capture_leaves_out_a_summary_role_that_says_only_what_a_file_holds():
    session = Session()
    session.write(f"{ROOT}/tests/test_cart.py", "def test_total():\n    assert True\n")
    session.write(f"{ROOT}/docs/design.md", "# Design\n\nNo cache: rejected.\n")
    session.event("assistant", text=(
        "Done:\n\n- `tests/test_cart.py` verifies totals and taxes\n"
        "- `docs/design.md` records the rejected cache, so it isn't proposed again\n"
        "- `src/cart.py` computes the totals\n"))
    roles = {c["subject"] for c in only(session.extract(), "x/role")}
    assert "tests/test_cart.py" not in roles
    assert "src/cart.py" not in roles
