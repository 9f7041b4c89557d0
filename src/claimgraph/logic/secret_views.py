"""The text as a scanner should see it: line numbers gone, split literals and wrapped lines joined.

Transcripts quote files the way tools print them. Claude Code's Read puts ``     12→`` before
every line, ``cat -n`` and ``nl`` a right-aligned number and a tab, ``grep -n`` a ``path:12:``;
a key block or an ``.env`` line under such prefixes no longer looks like one. Code splits a
token over two literals (``"ghp_abc" "def…"``, ``'Bearer ' + 'tok'``), and ``fold`` wraps one
over lines of equal width. So redaction also looks at a VIEW of the text with those pieces
deleted, and maps each span it finds there back to the original (a span across a deleted
piece covers it too: the line numbers inside a key block go with the key).

A view is built only when one of its shapes occurs, so plain text costs one regex search.
"""

from __future__ import annotations

import bisect
import re

Span = tuple[int, int, str]
#: A line-number prefix: Read's arrow, ``cat -n``/``nl``'s tab or two spaces, ``grep -n``'s
#: ``path:N:`` or ``N:`` (also ``N-`` for grep's context lines).
_NUMBERED = re.compile(r"^(?:[ \t]{0,8}\d{1,7}(?:\u2192|\t| {2})|[\w./@+-]{0,200}:\d{1,7}[:-]"
                       r"|\d{1,7}[:-])", re.MULTILINE)
#: Two string literals side by side: the closing quote, a join (``+``, ``.``, ``||``, a line
#: break with its indent) and the opening quote of the next one.
_LITERAL_JOIN = re.compile(r"(?<=[^\s\"'])(?P<q>[\"'])[ \t]*(?:\+|\.|\|\||,\s*\n)?[ \t]*\\?\r?\n?[ \t]*"
                           r"(?P=q)(?=[^\s\"',;)])|(?<= )(?P<q2>[\"'])[ \t]*\+[ \t]*(?P=q2)")
#: A line of a wrapped token: token characters only (padding at its end); it must also mix
#: digits and letters or both cases (``_mixed``).
_WRAPPED_LINE = re.compile(r"^[A-Za-z0-9+/_.~-]{12,200}=*\r?$", re.MULTILINE)


def deletions(text: str) -> list[tuple[int, int]]:
    """The pieces of ``text`` the view leaves out, sorted and disjoint."""
    found = _numbered(text) + _joins(text) + _wraps(text)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _numbered(text: str) -> list[tuple[int, int]]:
    """Prefixes of numbered lines, when two or more lines in a row carry one."""
    prefixes = [m.span() for m in _NUMBERED.finditer(text)]
    if len(prefixes) < 2:
        return []
    kept = []
    for index, (start, end) in enumerate(prefixes):
        before = prefixes[index - 1] if index else None
        after = prefixes[index + 1] if index + 1 < len(prefixes) else None
        if (before and text.count("\n", before[1], start) == 1) or (
                after and text.count("\n", end, after[0]) == 1):
            kept.append((start, end))
    return kept


def _joins(text: str) -> list[tuple[int, int]]:
    if "'" not in text and '"' not in text:
        return []
    return [m.span() for m in _LITERAL_JOIN.finditer(text)]


def _wraps(text: str) -> list[tuple[int, int]]:
    """Line breaks between lines of one width (``fold``'s output; the last may be shorter)."""
    lines = [line for line in _WRAPPED_LINE.finditer(text) if _mixed(line[0])]
    found = []
    for this, following in zip(lines, lines[1:]):
        width = len(this[0].rstrip("\r"))
        adjacent = following.start() == this.end() + 1
        if adjacent and len(following[0].rstrip("\r")) <= width and (
                found and found[-1][2] == width or _same_width_follows(lines, following, width)):
            found.append((this.end() - (1 if this[0].endswith("\r") else 0), following.start(),
                          width))
    return [(start, end) for start, end, _ in found]


def _mixed(line: str) -> bool:
    digit = any(ch.isdigit() for ch in line)
    upper, lower = any(ch.isupper() for ch in line), any(ch.islower() for ch in line)
    return (digit and (upper or lower)) or (upper and lower)


def _same_width_follows(lines: list[re.Match[str]], line: re.Match[str], width: int) -> bool:
    return len(line[0].rstrip("\r")) == width or len(line[0].rstrip("\r")) < width


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


def view_of(text: str) -> View | None:
    """The view of ``text``, or None when nothing would be left out."""
    cut = deletions(text)
    return View(text, cut) if cut else None
