"""Where a code review's findings start in a message the person sent.

A review tool (or a reviewer) writes its findings anchored to the code they are about: "In
`@src/api/route.ts`:", "In @src/app.py around lines 40 - 52, …", a list item "- Line 27: …" or
"- Around line 116-120: …". A person who pastes them in to have them fixed ("check these and
fix what still applies", then the findings) did not write them: each finding is the
reviewer's proposal for the code as it stood, which the session may follow, follow another
way, or turn down. Stored as the person's ``decided``, it becomes a decision nobody made
(docs/capture.md, "Text the person pasted from another author").

What marks the paste is the anchor, not what the finding says: a line that opens (after a
list mark) with a file location given the way a review anchors a comment, an ``@``-mention of
a path, or a path and a line number; a review tool's markup tag that carries the file
(``<location path="src/app.ts" line_range="4-9" />``, ``<location> `src/app.ts:12`
</location>``); or a bare line number or line range closed by a colon ("- Line 27:").

Two questions, one set of anchors:

- where the findings start (``findings_start``): from the first anchor on the text is the
  reviewer's, what comes before it (the person's lead-in) is theirs. A bare line anchor counts
  only in a message that also anchors a finding to a file: alone, it may be the person's own
  layout of a document ("Line 1: the product's name"), whose lines would be cut off;
- whether a message carries findings at all (``carries_findings``): any anchor, a bare line
  anchor alone included. Asked before reading a message's names as the ones the person pointed
  at (``structure.named``): a name is only admitted when the person surely named it, so a
  doubt is enough to read none.

Precision first: a path named in a sentence ("keep the helpers in src/util.py") is no anchor;
only a line that opens with one is.

Pure: text in, an offset (or None) out.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

#: A list mark a finding's line may open with.
_MARK = r"^[ \t]*(?:[-*•][ \t]+)?"
#: A line number or a range of them ("line 27", "lines 49 - 98", "line 116-120", "lines 4 to 9").
_LINES = r"lines?[ \t]+\d+(?:[ \t]*(?:[-–]|to)[ \t]*\d+)?"
#: A file location as a review anchors a finding: an ``@``-mention of a path (in a code span
#: or not) closed by a colon or followed by its lines, or a path with a file extension
#: followed by its lines.
_FILE_ANCHOR = lazy_regex(
    _MARK + r"(?:"
    r"in[ \t]+`?@[\w./@-]+`?[ \t]*(?::|,?[ \t]+(?:around|at|on|near)[ \t]+" + _LINES + r")|"
    r"in[ \t]+`?[\w./@-]+\.\w{1,8}`?,?[ \t]+(?:around|at|on|near)[ \t]+" + _LINES + r")",
    re.IGNORECASE | re.MULTILINE)
#: A review tool's markup tag that anchors a finding to a file: a path in the tag's ``path``
#: or ``file`` attribute, or the tag holding nothing but a path (and its lines). A tag with no
#: file (``<details>``, ``</div>``, a template's ``<template>``) is any HTML a person pastes.
_MARKUP_ANCHOR = lazy_regex(
    _MARK + r"(?:<[a-z][\w-]*[^>\n]*?[ \t](?:path|file|filename)=[\"'][^\"'\n]+\.\w{1,8}[\"']"
    r"|<([a-z][\w-]*)>[ \t]*`?[\w./@-]+\.\w{1,8}(?::\d+(?:-\d+)?)?`?[ \t]*</\1>)",
    re.IGNORECASE | re.MULTILINE)
#: A bare line number or range closed by a colon: a finding under a file anchored above it.
_LINE_ANCHOR = lazy_regex(_MARK + r"(?:around[ \t]+|at[ \t]+)?" + _LINES + r"[ \t]*:",
                          re.IGNORECASE | re.MULTILINE)


def findings_start(text: str) -> int | None:
    """The offset of the first line of ``text`` that anchors a review finding to a file or to
    lines of code (module docstring), or None when no line does. A bare line anchor ("- Line
    2: …") counts only in a message that anchors a finding to a file too: alone, it may be the
    person's own layout of a document ("Line 1: the product's name")."""
    anchors = [found.start() for found in (_FILE_ANCHOR.search(text),
                                           _MARKUP_ANCHOR.search(text)) if found]
    if not anchors:
        return None
    line = _LINE_ANCHOR.search(text, 0, min(anchors))
    return min(anchors) if line is None else line.start()


def carries_findings(text: str) -> bool:
    """Whether ``text`` holds a review's findings anywhere: an anchor to a file, in prose or
    in a tool's markup, or a bare line anchor alone (module docstring: a doubt, which is
    enough to read none of the message's names as the person's)."""
    return findings_start(text) is not None or _LINE_ANCHOR.search(text) is not None


def without_findings(text: str) -> str:
    """``text`` without the review findings pasted into it: what comes before the first
    anchored finding (module docstring), or the whole text when there is none."""
    start = findings_start(text)
    return text if start is None else text[:start].rstrip()
