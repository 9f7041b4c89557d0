"""What part of the project a line of an instruction file binds, read from where it sits.

A line of a CLAUDE.md or AGENTS.md binds what its heading, its parent bullet or its
"**Label**:" lead-in names: a crate, a package, a folder, a layer, a kind of file. Under
"### Crate Responsibilities", the item "- **mementor-lib**: All business logic …" goes on, on
its own line, with "No direct CLI or I/O concerns." -- a rule of that one crate, while the CLI
crate beside it has CLI concerns. Stored as a rule of the whole project it misleads the next
agent; stored as "mementor-lib: No direct CLI or I/O concerns" it says what the file says.

Three places carry a scope:

- the label of the list item a line continues (the item's first line carries it already, as
  "Label: rest"; a sentence on a later line of the same item is bound by it the same way);
- a parent bullet that names a part ("- In `web/`:" above "  - Use server components");
- a heading that names a part ("### Frontend", "## `crates/cli`", "### mementor-lib").

A heading or parent names a part when it holds a code span or a path, a folder or file name the
session saw in the project (as spelled), or a short title led by a layer (``_PART_WORDS``:
"Frontend", "API layer", "Tests"); a generic section title ("Code style",
"Guidelines", "Key Patterns", "Constraints") names none and adds nothing. The document's own
title (its first heading when that is the top level, or the file's or project's name) is the
whole project, not a part. When a part cannot be stated safely -- the heading naming it is a
sentence, or the line is the indented rest of an item or a nested item whose head the look
did not show (a read that began below it) -- the line is not kept at all (``UNKNOWN``).
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterable

from claimgraph.logic.lazy_regex import lazy_regex

#: The scope of a line that binds a part the text does not show or cannot state in a few
#: words: such a line is left out rather than stored as a rule of the whole project.
UNKNOWN = None
#: Words a heading or a parent bullet of at most this many words may have and still be a name.
MAX_SCOPE_WORDS = 6
#: Layers of a project a section of an instruction file is written for. Counted, like a
#: folder's name, only as the first word of a short title ("### Frontend", "API layer:"): in
#: "Running Tests" or "Testing" the word names a topic, not a part. A language ("General
#: Python Style", "TypeScript Guidelines") is most often the whole project's and no part.
_PART_WORDS = frozenset({
    "frontend", "backend", "server", "client", "web", "webapp", "api", "cli", "ui", "gui",
    "database", "db", "mobile", "ios", "android", "desktop", "worker", "workers", "infra",
    "infrastructure", "scripts", "migrations", "tests", "e2e", "fixtures", "firmware",
    "kernel"})
#: Words a title led by a layer or a folder's name may have ("Frontend", "API layer",
#: "Backend (FastAPI)", "mementor-lib crate"); in a longer one ("E2E Tests - USE THE SKILL")
#: the name is one word of a sentence.
MAX_LAYER_WORDS = 3
_HEADING = lazy_regex(r"^(?P<marks>#{1,6})\s+(?P<title>.+?)\s*#*$")
_ITEM = lazy_regex(r"^(?P<indent>\s*)(?:[-*•+]|\d+[.)])\s+(?P<body>.*)$")
_LABEL = lazy_regex(r"^(?:\*\*(?P<bold>[^*]{1,40})\*\*|(?P<plain>[A-Z][\w /-]{1,30}))"
                    r"\s*:(?:\s+|$)")
_LEAD_IN = lazy_regex(r"^(?P<head>.{1,60}?):$")
_EMPHASIS = lazy_regex(r"\*\*|__|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)")
#: A code span, a folder written with its slash (``web/``: not "I/O" or "CI/CD") or a file
#: or kind of file (``*.tsx``, ``.env``, ``src/app.ts``).
_CODE_OR_PATH = lazy_regex(r"`[^`]+`|\w/(?![\w-])|(?<![\w.])\*?\.[a-z]{1,5}\b|"
                           r"\w\.(?:md|ts|tsx|js|jsx|py|rs|go|rb|java|kt|swift|sql|json|toml|ya?ml)\b")
_NAME = lazy_regex(r"[\w][\w.-]*")


def project_parts(paths: Iterable[str], project: str | None) -> frozenset[str]:
    """The names of the folders and files the session saw in the project (paths relative to
    its root), as spelled, without the project's own name: what a heading may name. A heading
names one as spelled ("### mementor-lib", "## billing"), not a section title that happens to
share a folder's name ("## Commands" beside ``.claude/commands/``)."""
    names = {part for path in paths for part in path.split("/") if part}
    names |= {posixpath.splitext(name)[0] for name in names}
    return frozenset(names - {"", project or ""})


