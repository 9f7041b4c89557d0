"""logic/terminal.py: a program's coloured output read as words."""

from claimgraph.logic.terminal import without_escapes


def test_colour_and_cursor_escapes_are_taken_out():
    coloured = "\x1b[?25l\x1b[31mFAILED\x1b[0m tests/test_x.py::test_y\x1b[?25h"
    assert without_escapes(coloured) == "FAILED tests/test_x.py::test_y"


def test_text_without_escapes_is_unchanged():
    assert without_escapes("3 passed in 0.1s [100%]") == "3 passed in 0.1s [100%]"
