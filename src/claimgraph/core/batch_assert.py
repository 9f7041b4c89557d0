"""The batch ingest's items, asserted in one loop: ``ingest._ingest_one`` and
``writes.assert_with`` for a ``BatchWriter``, unrolled.

A batch of thousands paid, per item, a keyword dict, a call with fifteen keywords and a layer
of small calls (redaction, predicate, entity and kind look-ups, the decision's mates) that
mostly answer from the batch's caches, then built a whole fact that the store and the log
each took apart again (issue 29). Here
each item runs the same steps, in the same order, through the same checks and the same
writer, and reads the caches in line where they answer; a plain insert goes to the writer as
its row (``BatchWriter.insert_row``), every other fact is decided by ``writes.settle``
exactly as ``assert_with`` decides it. ``tests/core/test_batch_paths.py`` holds the
two side by side (``PER_ITEM`` switches this loop off).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from claimgraph.core.batch_writer import BatchWriter
from claimgraph.core.writer import Record
from claimgraph.core.writes import CREATED, _name, _object_kind, _require_object, settle
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import facts as F
from claimgraph.logic.model import (
    DEFAULT_SCOPE, DEFAULT_SOURCE_TYPE, EPISTEMIC_STRENGTH, resolve_epistemic,
)
from claimgraph.logic.timeutil import from_iso
from claimgraph.store.fact_rows import PREDICATE as _PREDICATE, SUBJECT as _SUBJECT

#: Set (by a test) to send every item through ``_ingest_one``, the per-item path.
PER_ITEM = False
#: Instants a fact may carry: what ISO-8601 can write (years 1 to 9999), in milliseconds.
MIN_MS, MAX_MS = -62_135_596_800_000, 253_402_300_799_999
#: A row's object ref and literal (``logic.facts.row_object_key``).
_LIT, _REF = F._ROW_LIT, F._ROW_REF


def assert_items(w: BatchWriter, items: Sequence[dict[str, Any]],
                 episode: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each item's result, as ``_ingest_one`` gives it (a created fact: ``CREATED``)."""
    episode_id, episode_source = episode["id"], episode.get("source_type")
    results: list[dict[str, Any]] = []
    for item in items:
        try:
            results.append(_assert(w, item, episode_id, episode_source))
        except ClaimgraphError as err:
            if err.type == "purged-fact":
                results.append({"status": "purged"})
            else:
                results.append({"status": "error", "message": err.message, "type": err.type,
                                "input": item})
    return results


def _assert(w: BatchWriter, item: dict[str, Any], episode: str,
            episode_source: Any) -> dict[str, Any]:
    """One item: ``assert_with``'s steps in its order (the comments name them).

    The calls that answer from the batch's caches or do the same small work for every item
    (the predicate's and the decision's memos, the name's strip, the default class, a typed
    predicate's kind, the row's born confidence per source, the set-based decision and the
    buffering of a plain insert) are made in line, each falling back to the very function it
    stands for when its case is not the plain one."""
    get = item.get
    obj = get("object")
    source_type = get("source_type")
    if source_type is None:
        source_type = episode_source
    valid_from, valid_until = get("valid_from"), get("valid_until")
    if valid_from is not None:
        valid_from = item_time(valid_from, "valid_from")
    if valid_until is not None:
        valid_until = item_time(valid_until, "valid_until")
    if obj is None or isinstance(obj, str) and not obj.strip():
        _require_object(obj)
    redacted = w._redacted
    subject = get("subject")
    if type(subject) is str:
        subject = redacted.get(subject) or w.redact(subject)
    else:
        subject = w.redact(subject)
    if type(obj) is str:
        obj = redacted.get(obj) or w.redact(obj)
    else:
        obj = w.redact(obj)
    evidence = get("evidence")
    evidence = [w.redact(e) for e in evidence] if evidence else []
    on_conflict = get("on_conflict")
    if on_conflict is not None:
        F.check_on_conflict(on_conflict)
    predicate: Any = get("predicate")  # untrusted input: the registry refuses a bad one
    memo = w.sh.registry_memo
    pred = memo.get(("name", predicate)) if type(predicate) is str else None
    if pred is None:
        pred = w.predicate(predicate)
    pred_id = pred["id"]
    subject_name = subject.strip() if type(subject) is str else ""
    if not subject_name:
        subject_name = _name(subject, "subject")
    scope = get("scope")
    buried = w._buried
    if buried is None or buried:
        w.refuse_purged(scope or DEFAULT_SCOPE, subject_name, pred_id, str(obj))
    epistemic = get("epistemic")
    if epistemic:
        resolved_class = resolve_epistemic(epistemic, pred)
    else:  # resolve_epistemic's answer when none is stated
        resolved_class = pred.get("default_epistemic") or "observation"
    subject_scope = get("subject_scope") or scope or DEFAULT_SCOPE
    object_scope = get("object_scope") or scope or DEFAULT_SCOPE
    explicit_kind = get("object_kind")
    kind = pred.get("object_kind")
    if explicit_kind is not None or kind != "entity" and kind != "literal":
        kind = _object_kind(w, pred, explicit_kind, obj, object_scope)
    entities = w._entities  # BatchWriter.entity's cache, read in line where it answers
    wanted = get("subject_type")
    subject_entity = entities.get((subject_name, subject_scope))
    if subject_entity is None or wanted is not None and subject_entity.get("type") is None:
        subject_entity = w.entity(subject_name, subject_scope, wanted)
    object_entity = None
    if kind == "entity":
        object_name, wanted = str(obj).strip(), get("object_type")
        object_entity = entities.get((object_name, object_scope))
        if object_entity is None or wanted is not None and object_entity.get("type") is None:
            object_entity = w.entity(object_name, object_scope, wanted)
    sh = w.sh
    now = sh.now()
    fact_id = sh.new_id("f")
    confidence = get("confidence")
    row = None
    if (valid_until is None and type(source_type) is str
            and (confidence is None or type(confidence) is float and 0.0 < confidence <= 1.0)
            and resolved_class in EPISTEMIC_STRENGTH):
        row = _plain_row(w, fact_id, now, subject_entity, pred_id, kind, object_entity, obj,
                         valid_from, confidence, resolved_class, scope, source_type, episode,
                         evidence)
    if row is None:
        row = F.fact_row_of(fact_id, now, subject_entity, pred_id, kind, object_entity, obj,
                            valid_from, valid_until, confidence, resolved_class, scope,
                            source_type, episode, evidence)
    others = memo.get(("decision-mates", pred_id))
    if others is None:
        others = w.mates(pred)
    if not others:
        subject_id = row[_SUBJECT]
        known = w._standing.get(subject_id)
        standing = None if known is None else known.get(pred_id)
        if standing is None:
            plain = w.inserts_plainly(row, pred)
            key = None
        else:  # logic.facts.inserts_undecided, over the kept object keys
            key = (kind, row[_REF] if kind == "entity" else row[_LIT])
            plain = not (standing and pred.get("cardinality") == "one") and key not in standing
        if plain:
            _buffer(w, row, subject_entity, object_entity, key)
            return CREATED
    return settle(w, row, subject_entity, object_entity, pred, others, now, on_conflict,
                  epistemic)


