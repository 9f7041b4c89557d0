"""The summaries rule's words of a failure's output, found by one pattern, are the runs of
``\\w+`` it kept before: ASCII, alphabetic, four letters or more, not generic."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.extract.summaries import _GENERIC, _Output

_PIECES = ["error", "Missing", "pytest", "ab", "abcd", "ÉCOLE", "naïve", "_", "1", "x", " ",
           "\n", "-", "İstanbul", "straße", "ﬁle", "K", "\u0307", "module", "tests", "é"]


def _by_runs(text: str) -> frozenset[str]:
    lowered = text.lower()
    return frozenset(word for word in re.findall(r"\w+", lowered)
                     if len(word) >= 4 and word.isascii() and word.isalpha()
                     and word not in _GENERIC)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_words_are_the_plain_runs(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _Output(text).words == _by_runs(text)


def test_a_word_glued_to_a_digit_or_an_accent_is_no_word() -> None:
    assert _Output("pytest2 naïve ModuleX cafés errors linter").words == {"modulex", "linter"}
