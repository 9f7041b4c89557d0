"""The MCP server: start-up (spawn to the first memory_search answered) and memory_search round
trips over stdio, each beside a baseline measured in the same run.

1. Start-up, per store size (1k and 100k facts by default, bench_coach.py's stores: their facts
   live in the scope of bench/results/coach-project, the server's working directory). Spawned
   and reaped in turn, run after run, so load hits them alike:
   - ``python -c pass`` and ``python -c "import mcp"`` (the SDK's import alone), the baselines;
   - ``python -m claimgraph.mcp`` driven by raw JSON-RPC lines as Claude Code sends them
     (``server/discover``, ``tools/list``, then ``tools/call memory_search``, each awaited):
     the fast front, and ``--sdk-only`` (the SDK throughout);
   - the same server driven by the SDK's own client (``Client``, mode auto), which adds the
     client's own work in this process;
   - from the front's raw-line runs, also the time to the tools/list answer (what an agent
     waits for at session start; its first tool call usually comes much later).
   - with ``--base-src DIR``, the front of another tree's ``src/`` (``git archive main | tar -x
     -C DIR``; compiled first) in the same rounds, so a change and its base meet the same load;
   Each row: p50/p95 wall ms and the process's CPU ms (user + system, from the reaped child's
   rusage, so the front's includes writing its log after the answer), and for the front the
   server's CPU at the moment the search is answered (from /proc): wall time on a shared
   machine is mostly waiting for a core, CPU is the server's own work. Goal (issue 29): spawn
   to first memory_search answered <= 300 ms.
2. Round trip (``--round-trip``): one server over the largest store, driven by the SDK's
   client; each ``call_tool("memory_search")`` timed beside the same search in-process
   (``core.recall.scoped_search``), query by query, interleaved. Targets (issue 11): p50 <= 15
   ms, p95 <= 60 ms.

Usage: .venv/bin/python bench/bench_mcp.py [--facts 1000,100000] [--starts 20] [--round-trip]
       [--base-src /tmp/base/src]
(builds a store with bench_coach.py's builder when it is missing).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).parent))
from bench_coach import build, percentile  # noqa: E402
from bench_search import queries  # noqa: E402
from startup import as_installed  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.recall import scoped_search  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402
from claimgraph.project import resolve_project  # noqa: E402

GOAL_MS = 300
QUERY = "retry redis"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": True}}}
OPENING = [("server/discover", {}), ("tools/list", {}),
           ("tools/call", {"name": "memory_search", "arguments": {"query": QUERY}})]


def server_env(db: Path, src: str | None = None) -> dict[str, str]:
    """The server's environment; ``src``: another tree's sources instead of ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env["CLAIMGRAPH_DB"] = str(db)
    if src:
        env["PYTHONPATH"] = src
    return env


def compiled_tree(src: str) -> str:
    """``src`` made absolute and compiled (as an install would have it)."""
    import compileall
    root = Path(src).resolve()
    compileall.compile_dir(root / "claimgraph", quiet=1)
    return str(root)


def server(db: Path, project: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "claimgraph.mcp", *flags],
                                 cwd=str(project), env=server_env(db))


def figures(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 0.5) * 1000, 1),
            "p95_ms": round(percentile(values, 0.95) * 1000, 1)}


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def spawn(code: str) -> tuple[float, float]:
    """(wall, CPU) of ``python -c code``, spawned and reaped."""
    cpu, started = child_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started, child_cpu() - cpu


