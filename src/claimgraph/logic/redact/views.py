"""The text as a scanner should see it: line numbers gone, split literals and wrapped lines joined.

Transcripts quote files the way tools print them. Claude Code's Read puts ``     12→`` before
every line, ``cat -n`` a right-aligned number and a tab, ``nl`` two spaces, ``grep -n`` a
``path:12:``; a key block or an ``.env`` line under such prefixes no longer looks like one.
Read's and ``cat -n``'s prefixes (the common case, seven characters wide) are blanked in place
(``blank_listing``: no position moves); the others go with the view below. Code splits a
token over two literals (``"ghp_abc" "def…"``, ``'Bearer ' + 'tok'``), and ``fold`` wraps one
over lines of equal width. So redaction also looks at a VIEW of the text with those pieces
deleted, and maps each span it finds there back to the original (a span across a deleted
piece covers it too: the line numbers inside a key block go with the key).

A view is built only when one of its shapes occurs, so plain text costs one regex search.
"""

from __future__ import annotations

import bisect
from claimgraph.logic.lazy_regex import lazy_regex

Span = tuple[int, int, str]
#: A line-number prefix: Read's arrow, ``cat -n``/``nl``'s tab or two spaces after a number at
#: a line's start; ``grep -n``'s ``path:N:`` (or ``N-`` for a context line) is found from its
#: ``:N:`` (a literal start keeps the search fast) and checked back to its line's start.
_NUMBER_AT_LINE = lazy_regex(r"\n([ \t]{0,8}(\d{1,7})(?: {2}|[:-](?=\S)))")
#: Claude Code's Read (``{n:>6}→``) and ``cat -n`` (``{n:>6}\t``): seven characters wide up to
#: line 999,999, so they are blanked in place (no positions move) by one substitution.
_LISTING = lazy_regex(r"(?=[ ]{0,5}\d)[ \d]{6}[\u2192\t]")
#: The same after a line break: a pattern that starts with a literal is searched for that
#: literal first, where a ``(?m)^`` pattern is tried at every position of the text.
_LISTING_LINE = lazy_regex(r"\n(?=[ ]{0,5}\d)[ \d]{6}[\u2192\t]")
_BLANK = " " * 7
_BLANK_LINE = "\n" + _BLANK
_CAT_N = lazy_regex(r"\n {0,5}\d{1,6}\t")
_GREP_N = lazy_regex(r"\n([\w./@+-]{1,200}+:(\d{1,7})[:-])")
#: Two string literals side by side: the closing quote, a join (``+``, ``.``, ``||``, a line
#: break with its indent) and the opening quote of the next one (checked around in Python).
_LITERAL_JOIN = lazy_regex(r"([\"'])[ \t]*(?:\+|\.|\|\|)?[ \t]*\\?\r?\n?[ \t]*\1")
JOIN_REACH = 96
LINE_MARKERS = ("-----", "MII", "b3BlbnNzaC1", "Private-Lines", "---- BEGIN", "kind: Secret",
                ": |", ": >")
#: A quote then what may join it to the next literal: without one, ``_joins`` has nothing to do
#: (one search, where testing each of the twelve pairs as a substring took twelve).
_ANY_JOIN_PAIR = lazy_regex("[\"'][ +.|\n\t]")
_JOIN_EDGE = frozenset(" \t\n\"',;)")
#: A line of a wrapped token: token characters only (padding at its end); it must also mix
#: digits and letters or both cases (``_mixed``).
#: Lines 60 to 76 wide are base64's and PEM's own wrapping: a key's body, which the key rules
#: read line by line; they are never joined.
_BASE64_WIDTHS = (60, 76)
_WRAPPED_LINE = lazy_regex(r"\n([A-Za-z0-9+/_.~-]{12,200}=*\r?)(?=\n|\Z)")


def blank_listing(text: str) -> str:
    """``text`` with Read's and ``cat -n``'s line numbers turned into spaces, same length."""
    if "\u2192" not in text and ("\t" not in text or not _CAT_N.search("\n" + text)):
        return text
    blanked = _LISTING_LINE.sub(_BLANK_LINE, text)  # every line but the first
    return _BLANK + blanked[7:] if _LISTING.match(blanked) else blanked


