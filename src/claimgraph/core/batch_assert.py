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
from claimgraph.core.writes import CREATED, _name, _object_kind, _require_object, settle
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import facts as F
from claimgraph.logic.model import DEFAULT_SCOPE, resolve_epistemic
from claimgraph.logic.timeutil import from_iso

#: Set (by a test) to send every item through ``_ingest_one``, the per-item path.
PER_ITEM = False
#: Instants a fact may carry: what ISO-8601 can write (years 1 to 9999), in milliseconds.
MIN_MS, MAX_MS = -62_135_596_800_000, 253_402_300_799_999


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
    """One item: ``assert_with``'s steps in its order (the comments name them)."""
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
    pred = w.predicate(predicate)
    pred_id = pred["id"]
    subject_name = _name(subject, "subject")
    scope = get("scope")
    buried = w._buried
    if buried is None or buried:
        w.refuse_purged(scope or DEFAULT_SCOPE, subject_name, pred_id, str(obj))
    epistemic = get("epistemic")
    resolved_class = resolve_epistemic(epistemic, pred)
    subject_scope = get("subject_scope") or scope or DEFAULT_SCOPE
    object_scope = get("object_scope") or scope or DEFAULT_SCOPE
    kind = _object_kind(w, pred, get("object_kind"), obj, object_scope)
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
    row = F.fact_row_of(sh.new_id("f"), now, subject_entity, pred_id, kind, object_entity, obj,
                        valid_from, valid_until, get("confidence"), resolved_class, scope,
                        source_type, episode, evidence)
    others = w.mates(pred)
    if not others and w.inserts_plainly(row, pred):
        w.insert_row(row, subject_entity, object_entity)
        return CREATED
    return settle(w, row, subject_entity, object_entity, pred, others, now, on_conflict,
                  epistemic)


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
