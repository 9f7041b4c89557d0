"""Reconcile W writers x N operations into a fresh SQLite store, against loading the same
facts through `load` (a dump of the reconciled store) in the same run; then the cost of a
replay (one late line that sorts before everything applied).

Writers work through the shell (``core.ingest`` batches of 100, plus an invalidation and a
reinforcement after every batch) on SQLite stores that log to real files with a fixed
clock, so the logs hold what real use writes and every run writes the same logs.

The logs are written once; each round reconciles them into a fresh replica and loads that
replica's dump into a fresh store, interleaved, so the ratio is taken under the same load.
Every round's dump must be the same text (a check that the fold is deterministic).

Usage: .venv/bin/python bench/bench_reconcile.py [--writers 10 --ops 10000 --rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402

from claimgraph.core import Shell, portable, writes  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.logic import oplog as L  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402
from claimgraph.oplog.files import oplog_dir  # noqa: E402
from claimgraph.oplog.logged import LoggedStore  # noqa: E402
from claimgraph.oplog.own_log import OwnLog  # noqa: E402
from claimgraph.oplog.reconcile import reconcile  # noqa: E402
from claimgraph.store.sqlite import SqliteStore  # noqa: E402

BATCH = 100


def write_log(root: Path, n: int, ops: int) -> Path:
    """One writer's log of ``ops`` operations (asserts, invalidations, reinforcements)."""
    db = root / f"w{n}" / "claims.db"
    db.parent.mkdir(parents=True)
    clock = itertools.count(1_767_225_600_000 + n * 7, 13)
    ids = itertools.count(1)
    store = LoggedStore(SqliteStore(db), OwnLog(oplog_dir(db), f"w{n:02d}", clock=lambda: next(clock)))
    sh = Shell(store, clock=lambda: next(clock), new_id=lambda p: f"{p}-w{n}-{next(ids)}")
    seed(sh)
    rng = random.Random(n)
    items = make_items(ops, seed=n, subjects=max(10, ops // 20))
    valid: list[str] = []
    for k, first in enumerate(range(0, ops, BATCH)):
        ingest(sh, items[first:first + BATCH])
        if k % 10 == 0:  # a full scan per batch would cost more than the writes themselves
            valid = [f["id"] for f in store.select_facts(valid_cheap=True)]
        if len(valid) > 1:
            writes.invalidate(sh, valid.pop(rng.randrange(len(valid))), reason="changed")
            writes.reinforce(sh, rng.choice(valid))
    store.close()
    return oplog_dir(db) / f"w{n:02d}.jsonl"


def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def one_round(root: Path, logs: list[Path], k: int) -> dict:
    """Reconcile every log into a fresh replica, load its dump into a fresh store, then time
    the replay a late line (a new writer, sorting before everything applied) forces."""
    replica_db = root / f"replica{k}" / "claims.db"
    oplog_dir(replica_db).mkdir(parents=True)
    for log in logs:
        shutil.copyfile(log, oplog_dir(replica_db) / log.name)
    replica = open_store(replica_db)
    fold_s, report = timed(lambda: reconcile(replica, replica_db))
    assert report["effects"]["errors"] == 0 and report["effects"]["deferred"] == 0, report
    dump = list(portable.dump_lines(Shell(replica.inner)))
    target = open_store(root / f"loaded{k}" / "claims.db")
    load_s, _ = timed(lambda: portable.load_lines(Shell(target), dump))
    late = L.encode({"t": "revive", "ids": []}, "wlate", 1, 1)
    (oplog_dir(replica_db) / "wlate.jsonl").write_text(late + "\n")
    replay_s, replayed = timed(lambda: reconcile(replica, replica_db))
    assert replayed["replayed"], replayed
    facts = replica.stats()["facts"]["total"]
    replica.close()
    target.close()
    return {"reconcile_s": fold_s, "load_s": load_s, "replay_s": replay_s, "facts": facts,
            "effects": report["effects"], "dump": "\n".join(dump)}


def spread(values: list[float], digits: int = 2) -> dict:
    return {"median": round(statistics.median(values), digits),
            "min": round(min(values), digits), "max": round(max(values), digits)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writers", type=int, default=10)
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="claimgraph-bench-reconcile-"))
    try:
        write_s, logs = timed(lambda: [write_log(root, n, args.ops) for n in range(args.writers)])
        lines = sum(len(p.read_text().splitlines()) for p in logs)
        rounds = [one_round(root, logs, k) for k in range(args.rounds)]
        assert len({r["dump"] for r in rounds}) == 1, "two rounds folded to different dumps"
        fold = [r["reconcile_s"] for r in rounds]
        print(json.dumps({
            "writers": args.writers, "operations_each": args.ops, "log_lines": lines,
            "facts": rounds[0]["facts"], "rounds": args.rounds,
            "writing_logs_s": round(write_s, 1), "reconcile_s": spread(fold),
            "load_s": spread([r["load_s"] for r in rounds]),
            "ratio_to_load": spread([r["reconcile_s"] / r["load_s"] for r in rounds]),
            "lines_per_s": round(lines / statistics.median(fold)),
            "replay_s": spread([r["replay_s"] for r in rounds]),
            "effects": rounds[0]["effects"]}), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
