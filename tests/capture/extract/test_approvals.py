"""A choice the user made among options the agent wrote: the option's words, the user's name."""

from __future__ import annotations

from functools import partial

import pytest

from claimgraph.capture.extract import approvals
from claimgraph.capture.extract.approvals import options, pick

from .extract_helpers import offer_and_reply, only

OFFER = """The cache can live in two places.

1. **Redis, shared** — every worker reads one cache. Needs a server.

2. **In-process LRU per worker** — no server; each worker warms its own `cachetools.LRUCache`.

Option 1 is simpler to reason about. Which do you want?"""

LETTERED = """Which layout feels right?

**A. Keep the sidebar** (Files / Search / Settings) — only restyle it.

**B. Top bar with tabs** — Files and Search merge into one tab; settings move to a menu.

**C. Command palette only** — no persistent navigation at all.

I'd go with B. Which one?"""


_session = partial(offer_and_reply, "where should the cache live in this service")


def test_options_are_the_last_run_of_labels_each_its_title_and_first_sentence():
    found = options(OFFER)
    assert [o.label for o in found] == ["1", "2"]
    assert found[1].text == ("In-process LRU per worker — no server; each worker warms its own "
                              "cachetools.LRUCache")
    assert [o.label for o in options(LETTERED)] == ["A", "B", "C"]


@pytest.mark.parametrize("reply, label", [
    ("2", "2"), ("option 2", "2"), ("let's do the second one", "2"), ("B", "B"),
    ("go with B please", "B"), ("la prima", "1"), ("the in-process one is fine", "2"),
])
def test_a_short_reply_picks_one_option_by_label_position_or_its_own_words(reply, label):
    offer = LETTERED if label in "ABC" else OFFER
    assert pick(offer, reply).label == label


@pytest.mark.parametrize("reply", [
    "yes",                        # approves nothing in particular
    "1 and 2",                    # several
    "2 but keep redis for sessions",  # partial: which part holds is unsure
    "why not 1?",                 # a question back
    "not 2",                      # a negation
    "worker",                     # a word both options share, and no yes
    "run the worker tests on the LRU branch first, then we decide",  # too long
])
def test_no_single_clear_pick_is_nothing(reply):
    assert pick(OFFER, reply) is None


def test_a_request_sharing_an_options_word_is_no_pick_without_a_yes():
    assert pick(OFFER, "benchmark the in-process version") is None
    assert pick(OFFER, "in-process is good").label == "2"


def test_a_menu_of_the_agents_next_steps_is_not_a_choice():
    menu = ("Tests pass. Do you want me to:\n\n1. **Commit the fix** now\n"
            "2. **Write a migration guide** for users\n\nWhich one?")
    assert options(menu) == [] and pick(menu, "2") is None
    steps = ("Two ways forward:\n\n1. Run the full suite again\n2. Revert the last change\n\n"
             "Which?")
    assert pick(steps, "1") is None  # a step of the task in hand, by its verb


def test_a_list_without_a_question_or_with_too_many_items_offers_nothing():
    assert options(OFFER.replace("Which do you want?", "Done.")) == []
    plan = "Plan:\n" + "\n".join(f"{n}. step number {n} of the work" for n in range(1, 9)) + \
        "\n\nSound right?"
    assert options(plan) == []


def test_the_picked_option_is_a_decision_in_the_users_name_citing_both_lines():
    session = _session(OFFER, "2")
    session.write("/home/dev/shop/cache.py", "import cachetools\n"
                  "CACHE = cachetools.LRUCache(maxsize=256)\n")
    facts = only(session.extract(), "x/decided")
    assert len(facts) == 1
    fact = facts[0]
    assert fact["object"].startswith("In-process LRU per worker")
    assert "chosen by the user" in fact["object"]
    assert fact["source_type"] == "user-assertion" and fact["confidence"] < 0.8
    assert [e.split(":")[0] for e in fact["evidence"]] == ["transcript#L2", "transcript#L3"]


def test_a_pick_a_later_prompt_overrides_is_not_stored():
    session = _session(OFFER, "2")
    session.event("assistant", text="Done: each worker has its own cache.")
    session.prompt("please switch to Redis, shared across the workers")
    assert only(session.extract(), "x/decided") == []


def test_a_choice_taken_back_in_the_next_message_is_not_stored():
    assert only(_session(OFFER, "2", after="no wait, keep redis").extract(), "x/decided") == []


def test_a_bare_yes_to_a_single_proposal_stores_nothing():
    offer = "I'd suggest moving the cache into Redis so workers share it. Want me to do that?"
    assert only(_session(offer, "yes do it").extract(), "x/decided") == []


LONG_OPTIONS = """How should failed jobs be retried?

1. **Worker-side retries** — the worker retries a job three times. Backoff doubles each time.
   - keeps `retry_count` on the job row
   - no new table

2. **Dead-letter queue** — failed jobs go to `jobs_dead`. An operator replays them by hand.

I lean to 1, but it is your call. Which one?"""


def test_a_picked_option_keeps_its_whole_text_up_to_the_next_option():
    session = _session(LONG_OPTIONS, "1")
    facts = only(session.extract(), "x/decided")
    assert len(facts) == 1
    stored = facts[0]["object"]
    assert stored.startswith("Worker-side retries — the worker retries a job three times. "
                             "Backoff doubles each time; keeps `retry_count` on the job row; "
                             "no new table (option 1")
    assert "I lean" not in stored and "Dead-letter" not in stored


def test_the_last_option_stops_before_the_agents_words_after_the_list():
    whole = options(LONG_OPTIONS)[1].whole
    assert whole == ("Dead-letter queue — failed jobs go to `jobs_dead`. An operator replays "
                     "them by hand")


def test_a_long_option_is_cut_at_a_word_and_never_inside_a_code_span():
    filler = " ".join(["word"] * 140)
    offer = (f"Two ways?\n\n1. Keep it — {filler} then `a_very_long_identifier_name` and more.\n"
             "2. Drop it — nothing more.\n\nWhich one?")
    whole = options(offer)[0].whole
    assert len(whole) <= approvals.MAX_OPTION_CHARS and whole.endswith("…")
    assert whole.count("`") % 2 == 0
    cut = f"Two ways?\n\n1. Keep it — {filler[:-30]} `one_two_three_four` and more words.\n" \
          "2. Drop it — nothing more.\n\nWhich one?"
    assert options(cut)[0].whole.count("`") % 2 == 0


def test_emphasis_goes_but_identifiers_and_code_spans_stay_as_written():
    offer = ("Which?\n\n1. **Use** the _hook_ in `__init__.py` via snake_case_name\n"
             "2. Another way entirely here\n\nWhich one?")
    assert options(offer)[0].whole == "Use the hook in `__init__.py` via snake_case_name"


def test_a_detail_later_words_overtake_leaves_only_what_was_decided():
    session = _session(LONG_OPTIONS, "1")
    session.event("assistant", text="Done. I replaced `retry_count` with an attempts table.")
    [fact] = only(session.extract(), "x/decided")
    assert fact["object"].startswith("Worker-side retries — the worker retries a job three "
                                     "times (option 1")
    assert "retry_count" not in fact["object"]


def test_later_words_retiring_what_was_decided_drop_it():
    session = _session(LONG_OPTIONS, "2")
    session.event("assistant", text="Done. I removed the `Dead-letter` queue again.")
    assert only(session.extract(), "x/decided") == []
