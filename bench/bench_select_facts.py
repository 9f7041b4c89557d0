"""Whole-store reads (issue 29): ``select_facts()`` of every fact, of the valid ones
(``valid_cheap``: the curator's read) and the in-memory store's ``select_facts()``, at each
size of the scaling store; and ``claimgraph audit --all-projects`` on the 100k store.

Each read runs in a fresh process (a child of this script, ``PYTHONPATH`` the tree measured) on
a store object opened for it (no entity cached from an earlier read), timed by CPU and by wall,
after an untimed fetch of the same rows that brings the file into the OS cache.
Beside each SQLite read, in the same child: the least work, the same statement's rows fetched
bare (``sqlite3`` ``fetchall``, no fact built), so ``x bare`` says what a read adds over SQLite
handing its rows out. ``--base DIR`` (another tree's ``src/``: ``git archive <commit> src | tar
-x -C DIR``) runs the same children interleaved with ours, round by round, on the same store
files: ``ours/base`` is the median of each round's ratio. The audit runs on a copy of the store
where every 50th fact cites a file of a small synthetic repository (``--base`` of the audit),
so it has claims to check; ``python -c pass`` is its floor, measured in the same rounds.

Stores come from ``scaling_store.py`` (cached under ``.cache/bench/``); the children only read
them. The load average is printed before and after (2 shared cores: other work shows in the
wall times; CPU is the steadier figure).

Usage: .venv/bin/python bench/bench_select_facts.py [--sizes 10000,100000] [--rounds 5]
       [--base /tmp/base/src] [--audit-size 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
OURS = str(HERE.parent / "src")
#: Every CITE_EVERY-th fact of the audit's store cites CITED (the file holds what it quotes).
CITE_EVERY = 50
CITED = "src/app.py: `def main()` calls `serve_forever`"


# --- the child: one set of reads, in the tree on PYTHONPATH ----------------------------------
def child(store_path: str) -> dict[str, float]:
    from claimgraph.opening import open_store
    from claimgraph.store import sqlite_sql as q
    from claimgraph.store.memory import MemoryStore
    from claimgraph.store.sqlite_db import READ_PRAGMAS

    out: dict[str, float] = {}
    nothing = {"id": None, "predicate": None, "scope": None, "episode": None}
    for name, criteria, plan in (
            ("all", {}, q.select_facts(nothing, None, None, False, False)),
            ("valid", {"valid_cheap": True}, q.select_facts(nothing, None, None, False, True))):
        warm = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
        warm.execute(*plan).fetchall()  # the file's pages in the OS cache for both timed reads
        warm.close()
        bare = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
        for pragma in READ_PRAGMAS:  # the store's own reader settings (cache, map, temp)
            bare.execute(f"PRAGMA {pragma}")
        out[f"{name}_bare_cpu"], out[f"{name}_bare_wall"], rows = _timed(
            lambda bare=bare, plan=plan: bare.execute(*plan).fetchall())
        bare.close()
        store = open_store(store_path)
        out[f"{name}_cpu"], out[f"{name}_wall"], facts = _timed(
            lambda store=store, criteria=criteria: store.select_facts(**criteria))
        store.close()
        if len(facts) != len(rows):
            raise SystemExit(f"{name}: {len(facts)} facts, {len(rows)} bare rows")
        out[f"{name}_n"] = len(facts)
    store = open_store(store_path)
    facts = store.select_facts()
    memory = MemoryStore()
    with memory.transaction():
        memory.insert_entities(store.list_entities())
        memory.insert_facts(facts)
    store.close()
    del facts
    out["memory_cpu"], out["memory_wall"], _ = _timed(memory.select_facts)
    return out


def child_postgres(url: str) -> dict[str, float]:
    """``child``'s two reads on a PostgreSQL store, the bare fetch through psycopg."""
    import psycopg

    from claimgraph.store import postgres_sql as q
    from claimgraph.store.postgres import PostgresStore

    out: dict[str, float] = {}
    nothing = {"id": None, "predicate": None, "scope": None, "episode": None}
    for name, criteria, plan in (
            ("all", {}, q.select_facts(nothing, None, None, False, False)),
            ("valid", {"valid_cheap": True}, q.select_facts(nothing, None, None, False, True))):
        with psycopg.connect(url, autocommit=True) as bare:
            out[f"{name}_bare_cpu"], out[f"{name}_bare_wall"], rows = _timed(
                lambda bare=bare, plan=plan: bare.execute(*plan).fetchall())
        store = PostgresStore(url)
        out[f"{name}_cpu"], out[f"{name}_wall"], facts = _timed(
            lambda store=store, criteria=criteria: store.select_facts(**criteria))
        store.close()
        if len(facts) != len(rows):
            raise SystemExit(f"{name}: {len(facts)} facts, {len(rows)} bare rows")
        out[f"{name}_n"] = len(facts)
    return out


