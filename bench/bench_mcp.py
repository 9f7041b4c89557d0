"""The MCP server: memory_search round trips over stdio, and start-up, each beside a baseline.

1. Round trip: one ``python -m claimgraph.mcp`` over the 100k-fact store of bench_coach.py (its
   facts live in the scope of bench/results/coach-project, the server's working directory),
   driven by the SDK's own stdio client; each query's ``call_tool("memory_search")`` is timed,
   and so is the same search in-process (``core.recall.scoped_search``) on the same file, query
   by query, interleaved. Targets (issue 11): p50 <= 15 ms, p95 <= 60 ms.
2. Start-up: from spawning the server to the first answer (list_tools after the handshake,
   then a first memory_search), beside ``python -c pass`` spawned and reaped, interleaved.
   Target: <= 500 ms.

Usage: .venv/bin/python bench/bench_mcp.py [--queries 200] [--starts 10]
(builds the store with bench_coach.py's builder when it is missing).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).parent))
from bench_coach import build, percentile  # noqa: E402
from bench_search import queries  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.recall import scoped_search  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402
from claimgraph.project import resolve_project  # noqa: E402


def server(db: Path, project: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env["CLAIMGRAPH_DB"] = str(db)
    return StdioServerParameters(command=sys.executable, args=["-m", "claimgraph.mcp"],
                                 cwd=str(project), env=env)


def figures(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 0.5) * 1000, 2),
            "p95_ms": round(percentile(values, 0.95) * 1000, 2)}


async def round_trips(db: Path, project: Path, pool: list[str]) -> dict:
    sh = Shell(open_store(db, create=False))
    scopes = (resolve_project(project).id, "user")
    wire, local, found = [], [], 0
    async with Client(server(db, project)) as client:
        for q in pool[:5]:  # warm both sides
            await client.call_tool("memory_search", {"query": q})
            scoped_search(sh, q, scopes)
        for q in pool:
            started = time.perf_counter()
            result = await client.call_tool("memory_search", {"query": q})
            wire.append(time.perf_counter() - started)
            if result.is_error:
                raise SystemExit(f"memory_search {q!r} failed: {result.content[0].text}")
            found += bool(json.loads(result.content[0].text)["facts"])
            started = time.perf_counter()
            scoped_search(sh, q, scopes)
            local.append(time.perf_counter() - started)
    sh.store.close()
    return {"queries": len(pool), "with_hits": found, "stdio memory_search": figures(wire),
            "in-process scoped_search": figures(local),
            "ratio_p50": round(percentile(wire, 0.5) / percentile(local, 0.5), 2)}


async def first_answers(db: Path, project: Path) -> tuple[float, float]:
    started = time.perf_counter()
    async with Client(server(db, project)) as client:
        await client.list_tools()
        listed = time.perf_counter() - started
        await client.call_tool("memory_search", {"query": "retry redis"})
        searched = time.perf_counter() - started
    return listed, searched


def spawn(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


SDK_ONLY = "import mcp.server.lowlevel, mcp.server.stdio"
OURS_ONLY = "import claimgraph.mcp.main, claimgraph.mcp.tools"


def start_ups(db: Path, project: Path, runs: int) -> dict:
    """Spawn-to-answer, beside ``python -c pass`` and two breakdowns in fresh interpreters:
    importing the SDK alone, and importing our side alone (the server minus the SDK)."""
    baseline, sdk, ours, listed, searched = [], [], [], [], []
    for _ in range(runs):
        baseline.append(spawn("pass"))
        sdk.append(spawn(SDK_ONLY))
        ours.append(spawn(OURS_ONLY))
        first, search = anyio.run(first_answers, db, project)
        listed.append(first)
        searched.append(search)
    return {"runs": runs, "python -c pass": figures(baseline),
            "python -c 'import the SDK (mcp)'": figures(sdk),
            "python -c 'import our server side (no SDK)'": figures(ours),
            "spawn to tools/list answered": figures(listed),
            "spawn to first memory_search answered": figures(searched),
            "ratio_p50": round(percentile(listed, 0.5) / percentile(baseline, 0.5), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    db, project = build(args.facts, rebuild=False)
    pool = queries(args.queries, args.facts)
    report = {"facts": args.facts,
              "round_trip": anyio.run(round_trips, db, project, pool),
              "start_up": start_ups(db, project, args.starts)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
