"""The agent's offer and the person's reply, walked once for the readers of decisions:
which message a reply answers, which replies are taken back, and what they share."""

from __future__ import annotations

from claimgraph.capture.extract.exchanges import (
    approved_decision, led_in_as_steps, offers_and_replies, step_of_today)
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session, offer_and_reply

OFFER = "Two ways:\n\n1. **Redis** — one shared cache.\n2. **LRU** — one per worker.\n\nWhich?"


def _exchanges(session: Session) -> list[tuple[int, int, str]]:
    view = SessionView.of(session.transcript(), ROOT)
    return [(e.offer.line, e.reply.line, e.said) for e in offers_and_replies(view)]


def test_each_reply_is_paired_with_the_agents_last_message_before_it():
    session = offer_and_reply("where should the cache live", "Looking.", "go on")
    session.event("assistant", text=OFFER)
    session.prompt("2")  # too short for the typed-text reader, still a reply
    assert _exchanges(session) == [(2, 3, "go on"), (4, 5, "2")]


def test_a_prompt_right_after_another_prompt_answers_no_message():
    session = offer_and_reply("where should the cache live", OFFER, "2")
    session.prompt("and keep it small")
    assert _exchanges(session) == [(2, 3, "2")]


def test_a_reply_the_next_message_takes_back_is_not_read():
    assert _exchanges(offer_and_reply("cache?", OFFER, "2", after="no wait, keep redis")) == [
        (4, 5, "no wait, keep redis")]
    assert _exchanges(offer_and_reply("cache?", OFFER, "2", after="thanks")) == [
        (2, 3, "2"), (4, 5, "thanks")]


def test_a_sub_agents_message_is_not_what_the_person_answers():
    session = Session()
    session.prompt("where should the cache live")
    session.event("assistant", text=OFFER)
    session.event("assistant", text="Searching the repo.", subagent_id="agent-1")
    session.prompt("2")
    assert _exchanges(session) == [(2, 4, "2")]


def test_a_list_led_in_as_the_agents_next_steps_is_a_menu():
    menu = "Do you want me to:\n1. add tests\n2. add docs"
    assert led_in_as_steps(menu, menu.index("1."))
    choice = "Where should it live?\n1. Redis\n2. LRU"
    assert not led_in_as_steps(choice, choice.index("1."))


def test_a_step_of_todays_task_is_told_from_a_design_choice():
    assert step_of_today("Commit the change and push it")
    assert step_of_today("Run the migration now")
    assert not step_of_today("Redis, shared by every worker")


def test_the_decision_cites_the_offer_and_the_reply_in_the_persons_name():
    session = offer_and_reply("where should the cache live", OFFER, "2")
    [exchange] = offers_and_replies(SessionView.of(session.transcript(), ROOT))
    fact = approved_decision(SessionView.of(session.transcript(), ROOT), exchange,
                             "LRU per worker", "LRU", "2", stance="LRU")
    assert (fact["predicate"], fact["object"], fact["stance"]) == (
        "x/decided", "LRU per worker", "LRU")
    assert [e.split(":", 1)[0] for e in fact["evidence"]] == ["transcript#L2", "transcript#L3"]
    assert fact["source_type"] == "user-assertion" and fact["subject_type"] == "project"
    assert "stance" not in approved_decision(SessionView.of(session.transcript(), ROOT),
                                             exchange, "LRU per worker", "LRU", "2")
