"""SessionStart wall time over a big store: ``python -m claimgraph.hooks session-start``.

Builds a store of 100,000 facts across 50 projects (plus the user scope), with commitments,
recent supersessions, flagged conflicts and dormant facts in every project, then runs the hook
as the agent does — a fresh interpreter, a SessionStart payload naming one project's directory —
and reports p50/p95 beside ``python -c pass`` run in the same rounds (interleaved), with the
ratios and each one's CPU time (user + system, less disturbed by the other load on shared
cores). The curator's ``shortlists`` stage runs first (the real ``claimgraph curate``), as a
used store has it; ``--live`` skips it to time the live compile. Every run's stdout must be the
same bytes (the store does not change). Targets: issue 5, p95 <= 300 ms; issue 29, p95 <= 150 ms.

Usage: .venv/bin/python bench/bench_context.py [--runs 30] [--facts 100000] [--projects 50]
       [--live]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def timed(argv: list[str], payload: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall seconds, the child's CPU seconds (user + system) and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=payload, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or (argv[-1] != "pass" and not done.stdout):
        raise SystemExit(f"{argv} exited {done.returncode}, stdout {done.stdout[:200]!r}, "
                         f"stderr {done.stderr[-500:]!r}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu, done.stdout


def run_hook(env: dict[str, str], cwd: str) -> tuple[float, float, bytes]:
    payload = json.dumps({"session_id": "s-1", "transcript_path": "/dev/null", "cwd": cwd,
                          "hook_event_name": "SessionStart", "source": "startup"}).encode()
    return timed([sys.executable, "-m", "claimgraph.hooks", "session-start"], payload, env)


def run_pass(env: dict[str, str]) -> tuple[float, float, bytes]:
    return timed([sys.executable, "-c", "pass"], b"", env)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=50)
    parser.add_argument("--live", action="store_true", help="time the live compile: no "
                        "curator shortlists stage first")
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
        if not args.live:
            subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--db", str(db),
                            "--stage", "shortlists", "--json"], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        probe = str(dirs[min(7, len(dirs) - 1)])
        run_hook(env, probe)  # warm the page cache, as a used machine has it
        load_before = os.getloadavg()
        hook, base = [], []
        for _ in range(args.runs):
            base.append(run_pass(env))
            hook.append(run_hook(env, probe))
        load_after = os.getloadavg()
    times, cpus = [t for t, _, _ in hook], [c for _, c, _ in hook]
    base_times, base_cpus = [t for t, _, _ in base], [c for _, c, _ in base]
    outputs = {out for _, _, out in hook}
    text = json.loads(hook[0][2])["hookSpecificOutput"]["additionalContext"]
    p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
    b50, b95 = percentile(base_times, 0.5), percentile(base_times, 0.95)
    cpu, base_cpu = percentile(cpus, 0.5), percentile(base_cpus, 0.5)
    print(json.dumps({
        "facts": args.facts, "projects": args.projects, "runs": args.runs,
        "shortlist": "live" if args.live else "stored",
        "load_before": load_before, "load_after": load_after,
        "session-start": {"p50_ms": round(p50 * 1000, 1), "p95_ms": round(p95 * 1000, 1),
                          "max_ms": round(max(times) * 1000, 1),
                          "cpu_p50_ms": round(cpu * 1000, 1)},
        "python -c pass": {"p50_ms": round(b50 * 1000, 1), "p95_ms": round(b95 * 1000, 1),
                           "cpu_p50_ms": round(base_cpu * 1000, 1)},
        "ratio_p50": round(p50 / b50, 2), "ratio_p95": round(p95 / b95, 2),
        "cpu_ratio_p50": round(cpu / base_cpu, 2),
        "meets_target_p95_150ms": p95 <= 0.150,
        "block_chars": len(text), "identical_output": len(outputs) == 1}, indent=2))


if __name__ == "__main__":
    main()