def _timed(read):  # type: ignore[no-untyped-def]
    cpu, wall = time.process_time(), time.perf_counter()
    found = read()
    return time.process_time() - cpu, time.perf_counter() - wall, found


# --- the parent ------------------------------------------------------------------------------
def run_child(code: str, store: Path | str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": code, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, __file__, "--child", str(store)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{code}: child failed: {done.stderr[-2000:]}")
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def timed_process(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(CPU, wall) seconds of one whole process, the CPU from the kernel's accounting."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 5):  # 5: a claim the files do not support
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def cited_store(source: Path, into: Path) -> tuple[Path, Path]:
    """A copy of ``source`` where every CITE_EVERY-th fact cites CITED, and the repository
    (``src/app.py``) its citations are checked against."""
    into.chmod(0o700)
    db = into / "claims.db"
    shutil.copyfile(source, db)
    db.chmod(0o600)  # as the store keeps its files (it would tighten them, and say so)
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE facts SET evidence = ? WHERE pk % ? = 0",
                    (json.dumps([CITED]), CITE_EVERY))
    con.close()
    repo = into / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("def main():\n    serve_forever()\n")
    return db, repo


def spread(values: list[float], scale: float = 1000.0) -> str:
    """Median [min..max], in ms by default."""
    return (f"{statistics.median(values) * scale:8.1f} "
            f"[{min(values) * scale:.1f}..{max(values) * scale:.1f}]")


def ratio(top: list[float], bottom: list[float]) -> str:
    pairs = [a / b for a, b in zip(top, bottom) if b]
    return f"{statistics.median(pairs):5.2f} [{min(pairs):.2f}..{max(pairs):.2f}]" if pairs else "-"


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def read_rows(sizes: list[int], codes: dict[str, str], rounds: int,
              postgres: dict[int, str] | None = None) -> None:
    """SQLite's reads (and the memory store's), or PostgreSQL's (``postgres``: size -> URL)."""
    from scaling_store import scaling_store
    from store_cache import working_copy
    found: dict[tuple[str, int], list[dict[str, float]]] = {
        (c, n): [] for c in codes for n in sizes}
    with tempfile.TemporaryDirectory() as tmp:  # a copy per size, read by every child
        stores: dict[int, Path | str] = {}
        for n in sizes:
            if postgres:
                stores[n] = postgres[n]
                continue
            (Path(tmp) / str(n)).mkdir(mode=0o700)
            stores[n] = working_copy(scaling_store(n), Path(tmp) / str(n))
        for _ in range(rounds):
            for n in sizes:
                for label, code in codes.items():
                    found[(label, n)].append(run_child(code, stores[n]))
    print(f"select_facts on {'PostgreSQL' if postgres else 'SQLite'}, ms a read (median"
          " [min..max]); x bare: over the rows fetched bare")
    for n in sizes:
        for read in ("all", "valid") if postgres else ("all", "valid", "memory"):
            for label in codes:
                got = found[(label, n)]
                cpu = [g[f"{read}_cpu"] for g in got]
                wall = [g[f"{read}_wall"] for g in got]
                line = f"  {n:>7} {read:6} {label:4} cpu {spread(cpu)}  wall {spread(wall)}"
                if read != "memory":
                    line += f"  x bare (cpu) {ratio(cpu, [g[f'{read}_bare_cpu'] for g in got])}"
                if label != "base" and "base" in codes:
                    base = found[("base", n)]
                    line += f"  ours/base cpu {ratio(cpu, [g[f'{read}_cpu'] for g in base])}"
                    line += f" wall {ratio(wall, [g[f'{read}_wall'] for g in base])}"
                print(line, flush=True)


