"""``claimgraph context`` on a real store: the stored shortlist's path and the live compile.

A person runs ``claimgraph context`` to see the block the next session will get. Like the
SessionStart hook it renders the curator's stored shortlist when that holds, and compiles live
otherwise (docs/hooks.md, "The stored shortlist"). This times both paths on a working copy of
a store (a kept bench store: ``--store .cache/bench/hook-project-100000-*.db``, or one built
by ``bench_hook``'s builder when none is given), in a git project whose id is the store's
(github.com/bench/hook-project), in a temp HOME:

1. the curator's ``shortlists`` stage runs (the real ``claimgraph curate``);
2. rounds alternate ``python -c pass``, the command of ``--base-src`` (another tree's
   ``src/``, e.g. ``git archive main src | tar -x -C DIR``; both trees are compiled first,
   and a frozen copy of this tree is the one to time), this tree's command and this
   tree's SessionStart hook, so all meet the same load; every command's stdout must be the
   same bytes within a round (the same store, the same day);
3. one fact is asserted (a write: every stored shortlist stops holding) and the rounds run
   again for the live path, without the hook (past its live limit it prints a short block).

Each row gives wall p50/p95, CPU p50, peak RSS, and which path this tree's command took
(``--json``'s ``shortlist``); the load average is printed before and after.

Usage: .venv/bin/python bench/bench_context_command.py [--store DB] [--base-src DIR]
       [--rounds 15] [--live-rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_hook import (PROJECT_ID, build_project_store, compiled_tree,  # noqa: E402
                        git_project, percentile, run_measured)


def rounds(series: dict[str, tuple[list[str], dict[str, str], bytes]], count: int,
           rss: Path) -> dict[str, dict[str, float]]:
    """Every series once per round, in turn; two warm-up rounds not counted."""
    wall: dict[str, list[float]] = {name: [] for name in series}
    cpu: dict[str, list[float]] = {name: [] for name in series}
    peak = {name: 0 for name in series}
    for round_ in range(2 + count):
        outs = {}
        for name, (argv, env, stdin) in series.items():
            spent, kb, out, used = run_measured(argv, stdin, env, rss)
            outs[name] = out
            if round_ >= 2:
                wall[name].append(spent)
                cpu[name].append(used)
                peak[name] = max(peak[name], kb)
        commands = {out for name, out in outs.items() if name.startswith("context")}
        if len(commands) > 1:
            raise SystemExit("the commands printed different blocks in one round")
    return {name: {"p50_ms": round(percentile(wall[name], 0.5) * 1000, 1),
                   "p95_ms": round(percentile(wall[name], 0.95) * 1000, 1),
                   "cpu_p50_ms": round(percentile(cpu[name], 0.5) * 1000, 1),
                   "peak_rss_mb": round(peak[name] / 1024, 1)} for name in series}


def this_tree() -> str:
    """The ``src/`` this interpreter imports claimgraph from, compiled as the base tree is
    (with ``PYTHONDONTWRITEBYTECODE`` set, an uncompiled tree pays its compile every run)."""
    import claimgraph
    return compiled_tree(str(Path(claimgraph.__file__).resolve().parents[1]))


def path_taken(env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "claimgraph", "context", "--json", "--cwd",
                           str(cwd)], env=env, capture_output=True, check=True)
    return str(json.loads(done.stdout).get("shortlist", "?"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="a store to copy (default: build 100k facts)")
    parser.add_argument("--base-src", help="also time another tree's src/ in the same rounds")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--live-rounds", type=int, default=5)
    args = parser.parse_args()
    found: dict[str, object] = {"load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="bench-context-") as tmp:
        root = Path(tmp)
        project = git_project(root)
        db = root / "store" / "claims.db"
        db.parent.mkdir(mode=0o700)
        if args.store:
            shutil.copyfile(args.store, db)
            os.chmod(db, 0o600)
        else:
            build_project_store(db, 100_000)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
        env.update(HOME=str(root), XDG_DATA_HOME=str(root / "data"),
                   XDG_CONFIG_HOME=str(root / "config"), CLAIMGRAPH_DB=str(db),
                   PYTHONPATH=this_tree())
        subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--db", str(db),
                        "--stage", "shortlists", "--json"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command = [sys.executable, "-m", "claimgraph", "context", "--cwd", str(project)]
        series = {"python -c pass": ([sys.executable, "-c", "pass"], env, b"")}
        if args.base_src:
            series["context (base)"] = (command, {**env, "PYTHONPATH": compiled_tree(
                args.base_src)}, b"")
        series["context"] = (command, env, b"")
        hook_in = json.dumps({"session_id": "bench", "cwd": str(project),
                              "hook_event_name": "SessionStart"}).encode()
        series["session-start hook"] = ([sys.executable, "-m", "claimgraph.hooks",
                                         "session-start", "--agent", "claude-code"], env,
                                        hook_in)
        found["project"] = PROJECT_ID
        found["stored"] = {"path": path_taken(env, project),
                           **rounds(series, args.rounds, root / "rss")}
        subprocess.run([sys.executable, "-m", "claimgraph", "assert", "bench", "x/decided",
                        "one more decision", "--scope", PROJECT_ID], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        del series["session-start hook"]
        found["after a write"] = {"path": path_taken(env, project),
                                  **rounds(series, args.live_rounds, root / "rss")}
    found["load_after"] = os.getloadavg()
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
