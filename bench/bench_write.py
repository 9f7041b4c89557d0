"""Write-path throughput: facts/s through the shell's batch ingest into a SQLite file,
against a raw ``executemany`` of the same rows measured in the same run.

Usage: .venv/bin/python bench/bench_write.py [--n 20000]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.store.open import open_store  # noqa: E402

RAW_SCHEMA = """CREATE TABLE facts (id TEXT PRIMARY KEY, subject TEXT, predicate TEXT,
 object_kind TEXT, object_ref TEXT, object_lit TEXT, t_valid INTEGER, t_invalid INTEGER,
 recorded_at INTEGER, last_reinforced_at INTEGER, confidence REAL, epistemic TEXT, scope TEXT,
 source_type TEXT, episode TEXT)"""


def raw_baseline(items: list[dict], path: Path) -> float:
    """Seconds for one executemany of rows shaped like ours, in one transaction, WAL file."""
    rows = [(f"f-{i:08d}", it["subject"], it["predicate"], "literal", None, str(it["object"]),
             i, None, i, i, 0.7, "observation", "project", "session-log", "ep-1")
            for i, it in enumerate(items)]
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute(RAW_SCHEMA)
    start = time.perf_counter()
    with con:
        con.executemany("INSERT INTO facts VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    elapsed = time.perf_counter() - start
    con.close()
    return elapsed


def shell_ingest(items: list[dict], path: Path) -> tuple[float, dict]:
    store = open_store(str(path))
    sh = Shell(store=store)
    seed(sh)
    start = time.perf_counter()
    report = ingest(sh, items)
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed, report["counts"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    items = make_items(args.n)
    results = []
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            raw = raw_baseline(items, Path(tmp) / "raw.db")
            ours, counts = shell_ingest(items, Path(tmp) / "claims.db")
        results.append({"round": r, "raw_rows_per_s": round(args.n / raw),
                        "shell_facts_per_s": round(args.n / ours),
                        "ratio_shell_to_raw": round(raw / ours, 4), "counts": counts})
        print(json.dumps(results[-1]))
    best = max(results, key=lambda x: x["shell_facts_per_s"])
    print(json.dumps({"n": args.n, "best_shell_facts_per_s": best["shell_facts_per_s"],
                      "raw_rows_per_s_same_round": best["raw_rows_per_s"],
                      "ratio": best["ratio_shell_to_raw"]}))


if __name__ == "__main__":
    main()
