"""How values read on a page: times, statements, confidence bars and the links between pages.

Jinja filters and globals, plain functions of plain values so a test can call them. A page is
read by a person, not an agent: statements name predicates in plain words ("decided against",
not ``core/decided-against``), internal terms (source types, invalidation kinds, audit
verdicts) read as words, times as dates, and the context's markdown (``- `` bullets, backticked
commands) never shows as punctuation. Ids stay where machines read them: links, ``data-``
attributes and the exact block the next session is told.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Generic, Hashable, Mapping, Sequence, TypeVar
from urllib.parse import urlencode

from markupsafe import Markup, escape

from claimgraph.logic.trust_tiers import teammate_label, teammate_writer
from claimgraph.logic.briefing_lines import (
    MAX_CONTENDED_OBJECTS, object_text, subject_text,
)
from claimgraph.logic.timeutil import to_date, to_iso

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


def instant(ms: int | None) -> str:
    """An exact instant a person can read and type back: ``2026-02-12T09:30:00Z`` (with
    milliseconds only when it has them), for the time-travel box."""
    iso = to_iso(ms) if ms is not None else None
    return "" if iso is None else iso.replace(".000Z", "Z")


#: Namespaces a person never needs: the built-in vocabulary's and capture's extension one.
PLAIN_NAMESPACES = ("core/", "x/")
#: Internal terms as words: source types, invalidation kinds, audit verdicts.
TERMS = {
    "session-log": "from a session", "user-assertion": "asserted by you",
    "agent-note": "the agent's note", "failure-report": "from a failure report",
    "decision-record": "a decision record", "code": "read from code",
    "superseded": "replaced", "judged-superseded": "judged replaced",
    "judged-duplicate": "judged a duplicate", "merge-duplicate": "merged as a duplicate",
    "reconcile-duplicate": "a duplicate after sync", "code-absent": "gone from the code",
    "manual": "ended by hand", "forgotten": "forgotten",
    "file-missing": "file missing", "unsupported": "not supported by the file",
    "supported": "supported", "unverifiable": "cannot be checked",
}


def plain_predicate(pred_id: str | None) -> str:
    """``core/decided-against`` reads "decided against", ``x/convention`` "convention"; a
    namespace of the user's own (``team/owned-by``) stays, so it stays apart."""
    text = str(pred_id or "?")
    for namespace in PLAIN_NAMESPACES:
        if text.startswith(namespace):
            return text[len(namespace):].replace("-", " ")
    return text


def plain(term: str | None) -> str:
    """An internal term in words; an unknown one with its hyphens as spaces."""
    if not term:
        return ""
    return TERMS.get(term, term.replace("-", " "))


def statement(fact: Mapping[str, Any]) -> str:
    """``spotter decided against "GraphQL"``: the context's statement, the predicate in words."""
    return f"{subject_text(fact)} {plain_predicate(fact.get('predicate'))} {object_text(fact)}"


def change_text(old: Mapping[str, Any], new: Mapping[str, Any] | None) -> str:
    """``api prefers: "REST" → "gRPC" (2026-01-20)``; no successor: "(no longer)"."""
    after = object_text(new) if new is not None else "(no longer)"
    return (f"{subject_text(old)} {plain_predicate(old.get('predicate'))}: {object_text(old)}"
            f" → {after} ({to_date(old['t_invalid'])})")


def component_text(component: Sequence[Mapping[str, Any]]) -> str:
    """``api prefers: 2 claims in contention — "REST" / "gRPC"`` (one slot), else how many
    claims across how many predicates."""
    slots = sorted({(subject_text(f), plain_predicate(f.get("predicate"))) for f in component})
    if len(slots) == 1:
        names = sorted({object_text(f) for f in component})
        shown = " / ".join(names[:MAX_CONTENDED_OBJECTS])
        more = f" / … {len(names) - MAX_CONTENDED_OBJECTS} more" if len(
            names) > MAX_CONTENDED_OBJECTS else ""
        subject, predicate = slots[0]
        return f"{subject} {predicate}: {len(component)} claims in contention — {shown}{more}"
    predicates = len({p for _, p in slots})
    return (f"{len(component)} claims in contention across {predicates} "
            f"predicate{'s' if predicates != 1 else ''}")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: str | None) -> Markup:
    """Markdown's code spans as ``<code>``, everything else escaped; a stray backtick stays."""
    raw = str(text or "")
    out, last = [], 0
    for match in _CODE_SPAN.finditer(raw):
        out.append(escape(raw[last:match.start()]))
        out.append(Markup("<code>%s</code>") % match.group(1))
        last = match.end()
    out.append(escape(raw[last:]))
    return Markup("").join(out)


