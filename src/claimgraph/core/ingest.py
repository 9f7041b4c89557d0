"""Batch assertion in one episode: what capture and `claimgraph load`-style imports use.

The batch runs in ONE store transaction (fast, and lets a caller commit a high-water mark
with the facts); a bad item is recorded as an error and never stops its neighbours.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from claimgraph.core import batch_assert, batch_writer
from claimgraph.core.batch_assert import MAX_MS, MIN_MS, item_time  # noqa: F401 (theirs)
from claimgraph.core.shell import Shell
from claimgraph.core.batch_writer import BatchWriter
from claimgraph.core.writer import Writer
from claimgraph.core.writes import assert_with
from claimgraph.errors import ClaimgraphError
from claimgraph.store.bulk import collector_paused

#: Item keys accepted by ``ingest``, mapped to assert_fact's keyword names.
ITEM_KEYS = {
    "object_kind": "object_kind", "epistemic": "epistemic", "source_type": "source_type",
    "confidence": "confidence", "scope": "scope", "subject_scope": "subject_scope",
    "object_scope": "object_scope", "subject_type": "subject_type", "object_type": "object_type",
    "valid_from": "valid_from", "valid_until": "valid_until", "on_conflict": "on_conflict",
    "evidence": "evidence",
}
#: Item keys that hold an instant: integer milliseconds, or ISO-8601 text (naive means UTC).
TIME_KEYS = ("valid_from", "valid_until")


def open_episode(sh: Shell, source_type: str = "session-log", ref: str | None = None,
                 evidence: str | None = None) -> dict[str, Any]:
    """Open an episode: the unit of provenance every fact of one batch points back to.

    Refs are unique per store (capture relies on that to find a segment's episode); without
    one, the episode gets ``ingest:<its id>``.
    """
    episode_id = sh.new_id("ep")
    episode = {"id": episode_id, "source_type": source_type, "ref": ref or f"ingest:{episode_id}",
               "summary": None,
               "opened_at": sh.now(), "closed_at": None, "evidence": evidence}
    return sh.store.open_episode(episode)


def normalize_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """Kebab or snake keys; ``class`` is an alias of ``epistemic`` (an explicit epistemic wins)."""
    clean = {str(k).replace("-", "_"): v for k, v in item.items()}
    if clean.get("epistemic") is None and clean.get("class") is not None:
        clean["epistemic"] = clean["class"]
    return clean


def ingest(sh: Shell, items: Iterable[Mapping[str, Any]], *,
           episode: Mapping[str, Any] | None = None,
           source_type: str = "session-log", ref: str | None = None,
           evidence: str | None = None, relearn: bool = False) -> dict[str, Any]:
    """Assert every item in one episode; returns {episode, total, counts, flagged, errors}.

    An item a purge buried is skipped and counted as ``purged`` (``relearn`` takes it back).
    A batch the store refuses midway (a flush of its facts) raises that refusal, and nothing of
    the batch stays: inside a caller's transaction, that transaction can then only roll back."""
    # The collector paused for the batch (``store.bulk``): it builds a few containers per item
    # (the item, its row, the outbox's effect, the caches' entries), with no cycle among them,
    # that all live until it ends; the collector walked them again and again as they piled up
    # (a tenth of a 20k batch's CPU, issue 29).
    with collector_paused():
        try:
            return _ingest(sh, items, episode, source_type, ref, evidence, relearn)
        except batch_writer.BatchFailed as failed:  # rolled back: the store's own refusal
            raise failed.error from None


def _ingest(sh: Shell, items: Iterable[Mapping[str, Any]], episode: Mapping[str, Any] | None,
            source_type: str, ref: str | None, evidence: str | None,
            relearn: bool) -> dict[str, Any]:
    """``ingest``'s body, with the collector paused."""
    counts: Counter[str] = Counter()
    flagged: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    normalized = [normalize_item(item) for item in items]
    with sh.store.transaction():
        episode = episode or open_episode(sh, source_type, ref, evidence)
        writer = BatchWriter(sh, relearn)
        writer.expect(normalized)
        if isinstance(writer, batch_writer.BatchWriter) and not batch_assert.PER_ITEM:
            results = batch_assert.assert_items(writer, normalized, episode)
        else:
            results = [_ingest_one(writer, item, episode) for item in normalized]
        for result in results:
            counts[result["status"]] += 1
            if result["status"] == "flagged":
                flagged.append(result)
            elif result["status"] == "error":
                errors.append(result)
        writer.flush()
    return {"episode": episode, "total": sum(counts.values()), "counts": dict(counts),
            "flagged": flagged, "errors": errors}


def _ingest_one(w: Writer, item: dict[str, Any], episode: Mapping[str, Any]) -> dict[str, Any]:
    kwargs = {ITEM_KEYS[k]: v for k, v in item.items() if k in ITEM_KEYS and v is not None}
    kwargs.setdefault("source_type", episode.get("source_type"))
    subject: Any = item.get("subject")  # untrusted input: assert_with refuses a missing one
    predicate: Any = item.get("predicate")
    try:
        for key in TIME_KEYS:
            if key in kwargs:
                kwargs[key] = item_time(kwargs[key], key)
        return assert_with(w, subject, predicate, item.get("object"),
                           episode=episode["id"], **kwargs)
    except ClaimgraphError as err:
        if err.type == "purged-fact":
            return {"status": "purged"}
        return {"status": "error", "message": err.message, "type": err.type, "input": item}
