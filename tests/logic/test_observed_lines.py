"""What a harness's record of a file's lines says of a line seen before it."""

from __future__ import annotations

from claimgraph.logic.observed_lines import (
    GONE, KEPT, UNKNOWN, SeenLines, index_of, number, numbered, overlaid, verdict)

BEFORE = ["PY ?= python3", "TAG ?= 1.0.0", "REGISTRY ?= localhost", "", "build:", "\tmake x"]


def test_a_snippet_is_read_by_its_numbers_and_its_truncation_notice_is_no_line():
    snippet = "1\tPY ?= python3\n2\tTAG ?= 1.0.1\n\n... [40 lines truncated] ..."
    assert numbered(snippet) == {1: "PY ?= python3", 2: "TAG ?= 1.0.1"}
    assert numbered(number("a\n\tb", 7)) == {7: "a", 8: "\tb"}


def test_a_line_shown_is_kept_wherever_it_moved():
    seen = SeenLines({10: "TAG ?= 1.0.0"})
    assert verdict(seen, BEFORE, 1) == KEPT


def test_a_line_replaced_between_its_neighbours_is_gone():
    seen = SeenLines({1: "PY ?= python3", 2: "TAG ?= 1.0.1", 3: "REGISTRY ?= localhost"})
    assert verdict(seen, BEFORE, 1) == GONE
    taken_out = SeenLines({1: "PY ?= python3", 2: "REGISTRY ?= localhost"})
    assert verdict(taken_out, BEFORE, 1) == GONE


def test_absence_from_a_snippet_proves_nothing():
    elsewhere = SeenLines({5: "build:", 6: "\tmake y"})
    assert verdict(elsewhere, BEFORE, 1) == UNKNOWN
    one_neighbour = SeenLines({1: "PY ?= python3", 2: "TAG ?= 1.0.1"})
    assert verdict(one_neighbour, BEFORE, 1) == UNKNOWN
    assert verdict(SeenLines({1: "x"}), BEFORE, 0) == UNKNOWN  # no line above to anchor


def test_a_whole_file_that_lacks_the_line_shows_it_gone():
    whole = SeenLines({1: "PY ?= python3"}, whole=True)
    assert verdict(whole, BEFORE, 1) == GONE
    assert verdict(SeenLines({1: "PY ?= python3"}), BEFORE, 1) == UNKNOWN


def test_the_quoted_line_is_found_whole_before_a_line_that_holds_it():
    lines = ["- run `make check` first", "make check"]
    assert index_of("make check", lines) == 1
    assert index_of("run `make check`", lines) == 0
    assert index_of("absent", lines) is None


def test_recorded_lines_replace_theirs_only_when_they_line_up():
    text = "\n".join(BEFORE)
    lined_up = SeenLines({1: "PY ?= python3", 2: "TAG ?= 1.0.1", 3: "REGISTRY ?= localhost"})
    assert overlaid(text, lined_up).split("\n")[1] == "TAG ?= 1.0.1"
    moved = SeenLines({1: "# header", 2: "PY ?= python3", 3: "TAG ?= 1.0.1"})
    assert overlaid(text, moved) == text
    past_the_end = SeenLines({9: "x"})
    assert overlaid(text, past_the_end) == text