def names_part(title: str, parts: frozenset[str] = frozenset()) -> bool:
    """Whether a heading or a lead-in names a part of the project (a code span, a path, a
    folder or file the session saw or a layer leading a short title) rather than a topic."""
    text = _EMPHASIS.sub("", title).strip()
    if _CODE_OR_PATH.search(text):
        return True
    names = _NAME.findall(re.sub(r"\([^)]*\)", "", text))
    return 0 < len(names) <= MAX_LAYER_WORDS and (
        names[0].rstrip(".") in parts or names[0].lower() in _PART_WORDS)


def line_scopes(text: str, own_names: Iterable[str] = (),
                parts: frozenset[str] = frozenset()) -> dict[str, str | None]:
    """Stripped line -> the scope it binds ("" for the whole project, ``UNKNOWN`` when the
    part it binds cannot be stated). ``own_names`` are the names of the whole (the file's,
    the project's) that a heading may repeat without naming a part."""
    whole = {name.lower() for name in own_names if name}
    headings: list[str] = []
    levels: list[int] = []
    items: list[_Item] = []
    titled = fenced = shown_head = False
    scopes: dict[str, str | None] = {}
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        heading = _HEADING.match(line.strip()) if not indent else None
        if heading:
            level, title = len(heading["marks"]), _EMPHASIS.sub("", heading["title"]).strip()
            kept = [i for i, at in enumerate(levels) if at < level]
            headings, levels = [headings[i] for i in kept], [levels[i] for i in kept]
            if (titled or level > 1) and title.lower() not in whole:
                headings, levels = [*headings, title], [*levels, level]
            titled = shown_head = True
            items = []
            continue
        if indent and not shown_head:
            scopes.setdefault(line.strip(), UNKNOWN)  # the rest of an item the look cut off
            continue
        shown_head = True
        item = _ITEM.match(line)
        if item:
            items = [i for i in items if i.indent < indent]
            scopes.setdefault(line.strip(), _join(headings, parts, [
                i.part for i in items if i.part]))
            items.append(_item(indent, item["body"], parts))
        elif indent and items and items[-1].indent < indent:
            outer = [i.part for i in items[:-1] if i.part]
            own = [items[-1].label] if items[-1].label else []
            scopes.setdefault(line.strip(), _join(headings, parts, outer + own))
        else:
            items = [] if not indent else items
            scopes.setdefault(line.strip(), _join(headings, parts, []))
    return scopes


class _Item:
    """A list item as its later lines and nested items see it: its indent, its "Label:"
    (carried by the item's own later lines) and the part it names for the items under it."""

    __slots__ = ("indent", "label", "part")

    def __init__(self, indent: int, label: str | None, part: str | None) -> None:
        self.indent, self.label, self.part = indent, label, part


def _item(indent: int, body: str, parts: frozenset[str]) -> _Item:
    labelled = _LABEL.match(body)
    label = (labelled["bold"] or labelled["plain"]).strip() if labelled else None
    lead = _LEAD_IN.match(_EMPHASIS.sub("", body).strip())
    head = label or (lead["head"].strip() if lead else None)
    part = head if head and len(head.split()) <= MAX_SCOPE_WORDS \
        and names_part(head, parts) else None
    return _Item(indent, label, part)


def _join(headings: list[str], parts: frozenset[str], below: list[str]) -> str | None:
    """The scope of a line: the headings above it that name a part, then the items'."""
    named = [title for title in headings if names_part(title, parts)]
    if any(len(title.split()) > MAX_SCOPE_WORDS for title in named):
        return UNKNOWN  # a sentence, not a name: what it binds cannot be said in a prefix
    return " / ".join([*named, *below])


def scoped(rule: str, scope: str | None) -> str | None:
    """The rule as it is stored: prefixed by the parts it binds that it does not name itself
    ("mementor-lib: No direct CLI or I/O concerns"); ``None`` when its scope is unknown."""
    if scope is UNKNOWN:
        return None
    said = _plain(rule)
    missing = [part for part in scope.split(" / ") if part and not re.search(
        r"(?<![\w-])" + re.escape(_plain(part)) + r"(?![\w-])", said)]
    if not missing:
        return rule
    joiner = " / " if _LABEL.match(rule) else ": "
    return " / ".join(missing) + joiner + rule


def _plain(text: str) -> str:
    return " ".join(_EMPHASIS.sub("", text).replace("`", "").lower().split())
