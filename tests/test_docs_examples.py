"""The documentation's Python examples run, and print exactly what the pages say they print.

Each ```python block of a page runs in order, in one namespace per page (a later block may use
what an earlier one defined), in a temporary working directory with a throwaway HOME. When a
```output block follows a python block, what the block printed must equal it, character for
character. docs/internals.md must also cover the whole of ``claimgraph.logic``'s public surface.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

import claimgraph.logic

REPO = Path(__file__).resolve().parents[1]
PAGES = ["docs/internals.md", "docs/claims-audit.md"]
_BLOCK = re.compile(r"```(python|output)\n(.*?)```", re.DOTALL)


def examples(page: str) -> list[tuple[str, str | None]]:
    """(code, the output it promises or None) for each python block of the page, in order."""
    found: list[tuple[str, str | None]] = []
    for kind, body in _BLOCK.findall((REPO / page).read_text(encoding="utf-8")):
        if kind == "python":
            found.append((body, None))
        else:
            assert found and found[-1][1] is None, f"{page}: an output block without its code"
            found[-1] = (found[-1][0], body)
    return found


def run_page(page: str) -> list[tuple[str, str | None, str]]:
    """(code, promised, printed) per block, all blocks sharing one namespace."""
    namespace: dict = {"__name__": f"docs_{Path(page).stem}"}
    results = []
    for code, promised in examples(page):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, page, "exec"), namespace)  # noqa: S102 - our own docs
        results.append((code, promised, printed.getvalue()))
    return results


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", PAGES)
def test_every_example_runs_and_prints_what_the_page_shows(page: str, sandbox: Path) -> None:
    results = run_page(page)
    assert results, f"{page} has no python examples"
    for code, promised, printed in results:
        if promised is not None:
            assert printed == promised, f"{page}: the block\n{code}\nprinted\n{printed}"


def test_the_internals_examples_check_their_output() -> None:
    blocks = examples("docs/internals.md")
    assert len(blocks) >= 8 and sum(promised is not None for _, promised in blocks) >= 7


def test_the_internals_page_uses_only_the_public_surface_of_the_core() -> None:
    """Examples of the pure core import from ``claimgraph.logic`` itself, never a submodule,
    and the page names every public name at least once."""
    text = (REPO / "docs/internals.md").read_text(encoding="utf-8")
    for code, _ in examples("docs/internals.md"):
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("claimgraph.logic"):
                assert node.module == "claimgraph.logic", f"import from {node.module}"
    missing = [name for name in claimgraph.logic.__all__ if f"`{name}`" not in text
               and not re.search(rf"\b{name}\b", "".join(c for c, _ in examples("docs/internals.md")))]
    assert missing == []


def test_the_books_worked_examples_appear_with_their_printed_results() -> None:
    """§10.1-10.3 of the seed chapter: the same plans and scores, digit for digit."""
    printed = "".join(p for _, p in examples("docs/internals.md") if p)
    assert "[('a', 0.028225162771408463), ('b', 0.02806477746590736), " \
           "('c', 0.0015554830334027529)]" in printed
    assert "'link': ['f-adr']" in printed and "'action': 'flag'" in printed
    assert "'admission_score': 0.5" in printed and "'subject_shaped': False" in printed


def test_the_public_surface_resolves_lazily_and_matches_its_type_checking_imports() -> None:
    surface = claimgraph.logic
    assert sorted(surface._SOURCES) == sorted(surface.__all__)
    tree = ast.parse(Path(surface.__file__).read_text(encoding="utf-8"))
    [guarded] = [n for n in tree.body if isinstance(n, ast.If)]
    declared = {}
    for node in guarded.body:
        assert isinstance(node, ast.ImportFrom)
        if node.module == "typing":  # the annotations' own names, not the surface
            continue
        for alias in node.names:
            declared[alias.asname or alias.name] = (node.module, alias.name)
    assert sorted(declared) == sorted(surface.__all__)
    for name, (module, attribute) in declared.items():
        assert getattr(surface, name) is getattr(__import__(module, fromlist=["x"]), attribute)
    with pytest.raises(AttributeError):
        surface.no_such_name  # noqa: B018
    from claimgraph.logic import decide_assert, fuse_retrieval, screen_candidates  # noqa: F401
