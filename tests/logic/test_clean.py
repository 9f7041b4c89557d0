"""Cleaning transcript text: our own context, system reminders and private blocks never stay."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.logic.clean import (
    CONTEXT_CLOSE, CONTEXT_HEADING, CONTEXT_OPEN, MAX_STRIP_PASSES, clean_text,
    clean_text_with_counts, has_injected_context, strip_injected,
)

GITHUB_TOKEN = "ghp_" + "A" * 36
CONTEXT_BODY = (f"{CONTEXT_HEADING} (as of 2026-08-01)\n\nThe knowledge graph's current view.\n\n"
                "### Standing decisions (do not relitigate)\n- api uses argon2 (since 2026-07-01)\n"
                "\n### Current facts (by effective confidence)\n- api depends-on fastapi (0.91)")


def test_marked_context_block_is_stripped_and_the_text_around_it_stays():
    text = f"before\n{CONTEXT_OPEN}\n{CONTEXT_BODY}\n{CONTEXT_CLOSE}\nafter"
    assert strip_injected(text) == "before\n\nafter"


def test_unterminated_context_block_is_stripped_to_the_end():
    text = f"kept {CONTEXT_OPEN}\n{CONTEXT_BODY}\ntruncated at 10,000 ch"
    assert strip_injected(text) == "kept "


def test_context_markers_tolerate_attributes_and_letter_case():
    text = 'a<CLAIMGRAPH-CONTEXT version="2">x</Claimgraph-Context>b'
    assert strip_injected(text) == "ab"


def test_unmarked_context_heading_is_stripped_to_the_end_when_nothing_follows():
    assert strip_injected(f"hook said:\n{CONTEXT_BODY}") == "hook said:\n"


def test_unmarked_context_ends_at_the_next_top_level_heading():
    text = f"{CONTEXT_BODY}\n\n## My own notes\nkeep this\n# And this"
    assert strip_injected(text) == "\n## My own notes\nkeep this\n# And this"


def test_heading_inside_a_line_is_not_our_block():
    text = f"the hook prints '{CONTEXT_HEADING}' first"
    assert strip_injected(text) == text
    assert not has_injected_context(text)


def test_several_multiline_system_reminders_are_all_stripped():
    text = ("one <system-reminder>\nWhenever you read a file,\nconsider malware.\n"
            "</system-reminder>two\n<system-reminder>todo list changed</system-reminder> three")
    assert strip_injected(text) == "one two\n three"


def test_unterminated_system_reminder_is_stripped_to_the_end():
    assert strip_injected("result\n<system-reminder>\nthe rest is harness text") == "result\n"


def test_private_block_leaves_nothing_behind():
    text = f"deploy with <private>my home address and {GITHUB_TOKEN}</private>the script"
    assert clean_text(text) == "deploy with the script"


def test_nested_private_blocks_are_stripped_to_the_outer_close():
    text = "a<private>b<private>c</private>d</private>e"
    assert strip_injected(text) == "ae"


def test_blocks_of_different_kinds_nest():
    text = ("x<system-reminder>r<private>p</private>r<claimgraph-context>c</claimgraph-context>"
            "</system-reminder>y<private>q<system-reminder>s</private>z")
    assert strip_injected(text) == "xyz"


def test_a_closing_tag_closes_the_innermost_open_block_of_its_name():
    text = "a<private>b<system-reminder>c</private>d"
    assert strip_injected(text) == "ad"


def test_stray_closing_tags_are_dropped_and_the_text_kept():
    assert strip_injected("left</private> mid </system-reminder>right") == "left mid right"


def test_a_tag_formed_by_removing_a_block_is_stripped_too():
    assert strip_injected("keep <priv<private>x</private>ate>hidden") == "keep "


def chained_block(depth: int) -> str:
    """A private block that each stripping pass only peels one layer off: removing the inner
    blocks joins ``<priv`` + ``ate>`` into the next layer's tags."""
    if depth == 0:
        return "<private>x</private>"
    inner = chained_block(depth - 1)
    return f"<priv{inner}ate>z</priv{inner}ate>"


def test_blocks_chained_by_removals_are_stripped_layer_by_layer():
    assert strip_injected(f"keep {chained_block(MAX_STRIP_PASSES - 1)} tail") == "keep  tail"


def test_past_the_pass_limit_the_first_remaining_tag_cuts_to_the_end():
    stripped = strip_injected(f"keep {chained_block(MAX_STRIP_PASSES + 2)} tail")
    assert stripped == "keep <priv<priv"
    assert strip_injected(stripped) == stripped


