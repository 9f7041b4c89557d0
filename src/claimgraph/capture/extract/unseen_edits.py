"""Edits of a file that no look at it shows, for reconciling (``reconcile.digest``).

The session's looks at a file (``reads.surviving_looks``) are what it read, wrote or edited
with text to show. Two changes leave nothing to show and were lost, though each may be the
change that took a rule or a named thing out of the project:

- an edit that removes text and puts none in (its new text empty: "delete that line");
- a plain ``sed -i 's/old/new/'`` / ``perl -pi -e`` substitution that worked
  (``shell_edited.shell_edits``, ``logic/sed_edit.py``), applied here to the file's text as
  the session last saw it whole (a write or a read, carried through its edits): each line it
  changes is an edit of that line. A substitution the record cannot read, or a file never
  seen whole, adds nothing.

Each is given as (cited path, line, old text, new text). Pure reading of the in-memory
session: no file is read, no clock asked.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.shell_edited import shell_edits
from claimgraph.capture.extract.undone import Look
from claimgraph.capture.extract.writes import session_ops
from claimgraph.logic.sed_edit import apply_all

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
    read, carried through its edits): an edit no look shows, but the change that took a
    named thing out. A substitution the record cannot read, or a file never seen, adds
    nothing."""
    found: list[Unseen] = []
    for edit in shell_edits(view):
        cited = view.own(edit.path) if edit.substitutions else None
        text = _text_before(files.get(_bare(cited), []), edit.line) if cited else None
        if text is None or edit.substitutions is None:
            continue
        for row in text.split("\n"):
            now = apply_all(edit.substitutions, row)
            if now != row:
                found.append((_bare(cited or ""), edit.line, row, now))
    return found


def _text_before(changes: Sequence[Look], line: int) -> str | None:
    """The file's text as last seen whole before ``line`` (None: never, or lost track)."""
    text: str | None = None
    for change in changes:
        if change.line >= line:
            break
        if change.kind in ("read", "write"):
            text = change.new
        elif text is not None and change.old and change.old in text:
            text = text.replace(change.old, change.new)
        elif text is not None and change.old.strip("\n") and change.old.strip("\n") in text:
            text = text.replace(change.old.strip("\n"), change.new.strip("\n"))  # a read
            # shows no final newline
        else:
            text = None
    return text


def _bare(path: str) -> str:
    return path[2:] if path.startswith("./") else path
