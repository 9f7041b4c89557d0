"""The noise class ``quiet`` leaves out: a convention another convention of the same capture
says in more words."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.quiet import quiet


def _fact(predicate: str, said: str, subject: str = "shop") -> dict[str, str]:
    return {"subject": subject, "predicate": predicate, "object": said}


STYLE = ("Write strict TypeScript in the house style: tabs for indentation, semicolons "
         "everywhere, and single-quoted strings where possible")


def test_a_convention_another_says_in_more_words_is_told_once():
    short = _fact("x/convention", "Indentation: Use tabs for indentation")
    long = _fact("x/convention", STYLE)
    assert quiet([short, long]) == [long]


@pytest.mark.parametrize("said", [
    "Never use tabs for indentation",  # the opposite rule: its negation is a word
    "Quotes: Use single quotes unless escaping is necessary",  # more than the other says
    "Semicolons: Always use semicolons",  # one word: too little to tell
])
def test_a_convention_with_words_of_its_own_is_kept(said):
    found = [_fact("x/convention", said), _fact("x/convention", STYLE)]
    assert quiet(found) == found


def test_other_predicates_are_untouched():
    found = [_fact("x/state", "Use tabs"), _fact("x/state", "Use tabs for indentation")]
    assert quiet(found) == found


def test_a_decision_is_not_folded_into_a_convention():
    found = [_fact("x/decided", "Use tabs for indentation"), _fact("x/convention", STYLE)]
    assert quiet(found) == found


TESTING = ("Write tests as `*.test.ts` under `src/test/`. Prefer fixture-based tests for "
           "parser output, price rounding and cart merges. Every change should update its tests")


def test_a_rule_whose_first_sentence_another_says_and_whose_rest_only_describes_is_told_once():
    """The second sentence says where the fixtures live: no rule of its own."""
    short = _fact("x/convention", "Fixtures: Prefer fixture-based tests for tricky logic such "
                  "as parser output or cart merges. Existing fixtures live in `src/test/data/`")
    long = _fact("x/convention", TESTING)
    assert quiet([short, long]) == [long]


def test_a_rule_with_a_rule_of_its_own_after_the_said_one_is_kept():
    other = _fact("x/convention", "Fixtures: Prefer fixture-based tests for parser output or "
                  "cart merges. Never edit the files in `src/test/data/` by hand")
    found = [other, _fact("x/convention", TESTING)]
    assert quiet(found) == found


def test_two_rules_that_each_say_the_others_first_sentence_are_told_once_not_never():
    """The same paragraph in two instruction files, each with its own description after
    its rule: one of them is kept."""
    one = _fact("x/convention", "Fixtures: Prefer fixture-based tests for the parser over "
                "inline strings. The fixtures are kept in `tests/data/`")
    two = _fact("x/convention", "Fixtures: Prefer fixture-based tests for the parser over "
                "inline strings. Existing fixtures live in `tests/data/parser/`")
    assert len(quiet([one, two])) == 1
