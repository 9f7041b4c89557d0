"""Every module of src/claimgraph has a layer, and imports only run down the layer table.

The table and the checker are ``tests/layering.py`` (read with ``ast``: every import, the
ones inside functions and under ``TYPE_CHECKING`` too, and ``import_module`` by name). The
second half of this file builds small scratch packages that break each rule on purpose, so a
checker that stopped seeing an upward import, a sideways one or a circle fails here.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from textwrap import dedent

import pytest


def _load_layering():
    path = Path(__file__).resolve().parent / "layering.py"
    spec = importlib.util.spec_from_file_location("claimgraph_test_layering", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


L = _load_layering()
SRC = Path(__file__).resolve().parents[1] / "src" / "claimgraph"
GRAPH = L.build_graph(SRC)

#: What the pure core may import besides itself: nothing that reads a clock, a file or a socket.
#: Pure third-party libraries the core may use (no I/O, no clock): the redactor's multi-pattern
#: scanner, which falls back to a regular expression when it is not installed.
LOGIC_PURE_LIBS = {"ahocorasick_rs"}
LOGIC_STDLIB = {"__future__", "collections", "datetime", "functools", "itertools", "json",
                "math", "re", "typing", "dataclasses", "types", "enum", "hashlib", "unicodedata",
                "_blake2",  # hashlib's BLAKE2 itself, without the OpenSSL hashlib also loads
                "bisect", "heapq", "string", "operator", "copy",
                "base64", "binascii", "urllib",  # the redactor: decoding and URL parsing
                "importlib"}  # logic/__init__ loads its own submodules on first use


# --- the real tree ----------------------------------------------------------------------------

def test_every_module_of_src_has_a_layer() -> None:
    assert len(GRAPH.modules) > 200  # the whole tree was read, not one package
    assert L.unassigned(GRAPH) == []


def test_no_import_goes_up_the_table_or_sideways_between_units() -> None:
    assert [str(v) for v in L.layer_violations(GRAPH)] == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert L.cycles(GRAPH) == []


def test_every_entry_of_the_table_names_modules_that_exist() -> None:
    """A module moved or removed leaves no stale row behind (the table is the documentation)."""
    stale = [entry for _, units in L.LAYERS for entries in units.values() for entry in entries
             if not any(L.covers(entry, m) for m in GRAPH.modules)]
    assert stale == []


def test_the_table_orders_the_layers_as_the_docs_do() -> None:
    names = [name for name, _ in L.LAYERS]
    assert names[0] == "pure logic" and names[-1] == "cli"
    order = ["logic", "plumbing", "store", "core", "oplog", "hooks", "daemon", "health", "mcp",
             "cli"]
    rank = {unit: i for i, (_, units) in enumerate(L.LAYERS) for unit in units}
    assert [rank[u] for u in order] == sorted(rank[u] for u in order)
    assert rank["capture"] == rank["curator"] == rank["hooks"]
    assert rank["mcp"] == rank["viewer"] and rank["oplog"] == rank["purge"]


def _logic_sources() -> list[Path]:
    return sorted((SRC / "logic").rglob("*.py"))


@pytest.mark.parametrize("path", _logic_sources(), ids=lambda p: L.module_name(p, SRC))
def test_the_pure_core_imports_only_itself_errors_and_clockless_stdlib(path: Path) -> None:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    ours = {n for n in names if n == "claimgraph" or n.startswith("claimgraph.")}
    assert {n for n in ours if not n.startswith(("claimgraph.logic", "claimgraph.errors"))} == set()
    stdlib = {n.split(".")[0] for n in names - ours}
    allowed = LOGIC_STDLIB | LOGIC_PURE_LIBS
    assert stdlib <= allowed, f"{L.module_name(path, SRC)} imports {stdlib - allowed}"


# --- the checker fails where it should ----------------------------------------------------------

TOY_LAYERS = (
    ("pure logic", {"logic": ("toy.logic.*",)}),
    ("store", {"store": ("toy", "toy.store.*")}),
    ("verticals", {"capture": ("toy.capture.*",), "curator": ("toy.curator.*",)}),
    ("cli", {"cli": ("toy.cli.*",)}),
)


def toy(tmp_path: Path, files: dict[str, str]) -> Path:
    """A scratch package ``toy`` with the given modules (``"store/db.py": source``)."""
    root = tmp_path / "toy"
    for name, source in {"__init__.py": "", "logic/__init__.py": "", "store/__init__.py": "",
                         "capture/__init__.py": "", "curator/__init__.py": "",
                         "cli/__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(dedent(source))
    return root


def violations(root: Path) -> list[str]:
    return [str(v) for v in L.layer_violations(L.build_graph(root), TOY_LAYERS, frozenset(),
                                               frozenset())]


def test_a_clean_toy_package_passes(tmp_path: Path) -> None:
    root = toy(tmp_path, {"logic/rules.py": "X = 1\n",
                          "store/db.py": "from toy.logic.rules import X\n",
                          "cli/main.py": "from toy.store import db\nfrom toy.capture import run\n",
                          "capture/run.py": "from toy.store.db import X\n"})
    graph = L.build_graph(root)
    assert violations(root) == [] and L.cycles(graph) == []
    assert L.unassigned(graph, TOY_LAYERS) == []


def test_an_upward_import_inside_a_function_is_found(tmp_path: Path) -> None:
    root = toy(tmp_path, {"cli/main.py": "X = 1\n",
                          "store/db.py": """\
                              def late():
                                  from toy.cli.main import X
                                  return X
                              """})
    assert violations(root) == ["toy.store.db -> toy.cli.main: up from store to cli"]


def test_an_upward_import_for_type_checking_only_is_found(tmp_path: Path) -> None:
    root = toy(tmp_path, {"capture/run.py": "class Pass: ...\n",
                          "logic/rules.py": """\
                              from typing import TYPE_CHECKING
                              if TYPE_CHECKING:
                                  from toy.capture.run import Pass
                              """})
    assert violations(root) == ["toy.logic.rules -> toy.capture.run: up from pure logic to "
                                "verticals"]


def test_a_sideways_import_between_verticals_is_found_unless_the_table_allows_it(
        tmp_path: Path) -> None:
    root = toy(tmp_path, {"capture/run.py": "from toy.curator import judge\n",
                          "curator/judge.py": "X = 1\n"})
    assert violations(root) == [
        "toy.capture.run -> toy.curator: sideways from capture to curator",
        "toy.capture.run -> toy.curator.judge: sideways from capture to curator"]
    allowed = frozenset({("capture", "curator")})
    assert L.layer_violations(L.build_graph(root), TOY_LAYERS, allowed, frozenset()) == []


def test_an_import_by_name_counts_for_the_layers(tmp_path: Path) -> None:
    root = toy(tmp_path, {"cli/main.py": "X = 1\n",
                          "store/db.py": """\
                              import importlib
                              def late():
                                  return importlib.import_module("toy.cli.main")
                              """,
                          "logic/table.py": """\
                              import importlib
                              NAMES = ("db",)
                              def load(name):
                                  return importlib.import_module(f"toy.store.{name}")
                              """})
    assert violations(root) == ["toy.logic.table -> toy.store.db: up from pure logic to store",
                                "toy.store.db -> toy.cli.main: up from store to cli"]


def test_a_relative_import_is_read_as_the_module_it_names(tmp_path: Path) -> None:
    root = toy(tmp_path, {"cli/main.py": "X = 1\n", "store/db.py": "from ..cli.main import X\n"})
    assert violations(root) == ["toy.store.db -> toy.cli.main: up from store to cli"]


def test_a_module_missing_from_the_table_is_reported(tmp_path: Path) -> None:
    root = toy(tmp_path, {"viewer/app.py": "X = 1\n"})
    assert L.unassigned(L.build_graph(root), TOY_LAYERS) == ["toy.viewer.app"]


def test_a_circle_is_found_even_through_a_lazy_import_and_a_package_init(tmp_path: Path) -> None:
    root = toy(tmp_path, {"store/a.py": "from toy.store.b import x\n",
                          "store/b.py": "def x():\n    from toy.store import c\n",
                          "store/c.py": "from toy.store import a\n",
                          "cli/__init__.py": "from toy.cli.main import run\n",
                          "cli/main.py": "from toy.cli import helpers\nrun = 1\n",
                          "cli/helpers.py": "X = 1\n"})
    assert L.cycles(L.build_graph(root)) == [["toy.cli", "toy.cli.main"],
                                             ["toy.store.a", "toy.store.b", "toy.store.c"]]


def test_a_registry_loading_its_plugins_by_name_is_not_a_circle(tmp_path: Path) -> None:
    """``cli.commands`` loads each group by name and ``completion`` walks the whole parser back:
    the registry names its plugins without depending on them (tests/layering.py says why)."""
    root = toy(tmp_path, {"cli/commands.py": """\
                              import importlib
                              GROUPS = ("completion",)
                              def group(name):
                                  return importlib.import_module(f"toy.cli.{name}")
                              """,
                          "cli/completion.py": "from toy.cli.commands import GROUPS\n"})
    graph = L.build_graph(root)
    assert graph.registry["toy.cli.commands"] == {"toy.cli.completion"}
    assert L.cycles(graph) == []


def test_a_name_read_from_a_table_counts_and_only_a_lazy_surface_may_load_up(
        tmp_path: Path) -> None:
    """``claimgraph/__init__`` loads ``audit_claims`` from core on first attribute use: seen,
    and let through only as a load by name listed in LAZY_SURFACE, never as an import."""
    lazy = """\
        _LAZY = {"audit": "toy.cli.main"}
        def __getattr__(name):
            import importlib
            return importlib.import_module(_LAZY[name])
        """
    root = toy(tmp_path, {"cli/main.py": "X = 1\n", "store/__init__.py": lazy})
    graph = L.build_graph(root)
    assert graph.registry["toy.store"] == {"toy.cli.main"}
    assert violations(root) == ["toy.store -> toy.cli.main: up from store to cli"]
    surface = frozenset({("toy.store", "toy.cli.main")})
    assert L.layer_violations(graph, TOY_LAYERS, frozenset(), surface) == []
    (root / "store" / "__init__.py").write_text(dedent(lazy) + "from toy.cli.main import X\n")
    assert [str(v) for v in L.layer_violations(L.build_graph(root), TOY_LAYERS, frozenset(),
                                               surface)] == [
        "toy.store -> toy.cli.main: up from store to cli"]


def test_a_package_loading_its_own_modules_by_dunder_name_is_seen(tmp_path: Path) -> None:
    root = toy(tmp_path, {"capture/readers/__init__.py": """\
                              import importlib
                              _MODULES = {"claude": "claude_code"}
                              def reader(agent):
                                  return importlib.import_module(f"{__name__}.{_MODULES[agent]}")
                              """,
                          "capture/readers/claude_code.py": "X = 1\n"})
    graph = L.build_graph(root)
    assert graph.registry["toy.capture.readers"] == {"toy.capture.readers.claude_code"}
