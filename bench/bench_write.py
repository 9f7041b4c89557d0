"""Write-path throughput: facts/s through the shell's batch ingest into a SQLite file, against
two raw ``executemany`` baselines measured in the same round:

- ``same_schema``: the very rows our ingest wrote (entities, aliases, the episode, facts, and
  the full-text indexes: ``entity_fts``, ``fact_fts`` and, since store format 6, the word
  index ``fact_words``, which this baseline left out until then although every ingest fills
  it), inserted with one ``executemany`` per table in one transaction into
  a fresh store made by our own ``open_store`` (the same schema, indexes, triggers and
  pragmas). What is left between the two is our Python: building, deciding, resolving.
- ``bare_table``: rows shaped like ours into a single unindexed table (the floor).

Beside them, to show where the rest goes, the same ingest into a store opened WITHOUT the
oplog (``SqliteStore`` directly, as ``open_store`` never hands out for writing): what every
fact's log line, the outbox mark and the append cost. Not the target's yardstick, a breakdown.

And what the outbox itself costs (``outbox_cpu_share``): the same ingest once more with the
outbox mark's write left out (a probe of this benchmark only: a store that skipped it would
lose a crash's lines), i.e. the most any more compact outbox could save (issue 29 asks for
one); the rest of ``oplog_cpu_share`` is each fact's row and line and the append.

And the ceiling: the same ingest once more, with every statement it sends to SQLite timed at the
store's choke points (``SqliteDb.rows/run/many``). Our statements alone against the raw
same-schema time is the best ratio any Python could reach (``sql_only_ceiling``): what the
target asks is out of reach when that is below it.

Each round runs the six in turn on fresh files; the report gives the median over
``--rounds`` and the spread (min..max) of each ratio, never the best round: by wall time, and
by CPU time (all three run in this process, SQLite included, so CPU time is the work itself
and what other load on shared cores disturbs least).

Target (issue 13): ours >= 0.5 of same-schema raw, for 20k facts in one batch.

Usage: .venv/bin/python bench/bench_write.py [--n 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402
from claimgraph.store.sqlite import SqliteStore  # noqa: E402

RAW_SCHEMA = """CREATE TABLE facts (id TEXT PRIMARY KEY, subject TEXT, predicate TEXT,
 object_kind TEXT, object_ref TEXT, object_lit TEXT, t_valid INTEGER, t_invalid INTEGER,
 recorded_at INTEGER, last_reinforced_at INTEGER, confidence REAL, epistemic TEXT, scope TEXT,
 source_type TEXT, episode TEXT)"""
#: What an ingest writes, table by table, in an order the foreign keys accept.
WRITTEN = ("episodes", "entities", "entity_aliases", "facts")
#: The full-text indexes, filled by (rowid, text) the way the store fills them.
FTS = {"entity_fts": "SELECT rowid, text FROM entity_fts",
       "fact_fts": "SELECT pk, object_lit FROM facts WHERE object_lit IS NOT NULL",
       "fact_words": "SELECT pk, object_lit FROM facts WHERE object_lit IS NOT NULL"}


class Clock:
    """Wall and CPU seconds since it was made. Everything timed here runs in this process
    (SQLite included), so CPU time is the work itself, and shared cores disturb it less."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def bare_table(items: list[dict], path: Path) -> tuple[float, float]:
    """Seconds for one executemany of rows shaped like ours, in one transaction, WAL file."""
    rows = [(f"f-{i:08d}", it["subject"], it["predicate"], "literal", None, str(it["object"]),
             i, None, i, i, 0.7, "observation", "project", "session-log", "ep-1")
            for i, it in enumerate(items)]
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute(RAW_SCHEMA)
    clock = Clock()
    with con:
        con.executemany("INSERT INTO facts VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    elapsed = clock.read()
    con.close()
    return elapsed


def fresh_store(path: Path) -> None:
    """A store exactly as ours starts: schema, pragmas, seeded vocabulary."""
    store = open_store(str(path))
    seed(Shell(store=store))
    store.close()


def written_rows(path: Path) -> dict[str, list[tuple]]:
    """Every row an ingest left in the store at ``path`` (vocabulary aside), per table."""
    con = sqlite3.connect(path)
    try:
        rows = {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in WRITTEN}
        rows.update({t: con.execute(sql).fetchall() for t, sql in FTS.items()})
    finally:
        con.close()
    return rows


def same_schema(rows: dict[str, list[tuple]], path: Path) -> tuple[float, float]:
    """Seconds to executemany ``rows`` into a fresh store of ours, one transaction."""
    fresh_store(path)
    con = sqlite3.connect(path, isolation_level=None)
    for pragma in ("synchronous = NORMAL", "foreign_keys = ON", "temp_store = MEMORY",
                   "cache_size = -32000"):
        con.execute(f"PRAGMA {pragma}")
    clock = Clock()
    con.execute("BEGIN IMMEDIATE")
    for table in (*WRITTEN, *FTS):
        if rows[table]:
            marks = ",".join("?" * len(rows[table][0]))
            columns = "(rowid, text)" if table == "entity_fts" else (
                "(rowid, object_lit)" if table in ("fact_fts", "fact_words") else "")
            con.executemany(f"INSERT INTO {table} {columns} VALUES ({marks})", rows[table])
    con.execute("COMMIT")
    elapsed = clock.read()
    con.close()
    return elapsed


def shell_ingest(items: list[dict], path: Path,
                 oplog: bool = True) -> tuple[tuple[float, float], dict]:
    store = open_store(str(path)) if oplog else SqliteStore(path)
    sh = Shell(store=store)
    seed(sh)
    clock = Clock()
    report = ingest(sh, items)
    elapsed = clock.read()
    store.close()
    return elapsed, report["counts"]


def without_outbox(items: list[dict], path: Path) -> tuple[float, float]:
    """Wall and CPU seconds of our ingest with the outbox mark not written (a probe: what the
    outbox's JSON, its row and its share of COMMIT cost; everything else is as in ours)."""
    from claimgraph.oplog.own_log import OUTBOX
    store = open_store(str(path))
    inner = store.inner
    set_mark = inner.set_mark
    inner.set_mark = lambda key, value: None if key == OUTBOX else set_mark(key, value)
    sh = Shell(store=store)
    seed(sh)
    clock = Clock()
    ingest(sh, items)
    elapsed = clock.read()
    store.close()
    return elapsed


def statements_seconds(items: list[dict], path: Path) -> float:
    """Wall seconds our ingest spends inside SQLite calls (statements, COMMIT included)."""
    from claimgraph.store.sqlite_db import SqliteDb
    spent = [0.0]
    originals = {name: getattr(SqliteDb, name) for name in ("rows", "run", "many")}

    def timed(original):
        def call(self, sql, params=()):
            started = time.perf_counter()
            try:
                return original(self, sql, params)
            finally:
                spent[0] += time.perf_counter() - started
        return call

    store = open_store(str(path))
    sh = Shell(store=store)
    seed(sh)
    try:
        for name, original in originals.items():
            setattr(SqliteDb, name, timed(original))
        ingest(sh, items)
    finally:
        for name, original in originals.items():
            setattr(SqliteDb, name, original)
        store.close()
    return spent[0]


def one_round(items: list[dict], tmp: Path) -> dict:
    (ours, ours_cpu), counts = shell_ingest(items, tmp / "claims.db")
    raw, raw_cpu = same_schema(written_rows(tmp / "claims.db"), tmp / "raw.db")
    bare, bare_cpu = bare_table(items, tmp / "bare.db")
    (unlogged, unlogged_cpu), _ = shell_ingest(items, tmp / "unlogged.db", oplog=False)
    _, outboxless_cpu = without_outbox(items, tmp / "outboxless.db")
    statements = statements_seconds(items, tmp / "timed.db")
    n = len(items)
    return {"ours_facts_per_s": round(n / ours), "same_schema_rows_per_s": round(n / raw),
            "bare_rows_per_s": round(n / bare), "ratio_to_same_schema": round(raw / ours, 3),
            "ratio_to_bare_table": round(bare / ours, 3),
            "cpu_ratio_to_same_schema": round(raw_cpu / ours_cpu, 3),
            "cpu_ratio_to_bare_table": round(bare_cpu / ours_cpu, 3),
            "ours_us_per_fact": round(ours / n * 1e6, 1),
            "ours_cpu_us_per_fact": round(ours_cpu / n * 1e6, 1),
            "without_oplog_cpu_ratio_to_same_schema": round(raw_cpu / unlogged_cpu, 3),
            "oplog_cpu_share": round(1 - unlogged_cpu / ours_cpu, 3),
            "outbox_cpu_share": round(1 - outboxless_cpu / ours_cpu, 3),
            "sql_only_ceiling": round(raw / statements, 3), "counts": counts,
            "load": [round(x, 2) for x in os.getloadavg()]}


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    items = make_items(args.n)
    # What a capture process has loaded before it ingests (its cleaning redacted the text
    # already); otherwise the first round alone pays the redactor's import and compiles.
    from claimgraph.logic.redact import redact
    redact("warm-up")
    results = []
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            results.append({"round": r, **one_round(items, Path(tmp))})
        print(json.dumps(results[-1]), flush=True)
    keys = ("ratio_to_same_schema", "ratio_to_bare_table", "cpu_ratio_to_same_schema",
            "cpu_ratio_to_bare_table", "ours_facts_per_s", "same_schema_rows_per_s",
            "bare_rows_per_s", "ours_us_per_fact", "ours_cpu_us_per_fact",
            "without_oplog_cpu_ratio_to_same_schema", "oplog_cpu_share", "outbox_cpu_share",
            "sql_only_ceiling")
    print(json.dumps({"n": args.n, "rounds": args.rounds,
                      **{k: spread([r[k] for r in results]) for k in keys}}))


if __name__ == "__main__":
    main()
