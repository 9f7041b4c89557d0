"""The user's pick, in their own words, of one of the alternatives the agent laid out."""

from __future__ import annotations

import pytest

from claimgraph.capture.classify import model as classify_model
from claimgraph.capture.classify.model import Verdict
from claimgraph.capture.extract.offered import position_pick, resolved_pick
from claimgraph.capture.extract.picks import offered_line
from claimgraph.capture.extract.session import SessionView

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
    "Let's go implement the redis sessions.",       # a task, not a pick
    "Let's go redis sessions as a shared store now",  # a bare "go" picks a name, not a phrase
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


NUMBERED = """Three options, cheapest first:

**1. Trailer in the PR body (recommended).** Survives the squash merge.

**2. An issue comment per ticket.** No code change.

Want me to patch the tool for option 1?"""


def test_a_pick_by_label_is_left_to_the_rules_that_read_labelled_options() -> None:
    assert [c for c in _picks((NUMBERED, "Let's go with option 1.")) if c["rule"] == "picks"] == []


def test_no_pick_is_kept_after_the_agent_asked_how_to_go_on_with_the_task() -> None:
    asked = ("How do you want to proceed?\n\n1. **Split** — move the wiring to its own change\n"
             "2. **Fix in place** — rewrite the requirement")
    assert _picks((asked, "Let's go with the split")) == []


def test_a_pick_by_label_is_never_read_as_a_named_pick() -> None:
    assert offered_line("Let's go with option 2", "2. Cookies\n3. Redis, option 2 of 2") is None


ASKED = "Lint and build are green.\n\nIs the staging database still called `shopdb` on the host?"


def test_keeping_what_is_there_is_a_pick_only_as_the_answer_to_the_agents_question() -> None:
    [fact] = _picks((ASKED, "yes, so keep it shopdb"))
    assert fact["object"].startswith("yes, so keep it shopdb — Is the staging database")
    assert _picks(("The build uses `shopdb` as its database name.", "keep it shopdb")) == []
    assert _picks((ASKED, "keep going")) == []


class _KeepsEverything:
    """A sentence model that keeps every sentence as a decision with full confidence."""

    def verdict(self, sentence: str, *args: object) -> Verdict:
        return Verdict("decision", 0.99, True, {"decision": 0.99})


@pytest.fixture()
def model_keeps_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(classify_model, "shipped", lambda: _KeepsEverything())


@pytest.mark.parametrize("said", ["Let's go with redis.", "OK, let's go with Redis sessions",
                                  "We'll stick with cookie sessions."])
def test_the_bare_pick_never_displaces_the_option_it_names_whatever_the_models_score(
        said: str, model_keeps_everything: None) -> None:
    session = Session()
    session.event("assistant", text=OFFER)
    session.prompt(said)
    found = session.extract()
    assert [c["rule"] for c in found] == ["picks"]
    assert " — Session storage: " in found[0]["object"]


def test_a_bare_pick_is_stored_with_its_option_under_the_shipped_model_too() -> None:
    [fact] = [c for c in _all((OFFER, "OK, let's go with Redis sessions"))]
    assert fact["rule"] == "picks" and fact["object"].endswith("survives restarts.")


def test_a_sentence_that_names_nothing_offered_is_still_the_sentence_models_to_judge(
        model_keeps_everything: None) -> None:
    session = Session()
    session.event("assistant", text=OFFER)
    session.prompt("Session tokens must never be logged.")
    assert [(c["rule"], c["object"]) for c in session.extract()] == [
        ("statements", "Session tokens must never be logged")]


def test_a_pick_of_what_the_agent_offered_before_another_prompt_is_not_resolved() -> None:
    session = Session()
    session.event("assistant", text=OFFER)
    session.prompt("Thanks, give me a minute.")
    assert resolved_pick_of(session, "Let's go with redis") is not None
    session.prompt("Let's go with redis.")
    assert resolved_pick_of(session, "Let's go with redis") is None


LISTED = """Two ways to read the settings:

**Option 1:** TOML file — a `settings.toml` read at start.
**Option 2:** Environment variables — everything from `APP_*` variables.

Let me know."""


@pytest.mark.parametrize("said,index", [
    ("let's go with the second one", 1), ("OK, the first option please", 0),
    ("I'll take the last one", -1), ("the second", 1),
    ("the second one failed again", None), ("fix the first one", None),
    ("let's go with the second one and drop the cache", None)])
def test_a_pick_by_position_is_only_a_sentence_that_says_nothing_else(said: str,
                                                                      index: int | None) -> None:
    assert position_pick(said) == index


def test_a_kept_pick_by_position_becomes_the_option_it_names(
        model_keeps_everything: None) -> None:
    session = Session()
    session.event("assistant", text=LISTED)
    session.prompt("let's go with the second one")
    objects = [c["object"] for c in session.extract()]
    assert objects and all(o.startswith("Environment variables") for o in objects)


def test_a_pick_by_position_with_no_list_before_it_is_dropped(
        model_keeps_everything: None) -> None:
    session = Session()
    session.event("assistant", text="Done: the settings now load at start.")
    session.prompt("let's go with the second one")
    assert session.extract() == []


def _all(*turns: tuple[str, str]) -> list[dict[str, object]]:
    session = Session()
    for agent, user in turns:
        session.event("assistant", text=agent)
        session.prompt(user)
    return session.extract()


def resolved_pick_of(session: Session, said: str) -> str | None:
    view = SessionView.of(session.transcript(), None)
    return resolved_pick(view, session.events[-1].line, said)
