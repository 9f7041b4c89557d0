"""The harness's envelope around a person's words, told apart by its shape."""

from __future__ import annotations

import pytest

from claimgraph.capture.readers.envelope import typed_text


@pytest.mark.parametrize("text, typed", [
    ("<ide_opened_file>The user opened a.py</ide_opened_file>\nyes go", "yes go"),
    ("<ide_opened_file>The user opened a.py</ide_opened_file>yes go", "yes go"),
    ("<ide_opened_file>The user opened a.py</ide_opened_file>", ""),
    ("fix it\n<system-reminder>\nBe brief.\n</system-reminder>\n", "fix it"),
    ('<teammate-message teammate_id="r" summary="s">\nhello\n</teammate-message>', ""),
    ("<a-b>x</a-b>\n<c_d>y</c_d>\n  do it  \n<e-f>z</e-f>", "do it"),
])
def test_envelopes_opening_or_closing_the_text_are_dropped(text: str, typed: str):
    assert typed_text(text) == typed


@pytest.mark.parametrize("text", [
    "plain words",
    "use <my-card>x</my-card> here",          # inline markup is the person's
    "say <my-card>x</my-card>",               # an element ending the text but not a line
    "<div>x</div>",                           # a one-word name is no harness's
    "<foo-bar>never closed",
    "x </foo-bar>",
    "<foo-bar>x</foo-barn>",
])
def test_text_without_a_whole_envelope_at_either_end_is_kept_as_it_is(text: str):
    assert typed_text(text) is text
