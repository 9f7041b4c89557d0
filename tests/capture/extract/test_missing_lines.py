"""The dependency rule's "what was missing" lines, found with one search of a failed output,
are the lines a search of each line finds (dependencies._lines_saying_missing)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.extract.dependencies import _MISSING, _lines_saying_missing

_BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
           "\u2029"]
_WORDS = ["No module named", "cannot find package", "could not resolve", "Module not found",
          "unresolved import", "NOT FOUND", "not installed", "missing", "no matching",
          "is required", "requires", "require", "required", "requirement", "x", "  ", "_", "é",
          "ok", "node", "not", "fo", "und", "requireé", "MISSİNG", "ıs required", "miſſing",
          "\u212aNOT FOUND", "nоt found", "→", "\ud83d"]


def _per_line(text: str) -> list[str]:
    return [line for line in text.splitlines() if _MISSING.search(line)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS + _BREAKS), max_size=40))
def test_one_search_finds_the_lines_each_line_search_finds(parts: list[str]) -> None:
    text = "".join(parts)
    assert _lines_saying_missing(text) == _per_line(text)


def test_non_ascii_text_is_read_as_the_case_blind_pattern_reads_it() -> None:
    text = "✓ ok\nrequireé\nMISSİNG dep\nmiſſing\nis requiredé\n"
    expected = ["MISSİNG dep", "miſſing", "is requiredé"]
    assert _lines_saying_missing(text) == _per_line(text) == expected


def test_a_line_with_two_matches_is_given_once_and_lines_keep_their_order() -> None:
    text = "ok\r\nmissing x, not found\nfine\x85requires y\nrequires"
    assert _lines_saying_missing(text) == ["missing x, not found", "requires y", "requires"]


def test_no_match_no_line() -> None:
    assert _lines_saying_missing("all good\nrequired_field=1x") == []
