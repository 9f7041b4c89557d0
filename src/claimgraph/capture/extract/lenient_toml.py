"""A forgiving TOML reader: statements with their table, their key and the line they came from.

Manifests reach the extractor as whole files, as Read-tool renderings and, most often, as an
Edit's new text -- a fragment that may lack its table header or begin inside an array, so
``tomllib`` refuses it whole. This reader walks the text line by line instead: headers set the
current table, each ``key = value`` statement is parsed on its own (common shapes by
``toml_values``, anything else by ``tomllib`` once its brackets balance), and an array item
whose array opened out of sight comes back as an orphan. Every entry keeps its stripped source
lines, so a caller can quote the exact line a value was read from.

Cost stays linear and bounded: statements and whole tables the caller does not want are
skipped unparsed, a statement spans at most ``MAX_STATEMENT_LINES`` (a longer array is read
item by item, lazily), and after ``MAX_SLOW_FAILURES`` statements ``tomllib`` refused, the
text is taken for junk and only the fast shapes are read.
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Iterator

from claimgraph.capture.extract.toml_values import (
    bracket_depth, inline_value, literals, plain_string, string_array)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on 3.10
    import tomli as tomllib

_KEY_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_KEY_PATH = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER = lazy_regex(rf"^\[\[?\s*({_KEY_PATH})\s*\]\]?\s*(?:#.*)?$")
_STATEMENT = lazy_regex(rf"^({_KEY_PATH})\s*=(?!=)\s*(.*)$")
_KEY_TOKEN = lazy_regex(_KEY_PART)
_BARE_KEY = lazy_regex(r"[A-Za-z0-9_-]+$")
_SIMPLE_STRING = lazy_regex(r'^"([^"\\]*)"\s*(?:#.*)?$|^\'([^\']*)\'\s*(?:#.*)?$')
MAX_STATEMENT_LINES = 1_000
MAX_SLOW_FAILURES = 20


@dataclass
class TomlEntry:
    """One statement: ``table`` from the last header (``()`` when none was seen), ``key`` its
    dotted key, ``value`` as TOML reads it, ``lines`` the stripped source lines of the statement
    and ``header`` the stripped header line.

    Orphan array items come one entry per line with ``value`` a list; their ``key`` is the
    array's key when its opening line was seen but the array did not close within reach (a
    fragment cut short, a very long array), else ``()``.
    """

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
        if len(self.lines) == 1:
            return self.lines[0]
        line = self._literal_lines.get(item)
        if line is None:
            line = next((line for line in self.lines if item in line), self.lines[0])
        return line

    @cached_property
    def _literal_lines(self) -> dict[str, str]:
        """Each plain string literal of the statement -> the first line holding it."""
        found: dict[str, str] = {}
        for line in self.lines:
            for literal in literals(line):
                found.setdefault(literal, line)
        return found


Wanted = Callable[[tuple[str, ...]], bool]


def _everything(path: tuple[str, ...]) -> bool:
    return True


def read_toml(text: str, wanted: Wanted = _everything,
              wanted_table: Wanted = _everything) -> Iterator[TomlEntry]:
    """Every statement whose full path (table + key) ``wanted`` accepts, lazily; a table
    ``wanted_table`` refuses is skipped to the next header. Never raises."""
    return _Reader(text.splitlines(), wanted, wanted_table).entries()


def split_key(text: str) -> tuple[str, ...]:
    """``a."b.c".d`` -> ("a", "b.c", "d")."""
    if _BARE_KEY.match(text):
        return (text,)
    return tuple(part.strip("\"'") for part in _KEY_TOKEN.findall(text))


class _Reader:
    def __init__(self, lines: list[str], wanted: Wanted, wanted_table: Wanted) -> None:
        self.lines, self.wanted, self.wanted_table = lines, wanted, wanted_table
        self.table: tuple[str, ...] = ()
        self.header = ""
        self.failures = 0

    def entries(self) -> Iterator[TomlEntry]:
        lines, index = self.lines, 0
        open_key: tuple[str, ...] = ()
        while index < len(lines):
            line = lines[index].strip()
            index += 1
            if not line or line[0] == "#":
                continue
            if line[0] == "[" and self._header(line):
                open_key = ()
                if not self.wanted_table(self.table):
                    index = self._next_header(index)
                continue
            statement = _STATEMENT.match(line)
            if statement:
                key, rest = split_key(statement.group(1)), statement.group(2)
                end, open_key = _statement_end(lines, index - 1, rest), ()
                if not self.wanted(self.table + key):
                    index = max(index, end)
                    continue
                entry = self._statement(key, rest, lines[index - 1:end])
                if entry is not None:
                    yield entry
                    index = end
                elif rest.lstrip().startswith("["):
                    open_key = key
            elif self.wanted(self.table + open_key):
                yield from self._orphans(open_key, line)

    def _header(self, line: str) -> bool:
        found = _HEADER.match(line)
        if found is None or line.startswith(('["', "['")):
            return False
        self.table, self.header = split_key(found.group(1)), line
        return True

    def _next_header(self, index: int) -> int:
        while index < len(self.lines):
            line = self.lines[index].lstrip()
            if line.startswith("[") and _HEADER.match(line.rstrip()):
                return index
            index += 1
        return index

    def _statement(self, key: tuple[str, ...], rest: str, raw: list[str]) -> TomlEntry | None:
        stripped = tuple(line.strip() for line in raw)
        simple = _SIMPLE_STRING.match(rest) if len(raw) == 1 else None
        if simple:
            value: Any = simple.group(1) if simple.group(1) is not None else simple.group(2)
        elif len(raw) > 2 and (strings := string_array(rest, stripped[1:])) is not None:
            value = strings
        elif len(raw) == 1 and (inline := inline_value(rest)) is not None:
            value = inline
        else:
            value = self._slow("v = " + "\n".join([rest, *raw[1:]]))
            if value is None:
                return None
        return TomlEntry(self.table, key, value, stripped, self.header)

    def _orphans(self, key: tuple[str, ...], line: str) -> Iterator[TomlEntry]:
        """Array items whose array's opening or closing line is out of sight."""
        item = plain_string(line)
        if item is not None:
            yield TomlEntry(self.table, key, [item], (line,), self.header)
        elif line.startswith(("\"", "'", "{")):
            items = self._slow("v = [" + line + "]")
            if isinstance(items, list):
                yield TomlEntry(self.table, key, items, (line,), self.header)

    def _slow(self, document: str) -> Any:
        """``v`` of a one-statement document by tomllib, within the failure budget."""
        if self.failures >= MAX_SLOW_FAILURES:
            return None
        try:
            return tomllib.loads(document)["v"]
        except (tomllib.TOMLDecodeError, ValueError, KeyError, IndexError):
            self.failures += 1
            return None


def _statement_end(lines: list[str], start: int, rest: str) -> int:
    """Index after the last line of the statement that starts at ``start``."""
    opener = rest.lstrip()[:3]
    limit = min(len(lines), start + MAX_STATEMENT_LINES)
    if opener in ('"""', "'''"):
        if rest.count(opener) >= 2:
            return start + 1
        return next((end + 1 for end in range(start + 1, limit) if opener in lines[end]),
                    start + 1)
    depth, end = bracket_depth(rest), start + 1
    while depth > 0 and end < limit:
        depth += bracket_depth(lines[end])
        end += 1
    return end if depth <= 0 else start + 1
