"""CLI start-up: wall time of `claimgraph --version`, `status`, `facts`, `search` beside
`python -c pass`, each a fresh process, interleaved round by round so all see the same noise.

The commands read a small store (1,000 facts in one project, built once per run in a temporary
HOME; the project is a plain directory, or with ``--git`` a git repository), so the figure
is the command's own cost: interpreter start, imports, the store's open and one query. Each run
is reported as the median over ``--rounds`` (and the spread between
the fastest and slowest round), beside the same-run ``python -c pass``; also the median CPU
time (user + system) of each process and its ratio, which the other load on shared cores
disturbs less than wall time.

Targets (issue 13): a read command <= 5x `python -c pass`; `--version` <= 2x (issue 29: a read
<= 4x). ``--facts N`` reads a store of N facts instead (ingested in batches of 50k).
``--base-src DIR`` also runs every command from another tree's ``src/`` (``git archive main src
| tar -x -C DIR``, compiled first) in the same rounds, as ``<command> (base)`` rows, so a change
and its base meet the same load; the load average is printed before and after.

``--keep DIR`` builds the store (and its project) under DIR once and reuses it on later runs
(a 100k store takes minutes to build). A base of an older store format cannot read a store this
code built: give it its own, ``--base-keep DIR2``, built by a run of the base's code
(``PYTHONPATH=OLD/src .venv/bin/python bench/bench_cli.py --keep DIR2 --rounds 0 ...``); each
command then runs in its own store's project.

Usage: .venv/bin/python bench/bench_cli.py [--rounds 30] [--git] [--facts 1000]
       [--base-src DIR/src] [--keep DIR] [--base-keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402
from startup import as_installed  # noqa: E402

BIN = Path(sys.executable).parent
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "--version": [str(BIN / "claimgraph"), "--version"],
    "status": [str(BIN / "claimgraph"), "status"],
    "facts": [str(BIN / "claimgraph"), "facts", "module_7.queue"],
    "search": [str(BIN / "claimgraph"), "search", "retry", "postgres"],
}


def build(env: dict[str, str], project: Path, size: int = 1000) -> None:
    """``size`` facts in the project's scope, through the CLI's own ingest (``load``-free)."""
    from claimgraph.core import Shell
    from claimgraph.core.ingest import ingest
    from claimgraph.core.vocabulary import seed
    from claimgraph.opening import open_store
    from claimgraph.project import resolve_project

    store = open_store(env["CLAIMGRAPH_DB"])
    sh = Shell(store)
    seed(sh)
    scope = resolve_project(str(project), env).id
    items = [{**item, "scope": scope} for item in make_items(size)]
    for start in range(0, len(items), 50_000):
        ingest(sh, items[start:start + 50_000])
    store.close()


def prepared(root: Path, git: bool, size: int) -> tuple[dict[str, str], Path]:
    """The environment and project of a store of ``size`` facts under ``root``, built there
    unless it is there already (``size`` 0: it must be)."""
    home, project = root / "home", root / "project"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    project.mkdir(exist_ok=True)
    if git and not (project / ".git").exists():
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / ".local/share"),
           "CLAIMGRAPH_DB": str(home / "claims.db")}
    if not (home / "claims.db").exists():
        if not size:
            raise SystemExit(f"no store under {root}: build it with a --keep run first")
        build(env, project, size)
    return env, project


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall seconds, and the child's CPU seconds (user + system: what the command itself
    cost, less sensitive than wall time to the other load on 2 shared cores)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1) or (argv[-1] != "pass" and not done.stdout):
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--git", action="store_true", help="run the commands inside a git "
                        "repository (each then asks git for its project: two git processes)")
    parser.add_argument("--facts", type=int, default=1000, help="facts in the store")
    parser.add_argument("--base-src", help="also run every command from this src/ directory "
                        "(another tree) in the same rounds")
    parser.add_argument("--keep", help="build the store under this directory once, and reuse it")
    parser.add_argument("--base-keep", help="with --base-src: the base's own kept store (built "
                        "by a --keep run of the base's code), for a base of an older format")
    args = parser.parse_args()
    as_installed()
    commands = dict(COMMANDS)
    base_env: dict[str, str] = {}
    if args.base_src:  # each command, then the base's, so the two meet the same moment
        import compileall
        base = Path(args.base_src).resolve()
        compileall.compile_dir(base / "claimgraph", quiet=1)
        base_env = {"PYTHONPATH": str(base)}
        commands = {}
        for name, argv in COMMANDS.items():
            commands[name] = argv
            if name != "python -c pass":
                commands[f"{name} (base)"] = argv
    with tempfile.TemporaryDirectory() as tmp:
        env, project = prepared(Path(args.keep or tmp), args.git, args.facts)
        base_env, base_project = {**env, **base_env}, project
        if args.base_keep:
            found, base_project = prepared(Path(args.base_keep), args.git, 0)
            base_env.update({k: found[k] for k in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                                                    "CLAIMGRAPH_DB")})
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        print(json.dumps({"facts": args.facts, "git": args.git, "rounds": args.rounds,
                          "load_before": os.getloadavg()}), flush=True)
        for _ in range(args.rounds):
            for name, argv in commands.items():
                took, spent = (timed(argv, base_env, base_project) if name.endswith("(base)")
                               else timed(argv, env, project))
                wall[name].append(took)
                cpu[name].append(spent)
    if not args.rounds:
        return
    base = statistics.median(wall["python -c pass"])
    cpu_base = statistics.median(cpu["python -c pass"])
    for name, values in wall.items():
        median, cpu_median = statistics.median(values), statistics.median(cpu[name])
        row = {"command": name, "median_ms": round(median * 1000, 1),
               "min_ms": round(min(values) * 1000, 1),
               "max_ms": round(max(values) * 1000, 1),
               "ratio_to_python_pass": round(median / base, 2),
               "cpu_median_ms": round(cpu_median * 1000, 1),
               "cpu_ratio_to_python_pass": round(cpu_median / cpu_base, 2)}
        if f"{name} (base)" in wall:  # this tree over the base's same command, same rounds
            row["cpu_vs_base"] = round(cpu_median / statistics.median(cpu[f"{name} (base)"]), 2)
            row["wall_vs_base"] = round(median / statistics.median(wall[f"{name} (base)"]), 2)
        print(json.dumps(row), flush=True)
    print(json.dumps({"load_after": os.getloadavg()}), flush=True)


if __name__ == "__main__":
    main()
