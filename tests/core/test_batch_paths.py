"""The batch ingest's set-based path (``core.batch_assert``: plain inserts written from their
rows) leaves, byte for byte, what the per-item path leaves (``ingest._ingest_one`` through
``writes.assert_with``, every fact decided by ``decide``): the same rows, ids and full-text
entries, the same reports, and the same oplog text, line for line, in the same order."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from claimgraph.core import batch_assert
from claimgraph.core.batch_writer import BatchWriter
from claimgraph.core.ingest import ingest
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import facts as F
from claimgraph.store.fact_rows import fact_row

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_batch_equivalence import _edgy, _spellings  # noqa: E402
from write_scenario import TOKEN, batch, dump_tables, pinned_shell, prepare  # noqa: E402

#: What two runs of the same writes may differ in: the machine's writer id and the wall clock.
_UNSTABLE = re.compile(r'"(hlc|writer)":("[^"]*"|\d+)')


def _mixed(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """Plain inserts among everything else: repeats inside the batch (reinforcements), a
    single-valued predicate said twice (supersessions), stances and rejections (conflicts),
    secrets to redact in subjects, objects and evidence, and items that fail."""
    items: list[dict[str, Any]] = []
    for i in range(n):
        k = rng.randrange(30)
        roll = rng.random()
        if roll < 0.55:
            item = {"subject": f"mod_{k}", "predicate": "depends-on",
                    "object": f"lib-{rng.randrange(40)}"}
        elif roll < 0.65:
            item = {"subject": f"mod_{k}", "predicate": "has-version",
                    "object": f"1.{rng.randrange(3)}"}
        elif roll < 0.72:
            item = {"subject": f"mod_{k}", "predicate": rng.choice(["prefers",
                                                                    "decided-against"]),
                    "object": rng.choice(["tabs", "REST over gRPC", "gRPC"])}
        elif roll < 0.8:
            item = {"subject": f"mod_{k}", "predicate": "failure-mode",
                    "object": f"leaks {TOKEN} when {i % 7}", "evidence": [f"log {TOKEN}"]}
        elif roll < 0.85:
            item = {"subject": f"token {TOKEN} {k % 3}", "predicate": "tested-by",
                    "object": f"tests/test_{k}.py"}
        elif roll < 0.9:
            item = {"subject": f"mod_{k}", "predicate": "x/role", "object": "router",
                    "confidence": rng.choice([0.2, 0.9, 1, 1.5, -0.0]),
                    "source-type": rng.choice(["code", "agent-note"]), "class": "preference"}
        elif roll < 0.93:
            item = {"subject": rng.choice(["", None, "  "]), "predicate": "depends-on",
                    "object": "x"}
        elif roll < 0.96:
            item = {"subject": f"mod_{k}", "predicate": "depends-on",
                    "object": rng.choice([None, " ", 7])}
        else:
            item = {"subject": f"mod_{k}", "predicate": "written-in", "object": "Python",
                    "valid_from": "2026-01-0{}".format(1 + rng.randrange(3)),
                    "valid_until": rng.choice([None, 5, "2026-03-01"])}
        items.append(item)
    return items


def _run(db: Path) -> dict[str, Any]:
    """The scenario's store, then mixed, edge-case and many-spellings batches."""
    rng = random.Random(41)
    sh = pinned_shell(db)
    try:
        prepare(sh)
        reports = [ingest(sh, batch())]
        for _ in range(3):
            reports.append(ingest(sh, _mixed(rng, 300)))
            reports.append(ingest(sh, _edgy(rng, 100)))
            reports.append(ingest(sh, _spellings(rng, 100)))
        text = sh.store.oplog.path.read_text(encoding="utf-8")
    finally:
        sh.store.close()
    return {"reports": json.dumps(reports, sort_keys=True), "tables": dump_tables(db),
            "oplog": _UNSTABLE.sub(r'"\1":_', text)}


def test_the_set_based_path_leaves_what_the_per_item_path_leaves(tmp_path, monkeypatch):
    inserted_as_rows: list[int] = []
    original = batch_assert._buffer  # the set-based path's plain insert, as its row
    monkeypatch.setattr(batch_assert, "_buffer",
                        lambda *a: inserted_as_rows.append(1) or original(*a))
    fast = _run(tmp_path / "fast.db")
    assert len(inserted_as_rows) > 500  # most facts took the set-based path
    monkeypatch.setattr(batch_assert, "PER_ITEM", True)
    monkeypatch.setattr(BatchWriter, "inserts_plainly", lambda self, row, pred: False)
    per_item = _run(tmp_path / "per-item.db")
    assert len(inserted_as_rows) > 500 and per_item["tables"]["facts"]
    assert fast["reports"] == per_item["reports"]
    assert fast["tables"] == per_item["tables"]
    assert fast["oplog"] == per_item["oplog"]
    statuses = {s for r in json.loads(fast["reports"]) for s in r["counts"]}
    assert {"created", "reinforced", "superseded", "flagged", "error", "purged"} <= statuses
    assert TOKEN not in fast["oplog"] and TOKEN not in json.dumps(fast["tables"])


