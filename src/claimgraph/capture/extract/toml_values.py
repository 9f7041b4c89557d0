"""The common shapes of TOML values, read without tomllib.

``tomllib`` is pure Python and builds a whole parser state per call; the lenient reader calls
it once per statement, so the shapes manifests use all the time -- a string, an array of
strings, a small inline table (``{ version = "1", features = ["derive"] }``) -- are read here
with a few regular expressions, and only anything else goes to ``tomllib``. Each function
returns None for a shape it does not know, never a wrong value.
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex
from typing import Any

_LITERAL = lazy_regex(r'"([^"\\]*)"|\'([^\']*)\'')
_ORPHAN_STRING = lazy_regex(r'^"([^"\\]*)"\s*,?\s*(?:#.*)?$|^\'([^\']*)\'\s*,?\s*(?:#.*)?$')
_BRACKET = lazy_regex(r"[\[\]{}]")
_STRINGS_AND_COMMENT = lazy_regex(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#.*')
_TRAILING_COMMENT = lazy_regex(r"\s*#[^\"'\]}]*$")
_PLAIN_STRING = r'(?:"[^"\\]*"|\'[^\']*\')'
_STRINGS = rf"\[\s*(?:{_PLAIN_STRING}\s*(?:,\s*{_PLAIN_STRING}\s*)*,?\s*)?\]"
_STRING_LIST = lazy_regex(rf"^{_STRINGS}$")
_INLINE_PAIR = lazy_regex(rf"\s*([A-Za-z0-9_-]+)\s*=\s*({_PLAIN_STRING}|true|false|-?[0-9][0-9_]*|"
                          rf"{_STRINGS})\s*(?:,|$)")
_ARRAY_OPEN = lazy_regex(r"^\[\s*(?:#.*)?$")
_ARRAY_CLOSE = lazy_regex(r"^\]\s*,?\s*(?:#.*)?$")


def plain_string(line: str) -> str | None:
    """The string of an array-item line ``"httpx>=0.27",`` (no escapes), else None."""
    found = _ORPHAN_STRING.match(line)
    if found is None:
        return None
    return found.group(1) if found.group(1) is not None else found.group(2)


def literals(line: str) -> list[str]:
    """Every plain (escape-free) string literal on a line."""
    return [double or single for double, single in _LITERAL.findall(line)]


def bracket_depth(line: str) -> int:
    """Brackets opened minus closed on a line, outside strings and comments."""
    if not _BRACKET.search(line):
        return 0
    bare = _STRINGS_AND_COMMENT.sub("", line)
    return bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")


def inline_value(text: str) -> Any:
    """A one-line array of strings or an inline table of simple values, read without tomllib
    (``features = ["derive"]``, ``serde = { version = "1", optional = true }``); None for
    anything else, which tomllib then reads."""
    text = _TRAILING_COMMENT.sub("", text)
    if _STRING_LIST.match(text):
        return literals(text)
    if not (text.startswith("{") and text.endswith("}")):
        return None
    table, position, body = {}, 0, text[1:-1].strip()
    while position < len(body):
        pair = _INLINE_PAIR.match(body, position)
        if pair is None:
            return None
        key, raw = pair.group(1), pair.group(2)
        table[key] = _inline_scalar(raw)
        if table[key] is None:
            return None
        position = pair.end()
    return table


def _inline_scalar(raw: str) -> Any:
    if raw[0] in "\"'":
        return raw[1:-1]
    if raw in ("true", "false"):
        return raw == "true"
    if raw[0] == "[":
        return inline_value(raw)
    try:
        return int(raw.replace("_", ""))
    except ValueError:
        return None


def string_array(opener: str, lines: tuple[str, ...]) -> list[str] | None:
    """A multi-line array of plain strings, one per line, read without tomllib (the common
    shape of a long dependency list); None for any other shape."""
    if not _ARRAY_OPEN.match(opener) or not _ARRAY_CLOSE.match(lines[-1]):
        return None
    items = []
    for line in lines[:-1]:
        if not line or line.startswith("#"):
            continue
        item = plain_string(line)
        if item is None:
            return None
        items.append(item)
    return items
