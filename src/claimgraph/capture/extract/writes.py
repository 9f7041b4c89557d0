"""Every agent's ways of changing a file, reduced to four operations on absolute paths.

``write`` replaces the whole file (Claude Write, Gemini write_file, a patch's Add File,
``cat > f <<EOF``); ``edit`` swaps old text for new (Edit, MultiEdit, Gemini replace, a patch
hunk); ``append`` adds to the end (``cat >> f <<EOF``); ``delete`` removes a path (``rm``,
``git rm``, ``mv``'s source, a patch's Delete File). Only what the call's own input says is
used: a tool's output is never read for content.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations, positional
from claimgraph.capture.extract.tools import EDIT, SHELL, WRITE, kind_of

Edit = tuple[str, str, bool]  # (old text, new text, replace every occurrence)
_PATCH = lazy_regex(r"\*\*\* Begin Patch\n(.*?)(?:\n\*\*\* End Patch|\Z)", re.DOTALL)
_HEREDOC_CAT = lazy_regex(
    r"^\s*(?:cd\s+(?P<cd>[^\s;&|]+)\s*&&\s*)?cat\s+(?:(?P<op>>>?)\s*(?P<path>[^\s<>|&;]+)\s+)?"
    r"<<-?\s*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)"
    r"(?:\s*(?P<op2>>>?)\s*(?P<path2>[^\s<>|&;]+))?\s*$")


@dataclass(frozen=True, slots=True)
class FileOp:
    kind: str  # write | edit | append | delete
    path: str
    line: int
    content: str = ""
    edits: tuple[Edit, ...] = ()


class _GivenOp(FileOp):
    """A Write's or an Edit's op whose text is its call's input, read from the call each time
    it is asked (the same strings): the call may hold a big one packed (capture/packed.py),
    and the session's ops are memoized through extraction, which kept every file a long
    session wrote a second time, unpacked (issue 29)."""

    __slots__ = ("call",)

    def __init__(self, kind: str, path: str, line: int, call: Event) -> None:
        super().__init__(kind, path, line)
        object.__setattr__(self, "call", call)

    @property  # type: ignore[override]  # the field's value, read from the call
    def content(self) -> str:
        return _text((self.call.tool_input or {}).get("content")) if self.kind == "write" \
            else ""

    @content.setter
    def content(self, value: str) -> None:  # FileOp's __init__ sets the default: unused
        pass

    @property  # type: ignore[override]
    def edits(self) -> tuple[Edit, ...]:
        return (_edit(self.call.tool_input or {}),) if self.kind == "edit" else ()

    @edits.setter
    def edits(self, value: tuple[Edit, ...]) -> None:
        pass

    def __eq__(self, other: object) -> bool:
        """Equal to a ``FileOp`` of the same values, as the op it stands for was."""
        if not isinstance(other, FileOp):
            return NotImplemented
        return _values(self) == _values(other)

    __hash__ = FileOp.__hash__


def _values(op: FileOp) -> tuple[Any, ...]:
    return op.kind, op.path, op.line, op.content, op.edits


def file_ops(view: SessionView, call: Event) -> list[FileOp]:
    """The file operations one tool call asked for (its success is judged elsewhere);
    memoized per call, since several sources replay the session's writes."""
    ops = view.memo.setdefault("file_ops", {})
    key = (call.line, call.call_id)
    if key not in ops:
        ops[key] = _file_ops(view, call)
    return ops[key]


def _file_ops(view: SessionView, call: Event) -> list[FileOp]:
    tool_input: Mapping[str, Any] = call.tool_input or {}
    kind = kind_of(call.tool_name)
    path = _text(tool_input.get("file_path") or tool_input.get("path"))
    target = view.resolve(path, call.cwd) if path else None
    if kind == WRITE and target:
        return [_GivenOp("write", target, call.line, call)]
    if kind == EDIT and target and isinstance(tool_input.get("edits"), list):
        edits = tuple(_edit(e) for e in tool_input["edits"] if isinstance(e, Mapping))
        return [FileOp("edit", target, call.line, edits=edits)]
    if kind == EDIT and target and ("old_string" in tool_input or "new_string" in tool_input):
        return [_GivenOp("edit", target, call.line, call)]
    text = _patch_argument(tool_input) if kind in (EDIT, SHELL) else None
    text = text or command_text(call)
    return _shell_ops(view, call, text) if text else []


def _patch_argument(tool_input: Mapping[str, Any]) -> str | None:
    """Codex passes a patch as the custom tool's raw input or as ``["apply_patch", patch]``."""
    command = tool_input.get("command")
    if isinstance(command, list) and len(command) >= 2 and command[0] == "apply_patch":
        return _text(command[1])
    return _text(tool_input.get("raw") or tool_input.get("input")) or None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _edit(spec: Mapping[str, Any]) -> Edit:
    replace_all = spec.get("replace_all") is True or (
        isinstance(spec.get("expected_replacements"), int) and spec["expected_replacements"] > 1)
    return _text(spec.get("old_string")), _text(spec.get("new_string")), replace_all


