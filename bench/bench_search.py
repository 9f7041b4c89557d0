"""Search latency (p50/p95) over stores of growing size, with a raw FTS5 query as the
same-run baseline (a phrase MATCH on the facts' own index, ``fact_fts``, limit 10), interleaved
with ours query by query (never run after it). Target (issue 29): p95 <= 10 ms at 100k, limit 10.

Our search keeps ``--limit`` facts (default 10: what ``claimgraph search`` and ``memory_search``
show unless asked otherwise, and the row issue 29 names); ``--limit 0`` ranks every hit, as this
bench did before session 19 (the figures in bench/README.md before then are that full ranking).

Usage: .venv/bin/python bench/bench_search.py [--sizes 10000,100000] [--queries 200] [--limit 10]
Stores are built once per size under bench/results/ (reused when present: --rebuild to redo).
The default store holds one episode per 50k facts (two at 100k); ``--sessions`` builds the same
facts as many small episodes of 20-200 facts each (``search-sessions-N.db``), as a store
filled by capture holds them, which is what search's episode reads (docs/search.md) meet.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import LIBS, WORDS, make_items  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.reads import search  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
try:
    from claimgraph.opening import open_store
except ImportError:  # a tree from before the oplog's composition root (a822a96 and older)
    from claimgraph.store.open import open_store  # type: ignore[no-redef]

RESULTS = Path(__file__).parent / "results"


def build(size: int, rebuild: bool, sessions: bool = False, path: Path | None = None) -> Path:
    """The bench store of ``size`` facts: batches of 50k facts (one episode each), or with
    ``sessions`` episodes of 20-200 facts (seeded sizes, the same facts in the same order).
    ``path``: build there instead of bench/results (search_versions builds with old code)."""
    if path is None:
        path = RESULTS / (f"search-sessions-{size}.db" if sessions else f"search-{size}.db")
    if path.exists() and not rebuild:
        return path
    for stale in path.parent.glob(path.name + "*"):
        shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(str(path))
    sh = Shell(store=store)
    seed(sh)
    items = make_items(size)
    start = time.perf_counter()
    for i, j in batches(size, sessions):
        ingest(sh, items[i:j])
    print(json.dumps({"built": size, "seconds": round(time.perf_counter() - start, 1)}), flush=True)
    store.close()
    return path


def batches(size: int, sessions: bool) -> list[tuple[int, int]]:
    """(start, end) of each ingest call: one episode each."""
    if not sessions:
        return [(i, min(size, i + 50_000)) for i in range(0, size, 50_000)]
    rng, out, start = random.Random(5), [], 0
    while start < size:
        end = min(size, start + rng.randint(20, 200))
        out.append((start, end))
        start = end
    return out


def queries(n: int, size: int) -> list[str]:
    rng = random.Random(11)
    subjects = max(10, size // 10)
    pool = []
    for _ in range(n):
        r = rng.random()
        if r < 0.4:
            pool.append(f"module_{rng.randrange(subjects)}.{rng.choice(WORDS)}")
        elif r < 0.7:
            pool.append(f"{rng.choice(WORDS)} {rng.choice(LIBS)}")
        else:
            pool.append(f"{rng.choice(LIBS)}-{rng.randrange(97)}")
    return pool


def percentiles(samples: list[float], cpu: list[float] | None = None) -> dict:
    """p50/p95 of the wall times, and of the CPU times beside them when given (the thread's
    own: on a loaded machine the wall p95 is mostly the time spent waiting for a core)."""
    ordered = sorted(samples)
    out = {"p50_ms": round(statistics.median(ordered) * 1000, 3),
           "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 3)}
    if cpu:
        spent = sorted(cpu)
        out |= {"cpu_p50_ms": round(statistics.median(spent) * 1000, 3),
                "cpu_p95_ms": round(spent[int(len(spent) * 0.95) - 1] * 1000, 3)}
    return out


#: The baseline's table: the facts' own trigram index, the one a search's words are matched in
#: (``entity_fts`` indexes entity names; a MATCH there is cheaper and overstated the gap).
BASELINE_TABLE = "fact_fts"
#: The baseline asks for as many rows as a default search shows.
LIMIT = 10


def bare_fts(path: Path) -> tuple[sqlite3.Connection, str]:
    """A plain connection to the same file, and the facts' FTS5 table (the baseline)."""
    con = sqlite3.connect(path)
    found = con.execute("SELECT name FROM sqlite_master WHERE name = ?",
                        (BASELINE_TABLE,)).fetchone()
    if found is None:
        raise SystemExit(f"{path} has no {BASELINE_TABLE} table: rebuild it (--rebuild)")
    return con, BASELINE_TABLE


def time_interleaved(path: Path, pool: list[str],
                     limit: int | None = LIMIT) -> tuple[dict, dict]:
    """Our search (keeping ``limit`` facts; None: all) and one bare FTS5 MATCH (the floor any
    search pays) on the same file, query by query, alternating which goes first, so both see
    the same moment's noise."""
    store = open_store(str(path))
    sh = Shell(store=store)
    con, table = bare_fts(path)
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT {LIMIT}"
    ours: list[float] = []
    raw: list[float] = []
    ours_cpu: list[float] = []
    raw_cpu: list[float] = []

    def run_ours(q: str) -> None:
        spent, start = time.thread_time(), time.perf_counter()
        search(sh, q, limit=limit)
        ours.append(time.perf_counter() - start)
        ours_cpu.append(time.thread_time() - spent)

    def run_raw(q: str) -> None:
        phrase = '"' + q.replace('"', '""') + '"'
        spent, start = time.thread_time(), time.perf_counter()
        con.execute(sql, (phrase,)).fetchall()
        raw.append(time.perf_counter() - start)
        raw_cpu.append(time.thread_time() - spent)

    try:
        for i, q in enumerate(pool):
            for run in ((run_ours, run_raw) if i % 2 == 0 else (run_raw, run_ours)):
                run(q)
    finally:
        con.close()
        store.close()
    return percentiles(ours, ours_cpu), percentiles(raw, raw_cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--sessions", action="store_true",
                        help="episodes of 20-200 facts instead of one per 50k")
    parser.add_argument("--limit", type=int, default=LIMIT,
                        help="facts our search keeps (0: all, the full ranking)")
    args = parser.parse_args()
    limit = args.limit or None
    for size in [int(s) for s in args.sizes.split(",")]:
        path = build(size, args.rebuild, args.sessions)
        pool = queries(args.queries, size)
        load = os.getloadavg()[0]
        ours, raw = time_interleaved(path, pool, limit)
        print(json.dumps({"facts": size, "limit": limit, "load_1min": [round(load, 2), round(
                              os.getloadavg()[0], 2)], "search": ours,
                          f"raw_fts ({BASELINE_TABLE}, limit {LIMIT})": raw,
                          "p50_ratio_to_raw": round(ours["p50_ms"] / max(raw["p50_ms"], 1e-6), 1),
                          "p95_ratio_to_raw": round(ours["p95_ms"] / max(raw["p95_ms"], 1e-6), 1),
                          "cpu_p95_ratio_to_raw": round(
                              ours["cpu_p95_ms"] / max(raw["cpu_p95_ms"], 1e-6), 1),
                          "meets_target_p95_10ms": ours["p95_ms"] <= 10}), flush=True)


if __name__ == "__main__":
    main()