def cpu_so_far(pid: int) -> float | None:
    """The running process's CPU (user + system) in seconds, from /proc (Linux; else None)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw_first_search(db: Path, project: Path, *flags: str, listed: list[float] | None = None,
                     answered_cpu: list[float] | None = None,
                     src: str | None = None) -> tuple[float, float]:
    """(wall from spawn to the memory_search answer, the server's CPU to its exit) over raw
    lines; the wall time to the tools/list answer is appended to ``listed``, the server's CPU
    when the search is answered (before it writes its log) to ``answered_cpu``."""
    cpu, started = child_cpu(), time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "claimgraph.mcp", *flags], cwd=project,
                            env=server_env(db, src), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    for n, (method, params) in enumerate(OPENING, 1):
        message = {"jsonrpc": "2.0", "id": n, "method": method,
                   "params": {**params, "_meta": META}}
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        if "result" not in answer or answer["result"].get("isError"):
            raise SystemExit(f"{method} failed: {answer}")
        if method == "tools/list" and listed is not None:
            listed.append(time.perf_counter() - started)
    wall = time.perf_counter() - started
    so_far = cpu_so_far(proc.pid)
    if answered_cpu is not None and so_far is not None:
        answered_cpu.append(so_far)
    proc.stdin.close()
    proc.wait(timeout=60)
    proc.stdout.close()
    return wall, child_cpu() - cpu


def client_first_search(db: Path, project: Path, *flags: str) -> tuple[float, float]:
    async def talk() -> float:
        started = time.perf_counter()
        async with Client(server(db, project, *flags)) as client:
            await client.list_tools()
            result = await client.call_tool("memory_search", {"query": QUERY})
            if result.is_error:
                raise SystemExit(f"memory_search failed: {result.content}")
            return time.perf_counter() - started
    cpu = child_cpu()
    wall = anyio.run(talk)
    return wall, child_cpu() - cpu


def start_ups(db: Path, project: Path, runs: int, base_src: str | None = None) -> dict[str, Any]:
    listed: list[float] = []
    answered_cpu: list[float] = []
    base_listed: list[float] = []
    base_cpu: list[float] = []
    rows: dict[str, Callable[[], tuple[float, float]]] = {
        "python -c pass": lambda: spawn("pass"),
        "python -c 'import mcp'": lambda: spawn("import mcp"),
        "front, raw lines: spawn to first memory_search":
            lambda: raw_first_search(db, project, listed=listed, answered_cpu=answered_cpu),
        "sdk-only, raw lines: spawn to first memory_search":
            lambda: raw_first_search(db, project, "--sdk-only"),
        "front, SDK client: spawn to first memory_search":
            lambda: client_first_search(db, project),
    }
    if base_src:
        rows["base front, raw lines: spawn to first memory_search"] = \
            lambda: raw_first_search(db, project, listed=base_listed, answered_cpu=base_cpu,
                                     src=base_src)
    walls: dict[str, list[float]] = {name: [] for name in rows}
    cpus: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(runs):
        for name, run in rows.items():
            wall, cpu = run()
            walls[name].append(wall)
            cpus[name].append(cpu)
    out: dict[str, Any] = {name: {**figures(walls[name]),
                                  "cpu_p50_ms": round(percentile(cpus[name], 0.5) * 1000, 1)}
                           for name in rows}
    out["front, raw lines: spawn to tools/list answered"] = figures(listed)
    if base_listed:
        out["base front, raw lines: spawn to tools/list answered"] = figures(base_listed)
    for name, cpu in (("front", answered_cpu), ("base front", base_cpu)):
        if cpu:  # at 10 ms resolution: the server's own work, whatever the load
            out[f"{name}: server CPU when the search is answered"] = {
                "p50_ms": round(percentile(cpu, 0.5) * 1000),
                "p95_ms": round(percentile(cpu, 0.95) * 1000)}
    front = percentile(walls["front, raw lines: spawn to first memory_search"], 0.5)
    out["ratios_p50"] = {
        "front / python -c pass": round(front / percentile(walls["python -c pass"], 0.5), 1),
        "front / import mcp": round(front / percentile(walls["python -c 'import mcp'"], 0.5), 2),
        "sdk-only / front": round(percentile(
            walls["sdk-only, raw lines: spawn to first memory_search"], 0.5) / front, 1)}
    p95 = percentile(walls["front, raw lines: spawn to first memory_search"], 0.95) * 1000
    if base_src:
        base = walls["base front, raw lines: spawn to first memory_search"]
        out["ratios_p50"]["front / base front"] = round(front / percentile(base, 0.5), 2)
        out["ratios_p95"] = {"front / base front": round(
            p95 / 1000 / percentile(base, 0.95), 2)}
    out["goal_300ms"] = {"p50_met": front * 1000 <= GOAL_MS, "p95_met": p95 <= GOAL_MS}
    return out


async def round_trips(db: Path, project: Path, pool: list[str]) -> dict[str, Any]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", default="1000,100000", help="store sizes, comma-separated")
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--round-trip", action="store_true")
    parser.add_argument("--base-src", help="also time the front of this src/ directory "
                        "(another tree), in the same rounds")
    args = parser.parse_args()
    as_installed()
    sizes = [int(n) for n in args.facts.split(",")]
    base = compiled_tree(args.base_src) if args.base_src else None
    report: dict[str, Any] = {"load_before": os.getloadavg(), "start_up": {}}
    for size in sizes:
        db, project = build(size, rebuild=False)
        load = os.getloadavg()
        report["start_up"][size] = {"load_before": load,
                                    **start_ups(db, project, args.starts, base)}
    if args.round_trip:
        db, project = build(sizes[-1], rebuild=False)
        report["round_trip"] = anyio.run(round_trips, db, project,
                                         queries(args.queries, sizes[-1]))
    report["load_after"] = os.getloadavg()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
