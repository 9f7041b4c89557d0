"""A dependency the session added and then took out again: the last word on a package decides.

``tooling`` keeps a package the session installed (``npm install lodash``, ``uv add
requests``) as a dependency of the project. When a later command that worked removes that
very package (``npm uninstall lodash``, ``uv remove requests``, ``cargo remove serde``) and
nothing adds it again afterwards, the project no longer depends on it: the fact would tell
the next session about a package its manifest does not hold.

Only the package managers' own remove commands count, and only the names they are given
(options skipped, a version pin taken off). Pure logic on plain data: no file, no clock.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from claimgraph.capture.extract.shell import invocations, unwrap
from claimgraph.capture.extract.tooling import packages_added

#: The commands that take packages out of a project's manifest or environment.
PACKAGE_REMOVES = frozenset({
    ("npm", "uninstall"), ("npm", "remove"), ("npm", "rm"), ("npm", "un"), ("npm", "r"),
    ("pnpm", "remove"), ("pnpm", "rm"), ("pnpm", "uninstall"), ("yarn", "remove"),
    ("bun", "remove"), ("bun", "rm"), ("uv", "remove"), ("poetry", "remove"), ("pdm", "remove"),
    ("pip", "uninstall"), ("pip3", "uninstall"), ("uv", "pip", "uninstall"),
    ("cargo", "remove"), ("cargo", "rm"), ("composer", "remove"), ("gem", "uninstall"),
    ("bundle", "remove")})
DEPENDS_ON = "core/depends-on"
_MANAGERS = re.compile(r"\b(?:npm|pnpm|yarn|bun|uv|poetry|pdm|pip3?|cargo|composer|gem|bundle|"
                       r"go)\b")


def packages_removed(argv: tuple[str, ...]) -> list[str]:
    """The package names a remove command names (``npm uninstall -D a b@1`` -> a, b)."""
    words = unwrap(argv)
    for size in (3, 2):
        if tuple(words[:size]) in PACKAGE_REMOVES:
            return [_bare(word) for word in words[size:] if not word.startswith("-")]
    return []


def _bare(spec: str) -> str:
    """``@types/node@20`` -> @types/node, ``requests==2.1`` -> requests."""
    at = spec.rfind("@")
    spec = spec[:at] if at > 0 else spec
    return spec.split("==", 1)[0].lower()


def package_changes(commands: Iterable[tuple[int, str]]) -> list[tuple[int, str, bool]]:
    """(line, package, added) for each package the commands that worked added or removed."""
    found: list[tuple[int, str, bool]] = []
    for line, command in commands:
        if not _MANAGERS.search(command):
            continue  # cheap: most commands name no package manager
        for invocation in invocations(command):
            found += [(line, name.lower(), True) for name in packages_added(invocation.argv)]
            found += [(line, name, False) for name in packages_removed(invocation.argv)]
    return found


def removed_later(found: Mapping[str, Any], line: int | None,
                  changes: Iterable[tuple[int, str, bool]]) -> bool:
    """A dependency fact whose package the session's last change after ``line`` removed."""
    if line is None or found.get("predicate") != DEPENDS_ON:
        return False
    name = str(found.get("object") or "").lower()
    last = max(((at, added) for at, package, added in changes if at > line and package == name),
               default=None)
    return last is not None and not last[1]
