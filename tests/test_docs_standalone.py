"""The source explains itself with pages the repository holds.

Docstrings and comments point at ``docs/<page>.md`` (optionally with a section: ``docs/sync.md,
"Reconcile"``) for the longer story. Every such pointer must reach a page of ``docs/`` and,
when it names a section, a heading of that page; and nothing may cite the design notes the
project was built from (``DESIGN §4``, ``REFERENCE §14``): a clone does not have them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "claimgraph"
DOCS = ROOT / "docs"
#: ``docs/page.md``, ``docs/page.md#anchor`` or ``docs/page.md, "Section"``.
POINTER = re.compile(r'docs/(?P<page>[\w-]+\.md)(?:#(?P<anchor>[\w-]+)|, "(?P<section>[^"]+)")?')
#: A citation of a document the repository does not hold.
OUTSIDE = re.compile(r"\b(?:DESIGN|REFERENCE|INTEGRATIONS|STYLE)(?:\.md)?(?:\s*§|'s\b|\s+step\b)"
                     r"|§|\bDESIGN\.md\b|\bREFERENCE\.md\b|\bINTEGRATIONS\.md\b")


def sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def headings(page: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in page.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")]


def section_names(page: Path) -> set[str]:
    """What a pointer may call a section: its heading, without a number ("7. The storage
    seam") or without what follows a colon ("Trust: files nobody else may plant"); or the
    bold label a paragraph or a step starts with ("6. **Reconciling.** Every candidate…")."""
    names = set()
    for heading in headings(page):
        bare = re.sub(r"^\d+\.\s*", "", heading)
        names.update({heading, bare, bare.split(":")[0].strip()})
    text = page.read_text(encoding="utf-8")
    names.update(label.rstrip(".:") for label in
                 re.findall(r"^(?:\s*(?:\d+\.|[-*])\s+)?\*\*([^*\n]+)\*\*", text, re.M))
    return names


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_the_source_has_pointers_to_check() -> None:
    found = sum(len(POINTER.findall(p.read_text(encoding="utf-8"))) for p in sources())
    assert found > 50


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(SRC)))
def test_every_docs_pointer_reaches_a_page_and_section(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for match in POINTER.finditer(text):
        page = DOCS / match["page"]
        assert page.is_file(), f"{path.name} points at {match[0]}, which does not exist"
        if match["section"]:
            section = " ".join(match["section"].split())  # a pointer may wrap across lines
            assert section in section_names(page), \
                f"{path.name}: {match['page']} has no section {section!r}"
        if match["anchor"]:
            assert match["anchor"] in {anchor(h) for h in headings(page)}, \
                f"{path.name}: {match['page']} has no section #{match['anchor']}"


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(SRC)))
def test_nothing_cites_a_document_the_repository_lacks(path: Path) -> None:
    cited = [f"{path.name}:{n}: {line.strip()}"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if OUTSIDE.search(line)]
    assert cited == []


def test_the_pattern_catches_the_old_citations() -> None:
    for line in ("(DESIGN §4)", "REFERENCE §14 (outcome)", "REFERENCE's kebab", "§16.8",
                 "Departure from REFERENCE step 10", "INTEGRATIONS.md records"):
        assert OUTSIDE.search(line), line
    for line in ("REFERENCES entities(id)", "_REFERENCE = re.compile(", "docs/sync.md"):
        assert not OUTSIDE.search(line), line


def test_architecture_shows_the_layer_table_the_layer_test_checks() -> None:
    """docs/architecture.md's table lists the layers of tests/layering.py, bottom first, and
    names every package or module each one holds."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("layering", ROOT / "tests" / "layering.py")
    assert spec is not None and spec.loader is not None
    layering = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("layering", layering)  # dataclasses look their module up by name
    spec.loader.exec_module(layering)
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1:-1] for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [cells[1].strip() for cells in rows] == [name for name, _ in layering.LAYERS]
    for cells, (name, units) in zip(rows, layering.LAYERS):
        for module in (m for unit in units.values() for m in unit):
            shown = module.removeprefix("claimgraph").lstrip(".").replace(".", "/")
            shown = shown.replace("/*", "/") if shown.endswith("*") else (shown or "__init__")
            if not shown.endswith("/"):
                shown += ".py"
            assert f"`{shown}`" in cells[2], f"{name}: {module} is not in the table"
