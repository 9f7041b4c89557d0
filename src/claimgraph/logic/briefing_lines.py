"""One line of the compiled context per fact, change or conflict (docs/context.md).

Lines are statements ("api prefers REST (since 2026-01-02)"), one per line whatever the stored
text holds: a literal's newlines would let stored text start a heading of its own inside our
block. Objects are shortened, so one pasted log cannot eat the whole budget; two facts whose
objects read the same once shortened are shortened where they differ instead (``told_apart``),
so no two lines of a section read the same.

Every line names how its value was learned (``logic.trust_tiers.tier``): a change of belief its
new value's, a contention each side's.
"""

from __future__ import annotations

from claimgraph.logic.names import object_name
from claimgraph.logic.predicates import CAPTURE_PREDICATES
from claimgraph.logic.timeutil import to_date
from claimgraph.logic.trust_tiers import tier

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping, Sequence

    Fact = Mapping[str, Any]

MAX_OBJECT_CHARS = 300
#: Two objects that read the same once cut (``told_apart``) each keep their first
#: ``TWIN_HEAD_CHARS``, then go on from ``TWIN_LEAD_CHARS`` before the point where they differ.
TWIN_HEAD_CHARS, TWIN_LEAD_CHARS = 120, 40
#: How far past that start the window looks for a space to begin on a whole word.
TWIN_WORD_CHARS = 20
CAPTURE_IDS = frozenset(row["id"] for row in CAPTURE_PREDICATES)
MAX_CONTENDED_OBJECTS = 5
MAX_CONTENDED_SLOTS = 3


def one_line(text: str, limit: int = MAX_OBJECT_CHARS) -> str:
    collapsed = " ".join(str(text).split())
    return collapsed if len(collapsed) <= limit else collapsed[:limit - 1].rstrip() + "…"


def cut_apart(text: str, differs_at: int, limit: int = MAX_OBJECT_CHARS) -> str:
    """``text`` on one line and at most ``limit`` characters, like ``one_line``, but showing
    the point ``differs_at`` (of the collapsed text) where it parts from a twin: its start,
    " … ", then from a little before that point on ("`a` runs `x`; … `b` runs `y`; `c`…").
    A text that ``one_line`` does not cut, or that parts before the cut, reads as there."""
    collapsed = " ".join(str(text).split())
    if len(collapsed) <= limit or differs_at < limit - 1:
        return one_line(collapsed, limit)
    head = collapsed[:TWIN_HEAD_CHARS].rstrip()
    start = max(differs_at - TWIN_LEAD_CHARS, len(head))
    space = collapsed.find(" ", start, start + TWIN_WORD_CHARS)
    start = space + 1 if space >= 0 else start
    room = limit - len(head) - len(" … ")
    rest = collapsed[start:]
    return f"{head} … {rest if len(rest) <= room else rest[:room - 1].rstrip() + '…'}"


def subject_text(fact: Fact) -> str:
    return one_line((fact.get("subject") or {}).get("name") or "?")


def predicate_text(fact: Fact) -> str:
    """``core/prefers`` reads as "prefers", and capture's own ``x/decided`` as "decided";
    other namespaces keep theirs, so they stay apart."""
    pred = str(fact.get("predicate") or "?")
    if pred.startswith("core/") or pred in CAPTURE_IDS:
        return pred.split("/", 1)[1]
    return pred


def object_text(fact: Fact, differs_at: int | None = None) -> str:
    """An entity by name; a literal quoted, so "uses" "the new cache" reads as one value.
    ``differs_at``: where the object parts from a twin's (``told_apart``)."""
    name = object_name(fact)
    if name is None:
        return "?"
    shown = one_line(name) if differs_at is None else cut_apart(name, differs_at)
    return shown if fact.get("object_kind") == "entity" else f'"{shown}"'


def said_key(fact: Fact) -> tuple[str, str, str]:
    """What a fact says, for ordering facts that tie on time or confidence: the subject's name,
    the predicate, the object (an entity's name, a literal's text) -- never the id, which each
    capture mints anew, so the same memory captured twice is ordered the same. A store orders
    its page with the same three columns (``store.sqlite_sections``). A light row
    (``logic.model.CONTEXT_HEAD_FIELDS``) carries the names alone: ``subject_name`` and
    ``object_name`` (the object as ``logic.names.object_name`` reads it)."""
    name = fact.get("subject_name") or (fact.get("subject") or {}).get("name") or ""
    said = fact["object_name"] if "object_name" in fact else object_name(fact)
    return (str(name), str(fact.get("predicate") or ""), "" if said is None else str(said))


def statement(fact: Fact, differs_at: int | None = None) -> str:
    return f"{subject_text(fact)} {predicate_text(fact)} {object_text(fact, differs_at)}"


def decision_line(fact: Fact, differs_at: int | None = None) -> str:
    """``- api decided "X" (you said, since 2026-01-02)``: how it was learned, then when."""
    return f"- {statement(fact, differs_at)} ({tier(fact)}, since {to_date(fact['t_valid'])})"


