"""The batch ingest leaves exactly what it left before it was optimised, and what asserting
the same items one by one leaves: the same rows (ids, timestamps, decisions), the same
full-text index contents and the same oplog effects, in the same order."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from claimgraph.core import ingest as ingest_module
from claimgraph.core.writer import Writer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from write_scenario import FIXTURE, run  # noqa: E402


def test_a_batch_leaves_the_recorded_store_and_oplog(tmp_path):
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = run(tmp_path / "claims.db")
    assert got["report"] == expected["report"]
    for table, rows in expected["tables"].items():
        assert got["tables"][table] == rows, table
    assert got["oplog"] == expected["oplog"]
    assert got["oplog_canonical"]


def test_a_batch_leaves_what_asserting_item_by_item_leaves(tmp_path, monkeypatch):
    batched = run(tmp_path / "batched.db")
    monkeypatch.setattr(ingest_module, "BatchWriter", Writer)
    one_by_one = run(tmp_path / "one-by-one.db")
    assert batched["report"] == one_by_one["report"]
    assert batched["tables"] == one_by_one["tables"]
    # the same effects; a batch notes its facts when it writes them, so only the order (and
    # with it the numbering) differs
    key = lambda line: json.dumps({**line, "seq": None}, sort_keys=True)  # noqa: E731
    assert sorted(map(key, batched["oplog"])) == sorted(map(key, one_by_one["oplog"]))
