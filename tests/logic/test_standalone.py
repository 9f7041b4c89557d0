"""Whether a sentence the person typed stands alone once the conversation is gone
(logic/standalone.py)."""

from __future__ import annotations

import pytest

from claimgraph.logic.standalone import (
    accepts_an_offer, cut_out, not_standalone, offers_a_step, to_the_agent, vague)


@pytest.mark.parametrize("sentence", [
    "For example, the cart, the checkout, etc. Then each page should group its fields",
    "e.g. the cart and the checkout pages",
    "instead of first counting the rows and then printing how many were skipped",
    "and rather than polling the queue every second",
    "Then let's make sure our cli, gui, validators, etc. all support the new fields",
    "then each panel should have its fields grouped",
    "After that, add the exporter to the release workflow",
    "because the cache must stay warm between runs",
    "or we keep the exporter in the worker",
    "so that the cart never loses an item",
    "Use these linters for the worker: ruff, mypy and",
    "the exporter should write the rows to the",
])
def test_a_piece_cut_out_of_the_message_does_not_stand_alone(sentence):
    assert cut_out(sentence) is not None


@pytest.mark.parametrize("sentence", [
    "Instead of printing \"Sender\" and \"Receiver\", use each party's display name",
    "instead of polling the queue, the worker must subscribe to queue.events",
    "Then always run the linter before committing",
    "use the terminal instead of powershell then",
    "Lastly, I'd like to support LinuxCNC as well",
    "Like the CLI, the GUI must validate every field",
    "The cart never stores card numbers",
    "because of the rate limit, the exporter must batch its writes",
    "when deploying always run the migrations first",
    "Use tabs, not spaces, in the Makefile",
    "We go with plan a",
    "The staging bucket is the one we deploy out of",
])
def test_a_whole_statement_is_not_cut_out(sentence):
    assert cut_out(sentence) is None


@pytest.mark.parametrize("sentence", [
    "no, use that file and give me a command to turn it into a spec",
    "can you show me the schema first",
    "let me know which port the server picked",
    "Do not put the full name in your answer",
    "this message should not mention the agent",
])
def test_asking_the_agent_for_a_reply_does_not_stand_alone(sentence):
    assert to_the_agent(sentence) is not None


@pytest.mark.parametrize("sentence", [
    "the app should show me the diff before applying it",
    "I'm colour-blind, so never rely on red vs green alone when you show me anything",
    "write me a lint rule that forbids two commands on one line",
    "Use the project path already present in the conversation",
    "The export dialog must tell the user which rows were skipped",
    "Error messages should name the file and the line",
])
def test_what_the_product_shows_is_not_a_request_for_a_reply(sentence):
    assert to_the_agent(sentence) is None


@pytest.mark.parametrize("sentence", [
    "The code should be simple as possible",
    "The code should be easy to maintain, read and use",
    "The library should be more flexible for everyday use",
    "the app must be fast and user-friendly",
    "Our codebase should be clean, readable and maintainable.",
])
def test_a_vague_aspiration_does_not_stand_alone(sentence):
    assert vague(sentence) is not None


@pytest.mark.parametrize("sentence", [
    "There should be no over-engineering: one module per command",
    "The public API must stay backwards compatible with v1",
    "The exported functions should be properly described with docstrings",
    "The code should be simple: no class where a function does",
    "The parser should be fast enough to read 1 GB in a minute",
    "The app should be usable without a network connection",
])
def test_a_rule_with_a_checkable_edge_is_not_vague(sentence):
    assert vague(sentence) is None


def test_not_standalone_gives_the_first_reason_or_none():
    assert not_standalone("The code should be simple as possible") is not None
    assert not_standalone("e.g. the cart page") is not None
    assert not_standalone("give me the list of ports") is not None
    assert not_standalone("The cart never stores card numbers") is None


def test_an_offer_of_the_agents_next_step_and_a_yes_to_it():
    assert offers_a_step("Tests pass.\n\nIf you want other exporters, I can add them too.")
    assert offers_a_step("Tests pass. Want me to add the archive button?")
    assert not offers_a_step("Tests pass. The archive button is in the toolbar.")
    assert accepts_an_offer("yes please add the archive button")
    assert accepts_an_offer("ok, rename the flag to --quick")
    assert not accepts_an_offer("add the archive button, and say yes to every prompt")
