"""How values read on a page: times, statements, confidence bars and the links between pages.

Jinja filters and globals, plain functions of plain values so a test can call them. Statements
are worded exactly as the SessionStart context words them (``logic.context_lines``), so what a
person reads here is what the agent reads.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlencode

from claimgraph.logic.context_lines import object_text, predicate_text, statement, subject_text
from claimgraph.logic.timeutil import to_iso

BAR_WIDTH = 80


def when(ms: int | None) -> str:
    """``2026-02-10 14:03 UTC``; "—" for no time."""
    iso = to_iso(ms) if ms is not None else None
    return f"{iso[:10]} {iso[11:16]} UTC" if iso else "—"


def day(ms: int | None) -> str:
    return (to_iso(ms) or "—")[:10]


def short_id(ident: str | None) -> str:
    """``f-1f996daf``: the short form the CLI prints (it accepts it back)."""
    if not ident:
        return ""
    head, _, rest = ident.partition("-")
    return f"{head}-{rest[:8]}" if rest else ident[:10]


def bar_width(confidence: float | None) -> int:
    """Pixels of the effective-confidence bar (the SVG is ``BAR_WIDTH`` wide)."""
    value = min(max(confidence or 0.0, 0.0), 1.0)
    return round(value * BAR_WIDTH)


def duration(ms: int | None) -> str:
    if ms is None:
        return "—"
    return f"{ms} ms" if ms < 10_000 else f"{ms / 1000:.1f} s"


def href(base: str, path: str, **params: Any) -> str:
    """A link inside the viewer: the token prefix, the page, its non-empty parameters."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"{base}{path}" + (f"?{query}" if query else "")


def fact_words(fact: Mapping[str, Any]) -> dict[str, str]:
    """Subject, predicate and object as the context words them, for a table row."""
    return {"subject": subject_text(fact), "predicate": predicate_text(fact),
            "object": object_text(fact)}


FILTERS = {"when": when, "day": day, "short_id": short_id, "bar_width": bar_width,
           "duration": duration, "statement": statement, "words": fact_words}
