"""The files a session saw, with the text it saw: read by a tool, printed by a shell, or written.

Several sources learn from file contents (manifests, task runners, project instruction files,
warnings in comments), and they must not care HOW the agent looked: Claude's Read renders a
file with line numbers and an arrow, Gemini's read_file returns it bare, Codex prints it with
``cat``, ``sed -n '1,200p'``, ``head`` or ``nl -ba``. A shell read counts only when the line
is exactly one such read of one file (after ``cd``s) that succeeded, so the output is that
file's text and nothing else. Written text (a Write's content, an Edit's new string) counts
too, as what the session put there.

A read's text is what the tool showed, so citations quote lines that are in the file; a
partial read (a line range) is still true of the lines it shows. A whole file the person
attached to a prompt (``@path``) is a read too, at the attachment, though no tool made it
(``attached.py``); its look's ``call`` is the attachment's event (``SeenFile.attached``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.attached import attached_files
from claimgraph.capture.extract.manifest_common import first_filled_line, strip_line_numbers
from claimgraph.capture.packed import text_head
from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations, positional
from claimgraph.capture.extract.tools import READ, names_of
from claimgraph.capture.extract.writes import file_ops, removes
from claimgraph.logic.observed_lines import SeenLines, numbered

READ_TOOLS = names_of(READ)  # the one table: extract/tools.py
_SHELL_READERS = frozenset({"cat", "sed", "head", "nl", "bat", "less", "more", "tail"})
_REMINDER_TAG = "<system-reminder>"
#: How much of an output's head ``_filled`` reads for its first filled line.
_HEAD_CHARS = 2048
#: ``manifest_common``'s Read rendering: a line's number and its arrow.
_ARROW = lazy_regex(r" *[0-9]+→")
_REMINDER = lazy_regex(r"\n*<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SeenFile:
    """One look at one file: ``how`` is read / write / edit; ``text`` the lines seen.

    A read keeps the tool's output as shown (``shown``, the very string its result event
    holds) and gives the file's text (``text``) each time it is asked, without keeping it:
    stored, every file a long session read was held twice through extraction, once with its
    line numbers and once without (~15 MB more of a 200 MB transcript's peak).
    """

    path: str
    cited: str | None  # relative to the project root; None outside it or in others' code
    #: A read's output is its result event, read when asked: the event may hold it
    #: compressed (capture/packed.py), and a copy kept here would be held all extraction.
    #: What a write or an edit put there is read from its operation the same way (``Written``).
    shown: str | Event | Written
    how: str
    call: Event
    replaced: str = ""  # for an edit: the text it replaced (what was there already)
    #: How ``shown`` became ``text``: "" as is, "read" a read tool's rendering (a trailing
    #: reminder, then line numbers), "shell" a shell read's line numbers.
    rendered: str = ""

    @property
    def text(self) -> str:
        return _file_text(_shown(self.shown), self.rendered)

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def attached(self) -> bool:
        """The person attached the file to a prompt: no tool read it (``attached.py``)."""
        return self.call.kind != "tool_call"


class Written:
    """The text a write or an edit put in a file (an edit's new strings, else its content),
    read from the operation each time it is asked: the operation reads it from the call,
    which holds a big one compressed, where a copy kept in the look held every file a long
    session wrote inflated from the instruction rule to the end of extraction (~9 MB at
    200 MB; a pass reads these texts again a few hundred times, ~0.3 MB in all). Equal to,
    and hashed as, that text, as the string it replaces was."""

    __slots__ = ("op",)

    def __init__(self, op: Any) -> None:
        self.op = op

    def text(self) -> str:
        op = self.op
        if op.kind == "write":
            return op.content
        return "\n".join(new for _, new, _ in op.edits) or op.content

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Written):
            return self.text() == other.text()
        return self.text() == other if isinstance(other, str) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.text())

    def __repr__(self) -> str:
        return f"Written({self.text()!r})"


def _shown(shown: str | Event | Written) -> str:
    if isinstance(shown, str):
        return shown
    return shown.text() if isinstance(shown, Written) else shown.text


def _filled(shown: str | Event | Written, rendered: str) -> bool:
    """``_file_text(_shown(shown), rendered).strip() != ""``, mostly from the output's head.

    A read rendered with line numbers (``"     1→text"``) whose first filled line has text
    after its number shows a filled file: the renumbering takes only that prefix from the
    line, and a reminder removed after the line (``<system-reminder>`` at or past the cut
    below) can only join more text to it. Only the head is read for that (of a packed output,
    only the head is inflated); any other output is rendered whole and looked at, as before.
    A look's output was rendered whole for this test alone: every Read of a long session."""
    if rendered:
        head = shown[:_HEAD_CHARS] if isinstance(shown, str) else _shown(shown)[:_HEAD_CHARS] \
            if isinstance(shown, Written) else text_head(shown, _HEAD_CHARS)
        tag = head.find(_REMINDER_TAG) if rendered == "read" else -1
        if rendered == "read" and tag < 0 and len(head) == _HEAD_CHARS:
            # a head cut mid-tag hides the reminder it starts: trust only what lies before
            # where a tag could begin (an unclosed reminder takes the rest of the output)
            tag = _HEAD_CHARS - len(_REMINDER_TAG) + 1
        line = first_filled_line(head[:tag] if tag >= 0 else head)
        prefix = _ARROW.match(line)
        if prefix is not None and line[prefix.end():].strip():
            return True
        return bool(_file_text(_shown(shown), rendered).strip())
    text = _shown(shown)
    return bool(text) and not text.isspace()


def _file_text(shown: str, rendered: str) -> str:
    if rendered == "read":  # a reminder is looked for only where its tag is (most reads)
        return strip_line_numbers(_REMINDER.sub("", shown) if _REMINDER_TAG in shown else shown)
    return strip_line_numbers(shown) if rendered == "shell" else shown


def surviving_looks(view: SessionView) -> dict[str, list[SeenFile]]:
    """Path -> its looks in order, forgetting every look before the file was deleted: what a
    session read in a file it then removed (a port that deletes the old manifests) is gone."""
    return view.remembered("surviving_looks", _surviving_looks)


def _surviving_looks(view: SessionView) -> dict[str, list[SeenFile]]:
    looks: dict[str, list[SeenFile]] = {}
    for call in _calls_and_attached(view):
        if call.kind != "tool_call":
            _attach(view, looks, call)
            continue
        if view.outcome(call) != OK:
            continue
        for op in file_ops(view, call):
            if op.kind == "delete":
                for path in [p for p in looks if removes(op.path, p)]:
                    del looks[path]
        for path, shown, how, replaced, rendered in _looks(view, call):
            if _filled(shown, rendered):
                looks.setdefault(path, []).append(
                    SeenFile(path, view.own(path), shown, how, call, replaced, rendered))
    return looks


def _calls_and_attached(view: SessionView) -> list[Event]:
    """The calls, with the files the person attached in their place in the transcript."""
    attached = attached_files(view)
    if not attached:
        return view.calls()
    ids = {id(event) for event in attached}
    calls = {id(call) for call in view.calls()}
    return [event for event in view.transcript.events if id(event) in calls or id(event) in ids]


def _attach(view: SessionView, looks: dict[str, list[SeenFile]], event: Event) -> None:
    """A look at the whole file as attached, its lines unnumbered (``harness_files``)."""
    path = view.resolve(event.extras["path"], event.cwd)
    text = SeenLines(numbered(event.text), True).text()
    if path and text.strip():
        looks.setdefault(path, []).append(SeenFile(path, view.own(path), text, "read", event))


def _looks(view: SessionView,
           call: Event) -> Iterator[tuple[str, str | Event | Written, str, str, str]]:
    """(path, text as shown, how, replaced, how it was rendered) per file the call saw; a
    result's text is given as its event (``SeenFile.shown``)."""
    tool_input: dict[str, Any] = dict(call.tool_input or {})
    if call.tool_name in READ_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("absolute_path") \
            or tool_input.get("path")
        target = view.resolve(path, call.cwd) if isinstance(path, str) else None
        result = view.results.get(call.call_id or "")
        if target and result is not None:
            yield target, result, "read", "", "read"
        return
    for op in file_ops(view, call):
        if op.kind == "write":
            yield op.path, Written(op), "write", "", ""
        elif op.kind in ("edit", "append"):
            yield op.path, Written(op), "edit", "\n".join(old for old, _, _ in op.edits), ""
    shown = _shell_read(view, call)
    if shown:
        yield (*shown, "", "shell")


def _shell_read(view: SessionView, call: Event) -> tuple[str, Event, str] | None:
    """``cat f`` / ``sed -n '1,80p' f`` / ``nl -ba f | sed -n …`` / ``head -n 40 f``."""
    command = command_text(call)
    runs = invocations(command, call_cwd(call)) if command else []
    runs = [run for run in runs if run.argv[0] != "cd"]
    if len(runs) != 1 or runs[0].argv[0] not in _SHELL_READERS:
        return None
    run = runs[0]
    if run.piped and not run.filtered and not (command or "").count("| sed -n"):
        return None
    files = [word for word in positional(run.argv)[1:] if not _is_script(run.argv[0], word)]
    target = view.resolve(files[0], run.cwd) if len(files) == 1 else None
    result = view.results.get(call.call_id or "")
    if target is None or result is None:
        return None
    return target, result, "read"


def _is_script(program: str, word: str) -> bool:
    """``sed -n '1,200p' f``: the sed script is not a file; ``head -n 40``'s count neither."""
    return (program == "sed" and bool(re.fullmatch(r"[\d,$]*[pd]|/.*/p?", word))) \
        or word.isdigit()
