"""Curator run time: a full consolidate pass over N facts, then an incremental pass after one
captured session's worth (~50) of new facts. Targets: 100k full ≤ 10 s, incremental ≤ 1 s.

The store is built with core.ingest in episodes of 500 facts, stamped an hour in the past (so
the incremental pass sees them as history, not as the last minutes' captures), with 1 % of the
facts repeated (duplicates to collapse) and a few preferences per hundred (conflict candidates).

Usage: .venv/bin/python bench/bench_curate.py [--n 10000 --n 100000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.curator import run  # noqa: E402
from claimgraph.logsetup import configure_logging  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402

HOUR_MS = 3_600_000
EPISODE = 500


def items_with_stances(n: int, seed: int = 7) -> list[dict]:
    """The write workload plus preferences (pairs to sweep) on one subject in fifty."""
    items = make_items(n, seed)
    for i in range(0, n, 50):
        items[i] = {"subject": items[i]["subject"], "predicate": "prefers",
                    "object": "tabs" if i % 100 else "spaces"}
    return items


def build(db: Path, n: int) -> None:
    store = open_store(db)
    sh = Shell(store, clock=lambda: time.time_ns() // 1_000_000 - HOUR_MS)
    seed(sh)
    items = items_with_stances(n)
    for start in range(0, n, EPISODE):
        ingest(sh, items[start:start + EPISODE])
    _duplicate_one_percent(sh)
    store.close()


def _duplicate_one_percent(sh: Shell) -> None:
    facts = sh.store.select_facts()[::100]
    with sh.store.transaction():
        for fact in facts:
            sh.store.insert_fact({**fact, "id": sh.new_id("f"), "conflicts": [],
                                  "recorded_at": fact["recorded_at"] + 1})


def timed_run(db: Path) -> tuple[float, dict]:
    start = time.perf_counter()
    result = run.curate(run.Options(db=db), "cur-bench")
    return time.perf_counter() - start, result["stages"]["consolidate"]["counts"]


def one_size(n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "claims.db"
        configure_logging("json", Path(tmp) / "curate.log")
        built = time.perf_counter()
        build(db, n)
        built = time.perf_counter() - built
        full_s, full = timed_run(db)
        store = open_store(db)
        ingest(Shell(store), make_items(50, seed=99, subjects=n // 10))
        store.close()
        incr_s, incr = timed_run(db)
    return {"n": n, "build_s": round(built, 1), "full_s": round(full_s, 2), "full": full,
            "incremental_s": round(incr_s, 3), "incremental": incr}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, action="append")
    for n in parser.parse_args().n or [10_000, 100_000]:
        print(json.dumps(one_size(n)), flush=True)


if __name__ == "__main__":
    main()
