"""A forgiving TOML reader: statements with their table, their key and the line they came from.

Manifests reach the extractor as whole files, as Read-tool renderings and, most often, as an
Edit's new text -- a fragment that may lack its table header or begin inside an array, so
``tomllib`` refuses it whole. This reader walks the text line by line instead: headers set the
current table, each ``key = value`` statement is parsed on its own (by ``tomllib``, a
multi-line array or string once its brackets balance), and an array item with no key in sight
(the fragment began inside the array) comes back as an orphan with ``key == ()``. Every entry
keeps its stripped source lines, so a caller can quote the exact line a value was read from.
Statements the caller does not want are skipped without being parsed, which keeps a large
``[tool.*]`` section cheap.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on 3.10
    import tomli as tomllib

_KEY_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_KEY_PATH = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER = re.compile(rf"^\[\[?\s*({_KEY_PATH})\s*\]\]?\s*(?:#.*)?$")
_STATEMENT = re.compile(rf"^({_KEY_PATH})\s*=(?!=)\s*(.*)$")
_KEY_TOKEN = re.compile(_KEY_PART)
_SIMPLE_STRING = re.compile(r'^"([^"\\]*)"\s*(?:#.*)?$|^\'([^\']*)\'\s*(?:#.*)?$')
_ORPHAN_STRING = re.compile(r'^"([^"\\]*)"\s*,?\s*(?:#.*)?$|^\'([^\']*)\'\s*,?\s*(?:#.*)?$')
MAX_STATEMENT_LINES = 400


@dataclass(frozen=True)
class TomlEntry:
    """One statement: ``table`` from the last header (``()`` when none was seen), ``key`` its
    dotted key (``()`` for orphan array items), ``value`` as tomllib reads it, ``lines`` the
    stripped source lines of the statement and ``header`` the stripped header line."""

    table: tuple[str, ...]
    key: tuple[str, ...]
    value: Any
    lines: tuple[str, ...]
    header: str = ""

    @property
    def path(self) -> tuple[str, ...]:
        return self.table + self.key

    @property
    def quote(self) -> str:
        return self.lines[0]

    def quote_for(self, item: str) -> str:
        """The line of this statement that holds ``item`` as a string literal."""
        for needle in (f'"{item}"', f"'{item}'", item):
            for line in self.lines:
                if needle in line:
                    return line
        return self.lines[0]


Wanted = Callable[[tuple[str, ...]], bool]


def read_toml(text: str, wanted: Wanted = lambda path: True) -> Iterator[TomlEntry]:
    """Every statement whose full path (table + key) ``wanted`` accepts; never raises.

    Orphan array items come back one entry per line with ``value`` a list; their ``key`` is
    the array's key when its opening line was seen but the array never closed (a fragment cut
    short), else ``()``.
    """
    lines = text.splitlines()
    table: tuple[str, ...] = ()
    header, open_key, index = "", (), 0
    while index < len(lines):
        line = lines[index].strip()
        index += 1
        if not line or line.startswith("#"):
            continue
        found = _HEADER.match(line)
        if found and not line.startswith(('["', "['")):
            table, header, open_key = split_key(found.group(1)), line, ()
            continue
        statement = _STATEMENT.match(line)
        if statement:
            key, rest = split_key(statement.group(1)), statement.group(2)
            end = _statement_end(lines, index - 1, rest)
            open_key = ()
            if not wanted(table + key):
                index = max(index, end)
                continue
            entry = _parse_statement(table, key, lines[index - 1:end], header)
            if entry is not None:
                yield entry
                index = end
            elif rest.lstrip().startswith("["):
                open_key = key
            continue
        if wanted(table + open_key):
            yield from _orphans(table, open_key, line, header)


def split_key(text: str) -> tuple[str, ...]:
    """``a."b.c".d`` -> ("a", "b.c", "d")."""
    return tuple(part.strip("\"'") for part in _KEY_TOKEN.findall(text))


def _statement_end(lines: list[str], start: int, rest: str) -> int:
    """Index after the last line of the statement that starts at ``start``."""
    opener = rest.lstrip()[:3]
    if opener in ('"""', "'''"):
        if rest.count(opener) >= 2:
            return start + 1
        for end in range(start + 1, min(len(lines), start + MAX_STATEMENT_LINES)):
            if opener in lines[end]:
                return end + 1
        return start + 1
    depth = _depth(rest)
    end = start + 1
    while depth > 0 and end < len(lines) and end - start < MAX_STATEMENT_LINES:
        depth += _depth(lines[end])
        end += 1
    return end if depth <= 0 else start + 1


def _depth(line: str) -> int:
    """Brackets opened minus closed on a line, outside strings and comments."""
    depth, quote, escaped = 0, "", False
    for char in line:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


def _parse_statement(table: tuple[str, ...], key: tuple[str, ...], raw: list[str],
                     header: str) -> TomlEntry | None:
    stripped = tuple(line.strip() for line in raw)
    rest = _STATEMENT.match(stripped[0]).group(2)  # type: ignore[union-attr]
    simple = _SIMPLE_STRING.match(rest) if len(raw) == 1 else None
    if simple:
        value: Any = simple.group(1) if simple.group(1) is not None else simple.group(2)
    else:
        try:
            value = tomllib.loads("v = " + "\n".join([rest, *raw[1:]]))["v"]
        except (tomllib.TOMLDecodeError, ValueError, IndexError):
            return None
    return TomlEntry(table, key, value, stripped, header)


def _orphans(table: tuple[str, ...], key: tuple[str, ...], line: str,
             header: str) -> Iterator[TomlEntry]:
    """Array items whose array's opening or closing line is out of sight: ``"httpx>=0.27",``."""
    simple = _ORPHAN_STRING.match(line)
    if simple:
        item = simple.group(1) if simple.group(1) is not None else simple.group(2)
        yield TomlEntry(table, key, [item], (line,), header)
        return
    if not line.startswith(("\"", "'", "{")):
        return
    try:
        items = tomllib.loads("v = [" + line + "]")["v"]
    except (tomllib.TOMLDecodeError, ValueError):
        return
    yield TomlEntry(table, key, items, (line,), header)
