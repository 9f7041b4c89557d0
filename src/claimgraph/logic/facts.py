"""The write path's decisions: build a fact, then decide what asserting it means
(docs/conflicts.md).

Pure: the shell mints the id and reads the clock, gathers the standing facts, and executes the
plan that comes back. Plans are plain dicts; ``action`` is one of reinforce, insert, supersede,
flag. Every plan carries the candidate ``fact``.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence, cast
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import (
    DEFAULT_SCOPE, DEFAULT_SOURCE_TYPE, confidence_ceiling, epistemic_strength,
    resolve_epistemic, trust_rank,
)
from claimgraph.logic.names import object_name, same_object, same_object_loosely
from claimgraph.logic.record_types import EntityRecord, FactRecord
from claimgraph.logic.retrieval import fact_valid_at

DEFAULT_CONFIDENCE = 0.8
ON_CONFLICT_POLICIES = ("supersede", "flag", "ignore")
FACT_OBJECT_KINDS = ("entity", "literal")
#: Sources at this rank are trusted to bring back a retired belief without a flag.
TRUSTED_RANK = 3
#: The flag reason when a rejection names what a standing preference prefers.
NAMES_REJECTED = "names-rejected"



def birth_confidence(confidence: Any, source_type: str) -> float:
    """Clamp into [0, 1], then cap at what the source may claim; absent means 0.8."""
    value = DEFAULT_CONFIDENCE if confidence is None else confidence
    if type(value) is float and 0.0 < value <= 1.0:  # the common case: nothing to clamp
        return min(confidence_ceiling(source_type), value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ClaimgraphError("invalid-confidence", f"confidence {confidence!r} is not a number",
                              hint="give a number between 0 and 1, e.g. 0.8", confidence=confidence)
    return min(confidence_ceiling(source_type), min(1.0, max(0.0, float(value))))


def build_fact(*, id: str, now: int, subject: Mapping[str, Any], predicate: str,
               object_kind: str, object_ref: Mapping[str, Any] | None = None,
               object: Any = None, t_valid: int | None = None, t_invalid: int | None = None,
               confidence: Any = None, epistemic: str | None = None, scope: str | None = None,
               source_type: str | None = None, episode: str | None = None,
               evidence: Sequence[str] | None = None) -> FactRecord:
    """A complete fact record, born within its source's ceiling and with a sane valid interval:
    ``build_fact_row``'s row, made whole (so the two can never disagree)."""
    row = build_fact_row(
        id=id, now=now, subject=subject, predicate=predicate, object_kind=object_kind,
        object_ref=object_ref, object=object, t_valid=t_valid, t_invalid=t_invalid,
        confidence=confidence, epistemic=epistemic, scope=scope, source_type=source_type,
        episode=episode, evidence=evidence)
    return fact_from_row(row, subject, object_ref)


def build_fact_row(*, id: str, now: int, subject: Mapping[str, Any], predicate: str,
                   object_kind: str, object_ref: Mapping[str, Any] | None = None,
                   object: Any = None, t_valid: int | None = None, t_invalid: int | None = None,
                   confidence: Any = None, epistemic: str | None = None,
                   scope: str | None = None, source_type: str | None = None,
                   episode: str | None = None,
                   evidence: Sequence[str] | None = None) -> list[Any]:
    """The fact ``build_fact`` makes, as the row the store and the oplog keep of it: its values
    in ``logic.oplog.FACT_ROW_KEYS`` order, its ends as entity ids (what
    ``oplog.baseline.fact_row`` takes from the whole fact). A batch writes a plain insert from
    this row alone (``core.batch_writer``); the same checks, in the same order, raise the same
    errors."""
    return fact_row_of(id, now, subject, predicate, object_kind, object_ref, object, t_valid,
                       t_invalid, confidence, epistemic, scope, source_type, episode, evidence)


