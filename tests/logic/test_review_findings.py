"""Where a code review's findings start in a message the person sent
(logic/review_findings.py): the anchor of a finding to a file or to lines of code marks the
reviewer's text; a path named inside a sentence does not."""

from __future__ import annotations

import pytest

from claimgraph.logic.review_findings import carries_findings, findings_start, without_findings


@pytest.mark.parametrize("message, kept", [
    ("Please check these and fix what still applies.\nReview notes:\n"
     "In `@lib/store/cache.py`:\n- Line 14: The cache never expires; add a TTL.",
     "Please check these and fix what still applies.\nReview notes:"),
    ("Fix only what is still wrong.\n\nIn @scripts/build.sh around lines 10 - 22, The loop "
     "ignores failures; add set -e and check each exit code.",
     "Fix only what is still wrong."),
    ("Look at this one:\nIn src/parser/tokens.rs at line 88, the match should cover EOF.",
     "Look at this one:"),
    ("Address these comments:\n### Comment 1\n"
     "<location path=\"src/jobs/queue.py\" line_range=\"4-9\" />\n<issue_to_address>\n"
     "The queue never drains on shutdown; flush it first.\n</issue_to_address>",
     "Address these comments:\n### Comment 1"),
    ("Address these comments:\n<location> `src/jobs/queue.py:12` </location>\n"
     "The queue never drains on shutdown.", "Address these comments:"),
    ("Still open:\n- Around line 40-45: The retry loop sleeps with no cap; bound it.\n"
     "In `@src/jobs/retry.py`:\n- Line 12: The import is unused.", "Still open:"),
])
def test_the_findings_from_the_first_anchor_on_are_the_reviewers(message, kept):
    assert findings_start(message) is not None
    assert without_findings(message) == kept


@pytest.mark.parametrize("message", [
    "keep the helpers in src/util.py and never import them from the CLI",
    "In src/app.py, always log through the module logger",  # a path, but no line anchor
    "In the readme, line 3: fix the typo",  # no path and the number is not the line's start
    "We moved to Postgres in @infra last week",  # a mention inside a sentence
    "Always use uv for dependencies.\nline up the columns in the report",
    "Print the label as:\nLine 1: the product's name\nLine 2: its price",  # no file anchor
    "* Lines 3 - 9: These imports are unused.",  # a bare line anchor alone
])
def test_a_path_or_a_line_inside_a_sentence_is_no_anchor(message):
    assert findings_start(message) is None
    assert without_findings(message) == message


@pytest.mark.parametrize("message", [
    "In `@src/jobs/retry.py`:\n- Line 12: The import is unused.",
    "Fix only what is still wrong.\nIn @scripts/build.sh around lines 10 - 22, add set -e.",
    "<location path=\"src/jobs/queue.py\" line_range=\"4-9\" />\nflush the queue first",
    "Still open:\n- Around line 40 to 45: The retry loop sleeps with no cap; bound it.",
    "Print the label as:\nLine 1: the product's name\nLine 2: its price",
])
def test_a_message_with_any_anchor_carries_findings(message):
    """Any anchor, a bare line anchor alone included, is a doubt on the message's names."""
    assert carries_findings(message)


@pytest.mark.parametrize("message", [
    "Move parseQuery to its own module.\n<details>\nthe log of the last try\n</details>",
    "The page is\n<template>\n  <main>hello</main>\n</template>\nkeep it that way",
    "Why does `parseQuery` at lines 4-9 of route.ts drop keys?",
    "Fix the crash on line 3: parseQuery returns None",
])
def test_tags_without_a_file_and_lines_inside_a_sentence_carry_no_findings(message):
    """HTML a person types (``<details>``, a template's tags) names no file: it is no review
    tool's markup; a line number inside a sentence is no anchor."""
    assert not carries_findings(message)
    assert findings_start(message) is None