ENTITY = {"id": "e-1", "name": "svc", "type": None, "scope": "project", "aliases": ["s"]}
OTHER = {"id": "e-2", "name": "lib", "type": "library", "scope": "user", "aliases": []}


@pytest.mark.parametrize("options", [
    {}, {"confidence": 0.95, "source_type": "code"}, {"confidence": 1, "scope": "user"},
    {"confidence": -0.0}, {"confidence": 2.5, "source_type": "odd"},
    {"t_valid": 5, "t_invalid": 9, "episode": "ep-1", "evidence": ("a.py:1", "b.py:2")},
    {"epistemic": "commitment", "object_kind": "entity", "object_ref": OTHER},
])
def test_a_built_row_is_the_built_fact_as_the_store_keeps_it(options):
    """``build_fact`` is its row made whole, and that row is what the store and the log take
    from the whole fact (``fact_rows.fact_row``)."""
    kwargs = {"id": "f-1", "now": 1_000, "subject": ENTITY, "predicate": "core/depends-on",
              "object_kind": "literal", "object": "redis", **options}
    row = F.build_fact_row(**kwargs)
    fact = F.build_fact(**kwargs)
    assert fact_row(fact) == row
    assert list(fact) == list(F.fact_from_row(row, ENTITY, options.get("object_ref")))
    assert F.fact_from_row(row, ENTITY, options.get("object_ref")) == fact
    assert F.row_object_key(row) == F.object_key(fact)


@pytest.mark.parametrize("options", [
    {"t_valid": 9, "t_invalid": 9}, {"confidence": float("nan")}, {"confidence": True},
    {"confidence": "high"}, {"epistemic": "hunch"}, {"object_kind": "entity"},
    {"object_kind": "blob"},
])
def test_a_built_row_refuses_what_the_built_fact_refuses(options):
    from claimgraph.errors import ClaimgraphError
    kwargs = {"id": "f-1", "now": 1_000, "subject": ENTITY, "predicate": "core/depends-on",
              "object_kind": "literal", "object": "redis", **options}
    with pytest.raises(ClaimgraphError) as from_row:
        F.build_fact_row(**kwargs)
    with pytest.raises(ClaimgraphError) as from_fact:
        F.build_fact(**kwargs)
    assert (from_row.value.type, from_row.value.message) == \
        (from_fact.value.type, from_fact.value.message)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_batch_leaves_the_garbage_collector_as_it_found_it(tmp_path, monkeypatch, enabled):
    """``ingest`` pauses the collector for the batch (``collector_paused``) and gives it back
    as it was, on success and when the batch fails midway; inside the batch it is off."""
    import gc

    seen: list[bool] = []
    real = BatchWriter.expect

    def expect(self, items):
        seen.append(gc.isenabled())
        return real(self, items)

    monkeypatch.setattr(BatchWriter, "expect", expect)
    sh = pinned_shell(tmp_path / "claims.db")
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        report = ingest(sh, [{"subject": "a", "predicate": "depends-on", "object": "b"}])
        assert report["counts"] == {"created": 1} and gc.isenabled() is enabled
        monkeypatch.setattr(BatchWriter, "flush", lambda self: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            ingest(sh, [{"subject": "a", "predicate": "depends-on", "object": "c"}])
        assert gc.isenabled() is enabled and seen == [False, False]
    finally:
        (gc.enable if was else gc.disable)()
        sh.store.close()


@pytest.mark.parametrize("per_item", [False, True])
def test_a_batch_the_store_refuses_midway_raises_the_refusal_and_leaves_nothing(
        shell, monkeypatch, per_item):
    """A flush the store refuses part way (here a fact id that is taken) ends the batch with
    the store's refusal, whether it is the last flush or one a reinforcement forces midway,
    and nothing of the batch stays: the flushes are unguarded, the batch's transaction is the
    unit (``Store.insert_fact_rows``)."""
    monkeypatch.setattr(batch_assert, "PER_ITEM", per_item)
    sh = shell
    taken = ingest(sh, [{"subject": "core", "predicate": "depends-on", "object": "x"}])
    stored = sorted(f["id"] for f in sh.store.all_facts())
    entities = sorted(e["id"] for e in sh.store.list_entities())
    mint = sh.new_id
    minted = []

    def new_id(prefix):
        minted.append(prefix)
        return stored[0] if prefix == "f" and minted.count("f") == 2 else mint(prefix)

    sh.new_id = new_id
    items = [{"subject": "core", "predicate": "depends-on", "object": "y"},
             {"subject": "api", "predicate": "depends-on", "object": "z"},
             {"subject": "web", "predicate": "depends-on", "object": "w"},
             {"subject": "core", "predicate": "depends-on", "object": "y"}]  # reinforces: flush
    for batch_items in (items, items[:3]):
        minted.clear()
        with pytest.raises(ClaimgraphError) as info:
            ingest(sh, batch_items)
        assert info.value.type == "fact-exists", info.value.to_dict()
        assert sorted(f["id"] for f in sh.store.all_facts()) == stored
        assert sorted(e["id"] for e in sh.store.list_entities()) == entities
    assert taken["counts"] == {"created": 1}
