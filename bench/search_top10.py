"""The search top-10 equality check: record what search ranks first for a fixed query set on
one store file, then check a later version of the code against that record.

Both runs read the SAME file (a copy of a cached bench store, which a newer version may migrate
in place) at the SAME pinned instant (the newest fact's time plus a day, read from the file), so
a difference can only come from the code. Each query is searched across every scope and in the
bench's one project scope.

Usage (record with the old code, check with the new):
  PYTHONPATH=/tmp/base/src .venv/bin/python bench/search_top10.py record STORE top10.json
  .venv/bin/python bench/search_top10.py check STORE top10.json
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import LIBS, WORDS  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.reads import search  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402

DAY_MS = 86_400_000
#: Besides the bench's random pool: words on every tenth fact, popular object entities, a
#: whole subject, a phrase, a miss.
FIXED = ["postgres", "retry", "depends", "module_1.timeout", "redis-5", "pytest-12",
         "timeout fails", "tests/test_cache", "lang-77", "nothing-like-this-anywhere",
         "retry postgres", "fails when kafka", "schema migration"]


def query_set(size: int, n: int = 200) -> list[str]:
    """The bench's own pool for this size (bench_search.queries) and the fixed words."""
    from bench_search import queries
    return [*FIXED, *queries(n, size)]


def pinned_now(path: Path) -> int:
    con = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute("SELECT max(recorded_at) FROM facts").fetchone()[0] + DAY_MS
    finally:
        con.close()


def top10(path: Path, size: int, limit: int | None = None) -> dict[str, list[str]]:
    """Each query's first ten fact ids, every scope and the project's; ``limit`` is passed to
    search (a version that takes it ranks on fact heads and reads only the shown facts)."""
    now = pinned_now(path)
    store = open_store(str(path))
    sh = Shell(store, clock=lambda: now)
    options = {} if limit is None else {"limit": limit}
    out = {}
    try:
        for q in query_set(size):
            for label, scopes in (("all", None), ("project", ["project"])):
                found = search(sh, q, scopes, **options)["facts"]
                out[f"{label}:{q}"] = [f["id"] for f in found[:10]]
    finally:
        store.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("record", "check"))
    parser.add_argument("store", type=Path)
    parser.add_argument("record_file", type=Path)
    parser.add_argument("--size", type=int, help="the store's size (default: its fact count)")
    args = parser.parse_args()
    con = sqlite3.connect(f"{args.store.absolute().as_uri()}?mode=ro", uri=True)
    size = args.size or con.execute("SELECT count(*) FROM facts").fetchone()[0]
    con.close()
    if args.action == "record":
        found = top10(args.store, size)
        args.record_file.write_text(json.dumps(found, indent=1) + "\n")
        print(json.dumps({"recorded": len(found), "store": str(args.store)}))
        return 0
    wanted = json.loads(args.record_file.read_text())
    failed = 0
    for limit in (None, 10):  # everything found, and what `claimgraph search` shows
        found = top10(args.store, size, limit)
        differ = sorted(k for k in wanted if wanted[k] != found.get(k))
        failed += len(differ)
        print(json.dumps({"limit": limit, "queries": len(wanted),
                          "same_top10": len(wanted) - len(differ), "differ": differ[:20]}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
