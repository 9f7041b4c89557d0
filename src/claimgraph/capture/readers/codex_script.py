"""Codex's code mode: a tool call whose input is a JavaScript program that calls the real tools.

In code mode the model calls one tool, ``exec``, with a script (``const r = await
tools.exec_command({"cmd": "cargo test", "workdir": "/repo"}); text(r.output);``). The
script is a program, not a command line: read as one, its words would be taken for shell
commands. A script that does exactly one thing -- one call of a tool, with literal arguments,
no loop, no function, no branch that could skip or repeat the call -- IS that tool call, and
is read as it (its name and its arguments). Anything else stays an ``exec`` call whose input
nobody reads as a command: when unsure, nothing is inferred.

Its output is a list of text blocks, the first a status header: ``Script completed`` or
``Script failed`` (the script threw: a patch that did not apply, a command that could not
run), then ``Wall time …`` and ``Output:``. A script still running says ``Script running with
cell ID N``; a later ``wait`` call for that cell returns the rest. ``exec_command`` called
from a script reports no exit code (the script prints only its output), so a completed
script's command has no verdict: whether it succeeded is unknown, never assumed.
"""

from __future__ import annotations

import json
import re
from typing import Any
from claimgraph.logic.lazy_regex import lazy_regex

#: The tools a script's single call may be read as (the agent's own tool names).
UNWRAPPED = frozenset({"exec_command", "apply_patch", "shell", "shell_command"})
_CALL = lazy_regex(r"\btools\.([A-Za-z_][A-Za-z0-9_]*)\s*\(")
#: Control flow or definitions: the call might run zero or many times, or not as written.
_FLOW = lazy_regex(r"\b(?:for|while|do|function|try|catch|switch|else|return|eval)\b|=>")
_CONDITIONAL = lazy_regex(r"\bif\s*\(")
_STATUS = lazy_regex(r"^Script (completed|failed|running with cell ID (\S+))", re.IGNORECASE)
_HEADER_LINES = lazy_regex(r"\A(?:Script [^\n]*\n)?(?:Wall time [^\n]*\n)?(?:Output:\n)?")
_BINDING = r"(?:(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*=\s*)?"


def unwrap(script: Any) -> tuple[str, dict[str, Any]] | None:
    """(tool name, arguments) of a script that only makes one call of a known tool with
    literal arguments; None for any other script (module docstring)."""
    if not isinstance(script, str):
        return None
    skeleton = _without_strings(script)
    if skeleton is None or _FLOW.search(skeleton):
        return None
    calls = list(_CALL.finditer(skeleton))
    if len(calls) != 1 or calls[0][1] not in UNWRAPPED:
        return None
    call = calls[0]
    if _CONDITIONAL.search(skeleton, 0, call.start()):
        return None  # the call itself may be skipped
    if not re.search(r"(?:^|[;\n{(])\s*" + _BINDING + r"(?:await\s+)?(?:text\(\s*(?:await\s+)?)?$",
                     skeleton[:call.start()]):
        return None  # part of an expression we do not read
    argument = _argument(script, skeleton, call.end())
    if argument is None:
        return None
    arguments = _literal(argument, script, skeleton[:call.start()])
    if isinstance(arguments, dict):
        return call[1], arguments
    if isinstance(arguments, str):
        return call[1], {"raw": arguments}
    return None


def output_text(output: Any) -> str | None:
    """The text of an output given as a list of blocks (``input_text``/``output_text``);
    None when ``output`` is not such a list."""
    if not isinstance(output, list):
        return None
    return "".join(block["text"] for block in output
                   if isinstance(block, dict) and isinstance(block.get("text"), str))


def script_status(text: str) -> tuple[str | None, str | None]:
    """(``completed`` | ``failed`` | ``running`` | None, the running cell's id)."""
    found = _STATUS.match(text)
    if not found:
        return None, None
    if found[2]:
        return "running", found[2]
    return found[1].lower(), None


