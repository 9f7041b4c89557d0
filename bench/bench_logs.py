"""``claimgraph logs -n 20`` over a 100 MB log, beside ``tail -n 20`` of the same file.

Three figures, runs interleaved so they see the same machine noise: ``tail -n 20`` (the
baseline), the whole command as a fresh process (``python -m claimgraph logs capture -n 20``,
interpreter start-up included), and the in-process read (``logs.tail``), which is the part
that depends on the file's size. Target (issue 5): the command <= 0.5 s. A filter that matches
only old lines (``--session`` of the first line) shows the other end: it must walk the file.

Usage: .venv/bin/python bench/bench_logs.py [--mb 100] [--runs 10]
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

from claimgraph import logs

SRC = Path(__file__).resolve().parents[1] / "src"


def make_log(path: Path, megabytes: int) -> int:
    """Capture-report-like lines, one traceback every 1000, until the file is big enough."""
    target, lines = megabytes * 1024 * 1024, 0
    with open(path, "w", encoding="utf-8") as out:
        while out.tell() < target:
            out.write(json.dumps({
                "ts": f"2026-03-01T{lines // 3_600_000 % 24:02d}:00:00.{lines % 1000:03d}Z",
                "level": "info", "event": "capture.report", "pid": 4242,
                "run_id": f"cap-{lines:012x}", "session": f"s-{lines}", "status": "captured",
                "counts": {"facts": lines % 7, "episodes": 1}, "duration_ms": lines % 900}) + "\n")
            if lines % 1000 == 999:
                out.write("Traceback (most recent call last):\n  ValueError: synthetic\n")
            lines += 1
    return lines


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or done.stdout.count(b"\n") != 20:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr[-300:]!r}")
    return elapsed


def timed_in_process(log: Path, filters: logs.Filters) -> float:
    start = time.perf_counter()
    got = logs.tail({"capture": log}, filters, 20)
    elapsed = time.perf_counter() - start
    assert got, "no events read"
    return elapsed


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "claims.db"
        log = logs.log_paths(db)["capture"]
        count = make_log(log, args.mb)
        env = {**os.environ, "CLAIMGRAPH_DB": str(db), "HOME": tmp,
               "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        command = [sys.executable, "-m", "claimgraph", "logs", "capture", "-n", "20"]
        rows: dict[str, list[float]] = {"tail -n 20": [], "claimgraph logs -n 20": [],
                                        "logs.tail (in-process)": []}
        for _ in range(args.runs):
            rows["tail -n 20"].append(timed(["tail", "-n", "20", str(log)], env))
            rows["claimgraph logs -n 20"].append(timed(command, env))
            rows["logs.tail (in-process)"].append(timed_in_process(log, logs.Filters()))
        worst = timed_in_process(log, logs.Filters(session="s-0"))
        size_mb = log.stat().st_size / 1024 / 1024
        print(f"log: {size_mb:.1f} MB, {count} events, {args.runs} runs (median / max)")
        for name, values in rows.items():
            print(f"  {name:<24} {median(values) * 1000:8.1f} ms  {max(values) * 1000:8.1f} ms")
        print(f"  whole-file walk (--session of the first event): {worst:.2f} s")
        verdict = "PASS" if median(rows["claimgraph logs -n 20"]) <= 0.5 else "FAIL"
        print(f"target: claimgraph logs -n 20 <= 0.5 s: {verdict}")


if __name__ == "__main__":
    main()
