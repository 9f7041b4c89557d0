"""Hook wall time: ``python -m claimgraph.hooks EVENT`` against ``python -c pass``, side by side.

Runs are interleaved (baseline, hook, baseline, hook, ...) so both see the same machine noise,
each one a fresh interpreter fed a realistic SessionEnd payload on stdin, in a temp HOME/store.
By default the spawned capture pass is ``/bin/true`` (``CLAIMGRAPH_CAPTURE_CMD``), so the
figure is the hook's own cost and detached captures do not load the next runs;
``--real-capture`` spawns the real ``claimgraph capture`` instead. Targets (issue 3): hook p95
<= 100 ms and <= 3x the baseline's p95.

Usage: .venv/bin/python bench/bench_hook.py [--runs 50] [--event session-end] [--real-capture]
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

PAYLOAD = {"session_id": "0b7c7a8e-5d1e-4c4b-9a53-7f1e2a9c1d00", "cwd": "/tmp",
           "prompt_id": "p-1", "hook_event_name": "SessionEnd", "reason": "other"}


def timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or done.stdout:
        raise SystemExit(f"{argv} exited {done.returncode} with stdout {done.stdout!r}")
    return elapsed


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def environment(home: Path, real_capture: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"),
               CLAIMGRAPH_DB=str(home / "store" / "claims.db"))
    if not real_capture:
        env["CLAIMGRAPH_CAPTURE_CMD"] = "/bin/true"
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--event", default="session-end",
                        choices=("session-end", "session-start", "stop"))
    parser.add_argument("--real-capture", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-hook-") as tmp:
        home = Path(tmp)
        transcript = home / "session.jsonl"
        transcript.write_text('{"type":"user","message":{"content":"hi"}}\n')
        stdin = json.dumps({**PAYLOAD, "transcript_path": str(transcript)}).encode()
        env = environment(home, args.real_capture)
        baseline_argv = [sys.executable, "-c", "pass"]
        hook_argv = [sys.executable, "-m", "claimgraph.hooks", args.event]
        for _ in range(3):  # warm the page cache and the .pyc files
            timed(baseline_argv, stdin, env)
            timed(hook_argv, stdin, env)
        baseline, hook = [], []
        for _ in range(args.runs):
            baseline.append(timed(baseline_argv, stdin, env))
            hook.append(timed(hook_argv, stdin, env))
    report = {"runs": args.runs, "event": args.event, "real_capture": args.real_capture}
    for name, values in (("python -c pass", baseline), (f"hook {args.event}", hook)):
        report[name] = {"p50_ms": round(percentile(values, 0.5) * 1000, 1),
                        "p95_ms": round(percentile(values, 0.95) * 1000, 1)}
    report["ratio_p50"] = round(percentile(hook, 0.5) / percentile(baseline, 0.5), 2)
    report["ratio_p95"] = round(percentile(hook, 0.95) / percentile(baseline, 0.95), 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
