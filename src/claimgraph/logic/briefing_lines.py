"""One line of the compiled context per fact, change or conflict (docs/context.md).

Lines are statements ("api prefers REST (since 2026-01-02)"), one per line whatever the stored
text holds: a literal's newlines would let stored text start a heading of its own inside our
block. Objects are shortened, so one pasted log cannot eat the whole budget.
"""

from __future__ import annotations

from claimgraph.logic.names import object_name
from claimgraph.logic.predicates import CAPTURE_PREDICATES
from claimgraph.logic.timeutil import to_date
from claimgraph.logic.trust_tiers import tier

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, Sequence

    Fact = Mapping[str, Any]

MAX_OBJECT_CHARS = 300
CAPTURE_IDS = frozenset(row["id"] for row in CAPTURE_PREDICATES)
MAX_CONTENDED_OBJECTS = 5
MAX_CONTENDED_SLOTS = 3


def one_line(text: str, limit: int = MAX_OBJECT_CHARS) -> str:
    collapsed = " ".join(str(text).split())
    return collapsed if len(collapsed) <= limit else collapsed[:limit - 1].rstrip() + "…"


def subject_text(fact: Fact) -> str:
    return one_line((fact.get("subject") or {}).get("name") or "?")


def predicate_text(fact: Fact) -> str:
    """``core/prefers`` reads as "prefers", and capture's own ``x/decided`` as "decided";
    other namespaces keep theirs, so they stay apart."""
    pred = str(fact.get("predicate") or "?")
    if pred.startswith("core/") or pred in CAPTURE_IDS:
        return pred.split("/", 1)[1]
    return pred


def object_text(fact: Fact) -> str:
    """An entity by name; a literal quoted, so "uses" "the new cache" reads as one value."""
    name = object_name(fact)
    if name is None:
        return "?"
    return one_line(name) if fact.get("object_kind") == "entity" else f'"{one_line(name)}"'


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


def statement(fact: Fact) -> str:
    return f"{subject_text(fact)} {predicate_text(fact)} {object_text(fact)}"


def decision_line(fact: Fact) -> str:
    """``- api decided "X" (you said, since 2026-01-02)``: how it was learned, then when."""
    return f"- {statement(fact)} ({tier(fact)}, since {to_date(fact['t_valid'])})"


def fact_line(fact: Fact, confidence: float) -> str:
    """``- api tested-by pytest (seen, 0.70)``: how it was learned, then how strongly."""
    return f"- {statement(fact)} ({tier(fact)}, {confidence:.2f})"


def state_line(fact: Fact) -> str:
    """``- app decided "our latest release is v0.2.0" (you said, as of 2026-06-01)``: a state
    that expires, told with the day it was learned (``logic.expiring``)."""
    return f"- {statement(fact)} ({tier(fact)}, as of {to_date(fact['t_valid'])})"


def change_line(old: Fact, new: Fact | None) -> str:
    """``- api prefers: "REST" → "gRPC" (2026-01-20)``; no successor: "(no longer)"."""
    after = object_text(new) if new is not None else "(no longer)"
    return (f"- {subject_text(old)} {predicate_text(old)}: {object_text(old)} → {after} "
            f"({to_date(old['t_invalid'])})")


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
    names = sorted({object_text(f) for f in facts})
    shown = " / ".join(names[:limit])
    return shown + (f" / … {len(names) - limit} more" if len(names) > limit else "")


def component_line(component: Sequence[Fact]) -> str:
    """One slot: "- api prefers: 2 claims in contention — "REST" / "gRPC"". Several slots:
    "- 3 claims in contention across 2 predicates — api prefers (2: …); api uses (1: …)"."""
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
