"""Imports run downwards: logic -> core/store -> plumbing; no vertical imports back up.

Read from the source with ``ast`` (every import, including the ones inside functions, since a
lazy import up the layers is still a dependency up the layers), so a new module that breaks
the layering fails here, not in a review.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "claimgraph"
VERTICALS = ("capture", "hooks", "curator", "daemon", "cli", "mcp")
#: Top-level modules every layer may use; none of them may reach into a vertical.
PLUMBING = ("errors", "config", "lease", "sidecar", "project", "project_files", "startup", "llm", "logsetup", "logs", "location",
            "server_lease",
            "retrievals")
#: What the pure core may import besides itself: nothing that reads a clock, a file or a socket.
#: Pure third-party libraries the core may use (no I/O, no clock): the redactor's multi-pattern
#: scanner, which falls back to a regular expression when it is not installed.
LOGIC_PURE_LIBS = {"ahocorasick_rs"}
LOGIC_STDLIB = {"__future__", "collections", "datetime", "functools", "itertools", "json",
                "math", "re", "typing", "dataclasses", "types", "enum", "hashlib", "unicodedata",
                "bisect", "heapq", "string", "operator", "copy",
                "base64", "binascii", "urllib",  # the redactor: decoding and URL parsing
                "importlib"}  # logic/__init__ loads its own submodules on first use


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (``from claimgraph import x`` -> claimgraph.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (SRC / package).rglob("*.py"))


def ours(names: set[str]) -> set[str]:
    return {n for n in names if n == "claimgraph" or n.startswith("claimgraph.")}


def in_vertical(name: str) -> bool:
    return any(name == f"claimgraph.{v}" or name.startswith(f"claimgraph.{v}.") for v in VERTICALS)


@pytest.mark.parametrize("path", sources("logic"), ids=module_name)
def test_the_pure_core_imports_only_itself_errors_and_clockless_stdlib(path: Path) -> None:
    names = imports(path)
    foreign = {n for n in ours(names) if not n.startswith(("claimgraph.logic", "claimgraph.errors"))}
    assert foreign == set()
    stdlib = {n.split(".")[0] for n in names - ours(names)}
    allowed = LOGIC_STDLIB | LOGIC_PURE_LIBS
    assert stdlib <= allowed, f"{module_name(path)} imports {stdlib - allowed}"


@pytest.mark.parametrize("path", sources("core", "store") + [SRC / f"{m}.py" for m in PLUMBING],
                         ids=module_name)
def test_the_shell_stores_and_plumbing_never_import_a_vertical(path: Path) -> None:
    assert {n for n in imports(path) if in_vertical(n)} == set()


def test_the_sources_the_rules_read_exist() -> None:
    assert all((SRC / f"{m}.py").exists() for m in PLUMBING)
    assert len(sources("logic")) > 10 and len(sources("core")) > 10


def cycles(package: str) -> list[list[str]]:
    """Import cycles among the modules of one package (Tarjan's strongly connected components)."""
    graph = {module_name(p): {n for n in ours(imports(p))} for p in sources(package)}
    graph = {m: {n for n in deps if n in graph and n != m} for m, deps in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:  # restored: other tests rely on the default limit (deeply nested JSON is refused)
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


@pytest.mark.parametrize("package", ["logic", "core", "store", "curator", "capture"])
def test_no_package_imports_itself_in_a_circle(package: str) -> None:
    assert cycles(package) == []


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a two-module circle in a scratch package is reported."""
    fake = tmp_path / "claimgraph"
    (fake / "pkg").mkdir(parents=True)
    (fake / "pkg" / "a.py").write_text("from claimgraph.pkg.b import x\n")
    (fake / "pkg" / "b.py").write_text("def f():\n    from claimgraph.pkg import a\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert cycles("pkg") == [["claimgraph.pkg.a", "claimgraph.pkg.b"]]