def deletions(text: str, near: list[int] | None = None,
              marked: bool | None = None) -> list[tuple[int, int]]:
    """The pieces of ``text`` the view leaves out, sorted and disjoint. Literal joins are
    looked for only within ``JOIN_REACH`` after a place ``near`` where a token could start (a
    split token keeps its prefix, a split header its ``Bearer``), when given, and wraps only
    when there is such a place. grep's and nl's numbers matter only to rules that read line
    by line (key blocks, manifests: ``LINE_MARKERS``); elsewhere a name's run stops at them.
    ``marked``: whether a marker occurs, when the caller's trigger scan found that already
    (eight substring searches of the whole text saved; None: they are made here)."""
    if marked is None:
        marked = any(marker in text for marker in LINE_MARKERS)
    numbered = _numbered(text) if marked else []
    if near is not None and not near:
        return numbered  # no token can start anywhere: nothing split or wrapped to join
    found = numbered + _joins(text, near) + _wraps(text)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _numbered(text: str) -> list[tuple[int, int]]:
    """Prefixes of numbered lines: two or more line prefixes in a row whose numbers count up by
    one (a listing; ``host:5432:…`` lines of a ``.pgpass`` repeat their number and stay)."""
    prefixes = [(m.start(1) - 1, m.end(1) - 1, int(m[2]))
                for m in _NUMBER_AT_LINE.finditer("\n" + text)]
    if "\n" in text:
        prefixes += [(m.start(1) - 1, m.end(1) - 1, int(m[2]))
                     for m in _GREP_N.finditer("\n" + text)]
    if len(prefixes) < 2:
        return []
    prefixes.sort()
    numbers = [number for _, _, number in prefixes]
    counted = [a + 1 == b for a, b in zip(numbers, numbers[1:])]
    return [(start, end) for index, (start, end, _) in enumerate(prefixes)
            if (index and counted[index - 1]) or (index < len(counted) and counted[index])]


def _joins(text: str, near: list[int] | None = None) -> list[tuple[int, int]]:
    """``"abc" "def"``, ``'abc' + 'def'``: the quotes and the join between two literals."""
    if not _ANY_JOIN_PAIR.search(text):
        return []
    if near is None:
        windows = [(0, len(text))]
    else:
        windows = []
        for at in sorted(near):
            if windows and at <= windows[-1][1]:
                windows[-1] = (windows[-1][0], min(len(text), at + JOIN_REACH))
            else:
                windows.append((at, min(len(text), at + JOIN_REACH)))
    found = []
    for match in (m for start, end in windows for m in _LITERAL_JOIN.finditer(text, start, end)):
        start, end = match.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        joined = match[0][1:-1]
        if after in _JOIN_EDGE or (before in _JOIN_EDGE and not (before == " " and "+" in joined)):
            continue
        if not joined.strip(" \t") and "\n" not in joined and " " not in joined:
            continue  # '' or "" : an empty literal, not a join
        found.append((start, end))
    return found


def _wraps(text: str) -> list[tuple[int, int]]:
    """Line breaks between lines of one width (``fold``'s output; the last may be shorter)."""
    if text.count("\n") < 1:
        return []
    lines = [(m.start(1) - 1, m.end(1) - 1, m[1]) for m in _WRAPPED_LINE.finditer("\n" + text)]
    found = []
    for (_, end, line), (next_start, _, next_line) in zip(lines, lines[1:]):
        width = len(line.rstrip("\r"))
        if next_start == end + 1 and len(next_line.rstrip("\r")) <= width \
                and not _BASE64_WIDTHS[0] <= width <= _BASE64_WIDTHS[1] \
                and _mixed(line) and _mixed(next_line):
            found.append((end - (1 if line.endswith("\r") else 0), next_start, width))
    return [(start, end) for start, end, _ in found]


def _mixed(line: str) -> bool:
    digit = any(ch.isdigit() for ch in line)
    upper, lower = any(ch.isupper() for ch in line), any(ch.islower() for ch in line)
    return (digit and (upper or lower)) or (upper and lower)


class View:
    """``text`` without ``cut`` pieces, and the way back to the original's positions."""

    def __init__(self, text: str, cut: list[tuple[int, int]]) -> None:
        pieces, self.view_starts, self.orig_starts = [], [], []
        done, size = 0, 0
        for start, end in cut + [(len(text), len(text))]:
            self.view_starts.append(size)
            self.orig_starts.append(done)
            pieces.append(text[done:start])
            size += start - done
            done = end
        self.text = "".join(pieces)

    def original(self, position: int, is_end: bool) -> int:
        """Where a view position lies in the original (an end at a cut stays before it)."""
        probe = position - 1 if is_end and position else position
        index = bisect.bisect_right(self.view_starts, probe) - 1
        mapped = self.orig_starts[index] + (probe - self.view_starts[index])
        return mapped + 1 if is_end and position else mapped

    def spans_back(self, spans: list[Span]) -> list[Span]:
        return [(self.original(start, False), self.original(end, True), kind)
                for start, end, kind in spans]


def view_of(text: str, near: list[int] | None = None,
            marked: bool | None = None) -> View | None:
    """The view of ``text``, or None when nothing would be left out (``near``, ``marked``:
    see ``deletions``)."""
    if "\n" not in text and "'" not in text and '"' not in text:
        return None  # one line, no literal: nothing to strip or join
    cut = deletions(text, near, marked)
    return View(text, cut) if cut else None