def audit_rows(size: int, codes: dict[str, str], rounds: int) -> None:
    from scaling_store import scaling_store
    with tempfile.TemporaryDirectory() as tmp:
        db, repo = cited_store(scaling_store(size), Path(tmp))
        cpu: dict[str, list[float]] = {label: [] for label in [*codes, "pass"]}
        wall: dict[str, list[float]] = {label: [] for label in cpu}
        for _ in range(rounds):
            for label in cpu:
                env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
                       "PYTHONPATH": codes.get(label, OURS)}
                argv = ([sys.executable, "-c", "pass"] if label == "pass" else
                        [sys.executable, "-m", "claimgraph", "--db", str(db), "audit",
                         "--all-projects", "--base", str(repo), "--json"])
                c, w = timed_process(argv, env, repo)
                cpu[label].append(c)
                wall[label].append(w)
        print(f"claimgraph audit --all-projects, {size} facts, every {CITE_EVERY}th citing a "
              "file; ms a process (median [min..max])")
        for label in cpu:
            line = f"  {label:4} cpu {spread(cpu[label])}  wall {spread(wall[label])}"
            if label != "pass":
                line += f"  x pass (cpu) {ratio(cpu[label], cpu['pass'])}"
            if label == "ours" and "base" in codes:
                line += (f"  ours/base cpu {ratio(cpu['ours'], cpu['base'])}"
                         f" wall {ratio(wall['ours'], wall['base'])}")
            print(line, flush=True)


def postgres_stores(sizes: list[int], root: Path) -> dict[int, str]:
    """A private cluster under ``root`` (tests/pg_cluster.py) holding each size's scaling store
    (its entities and facts, copied through the store API), one schema a size: size -> URL."""
    import psycopg
    from scaling_store import scaling_store

    from claimgraph.opening import open_store
    from claimgraph.store.postgres import PostgresStore
    server = _cluster().start(root)
    urls = {}
    for n in sizes:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA s{n}")
        urls[n] = f"{server}&options=-csearch_path%3Ds{n}%2Cpublic"
        source, target = open_store(scaling_store(n), read_only=True), PostgresStore(urls[n])
        facts = source.select_facts()
        with target.transaction():
            target.insert_entities(source.list_entities())
            for start in range(0, len(facts), 5000):
                target.insert_facts(facts[start:start + 5000])
        source.close()
        target.close()
    return urls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", help="another tree's src/ to measure beside this one")
    parser.add_argument("--audit-size", type=int, default=100_000, help="0: no audit")
    parser.add_argument("--postgres", action="store_true",
                        help="also the reads on PostgreSQL (a private cluster, started here)")
    parser.add_argument("--child", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        server = args.child.startswith("postgresql:")
        print(json.dumps(child_postgres(args.child) if server else child(args.child)))
        return
    codes = {"ours": OURS, **({"base": args.base} if args.base else {})}
    print(load(), flush=True)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if sizes:
        read_rows(sizes, codes, args.rounds)
    if sizes and args.postgres:
        root = Path(tempfile.mkdtemp(prefix="claimgraph-bench-pg-"))
        try:
            read_rows(sizes, codes, args.rounds, postgres_stores(sizes, root))
        finally:
            _stop_cluster(root)
    if args.audit_size:
        audit_rows(args.audit_size, codes, args.rounds)
    print(load())


def _cluster():  # type: ignore[no-untyped-def]
    """tests/pg_cluster.py (the suite's private cluster), loaded by path."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("pg_cluster",
                                                  HERE.parent / "tests" / "pg_cluster.py")
    assert spec and spec.loader
    cluster = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cluster)
    return cluster


def _stop_cluster(root: Path) -> None:
    _cluster().stop(root)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
