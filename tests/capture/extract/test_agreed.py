"""A decision in the agent's summary stands only when the user said it or accepted it."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.agreed import accepted, agreed, said_by_user
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.summaries import summary_candidates

from .extract_helpers import Session

DESIGN = """Done. The store is in place.

### Design decisions
- An `effect` persists its state automatically after every run
- No async APIs and no plugin API in the first version
- Results are written as one bundle per target under the run folder
"""


def _decided(session: Session) -> set[str]:
    """What the summaries rule itself proposes (later stages judge the agent's note again)."""
    view = SessionView.of(session.transcript(), None)
    return {c["object"] for c in summary_candidates(view) if c["predicate"] == "x/decided"}


def test_the_agents_design_notes_are_not_decisions_nobody_took():
    session = Session()
    session.prompt("Build the effect store, please.")
    session.event("assistant", text=DESIGN)
    session.prompt("thanks, now add a README")
    assert _decided(session) == set()


def test_a_design_note_the_user_said_in_their_own_words_stands():
    session = Session()
    session.prompt("Build the effect store. Results should be one bundle per target, "
                   "written under the run folder.")
    session.event("assistant", text=DESIGN)
    assert _decided(session) == {
        "Results are written as one bundle per target under the run folder"}


def test_a_design_the_agent_put_to_the_user_and_the_user_accepted_stands():
    session = Session()
    session.prompt("Design the effect store first.")
    session.event("assistant", text=DESIGN + "\nShall I go ahead with this design?")
    session.prompt("yes, go ahead")
    assert len(_decided(session)) == 3


@pytest.mark.parametrize("reply", ["yes, but keep the plugin API", "thanks",
                                   "what about caching?"])
def test_a_reply_that_changes_or_ignores_the_proposal_accepts_nothing(reply):
    assert not accepted(DESIGN + "\nShall I go ahead with this design?", reply)


def test_a_yes_to_a_report_that_asked_nothing_accepts_nothing():
    assert not accepted(DESIGN, "yes")
    assert not agreed("No async APIs and no plugin API", DESIGN, 1, [(2, "ok")])


def test_the_users_no_to_the_same_thing_is_not_their_word_for_it():
    bullet = "Monthly-rotating machine ID prevents long-term tracking"
    assert not said_by_user(bullet, ["I don't want monthly-rotating machine ids."])
    assert said_by_user(bullet, ["Use a monthly-rotating machine id so nobody is tracked "
                                 "long-term."])


def test_words_shared_by_their_stem_count_and_a_few_common_ones_do_not():
    assert said_by_user("The Dockerfile pin derives from that value",
                        ["the Dockerfile follows the derived value"])
    assert not said_by_user("The Dockerfile pin derives from that value",
                            ["what is that value?"])
