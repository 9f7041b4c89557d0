"""The layer table of ``src/claimgraph`` and the checker that holds every module to it.

Kept in ``tests/`` rather than ``src/``: the table is a rule about the source tree, not
something the installed program needs at run time, and the checker reads files with ``ast``
(nothing here imports claimgraph). ``tests/test_layers.py`` runs it on ``src/`` and on small
scratch packages that break the rules on purpose; docs/architecture.md shows the same table.

The table is ordered from the bottom up. Each layer holds one or more *units* (a vertical or
a frontend, or a group of plain modules); a unit is a list of module prefixes. A module may
import

- any module of its own unit,
- any module of a lower layer,
- a module of another unit named in ``ALLOWED`` (e.g. the CLI starts the MCP server).

and nothing else: not a higher layer, not a sibling unit of its own layer. Every import
counts, including the ones inside functions and under ``if TYPE_CHECKING`` (a lazy import up
the layers is still a dependency up the layers), and ``importlib.import_module`` with a
literal name, an f-string whose prefix is a package (the command groups, the lazy ``logic``
surface, the transcript readers: the modules under that prefix whose remaining name appears
as a string in the same file count as imported) or a name read from a table (every string of
the file that names a module counts).

Separately, no two modules may import each other in a circle (the package ``__init__`` of a
module counts as a module of its own), whatever their layers. A registry's load by name
(the f-string case above) is left out of the circle check, never out of the layer check: the
registry names its plugins without depending on them, and a plugin that reads the registry
back (``completion`` walks the whole command line) is the point of having one.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: (layer, {unit: modules}), bottom first. ``pkg.*`` is a package and everything under it;
#: any other entry is that one module. The most specific entry decides a module's unit.
Layers = tuple[tuple[str, dict[str, tuple[str, ...]]], ...]
Pairs = frozenset[tuple[str, str]]

LAYERS: Layers = (
    ("pure logic", {"logic": ("claimgraph.logic.*", "claimgraph.errors")}),
    ("plumbing", {"plumbing": (
        "claimgraph", "claimgraph.private", "claimgraph.guard", "claimgraph.config",
        "claimgraph.configured",
        "claimgraph.location", "claimgraph.sidecar", "claimgraph.project",
        "claimgraph.project_files", "claimgraph.startup", "claimgraph.deferred", "claimgraph.lease",
        "claimgraph.logsetup", "claimgraph.logs", "claimgraph.retrievals",
        "claimgraph.model_command")}),
    ("store", {"store": ("claimgraph.store.*",)}),
    ("core", {"core": ("claimgraph.core.*",)}),
    ("oplog, purge", {"oplog": ("claimgraph.oplog.*",), "purge": ("claimgraph.purge.*",)}),
    ("composition root", {"opening": ("claimgraph.opening",)}),  # the store, logged
    ("hooks, capture, curator", {"hooks": ("claimgraph.hooks.*",),
                                 "capture": ("claimgraph.capture.*",),
                                 "curator": ("claimgraph.curator.*",)}),
    ("daemon", {"daemon": ("claimgraph.daemon.*",)}),
    ("health", {"health": ("claimgraph.health.*",)}),
    ("mcp, viewer", {"mcp": ("claimgraph.mcp.*",), "viewer": ("claimgraph.viewer.*",)}),
    ("cli", {"cli": ("claimgraph.cli.*", "claimgraph.__main__")}),
)

#: Sideways imports the table allows: (importing unit, imported unit). None today: capture
#: starts the curator, and the hook starts capture, as processes (``python -m``), not imports;
#: the CLI starts the MCP server and the viewer from the layer above them.
ALLOWED: Pairs = frozenset()
#: Loads by name that may go up: a package's library surface, loaded on first attribute use
#: (PEP 562), never at import. ``from claimgraph import audit_claims`` is the documented way
#: to audit any JSON document (docs/claims-audit.md); ``import claimgraph`` loads nothing.
LAZY_SURFACE: Pairs = frozenset({
    ("claimgraph", "claimgraph.core.audit_document"),
})


@dataclass(frozen=True)
class Violation:
    importer: str
    imported: str
    why: str

    def __str__(self) -> str:
        return f"{self.importer} -> {self.imported}: {self.why}"


@dataclass
class Graph:
    """Every module under a package root and the modules of that root it imports."""

    edges: dict[str, set[str]] = field(default_factory=dict)
    #: Loads by name through a registry (``import_module(f"pkg.{name}")``), per importer.
    registry: dict[str, set[str]] = field(default_factory=dict)

    def all_edges(self, module: str) -> set[str]:
        return self.edges.get(module, set()) | self.registry.get(module, set())

    @property
    def modules(self) -> list[str]:
        return sorted(self.edges)


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _names_imported(tree: ast.AST, package: str, strings: set[str],
                    module: str) -> tuple[set[str], set[str]]:
    """(names imported outright, names loaded through a registry)."""
    found: set[str] = set()
    by_name: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            targets, registry = _dynamic_targets(node.args[0], strings, module)
            (by_name if registry else found).update(targets)
    return found, by_name


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module")


def _dynamic_targets(arg: ast.expr, strings: set[str], module: str) -> tuple[set[str], bool]:
    """``import_module("a.b")`` -> a.b; ``import_module(f"a.{x}")`` -> a.<s> for every string
    s in the file (a table of names), as a registry's; any other argument (``TABLE[name]``)
    -> every string of the file, as a registry's. Only the names that are modules count."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return {arg.value}, False
    if isinstance(arg, ast.JoinedStr) and arg.values:
        head = arg.values[0]
        prefix = None
        if isinstance(head, ast.Constant) and isinstance(head.value, str):
            prefix = head.value
        elif (isinstance(head, ast.FormattedValue) and isinstance(head.value, ast.Name)
              and head.value.id == "__name__" and len(arg.values) > 1
              and isinstance(arg.values[1], ast.Constant) and arg.values[1].value == "."):
            prefix = module + "."  # f"{__name__}.{x}": a package loading its own modules
        if prefix is not None:
            return {prefix + s.split(":")[0] for s in strings}, True
    return set(strings), True  # a name from a table: every string of the file naming a module


