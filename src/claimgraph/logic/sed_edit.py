"""A plain ``sed -i 's/old/new/g'`` (or ``perl -pi -e 's/old/new/'``) read as a substitution
that can be applied to the lines a session saw, when it can be read safely.

A fact that quotes a file must hold for the file's last content. When a shell command changed
the file after the session last saw it (``sed -i 's/1\\.0\\.0/1.0.1/' Makefile``), the
substitution tells what the file says now -- if it is read exactly. Only the plain shape is:
one or more ``s`` commands with no address, a pattern of literal characters, ``.``, ``*``,
anchors and bracket expressions (and, with ``-E``/``-r`` or for perl, ``+``, ``?``, groups and
alternation), a replacement of literal text and ``&``, and no flag but ``g``. Anything else --
a back-reference, an address, ``\\n``, an interval, a character class by name -- is no
substitution this module claims to know (None): the caller leaves out what the edit may have
changed instead. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

#: Escaped characters that stand for themselves in a pattern or a replacement.
_LITERAL_ESCAPES = frozenset("./*[]^$\\-&+?(){}|'\"#@!%,:;=<>~` _")
#: GNU BRE's escaped operators, and perl's and ERE's constructs this reader does not claim.
_BRE_OPERATORS = frozenset("(){}+?|")


@dataclass(frozen=True)
class Substitution:
    """One ``s/pattern/replacement/flags`` as a compiled pattern and a literal replacement
    (``&`` is the whole match)."""

    pattern: re.Pattern[str]
    replacement: tuple[str, ...]  # literal pieces; between two of them, the whole match
    every: bool

    def apply(self, line: str) -> str:
        def replaced(match: re.Match[str]) -> str:
            return match.group(0).join(self.replacement)
        return self.pattern.sub(replaced, line, count=0 if self.every else 1)


def sed_substitutions(script: str, extended: bool = False) -> list[Substitution] | None:
    """The substitutions of a sed script (``s/a/b/g; s|c|d|``), or None when any part of it
    is not a plain substitution (module docstring)."""
    return _substitutions(script, "ere" if extended else "bre")


def perl_substitutions(script: str) -> list[Substitution] | None:
    """The substitutions of a ``perl -pi -e`` script, read like an extended sed script."""
    return _substitutions(script.strip().rstrip(";"), "perl")


def apply_all(substitutions: Iterable[Substitution], text: str) -> str:
    """``text`` after every substitution, line by line, as sed and perl -p apply them."""
    subs = list(substitutions)
    lines = text.split("\n")
    for sub in subs:
        lines = [sub.apply(line) for line in lines]
    return "\n".join(lines)


def _substitutions(script: str, dialect: str) -> list[Substitution] | None:
    found: list[Substitution] = []
    position = 0
    text = script.strip()
    while position < len(text):
        parsed = _one(text, position, dialect)
        if parsed is None:
            return None
        substitution, position = parsed
        found.append(substitution)
        rest = re.match(r"[\s;]*", text[position:])
        position += rest.end() if rest else 0
    return found or None


def _one(text: str, start: int, dialect: str) -> tuple[Substitution, int] | None:
    if text[start:start + 1] != "s" or start + 1 >= len(text):
        return None
    delimiter = text[start + 1]
    if delimiter.isalnum() or delimiter in "\\\n ":
        return None
    parts: list[str] = []
    index = start + 2
    while len(parts) < 2:
        piece, index = _until(text, index, delimiter)
        if piece is None:
            return None
        parts.append(piece)
    flags = re.match(r"[a-zA-Z]*", text[index:])
    flag_text = flags.group(0) if flags else ""
    if flag_text not in ("", "g"):
        return None
    pattern = _pattern(parts[0], delimiter, dialect)
    replacement = _replacement(parts[1], delimiter, dialect)
    if pattern is None or replacement is None or not parts[0]:
        return None
    try:
        compiled = re.compile(pattern)
    except re.error:
        return None
    return Substitution(compiled, replacement, flag_text == "g"), index + len(flag_text)


def _until(text: str, index: int, delimiter: str) -> tuple[str | None, int]:
    """The text up to the next unescaped delimiter (escapes kept), and the index after it."""
    out = []
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            out.append(text[index:index + 2])
            index += 2
            continue
        if char == delimiter:
            return "".join(out), index + 1
        if char == "\n":
            return None, index
        out.append(char)
        index += 1
    return None, index


def _pattern(source: str, delimiter: str, dialect: str) -> str | None:
    """The pattern as a Python regular expression, or None when it uses what is not read."""
    out: list[str] = []
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            escaped = source[index + 1:index + 2]
            if escaped == delimiter or (escaped in _LITERAL_ESCAPES and not (
                    dialect == "bre" and escaped in _BRE_OPERATORS)):
                out.append(re.escape(escaped))
            elif dialect == "perl" and escaped in ("d", "s", "w"):
                out.append("\\" + escaped)
            else:
                return None  # a back-reference, \n, \b, \<, GNU's \( \{ \+ ...
            index += 2
            continue
        if char == "[":
            end = _bracket_end(source, index)
            if end is None or "[:" in source[index:end] or "[=" in source[index:end] \
                    or "[." in source[index:end]:
                return None
            out.append(source[index:end].replace("\\", "\\\\"))
            index = end
            continue
        if char in ".*":
            out.append(char if out or char == "." else re.escape(char))
        elif char == "^":
            out.append("^" if index == 0 else re.escape(char))
        elif char == "$":
            out.append("$" if index == len(source) - 1 else re.escape(char))
        elif char in "+?()|":
            if dialect == "bre":
                out.append(re.escape(char))
            elif char == "(" and source[index + 1:index + 2] == "?":
                return None  # perl's extensions
            else:
                out.append(char)
        elif char == "{":
            if dialect != "bre":
                return None  # an interval
            out.append(re.escape(char))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _bracket_end(source: str, start: int) -> int | None:
    """The index after the ``]`` closing the bracket expression opened at ``start``."""
    index = start + 1
    if source[index:index + 1] == "^":
        index += 1
    if source[index:index + 1] == "]":
        index += 1
    close = source.find("]", index)
    return None if close < 0 else close + 1


def _replacement(source: str, delimiter: str, dialect: str) -> tuple[str, ...] | None:
    """The replacement as literal pieces around ``&`` (sed's whole match), or None."""
    pieces: list[str] = []
    current: list[str] = []
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            escaped = source[index + 1:index + 2]
            if escaped != delimiter and escaped not in _LITERAL_ESCAPES:
                return None  # \1, \n, \U ...
            current.append(escaped)
            index += 2
            continue
        if char == "&" and dialect != "perl":
            pieces.append("".join(current))
            current = []
        elif dialect == "perl" and char in "$@":
            return None  # an interpolated variable or group
        else:
            current.append(char)
        index += 1
    pieces.append("".join(current))
    return tuple(pieces)
