"""A change the agent proposed in a closing question, accepted by the user in prose and carried
out by the session: the proposal in the agent's words, the acceptance in the user's."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.proposals import accepting, carried_out, proposal

from .extract_helpers import Session, offer_and_reply, only

ASK = ("The exporter writes CSV only today, so the nightly job converts it by hand.\n\n"
       "Want me to add a `--format json` option to `export.py`, or leave it as CSV for now?")
ONE = ("The cache is rebuilt on every start.\n\n"
       "Should I persist the cache in `cache.db` beside the settings file? It's a small change in "
       "`store.py`.")


def _session(offer: str, reply: str, *, work: bool = True, after: str | None = None) -> Session:
    session = offer_and_reply("the exporter is slow, look at it", offer, reply)
    if work:
        session.edit("/home/dev/shop/export.py", "fmt = 'csv'",
                     "parser.add_argument('--format', choices=['csv', 'json'])")
        session.edit("/home/dev/shop/store.py", "cache = {}", "cache = load('cache.db')")
    if after is not None:
        session.said_next(after, "Done.")
    return session


def _decided(session: Session) -> list[dict[str, object]]:
    return [c for c in only(session.extract(), "x/decided") if c["rule"] == "answers"]


def test_an_accepted_and_carried_out_proposal_is_the_users_decision_in_the_agents_words():
    [fact] = _decided(_session(ASK, "yes add the json format, and use it in the nightly job"))
    assert fact["object"].startswith("Add a `--format json` option to `export.py`")
    assert "accepted by the user" in fact["object"]
    assert "use it in the nightly job" in fact["object"]  # the user's own words are kept
    assert fact["source_type"] == "user-assertion"
    assert [e.split(":", 1)[0] for e in fact["evidence"]] == ["transcript#L2", "transcript#L3"]


def test_the_explanation_after_the_question_is_part_of_the_proposal() -> None:
    found = proposal(ONE)
    assert found is not None and found.text.startswith("Persist the cache in `cache.db`")
    assert "`store.py`" in found.text and "cache.db" in found.named


@pytest.mark.parametrize("reply", [
    "yes",                                    # a bare yes to an either-or picks neither
    "ok",
    "no, leave it as CSV",                    # turned down
    "yes but only for the nightly job",       # changed: what is kept cannot be told
    "add json, not csv",                      # no yes
    "yes leave it as csv for now",            # names only the other way
    "does json format break the importer?",   # a question back
])
def test_what_is_no_acceptance_of_the_proposal_stores_nothing(reply: str) -> None:
    assert _decided(_session(ASK, reply)) == []


def test_a_proposal_the_session_never_carried_out_is_not_stored() -> None:
    assert _decided(_session(ASK, "yes add the json format", work=False)) == []


def test_an_acceptance_taken_back_in_the_next_message_is_not_stored() -> None:
    assert _decided(_session(ASK, "yes add the json format", after="no wait, keep CSV")) == []


@pytest.mark.parametrize("offer", [
    "All green.\n\nShould I run the tests in `tests/unit` again?",  # a step of the task in hand
    "All green.\n\nWant me to commit `export.py` now?",
    "All green.\n\nShall I continue with the next step in `export.py`?",  # how to go on
    "All green.\n\nWant me to make it faster?",                       # names nothing
    "Want me to add `--format json`? Or should I add `--format xml`?",  # two questions
    "Want me to add `--format json`?\n\nThe importer reads CSV only.",  # not the closing paragraph
])
def test_no_concrete_change_proposed_in_one_closing_question_stores_nothing(offer: str) -> None:
    assert proposal(offer) is None


def test_acceptance_needs_a_yes_and_a_word_of_the_proposal() -> None:
    found = proposal(ONE)
    assert found is not None
    assert accepting(found, "yes, persist the cache. Then rebuild.") == "yes, persist the cache."
    assert accepting(found, "yes") is None                # may approve a step of today
    assert accepting(found, "let's persist the cache") == "let's persist the cache"
    assert accepting(found, "let's drop the cache") is None  # another verb: a request
    assert accepting(found, "let's rename the settings file") is None  # a request of its own


def test_carried_out_means_later_work_holds_a_named_thing() -> None:
    found = proposal(ONE)
    assert found is not None
    assert carried_out(found, ["src/app/store.py\ncache = load()"])
    assert not carried_out(found, ["README.md\nnotes about the cache"])


TAGS = ("Two ways to tag the output:\n\n"
        "1. **Header line** — write the tool name as a first comment line.\n"
        "2. **Side file** — write a `.meta` file beside each output.\n\n"
        "Want me to patch `writer.py` for option 1?")


def test_a_picked_option_gains_the_change_the_closing_question_proposed_for_it() -> None:
    offer = TAGS + " It adds a `header:` setting."
    session = offer_and_reply("tag the generated files", offer, "Let's patch for option 1.")
    session.edit("/home/dev/shop/writer.py", "def write(out):", "def write(out, header=True):")
    [fact] = _decided(session)
    assert fact["object"].startswith("Header line")
    assert "then: Patch `writer.py` for option 1: It adds a `header:` setting." in fact["object"]


def test_a_picked_option_is_stored_as_before_when_the_proposal_was_not_carried_out() -> None:
    session = offer_and_reply("tag the generated files", TAGS, "Let's patch for option 1.")
    [fact] = _decided(session)
    assert "then:" not in fact["object"]


def test_named_things_are_code_spans_file_names_and_identifiers_not_hyphenated_words() -> None:
    from claimgraph.capture.extract.proposals import _named
    assert set(_named("a `sync all` step in config.yaml for load_cache, cmdFinish and "
                      "agent-build-tools, e.g. a read-only auto-refresh")) == {
        "sync all", "config.yaml", "load_cache", "cmdFinish", "agent-build-tools"}


def test_a_hedged_proposal_is_the_agents_guess_not_a_settled_change() -> None:
    """"… and maybe …" in the offer: what the person said yes to is not one settled change."""
    hedged = ("The exporter writes CSV only today.\n\n"
              "Want me to add a `--format json` option to `export.py` (and maybe have the "
              "nightly job use it)?")
    assert proposal(hedged) is None
    assert proposal(hedged.replace(" (and maybe have the nightly job use it)", "")) is not None
    assert _decided(_session(hedged, "yes add the json format")) == []
