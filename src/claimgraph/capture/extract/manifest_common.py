"""What a manifest declares, as plain data, and the helpers every manifest format shares.

The dataclasses are what ``manifests.parse_manifest`` returns. Each dependency keeps the
stripped source line it was read from (``quote``), so whoever turns it into a fact can cite a
line an audit finds verbatim in the text the session wrote or read. ``section`` says where in
the file the dependency sat; it is ``None`` when the text was a fragment that did not show its
section, in which case ``kind`` is only the default guess ("runtime").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from claimgraph.logic.lazy_regex import lazy_regex

KINDS = ("runtime", "dev", "test", "build", "optional", "peer")
#: Dependencies read from one text. A manifest with more is generated, not kept by hand; the
#: readers are lazy and stop there, so one call's cost stays bounded whatever the input.
MAX_DEPENDENCIES = 500


@dataclass(frozen=True)
class Dependency:
    """One declared dependency: ``constraint`` as written (``None`` when unpinned or not a
    version, e.g. a git or path source), ``kind`` one of ``KINDS``, ``flags`` extra facts such
    as "indirect", "runtime: false", "git", "path", "workspace"."""

    name: str
    constraint: str | None
    kind: str
    quote: str
    section: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Setting:
    """A project-level declaration that is not a dependency (packageManager, workspaces,
    a lint level, a toolchain), with the line it was read from."""

    key: str
    value: str
    quote: str


@dataclass(frozen=True)
class Manifest:
    """``ecosystem`` is the tool that reads the file (python, node, rust, go, elixir, ruby,
    gradle, maven); ``runtime`` the language constraint, e.g. ("Python", ">=3.10")."""

    ecosystem: str
    runtime: tuple[str, str] | None
    runtime_quote: str | None
    package: str | None
    dependencies: tuple[Dependency, ...]
    settings: tuple[Setting, ...] = ()


@dataclass
class Draft:
    """A manifest under construction: the first runtime and package seen win, a dependency
    already taken from the same section is not taken twice."""

    ecosystem: str
    runtime: tuple[str, str] | None = None
    runtime_quote: str | None = None
    package: str | None = None
    dependencies: list[Dependency] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    _seen: set[tuple[str, str | None]] = field(default_factory=set)

    def dep(self, name: str, constraint: str | None, kind: str, quote: str,
            section: str | None = None, flags: tuple[str, ...] = ()) -> None:
        name = name.strip()
        if not name or (name, section) in self._seen or self.full:
            return
        self._seen.add((name, section))
        constraint = (constraint or "").strip() or None
        self.dependencies.append(Dependency(name, constraint, kind, quote, section, flags))

    @property
    def full(self) -> bool:
        return len(self.dependencies) >= MAX_DEPENDENCIES

    def set_runtime(self, language: str, constraint: str, quote: str) -> None:
        if self.runtime is None and constraint.strip():
            self.runtime, self.runtime_quote = (language, constraint.strip()), quote

    def set_package(self, name: object) -> None:
        if self.package is None and isinstance(name, str) and name.strip():
            self.package = name.strip()

    def setting(self, key: str, value: str, quote: str) -> None:
        self.settings.append(Setting(key, value, quote))

    def build(self) -> Manifest | None:
        """The manifest, or None when the text declared nothing worth reporting."""
        if not (self.dependencies or self.runtime or self.package or self.settings):
            return None
        return Manifest(self.ecosystem, self.runtime, self.runtime_quote, self.package,
                        tuple(self.dependencies), tuple(self.settings))


_ARROW_PREFIX = lazy_regex(r"^ *[0-9]+→", re.M)
#: The same prefix with the line break before it: a pattern that opens with a literal is
#: searched for that character, where ``^`` under ``re.M`` is tried at every position of a
#: long Read output (``strip_line_numbers`` splits the text, a break put before its start).
_ARROW_LINE = lazy_regex(r"\n *[0-9]+→")
_TAB_PREFIX = lazy_regex(r"^ *([0-9]+)\t")


def first_filled_line(text: str) -> str:
    """``next((line for line in text.splitlines() if line.strip()), "")`` without splitting
    the whole text: a growing head is split instead, and a line is taken only once a line
    break follows it in that head (so it is whole), or the head is the text."""
    size = 1024
    while True:
        head = text[:size]
        lines = head.splitlines()
        for index, line in enumerate(lines):
            if line.strip():
                if index < len(lines) - 1 or len(head) == len(text):
                    return line
                break  # the head may end inside this line: read more
        else:
            if len(head) == len(text):
                return ""
        size *= 4


def strip_line_numbers(text: str) -> str:
    """Undo the Claude Code Read rendering (``"  8→text"``) or ``cat -n`` (``"  8\\ttext"``).

    Only when the text's first non-blank line carries that prefix; then exactly the prefix is
    removed from every line that has it, and other lines (a trailing ``<system-reminder>``) stay
    as they are. The ``cat -n`` form also needs its numbers to run consecutively, since a tab
    after a number is ordinary in TSV data.
    """
    first = first_filled_line(text)
    if _ARROW_PREFIX.match(first):
        return "\n".join(_ARROW_LINE.split("\n" + text))[1:]  # _ARROW_PREFIX.sub("", text)
    if not _TAB_PREFIX.match(first):
        return text
    lines = text.splitlines(keepends=True)
    numbers = [int(m.group(1)) for m in map(_TAB_PREFIX.match, lines) if m]
    if any(b != a + 1 for a, b in zip(numbers, numbers[1:])):
        return text
    return "".join(_TAB_PREFIX.sub("", line, count=1) for line in lines)


_REQUIREMENT = lazy_regex(
    r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(.*)$")
_SPEC = lazy_regex(r"^\(?\s*(?:===|[<>=!~]=?)[^@()]*\)?$")


def split_requirement(text: str) -> tuple[str, str | None, tuple[str, ...]] | None:
    """A PEP 508 requirement -> (name, version constraint, flags); None if it is not one.

    A direct reference (``name @ url``) has no version: constraint None, flag "url".
    """
    found = _REQUIREMENT.match(text)
    if not found:
        return None
    spec = found.group(2).split(";", 1)[0].strip()
    if spec.startswith("@"):
        return (found.group(1), None, ("url",)) if len(spec) > 1 else None
    if spec and not _SPEC.match(spec):
        return None
    spec = spec.strip("()").replace(" ", "")
    return found.group(1), spec or None, ()


_TEST_GROUPS = frozenset({"test", "tests", "testing", "unittest", "pytest", "coverage"})
_DEV_GROUPS = frozenset({"dev", "develop", "development", "lint", "linting", "typing", "types",
                         "docs", "doc", "style", "format", "check", "mypy", "tools", "ci"})


def kind_for_group(group: str, default: str) -> str:
    """The kind a named dependency group implies (test, dev, build), else ``default``."""
    name = group.strip().lower()
    if name in _TEST_GROUPS or name.startswith("test"):
        return "test"
    if name in _DEV_GROUPS or name.startswith("dev"):
        return "dev"
    return "build" if name == "build" else default


_VERSIONISH = lazy_regex(r"^\s*(?:[~^=<>!]=?|>=|<=)?\s*v?[0-9*]|^\s*\*\s*$")


def looks_like_version(value: object) -> bool:
    """``^1.2``, ``~> 1.19``, ``>=3``, ``1.0.0``, ``*`` -- a constraint, not a command or a path."""
    return isinstance(value, str) and bool(_VERSIONISH.match(value.replace("~>", "~")))
