"""Searching the session's work through its word index answers what reading every text does
(``word_index``), reads only the texts that hold a name's word, and rests on how
``re.IGNORECASE`` matches letters, which is checked here against ``re`` itself."""

from __future__ import annotations

import re
import sys
from typing import Any, Iterator

import pytest

from claimgraph.capture.extract import afterwards, pick_scope
from claimgraph.capture.extract.answers import answer_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.word_index import (
    _FOLD, Joined, Part, Query, Texts, found_in, folded, pieces)

from .extract_helpers import ROOT, Session

#: every character a pattern or a text may hold (surrogates cannot stand alone in a str)
EVERY = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
#: what the index takes for a word's character: ``[A-Za-z0-9]`` under ``re.IGNORECASE``
WORDLIKE = set(re.findall(r"(?i)[A-Za-z0-9]", EVERY))


def test_the_fold_is_what_ignorecase_takes_for_an_ascii_letter_or_digit():
    assert WORDLIKE == set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                           "\u0130\u0131\u017f\u212a")
    assert {folded(c) for c in WORDLIKE} == set("abcdefghijklmnopqrstuvwxyz0123456789")
    for char in sorted(WORDLIKE):  # as a pattern: it matches its fold's letters, no other
        matched = set(re.findall(re.escape(char), EVERY, re.IGNORECASE))
        assert matched <= WORDLIKE
        assert {folded(c) for c in matched} == {folded(char)}, char
    for char in EVERY:  # any other character of a pattern matches none of them
        if char in WORDLIKE or not _case_relative(char):
            continue
        assert not re.findall(re.escape(char), "".join(sorted(WORDLIKE)), re.IGNORECASE), char


def _case_relative(char: str) -> bool:
    """``char`` could match a word's character under IGNORECASE (its case forms meet one);
    the others cannot, which checking all 1.1M characters once (12 s) confirmed."""
    forms = {char.lower(), char.upper(), char.casefold(), char.title(), char.swapcase()}
    return any(c in WORDLIKE or folded(c) in WORDLIKE for form in forms for c in form)


def test_folded_is_translate_on_any_text_and_lower_on_ascii():
    for text in ("", "ABC_def-09", "Straße ſrc İx ıy \u212aelvin", "ÀÉÎ"):
        assert folded(text) == text.translate(_FOLD)
    assert folded("MiXeD Case") == "mixed case"


def test_pieces_are_the_runs_long_enough_to_look_up():
    assert pieces("") == ()
    assert pieces("a.b") == ()  # too short: such a name is searched in every text
    assert pieces(".state/Cache.db") == ("state", "cache")
    assert pieces("board_status") == ("board", "status")  # "_" is no letter of a run
    assert pieces("ſrc/src") == ("src",)
    assert pieces("café-x1y") == ("caf", "x1y")


TEXTS = ["", "CACHE = Path('.state/cache.db')", "print('hello')", "git commit -m 'fix'",
         "editorPanel = EditorPanel()", "the editor_panel module", "EDITOR PANELS",
         "ſtate/cache.db", "\u212aelvin.py", "İstanbul.txt", "istanbul.txt", "x_state/cache.db",
         "stateful/cache.dbx", "a.b and a.b.c", "the ÉDITOR panel", "café-x1y café-x1yz"]
TOKENS = [".state/cache.db", "state/cache.db", "mit", "kelvin.py", "istanbul.txt", "a.b",
          "board_status", "café-x1y", "x1y", "cache", "nowhere-to-be-found"]
LABELS = ["Editor Panel", "editor panels", "Café X1y", "State Cache"]


def _queries() -> list[Query]:
    found = [Query(pick_scope._mention(t), pieces(t), whole=True) for t in TOKENS]
    for label in LABELS:
        phrase = pick_scope.label_phrase(label)
        assert phrase is not None
        found.append(Query(phrase, pieces(pick_scope.bare(label)), whole=False))
    return found


def _plain(texts: list[str], query: Query) -> bool:
    return any(query.pattern.search(text) is not None for text in texts)


@pytest.mark.parametrize("size", [0, 1, len(TEXTS)])
def test_a_part_holds_a_match_exactly_when_one_of_its_texts_has_one(size):
    texts = TEXTS[:size]
    indexed = Texts(texts)
    flags = [i % 2 == 0 for i in range(size)]
    for query in _queries():
        for start in range(size + 1):
            for end in range(start, size + 1):
                part = Part(indexed, start, end)
                assert part.holds(query) == _plain(texts[start:end], query)
                assert list(part) == texts[start:end]
                kept = [t for t, keep in zip(texts[start:end], flags[start:end]) if keep]
                flagged = Part(indexed, start, end, flags)
                assert flagged.holds(query) == _plain(kept, query)
                assert list(flagged) == kept and len(flagged) == len(kept)