def fact_row_of(id: str, now: int, subject: Mapping[str, Any], predicate: str,
                object_kind: str, object_ref: Mapping[str, Any] | None, object: Any,
                t_valid: int | None, t_invalid: int | None, confidence: Any,
                epistemic: str | None, scope: str | None, source_type: str | None,
                episode: str | None, evidence: Sequence[str] | None) -> list[Any]:
    """``build_fact_row`` with its arguments in order (a batch calls it once per item)."""
    start = now if t_valid is None else t_valid
    if t_invalid is not None and t_invalid <= start:
        raise ClaimgraphError("invalid-interval", "t_invalid must be strictly after t_valid",
                              hint="drop t_invalid or give a later time",
                              t_valid=start, t_invalid=t_invalid)
    source = source_type or DEFAULT_SOURCE_TYPE
    born = birth_confidence(confidence, source)
    stated = resolve_epistemic(epistemic, None)
    ref, literal = _object_fields(object_kind, object_ref, object)
    return [  # FACT_ROW_KEYS order
        born, [], None, episode, stated, list(evidence or []), id, None, None, now,
        object_kind, literal, None if ref is None else _ref_id(ref), predicate, now,
        scope or DEFAULT_SCOPE, source, _ref_id(subject), None, t_invalid, start]


def fact_from_row(row: Sequence[Any], subject: Mapping[str, Any],
                  object_ref: Mapping[str, Any] | None) -> FactRecord:
    """The whole fact of a ``build_fact_row`` row, whose ends are ``subject`` and
    ``object_ref`` (copied, as the store returned them): ``build_fact``'s record."""
    (confidence, conflicts, dormant_since, episode, epistemic, evidence, id, invalidation_kind,
     invalidation_reason, last_reinforced_at, object_kind, object_lit, _, predicate,
     recorded_at, scope, source_type, _, successor, t_invalid, t_valid) = row
    return {  # every field, in FACT_FIELDS order
        "id": id, "subject": _entity(subject), "predicate": predicate,
        "object_kind": object_kind,
        "object_ref": (_entity(object_ref) if object_kind == "entity" and object_ref is not None
                       else None),
        "object_lit": object_lit, "t_valid": t_valid, "t_invalid": t_invalid,
        "recorded_at": recorded_at, "last_reinforced_at": last_reinforced_at,
        "confidence": confidence, "epistemic": epistemic, "scope": scope,
        "source_type": source_type, "episode": episode, "conflicts": list(conflicts),
        "invalidation_reason": invalidation_reason, "invalidation_kind": invalidation_kind,
        "successor": successor, "evidence": list(evidence), "dormant_since": dormant_since,
    }


def _ref_id(entity: Mapping[str, Any]) -> str | None:
    """An entity's id as the store keeps a reference (``store.records.ref_id``)."""
    found = entity.get("id")
    return None if found is None else str(found)


def row_object_key(row: Sequence[Any]) -> tuple[Any, Any]:
    """``object_key`` of the fact a ``build_fact_row`` row stands for."""
    kind = row[_ROW_KIND]
    return kind, row[_ROW_REF] if kind == "entity" else row[_ROW_LIT]


_ROW_KIND, _ROW_LIT, _ROW_REF = 10, 11, 12


def _entity(entity: Mapping[str, Any]) -> EntityRecord:
    """A copy of an entity as the store returned it (every entity field present)."""
    return cast(EntityRecord, dict(entity))


def _object_fields(kind: str, object_ref: Mapping[str, Any] | None,
                   obj: Any) -> tuple[EntityRecord | None, str | None]:
    """Exactly one of object_ref / object_lit is set, matching the kind."""
    if kind not in FACT_OBJECT_KINDS:
        raise ClaimgraphError("invalid-object-kind",
                              f"object kind {kind!r} is not entity or literal",
                              hint="use entity or literal", object_kind=kind)
    if kind == "entity" and object_ref is None or kind == "literal" and obj is None:
        raise ClaimgraphError("missing-object", "a fact needs an object",
                              hint="give the object (an entity or a literal value)")
    if kind == "entity" and object_ref is not None:  # not None: checked above
        return _entity(object_ref), None
    return None, str(obj)


def resolve_object_kind(pred_row: Mapping[str, Any], explicit_kind: str | None,
                        object_resolves: bool) -> str:
    """Typed predicates force their kind; "either" prefers an explicit kind, then a known entity."""
    declared = pred_row.get("object_kind") or "either"
    if explicit_kind is not None and explicit_kind not in FACT_OBJECT_KINDS:
        raise ClaimgraphError("invalid-object-kind",
                              f"object kind {explicit_kind!r} is not entity or literal",
                              hint="use entity or literal", object_kind=explicit_kind)
    if declared in FACT_OBJECT_KINDS:
        if explicit_kind is not None and explicit_kind != declared:
            raise ClaimgraphError(
                "object-kind-mismatch",
                f"{pred_row.get('id')} takes {declared} objects, not {explicit_kind} ones",
                hint=f"drop the object kind or use {declared}", expected=declared,
                given=explicit_kind)
        return declared
    if explicit_kind is not None:
        return explicit_kind
    return "entity" if object_resolves else "literal"