def test_lookalike_tags_are_left_alone():
    text = "<privateer> and <system-reminders> and <private-notes> stay"
    assert strip_injected(text) == text


@pytest.mark.parametrize(("text", "expected"), [
    (f"{CONTEXT_OPEN}facts{CONTEXT_CLOSE}", True),
    (f"user text\n{CONTEXT_OPEN}\ncut off", True),
    ('<claimgraph-context source="session-start">', True),
    (CONTEXT_BODY, True),
    ("an ordinary prompt about project memory", False),
    ("<system-reminder>not ours</system-reminder>", False),
])
def test_has_injected_context_finds_marked_and_unmarked_blocks(text, expected):
    assert has_injected_context(text) is expected


def test_clean_text_strips_then_redacts_and_counts_only_what_remains():
    text = (f"<system-reminder>{GITHUB_TOKEN}</system-reminder>"
            f"export GH_TOKEN={GITHUB_TOKEN}\n{CONTEXT_OPEN}{CONTEXT_BODY}")
    assert clean_text_with_counts(text) == ("export GH_TOKEN=[REDACTED:github-token]\n",
                                            Counter({"github-token": 1}))


def test_a_token_split_by_a_private_block_is_redacted_once_joined():
    text = f"GH ghp_<private>note</private>{'A' * 36} ok"
    assert clean_text(text) == "GH [REDACTED:github-token] ok"


def test_text_without_markup_or_secrets_is_unchanged():
    text = "We decided to use uv instead of pip.\n\nRun `pytest -q` before committing."
    assert clean_text(text) == text


MARKUP = st.sampled_from([
    "<private>", "</private>", "<system-reminder>", "</system-reminder>", CONTEXT_OPEN,
    CONTEXT_CLOSE, "<priv", "ate>", "<", ">", "/", f"\n{CONTEXT_HEADING}\n", "\n## Notes\n",
    "\n", "#", "token=", "Fake0Secret99", GITHUB_TOKEN, "ghp_", "A" * 36, "PASSWORD: ", "\"",
])
TRANSCRIPT_TEXT = st.lists(st.one_of(MARKUP, st.text(max_size=6)), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(TRANSCRIPT_TEXT)
def test_cleaning_is_idempotent(text):
    once = clean_text(text)
    assert clean_text(once) == once


@settings(max_examples=300, deadline=None)
@given(TRANSCRIPT_TEXT)
def test_cleaned_text_has_no_block_left(text):
    cleaned = clean_text(text)
    assert "<private>" not in cleaned and "<system-reminder>" not in cleaned
    assert CONTEXT_OPEN not in cleaned and not has_injected_context(cleaned)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcxyz 0123456789\n.,", max_size=200))
def test_plain_prose_passes_through_untouched(text):
    assert clean_text(text) == text


@pytest.mark.timeout(900)
@pytest.mark.parametrize("crafted", [
    "<private>x<system-reminder>y" * 150_000 + "</private>" * 150_000,
    "<priv" * 600_000 + "<private>x</private>" + "ate>" * 600_000,
    f"{CONTEXT_HEADING}\n- fact\n" * 100_000 + "## end",
    "</system-reminder>" * 300_000,
])
def test_five_megabytes_of_crafted_markup_are_stripped_in_linear_time(crafted):
    """Bounded in CPU seconds, not wall-clock (a loaded machine stretches only the latter): a
    quadratic strip would take hours on 5 MB."""
    text = "keep\n" + crafted
    assert len(text) > 5_000_000
    started = time.process_time()
    assert strip_injected(text).startswith("keep\n")
    assert time.process_time() - started < 120


_PIECES = st.sampled_from([
    CONTEXT_HEADING, CONTEXT_HEADING[:-1], CONTEXT_HEADING.upper(), " \t", "\n", "## Other\n",
    "# Top\n", CONTEXT_OPEN, CONTEXT_CLOSE, "<system-reminder>", "</system-reminder>", "<private>",
    "words ", "ſ", "—", "x" * 30])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_text_without_the_heading_skips_the_unmarked_search_and_strips_the_same(text):
    """The shortcut (no heading, no line-by-line search for a block) gives what the whole
    search gives, with or without the heading, around tags whose removal joins lines."""
    from claimgraph.logic import clean
    whole = clean._UNMARKED_CONTEXT.sub("", clean._strip_until_no_tag_is_left(text))
    assert strip_injected(text) == whole
