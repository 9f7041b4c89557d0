"""Texts searched for one name after another, through an index of their words built once.

The answers rule asks of each question the agent put whether a name only the picked option
holds shows in the work after it and in none of the work before (``pick_scope``): a search
of most of what the session wrote and ran, name by name, question by question, which grew
with the square of the session's length (issue 29). ``Texts`` keeps the texts in order and,
on the first search, the texts each word is in; a search then reads only the texts that
hold the name's rarest word, and answers what reading every text would.

Why a word is enough: the searches are case-insensitive patterns of literal letters and
digits (``Query``). Under ``re.IGNORECASE`` an ASCII letter or digit of a pattern matches
only an ASCII letter or digit or one of four other letters (``_FOLD``: "ſ" for "s", the
Kelvin sign for "k", the Turkish dotted and dotless i for "i"), the same one once folded,
and no other character of a pattern matches any of those; a test checks this against
``re`` over every code point. So each run of those characters in the pattern's literal
text (a piece), folded, stands in a text the pattern matches inside one of the text's own
runs, folded the same way: the whole run when the pattern's edges are word boundaries and
the piece lies between them (``Query.whole``), else a part of it.
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass
from typing import Iterator, Sequence, overload

#: the letters ``re.IGNORECASE`` takes for an ASCII letter, as that letter in lower case
_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ\u0130\u0131\u017f\u212a",
                      "abcdefghijklmnopqrstuvwxyziisk")
#: a piece short enough to stand in most texts narrows nothing: neither indexed nor looked up
MIN_PIECE = 3
_WORD = re.compile(r"[a-z0-9]{%d,}" % MIN_PIECE)


def folded(text: str) -> str:
    """``text`` with the letters of ``_FOLD`` folded (``str.lower`` on ASCII: the same)."""
    return text.lower() if text.isascii() else text.translate(_FOLD)


def pieces(literal: str) -> tuple[str, ...]:
    """The runs of ASCII letters and digits (``_FOLD``) of a pattern's literal text, folded,
    each once, that are long enough to be looked up."""
    return tuple(dict.fromkeys(_WORD.findall(folded(literal))))


@dataclass(frozen=True)
class Query:
    """A search: ``pattern`` (case-insensitive), and ``pieces`` of its literal text, which
    each text it matches holds inside its runs: each as a whole run when ``whole``."""

    pattern: re.Pattern[str]
    pieces: tuple[str, ...]
    whole: bool


class Texts:
    """Texts in order, with an index of the texts each word (a run of ``_FOLD`` letters and
    digits, folded, ``MIN_PIECE`` long or more) is in, built on the first search."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self._words: dict[str, array[int]] | None = None
        self._vocabulary: str | None = None

    def candidates(self, query: Query) -> Sequence[int] | None:
        """The positions, in order, of the texts that may match: those holding the query's
        rarest piece; None when it has none to look up (every text may match)."""
        if not query.pieces:
            return None
        return min((self._holding(piece, query.whole) for piece in query.pieces), key=len)

    def _holding(self, piece: str, whole: bool) -> Sequence[int]:
        words = self._index()
        if whole:
            return words.get(piece, ())
        if self._vocabulary is None:
            self._vocabulary = "\n" + "\n".join(words) + "\n"
        vocabulary, found = self._vocabulary, set[int]()
        at = vocabulary.find(piece)
        while at != -1:
            start, end = vocabulary.rfind("\n", 0, at) + 1, vocabulary.find("\n", at)
            found.update(words[vocabulary[start:end]])
            at = vocabulary.find(piece, end)
        return sorted(found)

    def _index(self) -> dict[str, array[int]]:
        """Each word's texts by position, 4 bytes each (a list held twice that, ~2 MB more
        at the 200 MB benchmark, where the index is ~4 MB)."""
        if self._words is None:
            words: dict[str, array[int]] = {}
            for position, text in enumerate(self.texts):
                for word in set(_WORD.findall(folded(text))):
                    held = words.get(word)
                    if held is None:
                        words[word] = array("I", (position,))
                    else:
                        held.append(position)
            self._words = words
        return self._words


class Part(Sequence[str]):
    """Some of a ``Texts``' texts, in order: those at ``start`` <= position < ``end``, and
    of those only the ones ``only`` flags when it is given."""

    def __init__(self, source: Texts, start: int, end: int,
                 only: Sequence[bool] | None = None) -> None:
        self.source, self.start, self.end, self.only = source, start, max(start, end), only
        self._positions: list[int] | None = None

    def holds(self, query: Query) -> bool:
        """Some text of the part matches the query's pattern."""
        candidates = self.source.candidates(query)
        if candidates is None:
            return any(query.pattern.search(text) is not None for text in self)
        texts, only, search = self.source.texts, self.only, query.pattern.search
        for index in range(bisect.bisect_left(candidates, self.start), len(candidates)):
            position = candidates[index]
            if position >= self.end:
                break
            if (only is None or only[position]) and search(texts[position]) is not None:
                return True
        return False

    def positions(self) -> list[int]:
        if self._positions is None:
            span = range(self.start, self.end)
            only = self.only
            self._positions = list(span) if only is None else [p for p in span if only[p]]
        return self._positions

    def __iter__(self) -> Iterator[str]:
        texts = self.source.texts
        if self.only is None:
            return (texts[position] for position in range(self.start, self.end))
        return (texts[position] for position in self.positions())

    def __len__(self) -> int:
        return self.end - self.start if self.only is None else len(self.positions())

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        texts = self.source.texts
        if isinstance(index, slice):
            return [texts[position] for position in self.positions()[index]]
        return texts[self.positions()[index]]


class Joined(Sequence[str]):
    """Parts one after another."""

    def __init__(self, *parts: Part) -> None:
        self.parts = parts

    def holds(self, query: Query) -> bool:
        return any(part.holds(query) for part in self.parts)

    def __iter__(self) -> Iterator[str]:
        return (text for part in self.parts for text in part)

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        return list(self)[index]


def found_in(texts: Sequence[str], query: Query) -> bool:
    """Some of ``texts`` matches the query's pattern: through the index when they are a
    ``Part`` or ``Joined`` parts of indexed texts, else text by text."""
    if isinstance(texts, (Part, Joined)):
        return texts.holds(query)
    return any(query.pattern.search(text) is not None for text in texts)
