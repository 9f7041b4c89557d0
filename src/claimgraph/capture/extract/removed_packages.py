"""A dependency the session added and then took out again: the last word on a package decides.

``tooling`` keeps a package the session installed (``npm install lodash``, ``uv add
requests``) as a dependency of the project. When a later command that worked removes that
very package (``npm uninstall lodash``, ``uv remove requests``, ``cargo remove serde``) and
nothing adds it again afterwards, the project no longer depends on it: the fact would tell
the next session about a package its manifest does not hold.

Only the package managers' own remove commands count, and only the names they are given
(options skipped, a version pin taken off). And only a removal from the place the package was
added: the same folder (``cd tools/legacy && npm uninstall x`` is another project's), not
another workspace member or the global install (``-w``, ``--filter``, ``-p``, ``-g``: the
command is skipped), and not an environment-only removal (``pip uninstall x``) of a package
the session wrote into the manifest (``uv add x``: the manifest still holds it).
Pure logic on plain data: no file, no clock.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, NamedTuple

from claimgraph.capture.extract.shell import invocations, unwrap
from claimgraph.capture.extract.tooling import changes_manifest, packages_added

#: The commands that take packages out of a project's manifest or environment.
PACKAGE_REMOVES = frozenset({
    ("npm", "uninstall"), ("npm", "remove"), ("npm", "rm"), ("npm", "un"), ("npm", "r"),
    ("pnpm", "remove"), ("pnpm", "rm"), ("pnpm", "uninstall"), ("yarn", "remove"),
    ("bun", "remove"), ("bun", "rm"), ("uv", "remove"), ("poetry", "remove"), ("pdm", "remove"),
    ("pip", "uninstall"), ("pip3", "uninstall"), ("uv", "pip", "uninstall"),
    ("cargo", "remove"), ("cargo", "rm"), ("composer", "remove"), ("gem", "uninstall"),
    ("bundle", "remove")})
DEPENDS_ON = "core/depends-on"
#: Removes that leave the project's manifest as it was (an environment is emptied).
_ENVIRONMENT_ONLY = frozenset({("pip", "uninstall"), ("pip3", "uninstall"),
                               ("uv", "pip", "uninstall")})
#: Options that point a remove at another place than the project's own manifest: the global
#: install, a workspace member, another folder or manifest.
_ELSEWHERE = frozenset({"-g", "--global", "--location", "-w", "--workspace", "--filter", "-F",
                        "--prefix", "-C", "--cwd", "--dir", "--directory", "--project",
                        "--manifest-path", "-p", "--package", "--target", "--user"})


#: Where the session's command runs, as ``cd`` is followed from it: "." (no cd), a folder
#: relative to it ("tools/legacy"), an absolute one, or None when unknowable (``cd ~``).
_HERE = "."


class PackageChange(NamedTuple):
    """One package a command that worked added or removed, and where: the folder ``cd``
    moved to on its line (``_HERE``: where the session runs), and whether it changed only an
    environment (``pip install``), not the manifest."""

    line: int
    name: str
    added: bool
    cwd: str | None = _HERE
    environment: bool = False
_MANAGERS = re.compile(r"\b(?:npm|pnpm|yarn|bun|uv|poetry|pdm|pip3?|cargo|composer|gem|bundle|"
                       r"go)\b")


def packages_removed(argv: tuple[str, ...]) -> list[str]:
    """The package names a remove command names (``npm uninstall -D a b@1`` -> a, b)."""
    words = unwrap(argv)
    for size in (3, 2):
        if tuple(words[:size]) in PACKAGE_REMOVES:
            if any(word.split("=", 1)[0] in _ELSEWHERE for word in words[size:]):
                return []  # another place's manifest or the global install
            return [_bare(word) for word in words[size:] if not word.startswith("-")]
    return []


def _environment_only(argv: tuple[str, ...]) -> bool:
    words = unwrap(argv)
    return any(tuple(words[:size]) in _ENVIRONMENT_ONLY for size in (2, 3))


def _bare(spec: str) -> str:
    """``@types/node@20`` -> @types/node, ``requests==2.1`` -> requests."""
    at = spec.rfind("@")
    spec = spec[:at] if at > 0 else spec
    return spec.split("==", 1)[0].lower()


def package_changes(commands: Iterable[tuple[int, str]]) -> list[PackageChange]:
    """Each package the commands that worked added or removed, in order."""
    found: list[PackageChange] = []
    for line, command in commands:
        if not _MANAGERS.search(command):
            continue  # cheap: most commands name no package manager
        for invocation in invocations(command, _HERE):
            argv, cwd = invocation.argv, invocation.cwd
            found += [PackageChange(line, name.lower(), True, cwd, not changes_manifest(argv))
                      for name in packages_added(argv)]
            found += [PackageChange(line, name, False, cwd, _environment_only(argv))
                      for name in packages_removed(argv)]
    return found


def removed_later(found: Mapping[str, Any], line: int | None,
                  changes: Iterable[PackageChange]) -> bool:
    """A dependency fact whose package the session's last change after ``line`` removed,
    from where it was added (the last add at or before ``line``; the module docstring)."""
    if line is None or found.get("predicate") != DEPENDS_ON:
        return False
    name = str(found.get("object") or "").lower()
    mine = [change for change in changes if change.name == name]
    added = max((change for change in mine if change.added and change.line <= line),
                key=lambda change: change.line, default=None)
    cwd = added.cwd if added else _HERE
    manifest = added is not None and not added.environment
    last = max((change for change in mine if change.line > line and change.cwd == cwd
                and not (manifest and change.environment and not change.added)),
               key=lambda change: change.line, default=None)
    return last is not None and not last.added
