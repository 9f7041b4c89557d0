"""What `claimgraph search` spends beyond start-up, statement by statement, per store size.

A fresh process meets a store with an empty SQLite cache: every page a statement reads comes
from the OS afresh. This runs the CLI's own search in-process (its modules warm after the first
run, so what is left is the search itself) on a new read-only connection each run, and times
every statement it sends (CPU, through ``SqliteDb``'s choke points), on stores of each size
built as ``bench_cli`` builds them (the CLI's ingest, every fact in the project's scope). The
report gives, per size, the run's median CPU, the statements' share, and each statement's
median CPU: what grows with the store is what a fresh process pays for it (issue 29: `search`
at 100k facts within 4x `python -c pass`).

Usage: .venv/bin/python bench/search_statements.py [--sizes 1000,100000] [--runs 15]
       [--keep DIR] [WORD ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_cli import build  # noqa: E402

from claimgraph.cli.main import main as cli_main  # noqa: E402
from claimgraph.store import sqlite_db  # noqa: E402

QUERY = ["retry", "postgres"]


def store_env(root: Path) -> tuple[dict[str, str], Path]:
    """A HOME with the store and a project directory under ``root``."""
    home, project = root / "home", root / "project"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    project.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "CLAIMGRAPH_DB": str(home / "claims.db")}, project


def timed_statements(log: list[tuple[str, float]]) -> None:
    """Record each statement's text and CPU seconds in ``log``."""
    for name in ("rows", "run", "one"):
        original = getattr(sqlite_db.SqliteDb, name)

        def call(self, sql, params=(), _original=original):
            started = time.process_time()
            try:
                return _original(self, sql, params)
            finally:
                log.append((" ".join(sql.split()), time.process_time() - started))
        setattr(sqlite_db.SqliteDb, name, call)


def one_size(size: int, root: Path, words: list[str], runs: int,
             log: list[tuple[str, float]]) -> dict:
    env, project = store_env(root)
    if not Path(env["CLAIMGRAPH_DB"]).exists():
        build({**os.environ, **env}, project, size)
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.update(env)
    os.chdir(project)
    totals: list[float] = []
    by_statement: dict[str, list[float]] = defaultdict(list)
    try:
        for run in range(runs + 1):  # the first run loads the modules: not counted
            log.clear()
            started = time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                cli_main(["search", *words])
            spent = time.process_time() - started
            if run:
                totals.append(spent)
                seen: dict[str, float] = defaultdict(float)
                for sql, cpu in log:
                    seen[sql] += cpu
                for sql, cpu in seen.items():
                    by_statement[sql].append(cpu)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
    statements = sorted(((statistics.median(v), sql) for sql, v in by_statement.items()),
                        reverse=True)
    sql_ms = sum(ms for ms, _ in statements) * 1000
    return {"size": size, "search_cpu_ms": round(statistics.median(totals) * 1000, 2),
            "statements_cpu_ms": round(sql_ms, 2), "statements": len(statements),
            "top": [{"cpu_ms": round(ms * 1000, 2), "sql": sql[:120]}
                    for ms, sql in statements[:6]],
            "load": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("words", nargs="*", default=QUERY)
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", help="build the stores here and reuse them on later runs")
    args = parser.parse_args()
    log: list[tuple[str, float]] = []
    timed_statements(log)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        for size in (int(s) for s in args.sizes.split(",")):
            print(json.dumps(one_size(size, base / f"search-{size}", args.words, args.runs,
                                      log)), flush=True)


if __name__ == "__main__":
    main()
