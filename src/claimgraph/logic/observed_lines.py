"""Lines of a file as the harness recorded them, and what they say of a line seen before.

A harness may record a file's content without the agent asking for it: Claude Code, when a
file the agent read changed on disk outside its own edit tools (a ``sed -i``, a formatter, a
checkout), attaches the file's name and a snippet of its new lines, each with its number
("``4\\tTAG ?= 1.0.1``"), around what changed and cut at a few kilobytes ("``... [326 lines
truncated] ...``"); a file the person attached to a message comes whole or as a line range.

Such lines are true of the file at that moment, and only of the lines shown. So a line
seen earlier is:

- ``KEPT`` when the record shows it (anywhere: lines may have moved);
- ``GONE`` when the record shows where it was and something else is there: both of its
  neighbours as they were seen, side by side (it was taken out) or one line apart (it was
  replaced), and the line itself nowhere; or when the record is the whole file and lacks it;
- ``UNKNOWN`` otherwise: absence from a snippet proves nothing.

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

KEPT, GONE, UNKNOWN = "kept", "gone", "unknown"
#: ``   12\tline``: a line's number, a tab, the line (the harness's snippet rendering).
_NUMBERED = re.compile(r"^\s*(\d{1,7})\t(.*)$")
#: A quote shorter than this is too common a line to say anything by being present.
_MIN_QUOTE = 3


@dataclass(frozen=True, slots=True)
class SeenLines:
    """Line number -> line, as recorded; ``whole`` when they are the whole file."""

    lines: Mapping[int, str]
    whole: bool = False

    def shows(self, quote: str) -> bool:
        """The record shows a line holding ``quote`` (compared without outer blanks)."""
        wanted = quote.strip()
        return len(wanted) >= _MIN_QUOTE and any(wanted in line for line in self.lines.values())

    def text(self) -> str:
        """The recorded lines in order, joined (a partial view of the file)."""
        return "\n".join(self.lines[number] for number in sorted(self.lines))


def numbered(text: str) -> dict[int, str]:
    """The numbered lines of a snippet (``N\\tline``); anything else (a truncation notice, a
    blank separator) is no line of the file."""
    found: dict[int, str] = {}
    for raw in text.split("\n"):
        match = _NUMBERED.match(raw)
        if match:
            found[int(match.group(1))] = match.group(2).rstrip("\r")
    return found


def number(content: str, first: int = 1) -> str:
    """``content`` rendered as numbered lines from ``first`` (what ``numbered`` reads)."""
    return "\n".join(f"{first + index}\t{line}"
                     for index, line in enumerate(content.split("\n")))


def verdict(seen: SeenLines, before: Sequence[str], index: int) -> str:
    """What ``seen`` says of ``before[index]``, a line of the file as seen earlier (module
    docstring): ``KEPT``, ``GONE`` or ``UNKNOWN``."""
    line = before[index]
    if not line.strip():
        return UNKNOWN
    if seen.shows(line):
        return KEPT
    if seen.whole:
        return GONE
    if index == 0 or index + 1 >= len(before):
        return UNKNOWN
    above, below = before[index - 1], before[index + 1]
    if not (above.strip() or below.strip()):
        return UNKNOWN  # blank neighbours anchor nothing
    for at, shown in seen.lines.items():
        if shown != above:
            continue
        if seen.lines.get(at + 1) == below:
            return GONE  # taken out
        if at + 1 in seen.lines and seen.lines.get(at + 2) == below:
            return GONE  # replaced by another line
    return UNKNOWN


def index_of(quote: str, before: Sequence[str]) -> int | None:
    """The index of the line of ``before`` that ``quote`` was taken from: the one that is the
    quote (outer blanks aside), else the first holding it; None when none does."""
    wanted = quote.strip()
    if len(wanted) < _MIN_QUOTE:
        return None
    holding = None
    for index, line in enumerate(before):
        if line.strip() == wanted:
            return index
        if holding is None and wanted in line:
            holding = index
    return holding


def overlaid(text: str, seen: SeenLines) -> str:
    """``text`` (the file as otherwise known) with the recorded lines put in their places,
    when the record lines up with it: its lines fall within the text, and most of them
    already read the same at the same numbers (a change that moved lines, or a text that is
    only part of the file, does not line up: ``text`` is returned as it is)."""
    lines = text.split("\n")
    if not seen.lines or max(seen.lines) > len(lines):
        return text
    same = sum(lines[number - 1] == shown for number, shown in seen.lines.items())
    if same * 2 <= len(seen.lines):
        return text
    for number, shown in seen.lines.items():
        lines[number - 1] = shown
    return "\n".join(lines)
