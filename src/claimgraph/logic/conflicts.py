"""Which pairs of facts disagree: the links already flagged, and the pairs worth a verdict.

docs/conflicts.md and docs/curator.md describe it (the judge itself lives elsewhere). Pure: facts,
registry rows and the instant ``at`` come in, pairs go out. Conflict links live on the newer fact
only, so every pair is reported newer-first as ``{"fact": newer, "candidate": older}``.
"""

from __future__ import annotations

from itertools import combinations

from claimgraph.logic.names import same_object, same_object_loosely
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.trust_tiers import teammate_writer

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator, Mapping

    Fact = Mapping[str, Any]
    Pair = dict[str, Any]

EXCLUSIVE_VALUES = "exclusive-values"
CROSS_PREDICATE = "cross-predicate"
SINGLE_VALUED = "single-valued"


def conflict_pair_key(a_id: str, b_id: str) -> tuple[str, str]:
    """One key per unordered pair, so a verdict on (a, b) also answers (b, a)."""
    return (a_id, b_id) if a_id <= b_id else (b_id, a_id)


def open_conflicts(facts: Iterable[Fact], facts_by_id: Mapping[str, Fact], at: int) -> list[Pair]:
    """Flagged links still awaiting a ruling: both sides valid at ``at``.

    Candidates are looked up in ``facts_by_id`` first, then among ``facts``; a link whose
    candidate is unknown (dangling) or no longer valid is resolved by time and not reported.
    """
    facts = list(facts)
    known = {**{f["id"]: f for f in facts}, **facts_by_id}
    pairs = []
    for fact in facts:
        if not fact_valid_at(fact, at):
            continue
        for cid in fact.get("conflicts") or ():
            candidate = known.get(cid)
            if candidate is not None and fact_valid_at(candidate, at):
                pairs.append({"fact": fact, "candidate": candidate})
    return pairs


def _newer_first(a: Fact, b: Fact) -> tuple[Fact, Fact]:
    """Newer by recorded_at; equal times fall to the larger id, so input order never decides."""
    def when(f: Fact) -> tuple[int, str]:
        return (f.get("recorded_at") or 0, str(f["id"]))
    return (a, b) if when(a) >= when(b) else (b, a)


def _already_linked(a: Fact, b: Fact) -> bool:
    """A pair flagged either way already awaits the judge; proposing it again costs a call."""
    return b["id"] in (a.get("conflicts") or ()) or a["id"] in (b.get("conflicts") or ())


def _is_decision(predicate: Any, preds_by_id: Mapping[str, Mapping[str, Any]]) -> bool:
    """Unknown predicates (no row) are never decisions: only the registry may declare a stance."""
    return (preds_by_id.get(predicate) or {}).get("category") == "decision"


def _exclusive_pairs(facts: list[Fact], preds_by_id: Mapping[str, Mapping[str, Any]]
                     ) -> Iterator[tuple[Fact, Fact, str]]:
    """Two values of a predicate whose row says its values are alternatives (core/prefers)."""
    for a, b in combinations(facts, 2):
        row = preds_by_id.get(a["predicate"]) or {}
        if a["predicate"] == b["predicate"] and row.get("value_exclusivity") == "exclusive":
            yield a, b, EXCLUSIVE_VALUES


def is_single_valued(row: Mapping[str, Any] | None) -> bool:
    """A predicate whose subject holds one value at a time (``has-version``, ``defined-in``,
    ``has-status``, an ``x/*`` registered with cardinality one)."""
    return (row or {}).get("cardinality") == "one"


def _single_valued_pairs(facts: list[Fact], preds_by_id: Mapping[str, Mapping[str, Any]]
                         ) -> Iterator[tuple[Fact, Fact, str]]:
    """Two values of a single-valued predicate from two writers (this store and a teammate,
    or two teammates): ``has-version 1.0`` from Ada beside our ``has-version 2.0``.

    One writer's newer value is a change: its write path already superseded (or, when told
    to, flagged or kept) the old one, so same-writer pairs are left alone. A teammate's value
    arrives as it was written (sync applies effects and never re-decides them, and no writer
    may retire another's fact), so both values stand and whichever came last is not more
    right: the pair waits for a person. The same value from both is agreement, not conflict.
    """
    for a, b in combinations(facts, 2):
        if (a["predicate"] == b["predicate"]
                and is_single_valued(preds_by_id.get(a["predicate"]))
                and teammate_writer(a) != teammate_writer(b)
                and not same_object(a, b)):
            yield a, b, SINGLE_VALUED