def test_joined_parts_hold_what_either_holds_and_read_in_order():
    first, second = Texts(TEXTS[:5]), Texts(TEXTS[5:])
    joined = Joined(Part(first, 1, 3), Part(second, 0, 2))
    assert list(joined) == [*TEXTS[1:3], *TEXTS[5:7]] and len(joined) == 4
    assert joined[2] == TEXTS[5] and joined[1:3] == [TEXTS[2], TEXTS[5]]
    for query in _queries():
        assert found_in(joined, query) == _plain(list(joined), query)
        assert found_in(list(joined), query) == _plain(list(joined), query)
    assert not found_in(Joined(), _queries()[0])


def test_a_part_reads_like_a_list():
    indexed = Texts(TEXTS)
    part = Part(indexed, 3, 8, [True, False] * 8)
    assert part[0] == TEXTS[4] and part[-1] == TEXTS[6] and part[:2] == [TEXTS[4], TEXTS[6]]
    assert Part(indexed, 5, 2).holds(_queries()[0]) is False  # an empty span
    assert len(Part(indexed, 5, 2)) == 0


class _Counting(list):
    """Texts that count how many of them are read, one by one or by iteration."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        found = super().__getitem__(index)
        self.reads += len(found) if isinstance(index, slice) else 1
        return found

    def __iter__(self) -> Iterator[Any]:
        for item in super().__iter__():
            self.reads += 1
            yield item


def test_a_search_reads_only_the_texts_holding_the_names_rarest_word():
    texts = _Counting([f"echo step {i} of the build" for i in range(2000)])
    texts[1500:1500] = ["cp build/out.tar /srv/releases/"]
    indexed = Texts(texts)
    query = Query(pick_scope._mention("releases/"), pieces("releases/"), whole=True)
    assert Part(indexed, 0, len(texts)).holds(query)  # the index is built: every text once
    texts.reads = 0
    assert Part(indexed, 1000, len(texts)).holds(query)
    assert not Part(indexed, 1600, len(texts)).holds(query)
    assert texts.reads == 1  # the one text holding "releases", read once


QUESTION = {"question": "Where should the cache of run {i} live?", "header": "Cache",
            "options": [{"label": "Beside the data", "description": "At `.state/c{i}.db`"},
                        {"label": "In the home directory", "description": "At `~/.c{i}.db`"}]}


def _answered(rounds: int) -> tuple[Session, list[str]]:
    """``rounds`` questions, each answered and then acted on by a write naming the pick, with
    work between (commands naming nothing of the options)."""
    session, kept = Session(), []
    for i in range(rounds):
        question = {k: (v.replace("{i}", str(i)) if isinstance(v, str) else v)
                    for k, v in QUESTION.items()}
        question["options"] = [{k: v.replace("{i}", str(i)) for k, v in o.items()}
                               for o in QUESTION["options"]]
        asked = question["question"]
        session.tool("AskUserQuestion", {"questions": [question]},
                     output=f'User has answered your questions: "{asked}"="Beside the data".')
        for step in range(3):
            session.bash(f"make step{step} ROUND={i}", output="ok")
        session.write(f"{ROOT}/src/cache{i}.py", f'PATH = ".state/c{i}.db"\n')
        kept.append(f"Cache: Beside the data — At `.state/c{i}.db` (asked \"{asked}\")")
    return session, kept


def _texts_read(rounds: int) -> tuple[int, list[str]]:
    session, kept = _answered(rounds)
    view = SessionView.of(session.transcript(), ROOT)
    lines, indexed, written = afterwards._remembered(view)
    counting = _Counting(indexed.texts)
    indexed.texts = counting
    found = [c["object"] for c in answer_candidates(view) if c["predicate"] == "x/decided"]
    assert found == kept
    return counting.reads, found


def test_the_answers_rule_reads_the_work_a_fixed_number_of_times_per_text():
    small, _ = _texts_read(25)
    large, _ = _texts_read(100)
    assert small >= 25 * 4  # the index reads every piece of work
    assert large <= 4 * small + 100  # a scan per question read ~n²/2 texts: 16× as many
