"""What a session did and what the person said after a given line: the evidence an answer is
held against (``pick_scope``).

- **work**: every file the session wrote or edited (the path and the new text) and every
  command it ran that was not a plain read (``cat``, ``ls``, ``grep``, ``git status`` … show a
  name without carrying a choice), a failed call included: trying a choice is acting on it;
- **prompts**: what the person typed in the main session (``statements.user_texts``).

Both are read once per session and kept in line order, so each answer takes the part after
(or before) it without a copy, and searches it through one index of the words of the whole
(``word_index``): a search of every later text for every question's names grew with the
square of the session's length.
"""

from __future__ import annotations

import bisect
from typing import Any, Iterator

from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.packed import HeldTexts, held_text
from claimgraph.capture.extract.shell import command_text, only_reads
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.word_index import Joined, Part, Texts
from claimgraph.capture.extract.writes import file_ops


def work_after(view: SessionView, line: int) -> Part:
    """The work the session did after ``line`` (module docstring)."""
    lines, texts, _ = _remembered(view)
    return Part(texts, bisect.bisect_right(lines, line), len(lines))


def known_before(view: SessionView, line: int) -> Joined:
    """The files the session wrote and what the person typed before ``line``: names already
    in use there were not brought in by a choice made at ``line``. Commands before it are
    left out: before a question the agent probes the options it will offer (builds a scratch
    image on each base), which is no use of any of them."""
    lines, texts, written = _remembered(view)
    typed_lines, typed = _prompts(view)
    return Joined(Part(texts, 0, bisect.bisect_left(lines, line), written),
                  Part(typed, 0, bisect.bisect_left(typed_lines, line)))


def prompts_after(view: SessionView, line: int) -> Iterator[str]:
    """What the person typed after ``line``, read as it is asked for: a question's verdict
    reads it only when an option could be asked for again, and stops at the first prompt
    that does (a list of every later prompt, made per question, cost ~0.2 s at 200 MB)."""
    return (text for event, text in user_texts(view) if event.line > line)


def _remembered(view: SessionView) -> tuple[list[int], Texts, list[bool]]:
    found: tuple[list[int], Texts, list[bool]] = view.remembered("afterwards.work", _work)
    return found


def _prompts(view: SessionView) -> tuple[list[int], Texts]:
    """(line, text) of what the person typed, in line order (``user_texts``), as two lists."""
    def compute(view: SessionView) -> tuple[list[int], Texts]:
        typed = sorted(((event.line, text) for event, text in user_texts(view)),
                       key=lambda item: item[0])
        return [line for line, _ in typed], Texts([text for _, text in typed])
    found: tuple[list[int], Texts] = view.remembered("afterwards.prompts", compute)
    return found


def _work(view: SessionView) -> tuple[list[int], Texts, list[bool]]:
    """(line, text, whether it is a file written) of every piece of work, in line order."""
    found: list[tuple[int, Any, bool]] = []  # a file's text held packed (HeldTexts)
    for call in view.calls():
        ops = file_ops(view, call)
        for op in ops:
            written = [op.content, *(new for _, new, _ in op.edits)]
            found.append((call.line, held_text("\n".join([op.path, *written])), True))
        command = command_text(call)
        if command and not ops and not only_reads(command):
            found.append((call.line, command, False))
    found.sort(key=lambda item: item[0])
    return [f[0] for f in found], Texts(HeldTexts([f[1] for f in found])), [f[2] for f in found]
