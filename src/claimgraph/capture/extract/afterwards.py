"""What a session did and what the person said after a given line: the evidence an answer is
held against (``pick_scope``).

- **work**: every file the session wrote or edited (the path and the new text) and every
  command it ran that was not a plain read (``cat``, ``ls``, ``grep``, ``git status`` … show a
  name without carrying a choice), a failed call included: trying a choice is acting on it;
- **prompts**: what the person typed in the main session (``statements.user_texts``).

Both are read once per session and kept in line order, so each answer takes the part after it.
"""

from __future__ import annotations

import bisect

from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell import command_text, only_reads
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.writes import file_ops


def work_after(view: SessionView, line: int) -> list[str]:
    """The work the session did after ``line`` (module docstring)."""
    lines, texts, _ = _remembered(view)
    return texts[bisect.bisect_right(lines, line):]


def known_before(view: SessionView, line: int) -> list[str]:
    """The files the session wrote and what the person typed before ``line``: names already
    in use there were not brought in by a choice made at ``line``. Commands before it are
    left out: before a question the agent probes the options it will offer (builds a scratch
    image on each base), which is no use of any of them."""
    lines, texts, written = _remembered(view)
    end = bisect.bisect_left(lines, line)
    return [*(text for text, file in zip(texts[:end], written[:end]) if file),
            *(text for event, text in user_texts(view) if event.line < line)]


def prompts_after(view: SessionView, line: int) -> list[str]:
    """What the person typed after ``line``."""
    return [text for event, text in user_texts(view) if event.line > line]


def _remembered(view: SessionView) -> tuple[list[int], list[str], list[bool]]:
    found: tuple[list[int], list[str], list[bool]] = view.remembered("afterwards.work", _work)
    return found


def _work(view: SessionView) -> tuple[list[int], list[str], list[bool]]:
    """(line, text, whether it is a file written) of every piece of work, in line order."""
    found: list[tuple[int, str, bool]] = []
    for call in view.calls():
        ops = file_ops(view, call)
        for op in ops:
            written = [op.content, *(new for _, new, _ in op.edits)]
            found.append((call.line, "\n".join([op.path, *written]), True))
        command = command_text(call)
        if command and not ops and not only_reads(command):
            found.append((call.line, command, False))
    found.sort(key=lambda item: item[0])
    return [f[0] for f in found], [f[1] for f in found], [f[2] for f in found]


