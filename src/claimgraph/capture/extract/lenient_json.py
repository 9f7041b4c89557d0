"""A forgiving reader for pretty-printed JSON (package.json): leaves with their key path and line.

An Edit's new text is rarely valid JSON on its own (``"vitest": "^3.2.4",`` inside a
devDependencies block), and even a whole file is more useful read line by line, because each
value then comes with the line an audit can find. So this reader keeps a stack of the object
keys opened so far: ``"key": {`` pushes, a line starting with ``}`` or ``]`` pops, and a member
on one line (``"k": "v"``, ``"engines": {"node": ">=20"}``, a minified whole file) is parsed by
``json`` and flattened. A fragment that starts inside an object has an empty stack, so its
leaves come back with a one-element path: the caller knows the section was not shown.

Lines that ``json`` refuses cost an exception each; after ``MAX_FAILURES`` of them the text is
taken for junk and only the simple ``"key": "value"`` lines are still read.
"""

from __future__ import annotations

import json
from claimgraph.logic.lazy_regex import lazy_regex
from typing import Any, Iterator, NamedTuple

_SIMPLE_MEMBER = lazy_regex(r'^"([^"\\]*)"\s*:\s*"([^"\\]*)",?$')
_MEMBER = lazy_regex(r'^"((?:[^"\\]|\\.)*)"\s*:\s*(.*)$')
MAX_DEPTH = 64
MAX_FAILURES = 20


class JsonLeaf(NamedTuple):
    """A scalar or array at ``path`` (object keys from the outermost one this text showed)."""

    path: tuple[str, ...]
    value: Any
    quote: str


class _Open:
    __slots__ = ("key", "items", "quote")

    def __init__(self, key: str | None, items: list[Any] | None = None, quote: str = "") -> None:
        self.key = key  # None for an anonymous ``{`` (the root, an array element)
        self.items = items  # an array being collected, one item per line
        self.quote = quote


def read_json(text: str) -> Iterator[JsonLeaf]:
    """Every leaf the text shows, in order, lazily; never raises."""
    return _Reader().leaves(text)


_INVALID = object()


class _Reader:
    def __init__(self) -> None:
        self.stack: list[_Open] = []
        self.path: tuple[str, ...] = ()
        self.failures = 0

    def leaves(self, text: str) -> Iterator[JsonLeaf]:
        for raw in text.splitlines():
            line = raw.strip()
            if not line:
                continue
            simple = _SIMPLE_MEMBER.match(line)
            if simple and not (self.stack and self.stack[-1].items is not None):
                yield JsonLeaf(self.path + (simple.group(1),), simple.group(2), line)
            elif line[0] in "}]":
                yield from self._close()
            else:
                yield from self._line(line)

    def _push(self, level: _Open) -> None:
        if len(self.stack) < MAX_DEPTH:
            self.stack.append(level)
            self.path = self.path + ((level.key,) if level.key is not None else ())

    def _close(self) -> Iterator[JsonLeaf]:
        if not self.stack:
            return
        level = self.stack.pop()
        if level.key is not None:
            self.path = self.path[:-1]
            if level.items is not None:
                yield JsonLeaf(self.path + (level.key,), level.items, level.quote)

    def _line(self, line: str) -> Iterator[JsonLeaf]:
        if line in ("{", "["):
            self._push(_Open(None, [] if line == "[" else None))
            return
        collecting = self.stack[-1].items if self.stack else None
        if collecting is not None:
            items = self._loads("[" + line.rstrip(",") + "]")
            if isinstance(items, list) and (items or line[0] not in "{["):
                collecting.extend(items)
                return
        member = _MEMBER.match(line)
        if member is None:
            if line[0] in "{[":
                value = self._loads(line)
                if value is _INVALID:
                    self._push(_Open(None, [] if line[0] == "[" else None))
                else:
                    yield from _flatten(self.path, value, line)
            return
        key, rest = _unescape(member.group(1)), member.group(2).rstrip(", \t")
        if not rest:
            return
        value = _INVALID if rest in ("{", "[") else self._loads(rest)
        if value is _INVALID and rest[0] in "{[":
            self._push(_Open(key, [] if rest[0] == "[" else None, line))
        elif value is not _INVALID:
            yield from _flatten(self.path + (key,), value, line)

    def _loads(self, text: str) -> Any:
        if self.failures >= MAX_FAILURES:
            return _INVALID
        try:
            return json.loads(text.rstrip(","))
        except (ValueError, RecursionError):
            self.failures += 1
            return _INVALID


def _unescape(key: str) -> str:
    if "\\" not in key:
        return key
    try:
        value = json.loads(f'"{key}"')
    except ValueError:
        return key
    return value if isinstance(value, str) else key


def _flatten(path: tuple[str, ...], value: Any, quote: str) -> Iterator[JsonLeaf]:
    if len(path) > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _flatten(path + (str(key),), inner, quote)
    else:
        yield JsonLeaf(path, value, quote)