def _cross_predicate_pairs(facts: list[Fact], preds_by_id: Mapping[str, Mapping[str, Any]]
                           ) -> Iterator[tuple[Fact, Fact, str]]:
    """A decision about an object meeting another claim about the same object (loosely named):
    depends-on KuzuDB while decided-against "kuzu-db" stands."""
    for a, b in combinations(facts, 2):
        if (a["predicate"] != b["predicate"]
                and (_is_decision(a["predicate"], preds_by_id)
                     or _is_decision(b["predicate"], preds_by_id))
                and same_object_loosely(a, b)):
            yield a, b, CROSS_PREDICATE


def _valid_by_subject(facts: Iterable[Fact], at: int) -> dict[Any, list[Fact]]:
    """Valid facts grouped per subject, one copy per id; pairs never cross subjects."""
    groups: dict[Any, dict[str, Fact]] = {}
    for fact in facts:
        if fact_valid_at(fact, at):
            subject_id = (fact.get("subject") or {}).get("id")
            groups.setdefault(subject_id, {}).setdefault(fact["id"], fact)
    return {subject: list(by_id.values()) for subject, by_id in groups.items()}


def conflict_candidates(facts: Iterable[Fact], preds_by_id: Mapping[str, Mapping[str, Any]],
                        at: int) -> list[Pair]:
    """Pairs worth a verdict, per subject (O(facts per subject²), never O(graph²)).

    Exclusive-value pairs are generated first, then single-valued ones from two writers, then
    cross-predicate ones; the first reason for an id set wins. The result is sorted newest
    pair first (then by ids), so it does not depend on the order the store returned the
    facts in.
    """
    found: dict[tuple[str, str], Pair] = {}
    for group in _valid_by_subject(facts, at).values():
        for a, b, reason in [*_exclusive_pairs(group, preds_by_id),
                             *_single_valued_pairs(group, preds_by_id),
                             *_cross_predicate_pairs(group, preds_by_id)]:
            key = conflict_pair_key(a["id"], b["id"])
            if key not in found and not _already_linked(a, b):
                newer, older = _newer_first(a, b)
                found[key] = {"fact": newer, "candidate": older, "reason": reason}
    return sorted(found.values(), key=_pair_order)


def _pair_order(pair: Pair) -> tuple[int, str, str]:
    """Newest flag first: a curator on a budget judges the freshest disagreements first."""
    return (-(pair["fact"].get("recorded_at") or 0), str(pair["fact"]["id"]),
            str(pair["candidate"]["id"]))


#: Predicates that state a stance AGAINST their object; every other predicate is "for" it
#: (using, preferring, depending on, testing with ...).
NEGATIVE_STANCE = frozenset({"core/decided-against"})


def contradicts_without_judge(pair: Mapping[str, Any]) -> bool:
    """Whether a candidate pair is a contradiction on its face, with no model to judge it.

    Exclusive values of one predicate (prefers tabs / prefers spaces) are, and so are two
    writers' values of a single-valued one (has-version 1.0 / 2.0). Across predicates,
    only opposite stances are: ``decided-against X`` beside anything that uses or prefers X.
    ``prefers pytest`` beside ``tested-by pytest`` agree, and linking them would bury real
    conflicts in noise (a judge could weigh this; without one, it is decided here).
    """
    if pair.get("reason") in (EXCLUSIVE_VALUES, SINGLE_VALUED):
        return True
    against = [f["predicate"] in NEGATIVE_STANCE for f in (pair["fact"], pair["candidate"])]
    return against[0] != against[1]
