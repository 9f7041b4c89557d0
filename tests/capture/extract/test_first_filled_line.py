"""``first_filled_line`` (manifest_common): the first line with something on it, found without
splitting a whole file's text, exactly as splitting it all would find it."""

from __future__ import annotations

import random

from claimgraph.capture.extract.manifest_common import first_filled_line, strip_line_numbers


def _reference(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def test_the_same_line_as_splitting_the_whole_text() -> None:
    pieces = ["a", "é", "→", "😀", "\n", "\r", "\r\n", " ", "\t", "\u2028", "\x0c", "\x1c",
              "\x85", "x" * 700, " " * 900, "\n" * 300]
    rng = random.Random(29)
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert first_filled_line(text) == _reference(text), repr(text)


def test_a_line_cut_by_the_head_or_found_after_a_long_blank_start() -> None:
    for text in ("", "   \n\n", " " * 5000 + "\n" + "   7→x", "\n" * 1023 + "\r\n" + "y" * 5000,
                 "z" * 1023 + "\r\nnext", " " * 1024 + "w", "\n" * 4096):
        assert first_filled_line(text) == _reference(text)


def test_line_numbers_still_come_off_after_blank_lines() -> None:
    text = "\n" * 2000 + "".join(f"{n:6d}→line {n}\n" for n in range(1, 50))
    assert strip_line_numbers(text) == "\n" * 2000 + "".join(f"line {n}\n" for n in range(1, 50))
