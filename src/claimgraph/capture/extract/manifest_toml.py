"""pyproject.toml and Cargo.toml: dependencies and the language they need, from TOML statements.

Both read through ``lenient_toml``, so a fragment still yields what it shows. A fragment
without its table header cannot say which section it came from: a bare requirement string
(``"httpx>=0.27",``) is taken as a runtime dependency with ``section=None``, and a headerless
Cargo line counts as a dependency only when its value reads as a version or a source
(``serde = "1"``, ``tokio = { version = "1" }``), never for package keys like ``version``.
"""

from __future__ import annotations

from typing import Any

from claimgraph.capture.extract.lenient_toml import TomlEntry, read_toml
from claimgraph.capture.extract.manifest_common import (
    MAX_DEPENDENCIES, Draft, Manifest, kind_for_group, looks_like_version, split_requirement)

_PY_ROOTS = frozenset({"project", "dependency-groups", "build-system"})
_PY_HEADERLESS = frozenset({(), ("dependencies",), ("requires-python",)})


def _python_wanted(path: tuple[str, ...]) -> bool:
    """[project], [dependency-groups], [build-system], [tool.poetry], and in a headerless
    fragment only the keys that can only mean dependencies or the Python version."""
    if path[:1] == ("tool",):
        return path[1:2] in ((), ("poetry",))
    return path[:1] in _PY_ROOT_PATHS or path in _PY_HEADERLESS


_PY_ROOT_PATHS = frozenset((root,) for root in _PY_ROOTS)


def parse_pyproject(text: str) -> Manifest | None:
    """PEP 621 [project], [dependency-groups] (PEP 735), Poetry, and build-system requires."""
    draft = Draft("python")
    tables = TableDeps(draft)
    for entry in read_toml(text, _python_wanted, _python_wanted):
        if tables.full:
            break
        _python_entry(draft, tables, entry)
    tables.flush(draft)
    return draft.build()


def _python_entry(draft: Draft, tables: TableDeps, entry: TomlEntry) -> None:
    path = entry.path
    if path in (("project", "name"), ("tool", "poetry", "name")):
        draft.set_package(entry.value)
    elif path in (("project", "requires-python"), ("requires-python",),
                  ("tool", "poetry", "dependencies", "python")):
        if isinstance(entry.value, str):
            draft.set_runtime("Python", entry.value, entry.quote)
    elif path[:3] == ("tool", "poetry", "dependencies") and len(path) >= 4:
        tables.add(entry, 3, "runtime")
    elif path[:3] == ("tool", "poetry", "dev-dependencies") and len(path) >= 4:
        tables.add(entry, 3, "dev")
    elif path[:3] == ("tool", "poetry", "group") and path[4:5] == ("dependencies",) \
            and len(path) >= 6:
        tables.add(entry, 5, kind_for_group(path[3], "dev"))
    else:
        kind_section = _requirement_list_kind(path, bool(entry.table))
        if kind_section and isinstance(entry.value, list):
            _requirements(draft, entry, *kind_section)


def _requirement_list_kind(path: tuple[str, ...], headed: bool) -> tuple[str, str | None] | None:
    """(kind, section) for a path whose value is a list of PEP 508 strings."""
    if path == ("project", "dependencies"):
        return "runtime", "project.dependencies"
    if path[:2] == ("project", "optional-dependencies") and len(path) == 3:
        return kind_for_group(path[2], "optional"), "project.optional-dependencies." + path[2]
    if path[:1] == ("dependency-groups",) and len(path) == 2:
        return kind_for_group(path[1], "dev"), "dependency-groups." + path[1]
    if path == ("build-system", "requires"):
        return "build", "build-system.requires"
    if not headed and path in ((), ("dependencies",)):
        return "runtime", None
    if path in (("project",), ("project", "optional-dependencies"), ("dependency-groups",)):
        return ("runtime" if path == ("project",) else "optional"), None
    return None


def _requirements(draft: Draft, entry: TomlEntry, kind: str, section: str | None) -> None:
    for item in entry.value:
        if draft.full:
            return
        parsed = split_requirement(item) if isinstance(item, str) else None
        if parsed:
            name, constraint, flags = parsed
            draft.dep(name, constraint, kind, entry.quote_for(item), section, flags)