def fact_words(fact: Mapping[str, Any]) -> dict[str, str]:
    """Subject, predicate and object in words, for a table row."""
    return {"subject": subject_text(fact), "predicate": plain_predicate(fact.get("predicate")),
            "object": object_text(fact)}


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 fact``, ``2 facts``, ``1 conflict``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def teammate(fact: Mapping[str, Any]) -> str:
    """Whose a synced fact is ("Ada", else the writer's id); "" for this store's own."""
    return teammate_label(fact) if teammate_writer(fact) else ""


def bar_html(confidence: float) -> Markup:
    """``macros.bar``, the same bytes, without a template call: a project's page draws one
    per row (hundreds), and Jinja's macro calls were most of its render time."""
    shown = "%.2f" % confidence
    return Markup(f'<svg class="bar" width="{BAR_WIDTH}" height="10" role="img"'
                  f' aria-label="effective confidence {shown}"><rect class="track"'
                  f' width="{BAR_WIDTH}" height="10"/><rect class="fill"'
                  f' width="{bar_width(confidence)}" height="10"/></svg>'
                  f'<span class="num">{shown}</span>')


def fact_html(fact: Mapping[str, Any], base: str) -> Markup:
    """``macros.fact_link`` then ``macros.tags`` with a space between, the same bytes (a test
    renders both): the project page's row, for the reason ``bar_html`` gives."""
    from jinja2.filters import do_urlencode
    parts = [f'<a class="fact" href="{escape(base)}/fact/{escape(do_urlencode(fact["id"]))}">'
             f'{code_spans(statement(fact))}</a> ',
             f'<span class="tag cls-{escape(fact["epistemic"])}">{escape(fact["epistemic"])}'
             f'</span>\n<span class="tag pred" data-predicate="{escape(fact["predicate"])}">'
             f'{escape(plain_predicate(fact["predicate"]))}</span>\n']
    whose = teammate(fact)
    if whose:
        parts.append(f'<span class="tag teammate">from {escape(whose)}</span>')
    if fact.get("scope") == "user":
        parts.append('<span class="tag user">user</span>')
    if fact.get("dormant_since") is not None:
        parts.append('<span class="tag warn">dormant</span>')
    return Markup("".join(parts))


T = TypeVar("T")


class Memo(Generic[T]):
    """What a function made from some objects, kept while those very objects are asked about.

    A fact read from the store is a new dict after a write touched it (``viewer.advance``
    drops touched facts from what a placement keeps) and the same dict otherwise, so the line
    or the HTML made from it can be kept by the fact's id and served while the caller holds
    the same object (``is``): never a stale one, whoever changed what. At most ``limit``
    entries; past that it starts again empty (a page shows a few hundred)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: dict[Hashable, tuple[tuple[Any, ...], T]] = {}

    def get(self, key: Hashable, made_from: tuple[Any, ...], make: Callable[[], T]) -> T:
        found = self._kept.get(key)
        if found is not None and len(found[0]) == len(made_from) and all(
                a is b for a, b in zip(found[0], made_from)):
            return found[1]
        value = make()
        if len(self._kept) >= self.limit:
            self._kept = {}  # a new dict: another thread's lookup still reads the old one
        self._kept[key] = (made_from, value)
        return value


#: Rows whose HTML a project page keeps (every section's first page is about 500).
ROWS_KEPT = 5_000


def kept_fact_html(limit: int = ROWS_KEPT) -> Callable[[Mapping[str, Any], str], Markup]:
    """``fact_html``, kept per fact object (``Memo``): twenty pages of a project share most
    of their rows, and a row's HTML was most of a page's render."""
    memo: Memo[Markup] = Memo(limit)

    def kept(fact: Mapping[str, Any], base: str) -> Markup:
        return memo.get((fact["id"], base), (fact,), lambda: fact_html(fact, base))
    return kept


FILTERS = {"teammate": teammate, "when": when, "day": day, "instant": instant, "short_id": short_id,
           "bar_width": bar_width, "duration": duration, "statement": statement,
           "words": fact_words, "predicate": plain_predicate, "plain": plain,
           "code_spans": code_spans, "plural": plural, "bar_html": bar_html,
           "fact_html": fact_html}