def decision_inputs(fact: FactRecord, raw_facts: Sequence[Mapping[str, Any]],
                    now: int) -> dict[str, list[Mapping[str, Any]]]:
    """Sort the subject's facts (on the predicate and its group-mates) into decide_assert's inputs.

    ``raw_facts`` must include invalidated facts: retired beliefs are what revenants are.
    One pass, each list in ``raw_facts``' order: this runs once per fact of a batch.
    """
    predicate = fact.get("predicate")
    fetched: list[Mapping[str, Any]] = []
    existing: list[Mapping[str, Any]] = []
    exclusion: list[Mapping[str, Any]] = []
    revenants: list[Mapping[str, Any]] = []
    for f in raw_facts:
        same = f.get("predicate") == predicate
        if fact_valid_at(f, now):
            fetched.append(f)
            if same:
                existing.append(f)
            elif same_object_loosely(f, fact):
                exclusion.append(f)
        elif same and f.get("t_invalid") is not None:
            revenants.append(f)
    return {"existing": existing, "exclusion": exclusion,
            "revenants": revenants, "rivals": list(existing),
            "mentions": named_preferences(fact, fetched, exclusion)}


def decide(*, fact: FactRecord, pred: Mapping[str, Any], raw_facts: Sequence[Mapping[str, Any]],
           now: int, on_conflict: str | None = None,
           stated_epistemic: str | None = None) -> dict[str, Any]:
    """``decide_assert`` over ``decision_inputs``: the plan for ``fact`` given the subject's
    facts on the predicate, its group-mates and its mention partners.

    With none at all every branch of ``decide_assert`` but the last is empty-handed (each
    needs a standing, retired or rival fact), so the plan is an insert: the common case of a
    batch, decided without sorting anything into five empty lists."""
    if not raw_facts:
        check_on_conflict(on_conflict)
        return {"action": "insert", "fact": fact}
    return decide_assert(fact=fact, pred=pred, **decision_inputs(fact, raw_facts, now),
                         on_conflict=on_conflict, stated_epistemic=stated_epistemic)


def object_key(fact: Mapping[str, Any]) -> tuple[Any, Any]:
    """What ``same_object`` compares, as a value: two facts have the same object exactly when
    their keys are equal (an entity's id, or the literal string)."""
    kind = fact.get("object_kind")
    if kind == "entity":
        ref = fact.get("object_ref")
        return kind, ref.get("id") if ref else None
    return kind, fact.get("object_lit")


def inserts_undecided(key: tuple[Any, Any], pred: Mapping[str, Any],
                      standing: set[tuple[Any, Any]]) -> bool:
    """True when ``decide`` would plan a plain insert for a fact whose ``object_key`` is
    ``key``, known without sorting the subject's facts: a batch's set-based decision
    (``BatchWriter.inserts_plainly``).

    It holds only for a predicate with no group-mates and no mention partners (the caller's
    side: then the facts ``decide`` sees are the subject's on ``fact``'s own predicate), and
    ``standing`` is the ``object_key`` of every one of them, valid, closed or not yet valid.
    Each branch of ``decide_assert`` before the insert needs a fact of the same object (a
    duplicate, a record, a revenant), a rival (a single-valued predicate holding any fact), an
    exclusion antagonist (a group-mate's fact) or a mention (a rejection's or a stance's
    partners): without those, the plan is an insert. Every other case is left to ``decide``."""
    if standing and pred.get("cardinality") == "one":
        return False
    return key not in standing


#: Predicates whose facts reject their object: a standing preference that names it wants review.
REJECTING = frozenset({"core/decided-against"})
#: Stances kept as whole sentences (capture's conventions and decisions) or as preferences.
STANCES = frozenset({"core/prefers", "x/convention", "x/decided"})
#: Words just before a mention that make it agree with a rejection: "never use requests",
#: and a ranking that puts it below something else, "REST over GraphQL", "tabs rather than
#: spaces", "uv, not pip".
_NEGATED = lazy_regex(r"(?:\b(?:never|not|no|don't|dont|avoid|against|without|skip|instead of|"
                      r"rather than|drop|remove|replace|over|than|versus|vs)\b[\w\s.-]{0,20})$",
                      re.IGNORECASE)