class TableDeps:
    """Dependencies written as TOML tables, merged per name before they are reported.

    ``serde = { version = "1" }``, ``serde.version = "1"`` and a ``[dependencies.serde]``
    table with ``version``/``features`` lines all describe one dependency; the quote is the
    line that names it (the statement, or the table header).
    """

    def __init__(self, draft: Draft) -> None:
        self.draft = draft
        self.found: dict[tuple[str, str], tuple[dict[str, Any], str, str]] = {}

    @property
    def full(self) -> bool:
        """No room left for another dependency, counting those not yet flushed."""
        return len(self.draft.dependencies) + len(self.found) >= MAX_DEPENDENCIES

    def add(self, entry: TomlEntry, at: int, kind: str, section: str | None = "") -> None:
        """Record the dependency named at ``entry.path[at]``; ``section`` defaults to the path
        before it."""
        path = entry.path
        name = path[at]
        section = ".".join(path[:at]) if section == "" else section
        value = entry.value
        for part in reversed(path[at + 1:]):
            value = {part: value}
        attrs = value if isinstance(value, dict) else {"version": value}
        quote = entry.quote if len(entry.table) <= at else (entry.header or entry.quote)
        known = self.found.get((section or "", name))
        if known:
            known[0].update(attrs)
        else:
            self.found[(section or "", name)] = (dict(attrs), quote, kind)

    def flush(self, draft: Draft) -> None:
        for (section, name), (attrs, quote, kind) in self.found.items():
            if name == "python":
                continue
            kind = "optional" if attrs.get("optional") is True else kind
            draft.dep(name, _version_of(attrs), kind, quote, section or None,
                      _source_flags(attrs))


def _version_of(value: dict[str, Any]) -> str | None:
    version = value.get("version")
    return version if isinstance(version, str) else None


def _source_flags(value: dict[str, Any]) -> tuple[str, ...]:
    flags: list[str] = [key for key in ("git", "path", "url") if key in value]
    if value.get("workspace") is True:
        flags.append("workspace")
    return tuple(flags)


_CARGO_SECTIONS = {"dependencies": "runtime", "dev-dependencies": "dev",
                   "build-dependencies": "build"}
_CARGO_PACKAGE_KEYS = frozenset({"name", "version", "edition", "rust-version", "authors",
                                 "description", "license", "repository", "readme", "publish",
                                 "homepage", "documentation", "keywords", "categories",
                                 "resolver", "members", "exclude", "include", "build",
                                 "default-run", "autobins", "links", "workspace"})


def parse_cargo(text: str) -> Manifest | None:
    """[package]/[workspace.package], every dependency table (also per target), and [lints]."""
    draft = Draft("rust")
    tables = TableDeps(draft)
    for entry in read_toml(text, wanted_table=_cargo_table):
        if tables.full:
            break
        _cargo_entry(draft, tables, entry)
    tables.flush(draft)
    toolchain = {setting.key: setting for setting in draft.settings}
    for key, language in (("edition", "Rust edition"), ("rust-version", "Rust")):
        if key in toolchain:
            draft.set_runtime(language, toolchain[key].value, toolchain[key].quote)
    return draft.build()


def _cargo_table(table: tuple[str, ...]) -> bool:
    return not table or table[0] in _CARGO_ROOTS


_CARGO_ROOTS = frozenset({"package", "dependencies", "dev-dependencies", "build-dependencies",
                          "workspace", "target", "lints"})


def _cargo_entry(draft: Draft, tables: TableDeps, entry: TomlEntry) -> None:
    path = entry.path
    package = path[:1] == ("package",) or path[:2] == ("workspace", "package")
    leaf = path[-1] if path else ""
    if package and leaf == "name" and len(path) == 2:
        draft.set_package(entry.value)
    elif (package or len(path) == 1) and leaf in ("edition", "rust-version") \
            and isinstance(entry.value, str):
        draft.setting(leaf, entry.value, entry.quote)
    elif path[:1] == ("lints",) or path[:2] == ("workspace", "lints"):
        _cargo_lint(draft, entry)
    else:
        _cargo_dependency(tables, entry)


def _cargo_lint(draft: Draft, entry: TomlEntry) -> None:
    value = entry.value
    if isinstance(value, dict):
        value = value.get("level", "")
    if isinstance(value, (str, bool)):
        draft.setting(".".join(entry.path), str(value).lower(), entry.quote)


def _cargo_dependency(tables: TableDeps, entry: TomlEntry) -> None:
    path = entry.path
    at = next((i for i, part in enumerate(path[:3]) if part in _CARGO_SECTIONS), None)
    if at is not None and len(path) > at + 1:
        tables.add(entry, at + 1, _CARGO_SECTIONS[path[at]])
    elif not entry.table and len(entry.key) == 1 and entry.key[0] not in _CARGO_PACKAGE_KEYS \
            and _dependency_like(entry.value):
        tables.add(entry, 0, "runtime", section=None)


def _dependency_like(value: Any) -> bool:
    if isinstance(value, dict):
        return bool({"version", "git", "path", "workspace"} & set(value))
    return looks_like_version(value)
