"""Cleaning transcript text before anything is stored or extracted (docs/capture.md).

Three kinds of text in a transcript are not the user's session and must never become memory:
- our own SessionStart context, which Claude Code saves into the transcript; captured again, it
  would echo itself forever and every fact would reinforce itself;
- ``<system-reminder>`` blocks the agent harness injects;
- ``<private>…</private>``, which the user marked as not for memory: it leaves nothing behind.

Blocks are stripped whole. Blocks may nest or repeat; a closing tag closes the innermost open
block of its name, and an opening tag with no closing tag strips to the end of the text, so a
truncated block never leaks. Stray closing tags are dropped. Tags tolerate attributes and any
letter case (``<claimgraph-context version="2">``) so a future format still gets stripped.
Removing a block can join the text around it into a new tag (``<priv`` + block + ``ate>``), so
stripping repeats until no tag is left; after a few passes, which only crafted text needs, the
first remaining tag is treated as an unterminated opener.

Our context normally arrives inside ``<claimgraph-context>`` markers. When its heading appears
without them (an older hook, a pasted copy), the block runs from the heading line to the next
heading of level one or two, or to the end of the text: the block itself only uses ``###``
sections, so whatever follows a ``#`` or ``##`` heading is someone else's text.

Cleaning strips, then redacts secrets. Stripping leaves no tag and no heading behind, and a
placeholder cannot form either, so ``clean_text`` is idempotent.
"""

from __future__ import annotations

import re
from collections import Counter

CONTEXT_OPEN = "<claimgraph-context>"
CONTEXT_CLOSE = "</claimgraph-context>"
CONTEXT_HEADING = "## Project memory — compiled by claimgraph"
STRIPPED_TAGS = ("claimgraph-context", "system-reminder", "private")

#: Removing a block can join its neighbours into a new tag; crafted text could chain that forever.
MAX_STRIP_PASSES = 8
#: A tag never spans lines, so removing an unmarked context block can never form one.
_TAG = re.compile(rf"<(/?)({'|'.join(STRIPPED_TAGS)})(?:[ \t][^<>\n]{{0,200}})?>",
                  re.IGNORECASE)
_CONTEXT_OPEN_TAG = re.compile(r"<claimgraph-context(?:[ \t][^<>\n]{0,200})?>", re.IGNORECASE)
_UNMARKED_CONTEXT = re.compile(
    rf"^[ \t]*{re.escape(CONTEXT_HEADING)}[^\n]*(?:\n(?![ \t]*#{{1,2}}[ \t])[^\n]*)*",
    re.MULTILINE)


def _strip_tagged_blocks(text: str) -> str:
    """One pass over the tags, keeping only text that no open block encloses.

    A closing tag pops the stack down to the innermost open block of its name; each block is
    pushed and popped once, so deep nesting stays linear.
    """
    kept: list[str] = []
    open_blocks: list[str] = []
    open_names: Counter[str] = Counter()
    resume_at = 0
    for tag in _TAG.finditer(text):
        if not open_blocks:
            kept.append(text[resume_at:tag.start()])
        closing, name = bool(tag.group(1)), tag.group(2).lower()
        if not closing:
            open_blocks.append(name)
            open_names[name] += 1
        elif open_names[name]:
            while (popped := open_blocks.pop()) != name:
                open_names[popped] -= 1
            open_names[name] -= 1
        resume_at = tag.end()
    if not open_blocks:
        kept.append(text[resume_at:])
    return "".join(kept)


def _strip_until_no_tag_is_left(text: str) -> str:
    """Strip again while removals form new tags; past the limit the first tag cuts to the end."""
    passes = 0
    while (tag := _TAG.search(text)) is not None:
        if passes == MAX_STRIP_PASSES:
            return text[:tag.start()]
        text = _strip_tagged_blocks(text)
        passes += 1
    return text


def strip_injected(text: str) -> str:
    """``text`` without our context, system reminders or private blocks; see the module doc.
    An unmarked block starts with our heading, word for word: text without it holds none, and
    is not searched line by line for one (the pattern's ``^[ \t]*`` gives ``re`` no literal
    to skip ahead to: most of what cleaning a long session's text cost before redaction)."""
    text = _strip_until_no_tag_is_left(text)
    return _UNMARKED_CONTEXT.sub("", text) if CONTEXT_HEADING in text else text


def has_injected_context(text: str) -> bool:
    """Whether ``text`` carries our own SessionStart context, marked or not."""
    return bool(_CONTEXT_OPEN_TAG.search(text) or _UNMARKED_CONTEXT.search(text))


def clean_text_with_counts(text: str) -> tuple[str, Counter[str]]:
    """The cleaned text and the secrets removed per kind, so capture can log the counts.
    The redactor is imported here: the SessionStart hook uses this module's markers only."""
    from claimgraph.logic.redact import redact_with_counts
    return redact_with_counts(strip_injected(text))


def clean_text(text: str) -> str:
    """What capture may store: injected and private blocks stripped, then secrets redacted."""
    return clean_text_with_counts(text)[0]
