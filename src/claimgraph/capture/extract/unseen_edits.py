"""Edits of a file that no look at it shows, for reconciling (``reconcile.digest``).

The session's looks at a file (``reads.surviving_looks``) are what it read, wrote or edited
with text to show. Two changes leave nothing to show and were lost, though each may be the
change that took a rule or a named thing out of the project:

- an edit that removes text and puts none in (its new text empty: "delete that line");
- a plain ``sed -i 's/old/new/'`` / ``perl -pi -e`` substitution that worked
  (``shell_edited.shell_edits``, ``logic/sed_edit.py``), applied here to the file's text as
  the session last saw it whole (a write or a read, carried through its edits and the
  substitutions before it): each run of neighbouring lines it changes is one edit. A
  substitution the record cannot read, or a file never seen whole, adds nothing.

Each is given as (cited path, line, old text, new text). Pure reading of the in-memory
session: no file is read, no clock asked.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Mapping, Sequence

from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.shell_edited import ShellEdit, shell_edits
from claimgraph.capture.extract.undone import Look
from claimgraph.capture.extract.writes import session_ops
from claimgraph.logic.sed_edit import Substitution, apply_all

#: (cited path, line, old text, new text) of one edit no look shows.
Unseen = tuple[str, int, str, str]


def emptying_edits(view: SessionView) -> list[Unseen]:
    """(cited path, line, old, new) of each edit that worked and took text out without putting any
    in ("delete the logger line": its new text empty). The looks leave such an edit out (it
    shows nothing of the file), but it is the change that undid what the text said."""
    found: list[Unseen] = []
    for _call, outcome, ops in session_ops(view):
        if outcome != OK:
            continue
        for op in ops:
            cited = view.own(op.path) if op.kind == "edit" else None
            if cited and op.edits and not any(new.strip() for _, new, _ in op.edits) \
                    and any(old.strip() for old, _, _ in op.edits):
                found.append((_bare(cited), op.line,
                              "\n".join(old for old, _, _ in op.edits), ""))
    return found


def substituted(view: SessionView, files: Mapping[str, Sequence[Look]]) -> list[Unseen]:
    """(cited path, line, old, new) of each line a plain ``sed -i``/``perl -pi`` substitution that
    worked changed, read off the file's text as the session last saw it whole (a write or a
    read, carried through its edits and the substitutions before it): an edit no look shows,
    but the change that took a named thing out; neighbouring changed lines make one edit. A
    substitution the record cannot read, or a file never seen, adds nothing. Each file's
    looks are walked once, whatever the number of substitutions (a long session may run
    hundreds on one file)."""
    by_path: dict[str, list[ShellEdit]] = {}
    for edit in shell_edits(view):
        cited = view.own(edit.path) if edit.substitutions else None
        if cited:
            by_path.setdefault(_bare(cited), []).append(edit)
    found: list[Unseen] = []
    for path, edits in by_path.items():
        found += _replayed(path, files.get(path, ()), edits)
    return found


def _replayed(path: str, changes: Sequence[Look], edits: Sequence[ShellEdit]) -> list[Unseen]:
    """Walk one file's looks and substitutions in order, carrying its text (None: never
    seen whole, or lost track) through both."""
    found: list[Unseen] = []
    text: str | None = None
    index = 0
    for edit in sorted(edits, key=lambda edit: edit.line):
        while index < len(changes) and changes[index].line < edit.line:
            text = _carried(text, changes[index])
            index += 1
        hit = _rows_hit(text, edit.substitutions) if text is not None else []
        if text is None or not hit or not edit.substitutions:
            continue  # nothing seen, or no line it could change
        rows = text.split("\n")
        changed = []
        for number in hit:
            now = apply_all(edit.substitutions, rows[number])
            if now != rows[number]:
                changed.append((number, rows[number], now))
                rows[number] = now
        found += [(path, edit.line, old, new) for old, new in _blocks(changed)]
        text = "\n".join(rows)
    return found


def _blocks(changed: Sequence[tuple[int, str, str]]) -> list[tuple[str, str]]:
    """(old, new) of each run of neighbouring changed lines: one edit per run, not per line
    (a sed that changes every line of a long file is one edit, not thousands)."""
    found: list[tuple[str, str]] = []
    run: list[tuple[int, str, str]] = []
    for row in changed:
        if run and row[0] != run[-1][0] + 1:
            found.append(("\n".join(old for _, old, _ in run), "\n".join(new for *_, new in run)))
            run = []
        run.append(row)
    if run:
        found.append(("\n".join(old for _, old, _ in run), "\n".join(new for *_, new in run)))
    return found


def _rows_hit(text: str, substitutions: Sequence[Substitution] | None) -> list[int]:
    """The numbers of the lines a substitution may change: those a match of its pattern on
    the whole text touches (every line a match of its own would be found in, at least)."""
    starts = [0] + [found.end() for found in re.finditer("\n", text)]
    hit: set[int] = set()
    for sub in substitutions or ():
        for match in _anywhere(sub).finditer(text):
            first = bisect.bisect_right(starts, match.start()) - 1
            last = bisect.bisect_right(starts, max(match.end() - 1, match.start())) - 1
            hit.update(range(first, last + 1))
    return sorted(hit)


@functools.lru_cache(maxsize=256)
def _anywhere(sub: Substitution) -> re.Pattern[str]:
    """The substitution's pattern matched on a whole text, ``^``/``$`` at each line: it finds
    nothing only when no line holds a match (a cheap test before the line-by-line one)."""
    return re.compile(sub.pattern.pattern, sub.pattern.flags | re.MULTILINE)


def _carried(text: str | None, change: Look) -> str | None:
    """The file's text after one look: a read or write shows it, an edit changes it."""
    if change.kind in ("read", "write"):
        return change.new
    if text is not None and change.old and change.old in text:
        return text.replace(change.old, change.new)
    if text is not None and change.old.strip("\n") and change.old.strip("\n") in text:
        return text.replace(change.old.strip("\n"), change.new.strip("\n"))  # a read
        # shows no final newline
    return None


def _bare(path: str) -> str:
    return path[2:] if path.startswith("./") else path