def _shell_ops(view: SessionView, call: Event, command: str) -> list[FileOp]:
    cwd = call_cwd(call)
    patch = _PATCH.search(command)
    if patch:
        return list(parse_patch(view, patch[1], cwd, call.line))
    ops = list(_heredoc_writes(view, command, cwd, call.line))
    for invocation in invocations(command, cwd):
        ops.extend(_removals(view, invocation.argv, invocation.cwd, call.line))
    return ops


def parse_patch(view: SessionView, body: str, cwd: str | None, line: int) -> Iterator[FileOp]:
    """Codex ``apply_patch`` text: Add File (whole content), Update File (hunks of context,
    ``-`` and ``+`` lines become old/new text), Delete File, and Move to."""
    path: str | None = None
    for header, rest in _patch_sections(body):
        kind, _, raw_path = header.partition(": ")
        path = view.resolve(raw_path.strip(), cwd)
        if path is None:
            continue
        if kind == "*** Add File":
            yield FileOp("write", path, line, "".join(r[1:] + "\n" for r in rest
                                                     if r.startswith("+")))
        elif kind == "*** Delete File":
            yield FileOp("delete", path, line)
        elif kind == "*** Update File":
            yield from _update(view, path, rest, cwd, line)


def _patch_sections(body: str) -> Iterator[tuple[str, list[str]]]:
    header, rest = None, []
    for raw in body.split("\n"):
        if raw.startswith(("*** Add File: ", "*** Delete File: ", "*** Update File: ")):
            if header:
                yield header, rest
            header, rest = raw, []
        elif header:
            rest.append(raw)
    if header:
        yield header, rest


def _update(view: SessionView, path: str, rest: list[str], cwd: str | None,
            line: int) -> Iterator[FileOp]:
    moved = next((r.split(": ", 1)[1] for r in rest if r.startswith("*** Move to: ")), None)
    destination = view.resolve(moved.strip(), cwd) if moved else path
    if destination and destination != path:
        yield FileOp("delete", path, line)
    hunks: list[Edit] = []
    old: list[str] = []
    new: list[str] = []
    for raw in [*rest, "@@"]:
        if raw.startswith("@@") or raw.startswith("*** "):
            if old or new:
                hunks.append(("\n".join(old), "\n".join(new), False))
            old, new = [], []
        elif raw[:1] in (" ", "-", "+") or raw == "":
            old.extend([raw[1:]] if raw[:1] != "+" else [])
            new.extend([raw[1:]] if raw[:1] != "-" else [])
    if destination and hunks:
        yield FileOp("edit", destination, line, edits=tuple(hunks))


def _heredoc_writes(view: SessionView, command: str, cwd: str | None,
                    line: int) -> Iterator[FileOp]:
    """``cat > f <<'EOF'`` (or ``cat <<EOF > f``; ``>>`` appends): the body up to the tag."""
    lines = command.split("\n")
    for index, first in enumerate(lines):
        found = _HEREDOC_CAT.match(first)
        target = _literal_path(found["path"] or found["path2"]) if found else None
        if not found or not target:
            continue
        end = next((i for i in range(index + 1, len(lines)) if lines[i].strip() == found["tag"]),
                   None)
        base = view.resolve(found["cd"], cwd) if found["cd"] else cwd
        path = view.resolve(target, base)
        if end is not None and path:
            body = "".join(text + "\n" for text in lines[index + 1:end])
            yield FileOp("append" if (found["op"] or found["op2"]) == ">>" else "write",
                         path, line, body)


def _literal_path(word: str | None) -> str | None:
    """A redirect's target as a path: its quotes taken off; None when the shell would expand
    it (``"$DIR/x.md"``, a substitution), since which file that is the record does not say."""
    if not word:
        return None
    if len(word) > 1 and word[0] == word[-1] and word[0] in "'\"":
        word = word[1:-1]
    return None if not word or any(mark in word for mark in "$`'\"") else word


def _removals(view: SessionView, argv: tuple[str, ...], cwd: str | None,
              line: int) -> Iterator[FileOp]:
    """``rm`` / ``git rm`` / ``unlink`` targets and ``mv``'s sources (globs kept as patterns)."""
    words = positional(argv)
    if words[:2] == ["git", "rm"]:
        targets = words[2:]
    elif words[:1] in (["rm"], ["unlink"]):
        targets = words[1:]
    elif words[:1] == ["mv"] and len(words) >= 3:
        targets = words[1:-1]
    else:
        return
    for target in targets:
        path = view.resolve(target.rstrip("/") or target, cwd)
        if path:
            yield FileOp("delete", path, line)


def removes(deleted: str, path: str) -> bool:
    """A deletion of ``deleted`` (a file, a folder, or a glob) covers ``path``."""
    return (path == deleted or path.startswith(deleted.rstrip("/") + "/")
            or (any(c in deleted for c in "*?[") and fnmatch.fnmatchcase(path, deleted)))


def session_ops(view: SessionView) -> Iterator[tuple[Event, str, list[FileOp]]]:
    """Every call with its outcome and the file operations it asked for, in session order."""
    for call in view.calls():
        ops = file_ops(view, call)
        if ops:
            yield call, view.outcome(call), ops

