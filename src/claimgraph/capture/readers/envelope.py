"""What a harness wraps around the words a person typed, told apart by its shape, not its words.

An agent's harness puts its own text into the person's turn: the file an IDE has open
("<ide_opened_file>The user opened the file … in the IDE …</ide_opened_file>"), a selection, a
reminder, a teammate's or a background task's message, a monitor's event. Claude Code wraps
each in a markup element with a machine-style name -- words joined by ``-`` or ``_``
(``ide_opened_file``, ``system-reminder``, ``teammate-message``) -- set before or after what
the person typed, often as a text block of its own. The wording inside changes every few
weeks; that shape has not, so an envelope is recognized by it (``typed_text``), never by a
phrase. Read as the person's, "The user opened the file CLAUDE.md" made them name a page
they never mentioned.

A person does not wrap their words in such an element. Text they pasted that looks like one
(a custom HTML element opening the message or closing it) is markup, not a sentence of theirs,
and dropping it costs no statement.
"""

from __future__ import annotations

import re

#: A machine-style element name: two words or more joined by "-" or "_".
_NAME = r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+"
#: An element opening the text (after blank space).
_OPENS = re.compile(rf"\s*<(?P<tag>{_NAME})(?:\s[^<>]*)?>")
#: An element's closing tag ending the text (before blank space).
_CLOSES = re.compile(rf"</(?P<tag>{_NAME})\s*>\s*\Z")


def typed_text(text: str) -> str:
    """``text`` without the harness envelopes that open or close it (module docstring); the
    text itself when it has none, "" when it was nothing else. An element counts only when
    it is whole: an opening tag with no closing one is left as it is."""
    rest = text
    while True:
        trimmed = _without_leading(rest)
        trimmed = _without_trailing(trimmed)
        if trimmed is rest:
            return text if rest is text else rest.strip()
        rest = trimmed


def _without_leading(text: str) -> str:
    opening = _OPENS.match(text)
    if opening is None:
        return text
    closing = re.compile(rf"</{opening['tag']}\s*>").search(text, opening.end())
    return text if closing is None else text[closing.end():]


def _without_trailing(text: str) -> str:
    if not text.rstrip().endswith(">"):
        return text
    closing = _CLOSES.search(text)
    if closing is None:
        return text
    start = text.rfind(f"<{closing['tag']}", 0, closing.start())
    while start >= 0 and not _opens_element(text, start, closing["tag"]):
        start = text.rfind(f"<{closing['tag']}", 0, start)
    if start < 0 or text[:start].rstrip(" \t")[-1:] not in ("", "\n"):
        return text  # the element does not start a line: inline markup, kept
    return text[:start]


def _opens_element(text: str, start: int, tag: str) -> bool:
    """Is ``text[start:]`` the opening tag ``<tag>`` or ``<tag …>`` (not ``<tag-more>``)?"""
    after = text[start + len(tag) + 1:start + len(tag) + 2]
    return after in (">", " ", "\t", "\n")
