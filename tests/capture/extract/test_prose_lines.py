"""A line that opens with a programming keyword is code only in code's shape: English
sentences open with the same words, and a rule said that way must reach the sentence model."""
from __future__ import annotations

import pytest

from claimgraph.capture.extract.prose import (
    is_prose_line, split_paste, split_sentences, typed_part)

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


@pytest.mark.parametrize("text,said", [
    ("I got this error when running the build:\n$ npm run build\nnpm ERR! missing script: build",
     "I got this error when running the build:"),
    ("Never run the deploy by hand:\\\nuser@box:~/shop$ ./deploy.sh\n"
     "2026-01-02 10:00:01 ERROR deploy failed", "Never run the deploy by hand:\\"),
    ("Here is the failure:\n```\nE   KeyError: 'size'\n```\nAlways keep the fixtures small.",
     "Here is the failure:\nAlways keep the fixtures small."),
])
def test_the_persons_lines_are_split_from_what_they_pasted(text: str, said: str) -> None:
    found = split_paste(text)
    assert found is not None and found[0] == said and said not in found[1]


@pytest.mark.parametrize("text", [
    "Please fix the tests.\nAlso keep the output short.",             # nothing pasted
    "Traceback (most recent call last):\nValueError: x",              # no words of the person
    "The build fails\nnpm ERR! missing script: build",                # no lead-in, no fence
    "About your plan:\n> use a queue for the jobs\nNo, never add a queue.",  # a quote, no log
])
def test_text_that_does_not_hand_over_to_a_paste_is_not_split(text: str) -> None:
    assert split_paste(text) is None


def test_a_copied_web_page_is_not_the_persons_words_only_what_they_typed_before_it():
    page = ("does our card need more fields? [|](https://catalog.example.org/)\n"
            "[Catalog](https://catalog.example.org/)\n[About](https://catalog.example.org/about)\n"
            "About\nEvery entry must declare its type and should link its metadata.\n"
            "* [Specification](https://spec.example.org)\n")
    assert typed_part(page) == "does our card need more fields? "


def test_a_link_or_two_in_the_persons_own_prose_keeps_the_message_whole():
    text = ("Use tabs, as [the guide](https://example.org/guide) says.\n"
            "- [issue](https://example.org/1)\nAnd always run the linter.")
    assert typed_part(text) == text


@pytest.mark.parametrize("paragraph, sentences", [
    ("Support flags, env vars, etc. Always run the tests first.",
     ["Support flags, env vars, etc.", "Always run the tests first."]),
    ("Use a bundler, e.g. Vite for the app.", ["Use a bundler, e.g. Vite for the app."]),
    ("Flags, env vars, etc. are read at start.", ["Flags, env vars, etc. are read at start."]),
    ("Compare A vs. B first. Then pick one.", ["Compare A vs. B first.", "Then pick one."]),
])
def test_etc_ends_a_sentence_only_before_a_capital(paragraph, sentences):
    assert split_sentences(paragraph) == sentences