def mention_partners(predicate: str) -> list[str]:
    """The predicates whose facts a new fact on ``predicate`` may name (or be named by)."""
    if predicate in REJECTING:
        return sorted(STANCES)
    return sorted(REJECTING) if predicate in STANCES else []


def named_preferences(fact: Mapping[str, Any], valid: Sequence[Mapping[str, Any]],
                      exclusion: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The other side of a rejection named in a sentence, as a whole word, any case, either
    way round: ``decided-against GraphQL`` meets ``prefers "REST over GraphQL"``, and a new
    convention "Always use pytest" meets a standing ``decided-against pytest``. A mention
    that itself rejects the thing ("never use requests") agrees, and is not one. They are
    only flagged, never superseded (a sentence that mentions X is not the same claim as X);
    loosely equal objects are exclusion antagonists already and are left to that branch."""
    rejecting, preference = fact.get("predicate") in REJECTING, _is_preference(fact)
    if not (rejecting or preference):  # most facts: nothing to look at (checked first: per fact)
        return []
    taken = {f["id"] for f in exclusion}
    others = [f for f in valid if f["id"] not in taken and f["id"] != fact.get("id")]
    if rejecting:
        return [f for f in others if _is_preference(f) and _names(object_name(f), fact)]
    return [f for f in others if f.get("predicate") in REJECTING
            and _names(object_name(fact), f)]


def _names(sentence: str | None, rejection: Mapping[str, Any]) -> bool:
    rejected = (object_name(rejection) or "").strip()
    if not rejected or not sentence:
        return False
    word = re.compile(rf"(?<!\w){re.escape(rejected)}(?!\w)", re.IGNORECASE)
    return any(not _NEGATED.search(sentence[:m.start()]) for m in word.finditer(sentence))


def _is_preference(fact: Mapping[str, Any]) -> bool:
    return fact.get("predicate") in STANCES or fact.get("epistemic") == "preference"


def check_on_conflict(on_conflict: str | None) -> None:
    """Refuse a conflict policy that is not one of ``ON_CONFLICT_POLICIES`` (None: the
    default). The one check: the write path calls it before it touches the store, and
    ``decide_assert`` for callers of the pure core."""
    if on_conflict is not None and on_conflict not in ON_CONFLICT_POLICIES:
        raise ClaimgraphError("invalid-on-conflict", f"unknown conflict policy {on_conflict!r}",
                              hint="use one of: " + ", ".join(ON_CONFLICT_POLICIES),
                              on_conflict=on_conflict)


def decide_assert(*, fact: FactRecord, pred: Mapping[str, Any],
                  existing: Sequence[Mapping[str, Any]], exclusion: Sequence[Mapping[str, Any]],
                  revenants: Sequence[Mapping[str, Any]], rivals: Sequence[Mapping[str, Any]],
                  mentions: Sequence[Mapping[str, Any]] = (), on_conflict: str | None = None,
                  stated_epistemic: str | None = None) -> dict[str, Any]:
    """The plan for asserting ``fact``: branches in this order (docs/conflicts.md).

    1. same object already valid: reinforce it, or escalate when the caller STATED a stronger class;
       1b. (ours) same object already on record as true at the fact's valid-from, though retired
       since: reinforce that record. Only a BACKDATED fact can hit this (a retired record ends
       at or before now), so the other branches are unchanged for facts valid from now;
       it keeps a replayed or re-captured old session from storing known history again as a
       live fact (flagged against its own successor, or as a revenant);
    2. conflicts (single-valued rivals, exclusion antagonists): supersede, flag or ignore;
    3. a lower-trust source re-asserting a retired belief that has a successor: flag as revenant;
    4. a rejection naming a standing preference's object (``mentions``): flag, unless the
       caller said ``ignore``; never supersede (only an exact match may replace a belief);
    5. otherwise insert.

    Kept on purpose: an explicit ``supersede``
    policy still flags ``outranked`` and ``backdated-overlap``, and backdating is strict — a
    predecessor starting at the same instant is superseded and keeps an empty interval.
    """
    check_on_conflict(on_conflict)
    duplicate = next((f for f in existing if same_object(f, fact)), None)
    if duplicate is not None:
        return _duplicate_plan(fact, duplicate, stated_epistemic)
    recorded = _on_record(fact, revenants)
    if recorded is not None:
        return {"action": "reinforce", "existing": recorded, "fact": fact}
    conflicting = _conflicting(fact, pred, existing, exclusion)
    if conflicting:
        return _conflict_plan(fact, conflicting, on_conflict)
    if _is_revenant(fact, revenants, rivals, on_conflict):
        return _flag(fact, rivals, "revenant")
    if mentions and on_conflict != "ignore":
        return _flag(fact, mentions, NAMES_REJECTED)
    return {"action": "insert", "fact": fact}


def _duplicate_plan(fact: Mapping[str, Any], duplicate: Mapping[str, Any],
                    stated: str | None) -> dict[str, Any]:
    """Saying it again reinforces; only a stated, strictly stronger class changes the belief.

    The resolved or default class is ignored here, or every ingest pass would escalate its own
    facts.
    """
    stated_strength = epistemic_strength(stated)
    held_strength = epistemic_strength(duplicate.get("epistemic"))
    if stated_strength is None or held_strength is None or stated_strength <= held_strength:
        return {"action": "reinforce", "existing": duplicate, "fact": fact}
    if _starts_after(duplicate, fact):
        return _flag(fact, [duplicate], "backdated-overlap")
    return _supersede(fact, [duplicate])


def _on_record(fact: Mapping[str, Any],
               retired: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """A retired fact with the same object whose valid interval holds the new valid-from."""
    start = fact.get("t_valid")
    if start is None:
        return None
    return next((f for f in retired if same_object(f, fact) and f.get("t_invalid") is not None
                 and f.get("t_valid") is not None and f["t_valid"] <= start < f["t_invalid"]),
                None)


def _conflicting(fact: Mapping[str, Any], pred: Mapping[str, Any],
                 existing: Sequence[Mapping[str, Any]],
                 exclusion: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Single-valued predicates conflict with other values; any predicate with its antagonists."""
    if pred.get("cardinality") != "one":
        return list(exclusion)
    return [*(f for f in existing if not same_object(f, fact)), *exclusion]


def _conflict_plan(fact: Mapping[str, Any], conflicting: list[Mapping[str, Any]],
                   on_conflict: str | None) -> dict[str, Any]:
    """Commitments are never silently replaced: by default they flag for a human instead."""
    policy = on_conflict or _default_policy(fact, conflicting)
    if policy == "ignore":
        return {"action": "insert", "fact": fact}
    if policy == "flag":
        return _flag(fact, conflicting)
    if any(_starts_after(old, fact) for old in conflicting):
        return _flag(fact, conflicting, "backdated-overlap")
    new_trust = trust_rank(fact.get("source_type"))
    if any(trust_rank(old.get("source_type")) > new_trust for old in conflicting):
        return _flag(fact, conflicting, "outranked")
    return _supersede(fact, conflicting)


def _default_policy(fact: Mapping[str, Any], conflicting: list[Mapping[str, Any]]) -> str:
    """Flag when either side is a commitment; otherwise the newer claim supersedes."""
    involved = [fact, *conflicting]
    return "flag" if any(f.get("epistemic") == "commitment" for f in involved) else "supersede"


def _is_revenant(fact: Mapping[str, Any], revenants: Sequence[Mapping[str, Any]],
                 rivals: Sequence[Mapping[str, Any]], on_conflict: str | None) -> bool:
    """A weak source repeating what was retired, while a successor stands, is likely stale
    memory."""
    return (trust_rank(fact.get("source_type")) < TRUSTED_RANK
            and any(same_object(old, fact) for old in revenants)
            and bool(rivals)
            and on_conflict not in ("ignore", "supersede"))


def _starts_after(old: Mapping[str, Any], fact: Mapping[str, Any]) -> bool:
    """Strictly later start: superseding it would close the old fact before it began."""
    old_start, new_start = old.get("t_valid"), fact.get("t_valid")
    return old_start is not None and new_start is not None and old_start > new_start


def _supersede(fact: Mapping[str, Any],
               predecessors: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Predecessors close at the successor's valid-from, so history has no gap and no overlap."""
    return {"action": "supersede", "fact": fact, "invalidate": [f["id"] for f in predecessors],
            "effective_at": fact.get("t_valid")}


def _flag(fact: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]],
          reason: str | None = None) -> dict[str, Any]:
    """Insert and link for review; ``reason`` is present only when a defense (not policy) fired."""
    plan: dict[str, Any] = {"action": "flag", "fact": fact, "link": [f["id"] for f in candidates],
                            "candidates": list(candidates)}
    if reason is not None:
        plan["reason"] = reason
    return plan
