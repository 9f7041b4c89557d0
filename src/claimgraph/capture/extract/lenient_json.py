"""A forgiving reader for pretty-printed JSON (package.json): leaves with their key path and line.

An Edit's new text is rarely valid JSON on its own (``"vitest": "^3.2.4",`` inside a
devDependencies block), and even a whole file is more useful read line by line, because each
value then comes with the line an audit can find. So this reader keeps a stack of the object
keys opened so far: ``"key": {`` pushes, a line starting with ``}`` or ``]`` pops, and a member
on one line (``"k": "v"``, ``"engines": {"node": ">=20"}``, a minified whole file) is parsed by
``json`` and flattened. A fragment that starts inside an object has an empty stack, so its
leaves come back with a one-element path: the caller knows the section was not shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

_MEMBER = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*:\s*(.*?),?$')
_SIMPLE_STRING = re.compile(r'^"([^"\\]*)"$')
MAX_DEPTH = 64


@dataclass(frozen=True)
class JsonLeaf:
    """A scalar or array at ``path`` (object keys from the outermost one this text showed)."""

    path: tuple[str, ...]
    value: Any
    quote: str


@dataclass
class _Open:
    key: str | None  # None for an anonymous ``{`` (the root, an array element)
    items: list[Any] | None = None  # an array being collected, one item per line
    quote: str = ""


def read_json(text: str) -> Iterator[JsonLeaf]:
    """Every leaf the text shows, in order; never raises."""
    stack: list[_Open] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line[0] in "}]":
            if stack:
                yield from _close(stack)
            continue
        yield from _line(stack, line)


def _path(stack: list[_Open]) -> tuple[str, ...]:
    return tuple(level.key for level in stack if level.key is not None)


def _close(stack: list[_Open]) -> Iterator[JsonLeaf]:
    level = stack.pop()
    if level.items is not None and level.key is not None:
        yield JsonLeaf(_path(stack) + (level.key,), level.items, level.quote)


def _line(stack: list[_Open], line: str) -> Iterator[JsonLeaf]:
    if stack and stack[-1].items is not None:
        items = _items(line)
        if items or line[0] not in "{[":
            stack[-1].items.extend(items)
            return
    if line[0] in "{[" and _loads(line) is _INVALID:
        if len(stack) < MAX_DEPTH:
            stack.append(_Open(None, [] if line[0] == "[" else None))
        return
    member = _MEMBER.match(line)
    if member is None:
        if line.startswith("{"):
            yield from _flatten(_path(stack), _loads(line), line)
        return
    key, rest = _unescape(member.group(1)), member.group(2).strip()
    if not rest:
        return
    if rest in ("{", "[") or (rest[:1] in "{[" and _loads(rest) is _INVALID):
        if len(stack) < MAX_DEPTH:
            stack.append(_Open(key, [] if rest.startswith("[") else None, line))
        return
    simple = _SIMPLE_STRING.match(rest)
    value = simple.group(1) if simple else _loads(rest)
    if value is not _INVALID:
        yield from _flatten(_path(stack) + (key,), value, line)


_INVALID = object()


def _loads(text: str) -> Any:
    try:
        return json.loads(text.rstrip(","))
    except (ValueError, RecursionError):
        return _INVALID


def _unescape(key: str) -> str:
    if "\\" not in key:
        return key
    value = _loads(f'"{key}"')
    return value if isinstance(value, str) else key


def _items(line: str) -> list[Any]:
    value = _loads("[" + line.rstrip(",") + "]")
    return value if isinstance(value, list) else []


def _flatten(path: tuple[str, ...], value: Any, quote: str) -> Iterator[JsonLeaf]:
    if value is _INVALID or len(path) > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _flatten(path + (str(key),), inner, quote)
    else:
        yield JsonLeaf(path, value, quote)
