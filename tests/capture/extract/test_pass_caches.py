"""A capture pass lets go of the module caches its rules fill (``pass_caches``): the sentence
features' buckets once the statements rule has run, what only the rules read before
``digest``, the rest once extraction is over; and the facts are the ones a pass that kept
every cache gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimgraph.capture.classify import features, model
from claimgraph.capture.classify.features import featurize
from claimgraph.capture.extract import builtin, lessons, shell
from claimgraph.capture.segment import read_cleaned

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "claude-code"
SESSIONS = sorted(FIXTURES.glob("*.jsonl"))


def _buckets() -> int:
    return len(features._WORDS) + len(features._PAIRS) + len(features._FIRSTS)


def _shell_kept() -> int:
    return sum(cache.cache_info().currsize
               for cache in (shell.invocations, shell._parsed, shell._unwrapped))


@pytest.mark.parametrize("path", SESSIONS, ids=[p.stem[:12] for p in SESSIONS])
def test_the_caches_a_pass_fills_are_let_go_and_the_facts_are_the_same(path, monkeypatch):
    cleaned, _ = read_cleaned(str(path), "claude-code")
    after_rule, digest = builtin.after_rule, builtin.digest
    filled: list[int] = []  # the buckets as the statements rule left them
    left: list[int] = []  # and once it was done with
    at_digest: list[tuple[int, int, int]] = []

    def noting(rule):
        if rule is builtin.statement_candidates:
            filled.append(_buckets() + model.shipped.cache_info().currsize)
        after_rule(rule)
        if rule is builtin.statement_candidates:
            left.append(_buckets() + model.shipped.cache_info().currsize)

    def digesting(view):
        at_digest.append((_buckets(), lessons.same_command_key.cache_info().currsize,
                          shell._unwrapped.cache_info().currsize))
        return digest(view)

    monkeypatch.setattr(builtin, "after_rule", noting)
    monkeypatch.setattr(builtin, "digest", digesting)
    facts = builtin.extract(cleaned)
    assert filled and filled[0] > 1  # the model read the person's sentences into its buckets
    assert left == [0]
    assert at_digest == [(0, 0, 0)]
    assert _buckets() == 0 and _shell_kept() == 0  # nothing the pass filled outlives it

    for name in ("after_rule", "after_rules", "after_pass"):  # a pass that keeps them all
        monkeypatch.setattr(builtin, name, lambda *_: None)
    assert builtin.extract(cleaned) == facts
    assert _shell_kept() > 0  # kept this time: the rules did fill the shell's caches


def test_word_pairs_kept_stay_bounded_and_give_the_same_features(monkeypatch):
    monkeypatch.setattr(features, "_PAIRS_MAX", 4)
    features.clear_buckets()
    sentence = "one two three four five six seven eight nine ten eleven"
    warm = featurize(sentence)
    assert 0 < len(features._PAIRS) <= 4
    features.clear_buckets()
    assert _buckets() == 0
    assert featurize(sentence) == warm
