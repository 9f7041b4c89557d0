"""SessionStart wall time over a big store: ``python -m claimgraph.hooks session-start``.

Builds a store of 100,000 facts across 50 projects (plus the user scope), with commitments,
recent supersessions, flagged conflicts and dormant facts in every project, then runs the hook
as the agent does — a fresh interpreter, a SessionStart payload naming one project's directory —
and reports p50/p95. Every run's stdout must be the same bytes (the store does not change).
Target (issue 5): p95 <= 300 ms.

Usage: .venv/bin/python bench/bench_context.py [--runs 30] [--facts 100000] [--projects 50]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store

PREDICATES = ("core/depends-on", "core/tested-by", "core/prefers", "core/built-with")


def fact(i: int, scope: str, subject: str, obj: str, now: int) -> dict:
    """One literal fact; every 40th a commitment, every 25th superseded lately, every 97th
    dormant, so each section of the block has work to do."""
    row = {"id": f"f-{i:07d}", "subject": subject, "predicate": PREDICATES[i % 4],
           "object_kind": "literal", "object_lit": obj, "t_valid": now - (i % 300) * DAY_MS,
           "recorded_at": now - (i % 300) * DAY_MS, "confidence": 0.5 + (i % 50) / 100,
           "epistemic": "commitment" if i % 40 == 0 else "observation", "scope": scope,
           "source_type": "code" if i % 10 == 0 else "session-log", "evidence": []}
    if i % 25 == 1:
        row.update(t_invalid=now - (i % 60) * DAY_MS, invalidation_kind="superseded",
                   successor=f"f-{i + 1:07d}")
    if i % 97 == 0:
        row["dormant_since"] = now - DAY_MS
    return row


def build(db: Path, projects: list[str], total: int, now: int) -> None:
    store = open_store(db)
    seed(Shell(store))
    scopes = [*projects, "user"]
    per = total // len(scopes)
    with store.transaction():
        for p, scope in enumerate(scopes):
            subjects = [f"e-{p}-{n}" for n in range(40)]
            for n, eid in enumerate(subjects):
                store.insert_entity({"id": eid, "name": f"component-{n}", "scope": scope})
            store.insert_facts(fact(p * per + k, scope, subjects[k % 40],
                                    f"value {k % 400} of {scope[-12:]}", now) for k in range(per))
            for k in range(0, 60, 6):
                store.link_conflicts(f"f-{p * per + k + 3:07d}", [f"f-{p * per + k + 7:07d}"])
    store.close()


def run_hook(env: dict[str, str], cwd: str) -> tuple[float, bytes]:
    payload = json.dumps({"session_id": "s-1", "transcript_path": "/dev/null", "cwd": cwd,
                          "hook_event_name": "SessionStart", "source": "startup"}).encode()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "claimgraph.hooks", "session-start"],
                          input=payload, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or not done.stdout:
        raise SystemExit(f"hook exited {done.returncode}, stdout {done.stdout[:200]!r}, "
                         f"stderr {done.stderr[-500:]!r}")
    return elapsed, done.stdout


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-context-") as tmp:
        root = Path(tmp)
        dirs = [root / f"project-{n:02d}" for n in range(args.projects)]
        for d in dirs:
            d.mkdir()
        db = root / "store" / "claims.db"
        started = time.perf_counter()
        build(db, [str(d.resolve()) for d in dirs], args.facts, time.time_ns() // 1_000_000)
        print(f"built {args.facts} facts in {time.perf_counter() - started:.1f} s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
        env.update(HOME=str(root), CLAIMGRAPH_DB=str(db))
        run_hook(env, str(dirs[7]))  # warm the page cache, as a used machine has it
        results = [run_hook(env, str(dirs[7])) for _ in range(args.runs)]
    times = [t for t, _ in results]
    outputs = {out for _, out in results}
    text = json.loads(results[0][1])["hookSpecificOutput"]["additionalContext"]
    print(f"session-start over {args.facts} facts / {args.projects} projects, {args.runs} runs: "
          f"p50 {percentile(times, 0.5) * 1000:.0f} ms, p95 {percentile(times, 0.95) * 1000:.0f}"
          f" ms, max {max(times) * 1000:.0f} ms (target p95 <= 300 ms)")
    print(f"block {len(text)} chars; identical output across runs: {len(outputs) == 1}")


if __name__ == "__main__":
    main()