def _package_of(path: Path, root: Path) -> str:
    name = module_name(path, root)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def build_graph(root: Path) -> Graph:
    """The import graph among the modules under ``root`` (a package directory)."""
    paths = sorted(root.rglob("*.py"))
    names = {module_name(p, root) for p in paths}
    graph = Graph()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = {n.value for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        importer = module_name(path, root)
        direct, by_name = _names_imported(tree, _package_of(path, root), strings, importer)
        targets = {_resolve(n, names) for n in direct}
        graph.edges[importer] = {t for t in targets if t and t != importer}
        graph.registry[importer] = {n for n in by_name if n in names and n != importer}
    return graph


def _resolve(name: str, modules: set[str]) -> str | None:
    """The module ``name`` denotes: itself, or (``from pkg import attr``) its longest
    prefix that is a module; None for anything outside the root."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def unit_of(module: str, layers: Layers = LAYERS) -> tuple[int, str] | None:
    """(layer index, unit) of a module by its most specific entry; None if unassigned."""
    best: tuple[int, int, str] | None = None
    for rank, (_, units) in enumerate(layers):
        for unit, entries in units.items():
            for entry in entries:
                if covers(entry, module) and (best is None or len(entry) > best[0]):
                    best = (len(entry), rank, unit)
    return None if best is None else (best[1], best[2])


def covers(entry: str, module: str) -> bool:
    """``pkg.*`` covers pkg and everything under it; any other entry only itself."""
    if entry.endswith(".*"):
        package = entry[:-2]
        return module == package or module.startswith(package + ".")
    return module == entry


def unassigned(graph: Graph, layers: Layers = LAYERS) -> list[str]:
    return [m for m in graph.modules if unit_of(m, layers) is None]


def layer_violations(graph: Graph, layers: Layers = LAYERS, allowed: Pairs = ALLOWED,
                     surface: Pairs = LAZY_SURFACE) -> list[Violation]:
    """Every import that goes up the table or sideways between units without leave."""
    found: list[Violation] = []
    names = [name for name, _ in layers]
    for importer in graph.modules:
        here = unit_of(importer, layers)
        for target in sorted(graph.all_edges(importer)):
            there = unit_of(target, layers)
            if here is None or there is None or here[1] == there[1]:
                continue
            if (importer, target) in surface and target not in graph.edges[importer]:
                continue
            if there[0] > here[0]:
                found.append(Violation(importer, target,
                                       f"up from {names[here[0]]} to {names[there[0]]}"))
            elif there[0] == here[0] and (here[1], there[1]) not in allowed:
                found.append(Violation(importer, target,
                                       f"sideways from {here[1]} to {there[1]}"))
    return found


def cycles(graph: Graph) -> list[list[str]]:
    """Import cycles between modules (Tarjan's strongly connected components, iterative),
    registry loads left out (the module docstring says why)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    edges = {m: sorted(t for t in ts if t in graph.edges) for m, ts in graph.edges.items()}
    for start in graph.modules:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def report(root: Path) -> str:
    graph = build_graph(root)
    lines = [f"modules: {len(graph.modules)}, imports: {sum(map(len, graph.edges.values()))}"
             f" (+{sum(map(len, graph.registry.values()))} by name through a registry)"]
    lines += [f"unassigned: {m}" for m in unassigned(graph)]
    lines += [f"cycle: {' <-> '.join(c)}" for c in cycles(graph)]
    lines += [f"layer: {v}" for v in layer_violations(graph)]
    return "\n".join(lines)


if __name__ == "__main__":  # python tests/layering.py [src/claimgraph]
    default = Path(__file__).resolve().parents[1] / "src" / "claimgraph"
    print(report(Path(sys.argv[1]) if len(sys.argv) > 1 else default))