def fact_line(fact: Fact, confidence: float, differs_at: int | None = None) -> str:
    """``- api tested-by pytest (seen, 0.70)``: how it was learned, then how strongly."""
    return f"- {statement(fact, differs_at)} ({tier(fact)}, {confidence:.2f})"


def state_line(fact: Fact, differs_at: int | None = None) -> str:
    """``- app decided "our latest release is v0.2.0" (you said, as of 2026-06-01)``: a state
    that expires, told with the day it was learned (``logic.expiring``)."""
    return f"- {statement(fact, differs_at)} ({tier(fact)}, as of {to_date(fact['t_valid'])})"


def change_line(old: Fact, new: Fact | None) -> str:
    """``- api prefers: "REST" → "gRPC" (seen, 2026-01-20)``: how the new value was learned,
    then the day the old one ended. No successor known: ``- api prefers: "REST" (you said) →
    (no longer) (2026-01-20)``, the tier of the only value shown beside it, so it never reads
    as how the end was learned."""
    head = f"- {subject_text(old)} {predicate_text(old)}: {object_text(old)}"
    ended = to_date(old["t_invalid"])
    if new is None:
        return f"{head} ({tier(old)}) → (no longer) ({ended})"
    return f"{head} → {object_text(new)} ({tier(new)}, {ended})"


def told_apart(items: Sequence[Any], line: Callable[[Any, int | None], str],
               fact_of: Callable[[Any], Fact] = lambda item: item) -> list[str]:
    """One line per item, as ``line(item, None)`` words it; items whose lines read the same
    (two objects that differ only past the cut: two versions of one long list) are worded
    again, each object cut where it parts from the others (``line(item, differs_at)``,
    ``cut_apart``), so the next agent can tell them apart. Only those lines change, and none
    grows past the cut; objects that are the same in full stay as they were."""
    lines = [line(item, None) for item in items]
    alike: dict[str, list[int]] = {}
    for n, text in enumerate(lines):
        alike.setdefault(text, []).append(n)
    for members in alike.values():
        if len(members) < 2:
            continue
        said = [" ".join(str(object_name(fact_of(items[n])) or "").split()) for n in members]
        for k, n in enumerate(members):
            others = [other for other in said if other != said[k]]
            if others:
                lines[n] = line(items[n], max(_common_length(said[k], o) for o in others))
    return lines


def _common_length(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def conflict_components(pairs: Sequence[Mapping[str, Fact]]) -> list[list[Fact]]:
    """Union-find over the pairs by fact id: each component is one knot of contention, its
    facts sorted by id; components sorted by what their facts say (``said_key``, the least
    of each component), then by their smallest id: the order never hangs on random ids."""
    parent: dict[str, str] = {}
    by_id: dict[str, Fact] = {}

    def root(fid: str) -> str:
        while parent[fid] != fid:
            parent[fid] = parent[parent[fid]]
            fid = parent[fid]
        return fid

    for pair in pairs:
        ids = [f["id"] for f in pair.values()]
        for fact in pair.values():
            by_id[fact["id"]] = fact
            parent.setdefault(fact["id"], fact["id"])
        for other in ids[1:]:
            a, b = root(ids[0]), root(other)
            parent[max(a, b)] = min(a, b)
    groups: dict[str, list[Fact]] = {}
    for fid in sorted(by_id):
        groups.setdefault(root(fid), []).append(by_id[fid])
    return sorted(groups.values(), key=lambda c: (min(said_key(f) for f in c), c[0]["id"]))


def _objects(facts: Iterable[Fact], limit: int) -> str:
    """The contended values, each with how it was learned: ``"REST" (you said) / gRPC (seen)``."""
    names = sorted({f"{object_text(f)} ({tier(f)})" for f in facts})
    shown = " / ".join(names[:limit])
    return shown + (f" / … {len(names) - limit} more" if len(names) > limit else "")


def component_line(component: Sequence[Fact]) -> str:
    """One slot: "- api prefers: 2 claims in contention — "REST" (you said) / "gRPC" (seen)".
    Several slots: "- 3 claims in contention across 2 predicates — api prefers (2: …); api uses
    (1: "X" (seen))". Each side names how it was learned."""
    slots: dict[tuple[str, str], list[Fact]] = {}
    for fact in component:
        slots.setdefault((subject_text(fact), predicate_text(fact)), []).append(fact)
    if len(slots) == 1:
        [(subject, pred)] = slots
        return (f"- {subject} {pred}: {len(component)} claims in contention — "
                f"{_objects(component, MAX_CONTENDED_OBJECTS)}")
    keys = sorted(slots)
    parts = [f"{s} {p} ({len(slots[(s, p)])}: {_objects(slots[(s, p)], MAX_CONTENDED_OBJECTS)})"
             for s, p in keys[:MAX_CONTENDED_SLOTS]]
    rest = f"; … {len(keys) - MAX_CONTENDED_SLOTS} more" if len(keys) > MAX_CONTENDED_SLOTS else ""
    predicates = len({p for _, p in keys})
    return (f"- {len(component)} claims in contention across {predicates} predicates — "
            + "; ".join(parts) + rest)
