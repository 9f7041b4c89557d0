"""Reconcile's later words are searched for a candidate's term through an index of their
words (``reconcile._Said``, ``word_index.Texts.containing``): the answer must be the one
reading every later message gives (issue 29), on random terms and messages."""

from __future__ import annotations

import random

from claimgraph.capture.extract import reconcile
from claimgraph.capture.extract.word_index import Texts

_WORDS = ("Replaced", "removed", "the", "`audience`", "input", "with", "github_app",
          "oidc-audience", "Don't", "add", "@scope/pkg", "instead of", "Redis", "REDIS",
          "redisCache", "is now deprecated", "drop", "forget", "ſtore", "İndex", "ıdx", "K",
          "cache.db", "no longer uses", "api", "API_KEY", "v2", "x", "é", "naïve", "in favour of",
          ".", ",", "\n")
_TERMS = ("audience", "`audience`", "github_app", "oidc-audience", "@scope/pkg", "Redis",
          "redisCache", "cache.db", "api", "API_KEY", "naïve", "store", "index", "idx", "v2")


def _brute(rows, term, line, imperative):
    return any(at > line and term.lower() in lowered
               and reconcile.retires(text, term, imperative) for at, text, lowered in rows)


def test_the_indexed_search_answers_what_reading_every_message_does():
    rng = random.Random(29)
    retired = 0
    for _ in range(300):
        texts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 12)))
                 for _ in range(rng.randint(1, 12))]
        rows = [(at, text, text.lower()) for at, text in enumerate(texts, start=1)]
        said = reconcile._Said(rows)
        for term in _TERMS:
            line = rng.randint(0, len(rows))
            for imperative in (None, reconcile._USER_RETIRES):
                expected = _brute(rows, term, line, imperative)
                assert said.retire(term, line, imperative) == expected
                retired += expected
    assert retired >= 50  # the random messages do retire terms: not two answers of "no"


def test_containing_never_leaves_out_a_text_that_holds_the_literal():
    texts = ["Use the REDIS cache", "redisCache stays", "no cache here", "ſtore", "naïve"]
    index = Texts([text.lower() for text in texts])
    assert list(index.containing("redis") or ()) == [0, 1]
    assert index.containing("naïve") is None  # not ASCII: every text may hold it
    assert index.containing("v2") is None  # no piece long enough to look up