def _plain_row(w: BatchWriter, fact_id: str, now: int, subject: Mapping[str, Any], pred_id: str,
               kind: Any, object_entity: Mapping[str, Any] | None, obj: Any,
               valid_from: int | None, confidence: float | None, stated: str,
               scope: str | None, source_type: str, episode: str,
               evidence: list[Any]) -> list[Any] | None:
    """``logic.facts.fact_row_of``'s row for the case that cannot fail (no end to the valid
    interval, a confidence that needs no clamping, a known class, a known kind with its
    object): its born confidence kept per source and confidence for the batch (a pure
    function of the two). None when the case is another (the caller builds it the long way)."""
    if kind == "entity":
        if object_entity is None:
            return None
        ref, literal = F._ref_id(object_entity), None
    elif kind == "literal":
        ref, literal = None, str(obj)
    else:
        return None
    source = source_type or DEFAULT_SOURCE_TYPE
    born_of = w._born
    born = born_of.get((source, confidence))
    if born is None:
        born = born_of[(source, confidence)] = F.birth_confidence(confidence, source)
    return [  # FACT_ROW_KEYS order, as fact_row_of builds it
        born, [], None, episode, stated, evidence, fact_id, None, None, now, kind, literal,
        ref, pred_id, now, scope or DEFAULT_SCOPE, source, F._ref_id(subject), None, None,
        now if valid_from is None else valid_from]


def _buffer(w: BatchWriter, row: list[Any], subject: Record, object_ref: Record | None,
            key: tuple[Any, Any] | None) -> None:
    """``BatchWriter.insert_row`` with the row's object key already known (or None)."""
    grouped = w._out.get(subject["id"])
    if grouped is None:
        w.insert_row(row, subject, object_ref)
        return
    predicate = row[_PREDICATE]
    w._pending.append(row)
    facts = grouped.get(predicate)
    if facts is None:
        facts = grouped[predicate] = []
    facts.append((row, subject, object_ref))
    known = w._standing.get(subject["id"])
    standing = None if known is None else known.get(predicate)
    if standing is not None:
        standing.add(F.row_object_key(row) if key is None else key)


def item_time(value: Any, key: str) -> int:
    """An item's instant as integer milliseconds: an int as it is, ISO-8601 text parsed (as
    ``--valid-from`` is). Anything else is refused here, before it can be stored: a time kept
    as text or a float would later fail every comparison with the facts beside it."""
    if isinstance(value, str):
        try:
            value = from_iso(value)
        except ClaimgraphError as err:
            raise ClaimgraphError("invalid-time", f"{key} {value!r} is not a date or time",
                                  hint=err.hint, field=key) from None
    if isinstance(value, int) and not isinstance(value, bool) and MIN_MS <= value <= MAX_MS:
        return value
    raise ClaimgraphError(
        "invalid-time", f"{key} {value!r} is not a time",
        hint="give an ISO-8601 date or date-time (e.g. 2026-01-31 or 2026-01-31T12:00:00Z) "
             "or whole milliseconds since 1970", field=key)
