"""Search latency of two versions of the code on the SAME store file, rounds interleaved, each
query timed beside a bare FTS5 query on the same connection (the same-run floor).

The older version reads the store as it was built (``search_top10.py``'s base file); this
checkout reads a copy of it (migrated on first open). Each round is one process per version
(the first version turning with the round): warm-up, then every query of the pool
(``bench_search.queries``) once. Reported: per version,
the median over rounds of p50 and p95 (with min and max), and the bare-FTS figures beside them;
also the search's CPU time per query (less moved by other processes on a shared machine), and
with ``--base`` each version's per-round ratios to the base timed in the same round
(``paired_vs_base``: median, min, max).

Usage:
  .venv/bin/python bench/search_versions.py BASE_STORE --base /tmp/main/src [--rounds 5]
      [--limit 10] [--size N] [--questions] [--also NAME=/tmp/other/src ...]
  (--also: a further version, in the same interleaved rounds, on its own copy of the store)
  (one round, internal) .venv/bin/python bench/search_versions.py STORE --round [--limit 10]

A store every version can open is built with the OLDEST version's own code (a newer one
migrates its copy on open; an older one cannot read a newer schema), e.g. for a822a96:
  PYTHONPATH=/tmp/a822a96/src .venv/bin/python bench/search_versions.py OUT.db --build \
      --size 100000 [--sessions]
(bench_search.build's facts and episodes: two of 50k, or with --sessions 20-200 facts each).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def question_pool(n: int, size: int) -> list[str]:
    """Questions in plain words over the same vocabulary (``--questions``)."""
    import random

    from workload import LIBS, WORDS
    rng = random.Random(13)
    forms = ("why does the {w} fail when we use {l}?", "how do we configure {l} for the {w}?",
             "what did we decide about {w} and {l}", "which module handles the {w} {w2}?",
             "is there a known problem with {l} {w} timeouts")
    return [rng.choice(forms).format(w=rng.choice(WORDS), w2=rng.choice(WORDS), l=rng.choice(LIBS))
            for _ in range(n)]


def one_round(store: Path, size: int, limit: int | None, questions: bool = False) -> dict:
    from bench_search import open_store, queries

    from claimgraph.core import Shell
    from claimgraph.core.reads import search

    pool = question_pool(200, size) if questions else queries(200, size)
    sh = Shell(open_store(str(store)))
    raw = sqlite3.connect(store)
    options = {} if limit is None else {"limit": limit}
    for q in pool[:20]:
        search(sh, q, **options)
    ours, floor, cpu = [], [], []
    for q in pool:
        started, started_cpu = time.perf_counter(), time.process_time()
        search(sh, q, **options)
        ours.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        phrase = '"' + q.replace('"', '""') + '"'
        started = time.perf_counter()
        raw.execute("SELECT rowid FROM fact_fts WHERE fact_fts MATCH ? LIMIT 50",
                    (phrase,)).fetchall()
        floor.append(time.perf_counter() - started)
    sh.store.close()
    raw.close()
    return {"search": _percentiles(ours), "raw_fts": _percentiles(floor),
            "search_cpu": _percentiles(cpu)}


def _percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"p50": statistics.median(ordered) * 1000,
            "p95": ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000}


def _spawn(code: str, store: Path, size: int, limit: int | None, questions: bool) -> dict:
    argv = [sys.executable, __file__, str(store), "--round", "--size", str(size)]
    argv += [] if limit is None else ["--limit", str(limit)]
    argv += ["--questions"] if questions else []
    done = subprocess.run(argv, env={**os.environ, "PYTHONPATH": code}, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _summary(rounds: list[dict], route: str) -> dict:
    out = {}
    for key in ("p50", "p95"):
        values = [r[route][key] for r in rounds]
        out[key] = {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
                    "max": round(max(values), 2)}
    return out


def _paired(rounds: list[dict], base: list[dict], route: str) -> dict:
    """Per-round ratios against the base timed in the SAME round: the machine's load moves both
    sides of a round together, so the ratio is steadier than a ratio of medians."""
    out = {}
    for key in ("p50", "p95"):
        ratios = [r[route][key] / b[route][key] for r, b in zip(rounds, base) if b[route][key]]
        out[key] = {"median": round(statistics.median(ratios), 3), "min": round(min(ratios), 3),
                    "max": round(max(ratios), 3)} if ratios else {}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--base", help="the older tree's src/")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--questions", action="store_true",
                        help="questions in plain words instead of bench_search's pool")
    parser.add_argument("--also", action="append", default=[], metavar="NAME=SRC",
                        help="a further version's src/, timed in the same rounds")
    parser.add_argument("--round", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--build", action="store_true",
                        help="build STORE (--size facts) with the code on PYTHONPATH")
    parser.add_argument("--sessions", action="store_true",
                        help="with --build: episodes of 20-200 facts (bench_search --sessions)")
    args = parser.parse_args()
    if args.build:
        from bench_search import build
        build(args.size or 100_000, True, args.sessions, args.store)
        return
    size = args.size or sqlite3.connect(args.store).execute(
        "SELECT count(*) FROM facts").fetchone()[0]
    if args.round:
        print(json.dumps(one_round(args.store, size, args.limit, args.questions)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "claims.db"
        shutil.copyfile(args.store, copy)
        versions = {"ours": (str(HERE.parent / "src"), copy)}
        for n, also in enumerate(args.also):
            name, code = also.split("=", 1)
            versions[name] = (code, Path(tmp) / f"also-{n}.db")
            shutil.copyfile(args.store, versions[name][1])
        if args.base:
            versions["base"] = (args.base, args.store)
        found: dict[str, list[dict]] = {name: [] for name in versions}
        names = list(versions)
        for n in range(args.rounds):
            # Each round starts with the next version: none always runs first or last (the
            # page cache and the machine's load drift within a round).
            for name in names[n % len(names):] + names[:n % len(names)]:
                code, store = versions[name]
                found[name].append(_spawn(code, store, size, args.limit, args.questions))
    report = {"facts": size, "limit": args.limit, "rounds": args.rounds, **{
        name: {"search_ms": _summary(r, "search"), "raw_fts_ms": _summary(r, "raw_fts"),
               "search_cpu_ms": _summary(r, "search_cpu")}
        for name, r in found.items()}}
    if "base" in found:
        for name, r in found.items():
            if name != "base":
                report[name]["paired_vs_base"] = {
                    "search": _paired(r, found["base"], "search"),
                    "search_cpu": _paired(r, found["base"], "search_cpu")}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
