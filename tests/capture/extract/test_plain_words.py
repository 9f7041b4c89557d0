"""The summaries rule's words of a failure's output, found by one pattern, are the runs of
``\\w+`` it kept before: ASCII, alphabetic, four letters or more, not generic."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.extract.summaries import _GENERIC, _Output, _Terms, _Words, corroborated

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


_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=8), st.lists(_TEXTS, min_size=1, max_size=4),
       st.integers(min_value=0, max_value=8), st.randoms(use_true_random=False))
def test_outputs_sharing_one_word_index_answer_as_each_read_alone(
        texts: list[str], problems: list[str], read_first: int, rng) -> None:
    """The view's failed outputs share one word index (a mask of outputs per word), and a
    problem's plain-word test is one mask for every output indexed when it is first asked;
    outputs read after that are tested one by one. Whatever the order of reading and
    asking, each answer is the one a lone output, read afresh, gives."""
    index = _Words()
    outputs = [_Output(text, index) for text in texts]
    for output in outputs[:read_first]:
        assert output.lowered is not None  # read now: indexed before any problem is asked
    for problem in problems:
        terms = _Terms(problem)
        order = list(range(len(texts)))
        rng.shuffle(order)
        for at in order:
            text = texts[at]
            plain = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", problem)} - _GENERIC
            by_words = len(plain) >= 2 and len(plain & _by_runs(text)) >= 2
            assert terms.shown_by(outputs[at]) == corroborated(problem, [text])
            if not any(term in text.lower().encode("utf-8", "surrogatepass")
                       for term in terms.terms):
                assert terms.shown_by(outputs[at]) == by_words
    assert [output.words for output in outputs] == [_by_runs(text) for text in texts]
