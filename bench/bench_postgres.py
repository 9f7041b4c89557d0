"""PostgreSQL against SQLite, in one run, on the same workload: batch write facts/s, search
p50/p95 at N facts, and one full curator pass at N facts.

The server is a private cluster started for the run (tests/pg_cluster.py: a unix socket, no TCP)
with SQLite's durability (fsync on, commits not waited for: what WAL with synchronous=NORMAL
promises), or the one named by CLAIMGRAPH_BENCH_POSTGRES. Both stores are
built the same way as bench_curate's (core.ingest, episodes of 500, stamped an hour back).

Write: facts/s over the whole build, and the median (min–max) of the per-batch rates (each
episode of 500 is one batch). Search: the query pool is run ``--rounds`` times per backend,
the two backends interleaved round by round; p50/p95 are the median over rounds, with their
min–max. The curator pass is expensive, so it is one pass per backend (1 % duplicates and
preference pairs to sweep, as in bench_curate).

Usage: .venv/bin/python bench/bench_postgres.py [--n 100000] [--queries 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_curate import _duplicate_one_percent, items_with_stances  # noqa: E402
from bench_search import percentiles, queries  # noqa: E402

from claimgraph import location  # noqa: E402
from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.reads import search  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.curator import run  # noqa: E402
from claimgraph.logsetup import configure_logging  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402

HOUR_MS = 3_600_000
EPISODE = 500


def cluster():
    spec = importlib.util.spec_from_file_location(
        "pg_cluster", Path(__file__).resolve().parents[1] / "tests" / "pg_cluster.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(db: Path, n: int) -> dict:
    store = open_store(db)  # as users get it: a SQLite store keeps its oplog, a server none
    sh = Shell(store, clock=lambda: time.time_ns() // 1_000_000 - HOUR_MS)
    seed(sh)
    items = items_with_stances(n)
    batches = []
    for first in range(0, n, EPISODE):
        start = time.perf_counter()
        ingest(sh, items[first:first + EPISODE])
        batches.append(time.perf_counter() - start)
    _duplicate_one_percent(sh)
    store.close()
    rates = [EPISODE / b for b in batches]
    return {"facts_per_s": round(n / sum(batches)), "batch_median": round(statistics.median(rates)),
            "batch_min": round(min(rates)), "batch_max": round(max(rates))}


def search_round(db: Path, pool: list[str]) -> dict:
    store = open_store(db, read_only=True)
    sh = Shell(store)
    samples = []
    for q in pool:
        start = time.perf_counter()
        search(sh, q)
        samples.append(time.perf_counter() - start)
    store.close()
    return percentiles(samples)


def summarize(rounds: list[dict]) -> dict:
    out = {}
    for key in ("p50_ms", "p95_ms"):
        values = [r[key] for r in rounds]
        out[key] = round(statistics.median(values), 2)
        out[key + "_range"] = [round(min(values), 2), round(max(values), 2)]
    return out


def curate_s(db: Path) -> float:
    start = time.perf_counter()
    result = run.curate(run.Options(db=db), "cur-bench")
    assert result.get("status") == "ok", result
    return time.perf_counter() - start


def measure(dbs: dict, n: int, pool: list[str], rounds: int) -> dict:
    out = {name: {"write": build(db, n)} for name, db in dbs.items()}
    searches = {name: [] for name in dbs}
    for _ in range(rounds):
        for name, db in dbs.items():
            searches[name].append(search_round(db, pool))
    for name, db in dbs.items():
        out[name]["search"] = summarize(searches[name])
        out[name]["curate_full_s"] = round(curate_s(db), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="claimgraph-bench-pg-"))
    tmp.chmod(0o755)  # the cluster runs as the postgres user when we are root
    pg, url = None, os.environ.get("CLAIMGRAPH_BENCH_POSTGRES")
    if not url:
        pg = cluster()
        url = pg.start(tmp / "cluster", pg.LIKE_SQLITE)
    try:
        configure_logging("json", tmp / "curate.log")
        pool = queries(args.queries, args.n)
        got = measure({"sqlite": tmp / "claims.db", "postgres": location.resolve(url)},
                      args.n, pool, args.rounds)
        sqlite, server = got["sqlite"], got["postgres"]
        print(json.dumps({"facts": args.n, "queries": args.queries, "rounds": args.rounds,
                          **got, "ratios_postgres_to_sqlite": {
            "write": round(server["write"]["facts_per_s"] / sqlite["write"]["facts_per_s"], 2),
            "search_p50": round(server["search"]["p50_ms"] / sqlite["search"]["p50_ms"], 2),
            "search_p95": round(server["search"]["p95_ms"] / sqlite["search"]["p95_ms"], 2),
            "curate": round(server["curate_full_s"] / sqlite["curate_full_s"], 2)}}), flush=True)
    finally:
        if pg is not None:
            pg.stop(tmp / "cluster")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
