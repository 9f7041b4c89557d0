"""The user's pick, in their own words, of one of the alternatives the agent laid out."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.picks import offered_line

from .extract_helpers import Session

OFFER = """Two ways to store sessions, and it's your call:

## Session storage

- **Cookie sessions** — signed cookies, nothing on the server.
- **Redis sessions** — a shared store, survives restarts.

Which one do you want?"""


def _picks(*turns: tuple[str, str]) -> list[dict[str, object]]:
    session = Session()
    for agent, user in turns:
        session.event("assistant", text=agent)
        session.prompt(user)
    return [c for c in session.extract() if c["rule"] == "picks"]


def test_a_pick_named_in_the_users_words_is_the_projects_decision_with_the_offered_line():
    [fact] = _picks((OFFER, "Let's go with redis."))
    assert fact["predicate"] == "x/decided" and fact["subject"] == "shop"
    assert fact["object"] == ("Let's go with redis — Session storage: Redis sessions — a "
                              "shared store, survives restarts.")
    assert fact["source_type"] == "user-assertion"
    assert fact["evidence"][0].startswith("transcript#L2:")


@pytest.mark.parametrize("said", [
    "Let's go back to the failing test.",          # a motion, not a pick
    "Let's go ahead and run the suite.",
    "Let's go with Postgres.",                     # nothing the agent offered
    "Let's go with that.",                         # names nothing
    "Please also add Redis sessions to the docs.",  # no pick form
])
def test_what_is_no_pick_of_an_offered_alternative_is_not_stored(said: str) -> None:
    assert _picks((OFFER, said)) == []


def test_a_pick_needs_an_agent_message_just_before_it() -> None:
    session = Session()
    session.prompt("Let's go with redis.")
    assert [c for c in session.extract() if c["rule"] == "picks"] == []


def test_the_pick_must_share_most_of_its_words_with_one_offered_line() -> None:
    assert offered_line("We'll stick with cookie sessions", OFFER) is not None
    assert offered_line("We'll stick with cookie jars and biscuits", OFFER) is None
    assert (offered_line("OK, let's go redis", OFFER) or "").endswith("survives restarts.")
