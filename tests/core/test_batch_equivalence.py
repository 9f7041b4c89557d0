"""The batch ingest leaves exactly what it left before it was optimised, and what asserting
the same items one by one leaves: the same rows (ids, timestamps, decisions), the same
full-text index contents and the same oplog effects, in the same order."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from claimgraph.core import ingest as ingest_module
from claimgraph.core.writer import Writer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from write_scenario import FIXTURE, dump_tables, pinned_shell, run  # noqa: E402


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


def _spellings(rng: random.Random, n: int) -> list[dict]:
    """Many items over a few names spelled several ways (exact, loose, typed), so later
    batches find earlier batches' entities in the store and heal them."""
    spell = ["{}_{}", "{}-{}", "{}{}", "{} {}"]
    items = []
    for _ in range(n):
        k = rng.randrange(12)
        base = rng.choice(["Auth", "auth", "Billing", "billing"])
        subject = rng.choice(spell).format(base, k)
        pred, obj = rng.choice([("depends-on", f"Lib_{k % 5}"), ("depends-on", f"lib-{k % 5}"),
                                ("written-in", f"lib {k % 5}"), ("has-version", str(k % 3)),
                                ("prefers", rng.choice(["tabs", "spaces"])),
                                ("failure-mode", f"fails at {k}")])
        item = {"subject": subject, "predicate": pred, "object": obj}
        if rng.random() < 0.1:
            item["subject_type"] = rng.choice(["service", "module"])
        items.append(item)
    return items


def _ingest_rounds(db: Path) -> dict:
    from claimgraph.core.ingest import ingest
    rng = random.Random(13)
    sh = pinned_shell(db)
    try:
        reports = [ingest(sh, _spellings(rng, 150)) for _ in range(3)]
        texts = sh.store.oplog.path.read_text(encoding="utf-8").splitlines()
    finally:
        sh.store.close()
    lines = sorted(json.dumps({**json.loads(t), "writer": None, "hlc": None, "seq": None},
                              sort_keys=True) for t in texts)
    return {"reports": json.loads(json.dumps(reports)), "tables": dump_tables(db), "oplog": lines}


def test_batches_over_names_spelled_many_ways_match_item_by_item(tmp_path, monkeypatch):
    batched = _ingest_rounds(tmp_path / "batched.db")
    monkeypatch.setattr(ingest_module, "BatchWriter", Writer)
    one_by_one = _ingest_rounds(tmp_path / "one-by-one.db")
    assert batched["reports"] == one_by_one["reports"]
    assert batched["tables"] == one_by_one["tables"]
    assert batched["oplog"] == one_by_one["oplog"]
    errors = [e["type"] for r in batched["reports"] for e in r["errors"]]
    assert len(batched["tables"]["entity_aliases"]) > 5  # loose matches healed, not just created
    assert set(errors) <= {"ambiguous-entity"}


def _edgy(rng: random.Random, n: int) -> list[dict]:
    """Items the set-based decision must leave to ``decide``: the same object said again,
    single-valued and grouped predicates, stances and rejections, facts valid only later or
    until a time (closed facts are revenants and records), backdated ones, stated classes and
    every conflict policy."""
    items = []
    for _ in range(n):
        k = rng.randrange(6)
        pred, obj = rng.choice([("depends-on", f"lib{rng.randrange(4)}"),
                                ("tested-by", f"t{rng.randrange(3)}"),
                                ("has-version", f"1.{rng.randrange(3)}"),
                                ("has-status", rng.choice(["beta", "stable"])),
                                ("prefers", rng.choice(["tabs", "REST over gRPC"])),
                                ("decided-against", rng.choice(["tabs", "gRPC"])),
                                ("failure-mode", f"fails {rng.randrange(3)}")])
        item = {"subject": f"mod{k}", "predicate": pred, "object": obj}
        roll = rng.random()
        if roll < 0.15:
            item["valid_from"] = 1_700_000_000_000 + rng.randrange(-5, 5) * 86_400_000
        elif roll < 0.3:
            item["valid_until"] = 1_700_000_000_000 + rng.randrange(1, 5) * 86_400_000
        if rng.random() < 0.15:
            item["on_conflict"] = rng.choice(["supersede", "flag", "ignore"])
        if rng.random() < 0.15:
            item["epistemic"] = rng.choice(["observation", "commitment", "preference"])
        if rng.random() < 0.1:
            item["source_type"] = rng.choice(["agent", "human"])
        items.append(item)
    return items


def _edgy_rounds(db: Path) -> dict:
    from claimgraph.core.ingest import ingest
    rng = random.Random(29)
    sh = pinned_shell(db)
    try:
        reports = [ingest(sh, _edgy(rng, 120)) for _ in range(4)]
        texts = sh.store.oplog.path.read_text(encoding="utf-8").split("\n")[:-1]
    finally:
        sh.store.close()
    lines = sorted(json.dumps({**json.loads(t), "writer": None, "hlc": None, "seq": None},
                              sort_keys=True) for t in texts)
    return {"reports": json.loads(json.dumps(reports)), "tables": dump_tables(db), "oplog": lines}


def test_the_set_based_decision_leaves_what_deciding_each_fact_leaves(tmp_path, monkeypatch):
    """``BatchWriter.inserts_plainly`` skips ``decide`` for a plain insert; with it, without it
    and item by item the store, the reports and the log are the same."""
    from claimgraph.core.batch_writer import BatchWriter
    from claimgraph.logic import facts as F

    asked: list[bool] = []
    original = F.inserts_undecided
    monkeypatch.setattr(F, "inserts_undecided",
                        lambda *a: asked.append(original(*a)) or asked[-1])
    fast = _edgy_rounds(tmp_path / "fast.db")
    assert asked.count(True) > 50 and asked.count(False) > 50  # both ways were taken
    monkeypatch.setattr(BatchWriter, "inserts_plainly", lambda self, fact, pred: False)
    decided = _edgy_rounds(tmp_path / "decided.db")
    monkeypatch.setattr(ingest_module, "BatchWriter", Writer)
    one_by_one = _edgy_rounds(tmp_path / "one-by-one.db")
    statuses = {r["status"] for report in fast["reports"] for r in report["flagged"]}
    counts = [set(report["counts"]) for report in fast["reports"]]
    assert {"created", "reinforced", "superseded", "flagged"} <= set().union(*counts), counts
    assert statuses == {"flagged"}
    assert fast == decided == one_by_one


def test_the_set_based_decision_decides_alike_on_every_backend(shell, monkeypatch):
    """The same edge-case batches on each backend (PostgreSQL included), with the set-based
    decision, leave what a memory store that decides every fact leaves."""
    import itertools

    from claimgraph.core import Shell
    from claimgraph.core.batch_writer import BatchWriter
    from claimgraph.core.ingest import ingest
    from claimgraph.core.vocabulary import seed
    from claimgraph.store.memory import MemoryStore

    def batches(sh: Shell) -> tuple[list, list]:
        rng = random.Random(31)
        reports = [ingest(sh, _edgy(rng, 80)) for _ in range(3)]
        facts = sorted(sh.store.all_facts(), key=lambda f: f["id"])
        return json.loads(json.dumps([r["counts"] for r in reports])), facts

    got = batches(shell)
    monkeypatch.setattr(BatchWriter, "inserts_plainly", lambda self, fact, pred: False)
    counter = itertools.count(1)
    reference = Shell(store=MemoryStore(), clock=type(shell.clock)(),
                      new_id=lambda p: f"{p}-{next(counter):04d}")
    seed(reference)
    assert got == batches(reference)
