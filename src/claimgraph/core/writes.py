"""The write path: assert (single and batch), invalidate, reinforce (docs/conflicts.md).

Each verb gathers what ``logic.facts.decide`` needs, lets it decide, then executes the
returned plan. Callers hold the write lease; this module never takes it.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from claimgraph.core.shell import Shell
from claimgraph.core.writer import Writer
from claimgraph.core.vocabulary import group_mates
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import facts as F
from claimgraph.logic.confidence import reinforced_confidence, resourced_type
from claimgraph.logic.model import DEFAULT_SCOPE, resolve_epistemic


#: A batch's plain insert: its fact is written from its row, never made whole
#: (``BatchWriter.insert_row``), and ``ingest`` reports only the status of a created fact.
#: One shared dict: nobody writes to a result.
CREATED: dict[str, Any] = {"status": "created"}


def assert_fact(sh: Shell, subject: str, predicate: str, obj: Any, *, relearn: bool = False,
                **options: Any) -> dict[str, Any]:
    """Assert one fact through the conflict policy; returns {status, fact, ...}.

    ``options`` are assert_with's keywords (object_kind, epistemic, source_type, confidence,
    scope, valid_from/valid_until, on_conflict, episode, evidence, ...). A purged fact is
    refused (``purged-fact``) unless ``relearn``.
    """
    return assert_with(Writer(sh, relearn), subject, predicate, obj, **options)


def assert_with(w: Writer, subject: str, predicate: str, obj: Any, *,
                object_kind: str | None = None, epistemic: str | None = None,
                source_type: str | None = None, confidence: Any = None,
                scope: str | None = None, subject_scope: str | None = None,
                object_scope: str | None = None, subject_type: str | None = None,
                object_type: str | None = None, valid_from: int | None = None,
                valid_until: int | None = None, on_conflict: str | None = None,
                episode: str | None = None, evidence: Iterable[str] = ()) -> dict[str, Any]:
    """assert_fact through a given Writer (batches pass a caching one, whose plain inserts
    come back as ``CREATED``, without the fact)."""
    sh = w.sh
    _require_object(obj)
    subject, obj = w.redact(subject), w.redact(obj)
    evidence = [w.redact(e) for e in evidence] if evidence else []
    F.check_on_conflict(on_conflict)
    pred = w.predicate(predicate)
    subject_name = _name(subject, "subject")
    w.refuse_purged(scope or DEFAULT_SCOPE, subject_name, pred["id"], str(obj))
    resolved_class = resolve_epistemic(epistemic, pred)
    subject_scope = subject_scope or scope or DEFAULT_SCOPE
    object_scope = object_scope or scope or DEFAULT_SCOPE
    kind = _object_kind(w, pred, object_kind, obj, object_scope)
    subject_entity = w.entity(subject_name, subject_scope, subject_type)
    object_entity = w.entity(str(obj).strip(), object_scope,
                             object_type) if kind == "entity" else None
    now = sh.now()
    row = F.build_fact_row(
        id=sh.new_id("f"), now=now, subject=subject_entity, predicate=pred["id"],
        object_kind=kind, object_ref=object_entity, object=obj, t_valid=valid_from,
        t_invalid=valid_until, confidence=confidence, epistemic=resolved_class,
        scope=scope, source_type=source_type, episode=episode, evidence=list(evidence))
    others = decision_mates(sh, pred)
    if not others and w.inserts_plainly(row, pred):
        w.insert_row(row, subject_entity, object_entity)
        return CREATED
    return settle(w, row, subject_entity, object_entity, pred, others, now, on_conflict,
                  epistemic)


def decision_mates(sh: Shell, pred: dict[str, Any]) -> list[str]:
    """The predicates besides ``pred`` whose facts decide a new fact on it: its exclusion
    group-mates and its mention partners (none: the set-based decision may answer)."""
    return [*group_mates(sh, pred), *F.mention_partners(pred["id"])]


def settle(w: Writer, row: list[Any], subject: Mapping[str, Any],
           object_ref: Mapping[str, Any] | None, pred: Mapping[str, Any], others: list[str],
           now: int, on_conflict: str | None, epistemic: str | None) -> dict[str, Any]:
    """The fact of ``row`` made whole, decided against the subject's facts on its predicate
    and ``others``, and the plan carried out."""
    fact = F.fact_from_row(row, subject, object_ref)
    raw = w.out_facts(subject["id"], [pred["id"], *others])
    plan = F.decide(fact=fact, pred=pred, raw_facts=raw, now=now, on_conflict=on_conflict,
                    stated_epistemic=epistemic or None)
    return execute_plan(w, plan)


def _require_object(obj: Any) -> None:
    if obj is None or (isinstance(obj, str) and not obj.strip()):
        raise ClaimgraphError("missing-object", "the object is empty",
                              hint="give the fact an object, e.g. `claimgraph assert api prefers "
                              "REST`")


def _name(value: Any, what: str) -> str:
    if value is None or not str(value).strip():
        raise ClaimgraphError("empty-name", f"the {what} is empty", hint=f"give a non-blank {what}")
    return str(value).strip()


def _object_kind(w: Writer, pred: Mapping[str, Any], explicit: str | None, obj: Any,
                 scope: str) -> str:
    """Either-kind predicates point at an entity only when the name already resolves to one;
    a typed predicate's kind, with none given, needs no look-up (the batch loop's hot path)."""
    declared = pred.get("object_kind")
    if explicit is None and (declared == "entity" or declared == "literal"):
        return declared  # type: ignore[no-any-return]
    resolves = False
    if pred.get("object_kind") == "either" and explicit is None:
        resolves = w.resolves(str(obj).strip(), scope)
    return F.resolve_object_kind(pred, explicit, resolves)


def execute_plan(w: Writer, plan: Mapping[str, Any]) -> dict[str, Any]:
    """Carry out a decide_assert plan; the only place plans touch storage."""
    action, fact = plan["action"], plan["fact"]
    if action == "insert":
        w.insert(fact)
        return {"status": "created", "fact": fact}
    w.before_change(fact["subject"]["id"])
    store = w.sh.store
    if action == "reinforce":
        return _reinforce_existing(w.sh, plan["existing"], fact)
    if action == "supersede":
        for old_id in plan["invalidate"]:
            store.invalidate(old_id, plan["effective_at"], kind="superseded",
                             successor=fact["id"], reason=f"superseded by {fact['id']}")
        store.insert_fact(fact)
        return {"status": "superseded", "fact": fact, "superseded": list(plan["invalidate"])}
    if action == "flag":
        return _insert_flagged(w.sh, plan)
    raise ValueError(f"unknown plan action {action!r}")


def _reinforce_existing(sh: Shell, existing: Mapping[str, Any],
                        incoming: Mapping[str, Any]) -> dict[str, Any]:
    """Reset the disuse clock; raise the base only as far as the better source allows.

    A dormant fact is revived in the same transaction: being said again is what brings a
    faded belief back (docs/curator.md)."""
    source = resourced_type(existing.get("source_type"), incoming.get("source_type"))
    boosted = reinforced_confidence(existing, incoming["confidence"], incoming.get("source_type"))
    changed = source if source != existing.get("source_type") else None
    with sh.store.transaction():
        sh.store.reinforce(existing["id"], incoming["recorded_at"], boosted, changed)
        sh.store.revive([existing["id"]])  # a no-op for an active fact; never trusts a stale read
    return {"status": "reinforced", "fact": sh.store.get_fact(existing["id"])}


def _insert_flagged(sh: Shell, plan: Mapping[str, Any]) -> dict[str, Any]:
    fact = {**plan["fact"], "conflicts": []}
    sh.store.insert_fact(fact)
    sh.store.link_conflicts(fact["id"], plan["link"])
    fact["conflicts"] = list(plan["link"])
    result = {"status": "flagged", "fact": fact, "candidates": list(plan["candidates"])}
    if plan.get("reason"):
        result["reason"] = plan["reason"]
    return result


def invalidate(sh: Shell, fact_id: str, reason: str | None = None,
               at: int | None = None) -> dict[str, Any]:
    """Close a fact's valid time by hand; facts are never deleted."""
    fact = require_fact(sh, fact_id)
    if fact.get("t_invalid") is not None:
        raise ClaimgraphError("already-invalidated", f"fact {fact_id} is already invalidated",
                              hint="see `claimgraph history` for its versions")
    at = sh.now() if at is None else at
    if at < fact["t_valid"]:
        raise ClaimgraphError("invalid-interval",
                              "invalidation time is before the fact became valid",
                              hint="give --at at or after the fact's valid-from")
    sh.store.invalidate(fact_id, at, kind="manual", reason=reason or "manually invalidated")
    return {"status": "invalidated", "fact": sh.store.get_fact(fact_id)}


def reinforce(sh: Shell, fact_id: str, confidence: float | None = None,
              source_type: str | None = None) -> dict[str, Any]:
    """Outcome-style reinforcement: same confidence by default, so only the clock resets."""
    fact = require_fact(sh, fact_id)
    incoming = {"confidence": fact["confidence"] if confidence is None else confidence,
                "source_type": source_type, "recorded_at": sh.now()}
    return _reinforce_existing(sh, fact, incoming)


def require_fact(sh: Shell, fact_id: str) -> dict[str, Any]:
    fact = sh.store.get_fact(fact_id)
    if fact is None:
        raise ClaimgraphError("unknown-fact", f"no fact with id {fact_id!r}",
                              hint="find ids with `claimgraph facts ENTITY` or `claimgraph search`")
    return fact