def script_output(text: str) -> str:
    """What the script printed, without the status header."""
    return _HEADER_LINES.sub("", text, count=1)


def _without_strings(script: str) -> str | None:
    """The script with every string literal's inside blanked (same length, quotes kept), and
    comments blanked; None when a literal never closes or a template names a tool."""
    out, index, length = [], 0, len(script)
    while index < length:
        char = script[index]
        if char in "\"'`":
            end = _string_end(script, index)
            if end is None or (char == "`" and "tools." in script[index:end]):
                return None  # a call inside a template's interpolation is not read
            out.append(char + " " * (end - index - 2) + char)
            index = end
        elif script.startswith("//", index):
            end = script.find("\n", index)
            end = length if end < 0 else end
            out.append(" " * (end - index))
            index = end
        elif script.startswith("/*", index):
            end = script.find("*/", index + 2)
            if end < 0:
                return None
            out.append(" " * (end + 2 - index))
            index = end + 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _string_end(script: str, start: int) -> int | None:
    """The index just past the literal opened at ``start``."""
    quote, index = script[start], start + 1
    while index < len(script):
        char = script[index]
        if char == "\\":
            index += 2
            continue
        if char == quote:
            return index + 1
        if char == "\n" and quote != "`":
            return None
        index += 1
    return None


def _argument(script: str, skeleton: str, start: int) -> str | None:
    """The text of the call's one argument, up to its closing parenthesis."""
    depth = 0
    for index in range(start, len(skeleton)):
        char = skeleton[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return script[start:index].strip() if char == ")" else None
            depth -= 1
        elif char == "," and depth == 0:
            return None  # more than one argument
    return None


#: A JavaScript object's bare key (``{cmd: …}``, ``, workdir: …``), strings blanked first.
_BARE_KEY = lazy_regex(r"([{,]\s*)([A-Za-z_$][\w$]*)(?=\s*:)")


def _object_literal(argument: str) -> Any:
    """A JavaScript object literal that is JSON but for its spelling: keys left bare and
    strings in single quotes (``{cmd: 'git push', yield_time_ms: 1000}``), as models write
    scripts. Only the spelling is changed; anything else that is not JSON (a variable, a call, a
    string with an escape or a double quote in single quotes) leaves the literal unread."""
    skeleton = _without_strings(argument)
    if skeleton is None:
        return None
    pieces, last = [], 0
    for found in _BARE_KEY.finditer(skeleton):
        pieces += [argument[last:found.start(2)], f'"{found[2]}"']
        last = found.end(2)
    spelled = "".join(pieces) + argument[last:]
    skeleton = _without_strings(spelled) or ""
    pieces, last = [], 0
    for found in re.finditer(r"'[^']*'", skeleton):
        inside = spelled[found.start() + 1:found.end() - 1]
        if "\\" in inside or '"' in inside:
            return None
        pieces += [spelled[last:found.start()], f'"{inside}"']
        last = found.end()
    try:
        return json.loads("".join(pieces) + spelled[last:])
    except ValueError:
        return None


def _literal(argument: str, script: str, before: str) -> Any:
    """A JSON-shaped literal (object or double-quoted string), or the string literal a
    ``const`` bound to that name before the call and that nothing reassigned."""
    if argument.startswith(("{", '"')):
        try:
            return json.loads(argument)
        except ValueError:
            return _object_literal(argument) if argument.startswith("{") else None
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", argument):
        return None
    bindings = list(re.finditer(r"\b(?:const|let|var)\s+" + re.escape(argument) + r"\s*=\s*",
                                before))
    if len(bindings) != 1 or re.search(r"\b" + re.escape(argument) + r"\s*(?:[-+*/]?=[^=]|\.)",
                                       before[bindings[0].end():]):
        return None
    start = bindings[0].end()
    if script[start:start + 1] != '"':
        return None
    end = _string_end(script, start)
    if end is None or before[end:].lstrip()[:1] not in (";", "\n", ""):
        return None
    try:
        return json.loads(script[start:end])
    except ValueError:
        return None
