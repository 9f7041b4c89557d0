"""A line that opens with a programming keyword is code only in code's shape: English
sentences open with the same words, and a rule said that way must reach the sentence model."""
from __future__ import annotations

import pytest

from claimgraph.capture.extract.prose import is_prose_line

PROSE = ["class names are PascalCase here", "return early rather than nest deeply.",
         "function names use camelCase in this repo", "export names from index.ts only",
         "package versions are pinned exactly"]
CODE = ["export default function App() {", "import os", "from x import y", "class Foo:",
        "class Foo(Base):", "def foo(x):", "const x = 1", "package main",
        "export PATH=/usr/bin", "public static void main(String[] args)", "return x",
        "#include <stdio.h>", "fn main() {", "var count = 0"]


@pytest.mark.parametrize("line", PROSE)
def test_a_sentence_opening_with_a_keyword_is_prose(line: str) -> None:
    assert is_prose_line(line)


@pytest.mark.parametrize("line", CODE)
def test_code_opening_with_a_keyword_is_not(line: str) -> None:
    assert not is_prose_line(line)
