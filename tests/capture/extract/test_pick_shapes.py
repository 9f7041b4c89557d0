"""The user's pick among the agent's options in the shapes people type (issue 22): a label
with terms after "but", a question that leads into its list, a numbered plan holding lettered
options, agreement naming a listed option, and every option adopted at once."""

from __future__ import annotations

from functools import partial

import pytest

from claimgraph.capture.extract.adopted import adopts_all, offered_entries
from claimgraph.capture.extract.approvals import options, pick_with_terms, question_of
from claimgraph.capture.extract.offered import offered_line

from .extract_helpers import offer_and_reply, only

LED_IN = """Both services call the same queue client today.

**How do you want to structure the retry logic?**

- **A) Per-call retries** — each caller wraps its own request in a retry loop
- **B) Shared retry middleware** — one `RetryPolicy` in the client that every call goes through
- **C) Queue-level redelivery** — let the broker redeliver failed messages

I'd recommend B: it keeps the policy in one place."""

PLAN = """Here is the plan.

### 1. Add a stub server

### 2. Wire the fixture

### 3. Pick a library

**Option A: Use `fakeredis`** (Recommended)
- in-process, no daemon

**Option B: Run a real redis in a container**
- closest to production

Which library should the stub use?"""


_session = partial(offer_and_reply, "the service needs a cache strategy")


def test_a_question_just_before_the_list_makes_it_an_offer():
    assert [o.label for o in options(LED_IN)] == ["A", "B", "C"]
    assert options(LED_IN.replace("?**", ".**")) == []  # no question anywhere: no offer
    [fact] = only(_session(LED_IN, "b").extract(), "x/decided")
    assert fact["object"].startswith("Shared retry middleware — one `RetryPolicy`")


def test_the_question_is_read_on_its_own_line_without_a_label_before_it():
    asked = "Also, my first question: **How should retries be structured?**\n\n- A) x\n- B) y"
    assert question_of(asked) == "How should retries be structured?"


def test_a_numbered_plan_with_lettered_options_offers_the_run_the_reply_names():
    assert options(PLAN) == []  # both kinds, and the reply names neither: unsure
    assert [o.label for o in options(PLAN, False)] == ["A", "B"]
    assert [o.label for o in options(PLAN, True)] == ["1", "2", "3"]
    picked, terms = pick_with_terms(PLAN, "option a")
    assert picked.label == "A" and terms == ""


def test_terms_after_but_are_part_of_the_decision():
    said = "yes, option a, but make sure the sentinel config is covered later."
    picked, terms = pick_with_terms(PLAN, said)
    assert picked.label == "A"
    assert terms == "make sure the sentinel config is covered later"
    [fact] = only(_session(PLAN, said).extract(), "x/decided")
    assert fact["object"].startswith("Use `fakeredis` (Recommended); in-process, no daemon")
    assert fact["object"].endswith(
        "— but: make sure the sentinel config is covered later")
    assert fact["scope"] == "project"


@pytest.mark.parametrize("said", [
    "option a, but actually let's use the container",      # taken back
    "option a, but not for the integration suite",        # turns away
    "option a, but rather option b for CI",                # names another option
    "option a, but maybe later. We can revisit the rest of the fixtures then.",  # hedge
    "maybe option a, but keep it small",                   # the pick itself is hedged
    "option a, but what about sentinel?",                  # asks back
    "option a, but also " + "keep it tiny " * 15,          # terms too long to be terms
])
def test_terms_that_take_the_pick_back_or_hedge_it_store_nothing(said):
    assert pick_with_terms(PLAN, said) is None
    assert only(_session(PLAN, said).extract(), "x/decided") == []


def test_a_pick_with_terms_taken_back_in_the_next_message_is_not_stored():
    said = "option a, but make sure the CI job gets it too"
    assert only(_session(PLAN, said, after="no wait, let me think").extract(),
                "x/decided") == []


AGREE_OFFER = """Naming the new package:

- `@shop/queue-ingest` if it only receives queue messages and normalises them
- `@shop/event-ingest` if it should take webhooks and queue messages alike
- keep the shared types in `@shop/core`

I'd start narrow."""


@pytest.mark.parametrize("said, ends", [
    ("I agree with queue-ingest", "normalises them"),
    ("agreed on event-ingest", "messages alike"),
    ("queue-ingest is a good choice, small and precise", "normalises them"),
    ("ok, event-ingest it is", "messages alike"),
])
def test_agreement_naming_a_listed_option_is_a_pick_of_that_line(said, ends):
    assert offered_line(said, AGREE_OFFER).endswith(ends)


@pytest.mark.parametrize("said", [
    "I agree with your analysis",               # agrees with what was said, names no option
    "I agree with queue-ingest",                # see below: no list in the message
])
def test_agreement_is_no_pick_without_a_listed_option_it_names(said):
    prose = ("I would name it `@shop/queue-ingest` since it only receives queue messages. "
             "Shared types stay in `@shop/core`.")
    assert offered_line(said, prose) is None
    if "analysis" in said:
        assert offered_line(said, AGREE_OFFER) is None


def test_agreement_naming_a_listed_option_is_stored_with_that_line():
    session = _session(AGREE_OFFER, "I agree with queue-ingest.")
    [fact] = [c for c in session.extract() if c["rule"] == "picks"]
    assert fact["object"] == ("I agree with queue-ingest — @shop/queue-ingest if it only "
                              "receives queue messages and normalises them")


TABLE = """Where each kind of note should live:

| Kind | Where | Why |
|---|---|---|
| Design decisions | `docs/decisions/` — one file each | kept after they are superseded |
| Gotchas | `docs/GOTCHAS.md` — dated entries | greppable by symptom |

Want me to scaffold them, or would you rather seed them yourself?"""


@pytest.mark.parametrize("said, adopts", [
    ("Let's adopt all of those.", True), ("ok, take all of them", True),
    ("adopt both", True), ("do all of them", False), ("fix each of those", False),
    ("let's adopt all of those except the gotchas", False), ("adopt all of those?", False),
    ("maybe adopt both", False)])
def test_adopting_all_is_a_verb_of_taking_and_all_of_them_and_nothing_else(said, adopts):
    assert adopts_all(said) is adopts


def test_every_entry_adopted_and_carried_out_is_one_decision():
    session = _session(TABLE, "We'll take all of those. Then add a first entry.")
    session.write("/home/dev/shop/docs/GOTCHAS.md", "# Gotchas\n")
    decided = only(session.extract(), "x/decided")
    [fact] = [c for c in decided if c["object"].startswith("Adopted by the user")]
    assert "`docs/decisions/` — one file each" in fact["object"]
    assert "`docs/GOTCHAS.md` — dated entries" in fact["object"]


def test_every_entry_adopted_but_never_carried_out_is_not_stored():
    session = _session(TABLE, "We'll take all of those.")
    assert [c for c in session.extract() if c["object"].startswith("Adopted by the user")] == []


def test_a_menu_of_next_steps_adopted_at_once_is_a_task_not_a_choice():
    menu = ("Do you want me to:\n\n- add `docs/GOTCHAS.md` with a header\n"
            "- add `docs/decisions/` with a template\n\nWhich?")
    assert offered_entries(menu) == []
    steps = "Next:\n\n- run the migration on staging\n- commit the lockfile\n\nOK?"
    assert offered_entries(steps) == []
