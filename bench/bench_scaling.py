"""Growth with the store: capture of one session and an incremental curator pass at 0 / 10k /
100k / 1M facts, with the growth ratios the issue asks for, and the full pass per fact.

Every measurement runs in its own process (``scaling_round.py``) on a fresh copy of a cached
store (``scaling_store.py``, cached under ``.cache/bench`` by store format and write-path code
hash: the 1M store takes ~15 min to build, once). ``--base DIR`` measures a second tree too
(an older commit: ``git archive <commit> src | tar -x -C DIR``), interleaved round by round
with this one on the same stores: the same-run baseline.

- capture: ``claimgraph capture`` of the fixture session ``full-session-four`` (``--no-curate``),
  the report's own ``duration_ms`` (the pass, not the interpreter start), median and spread of
  ``--rounds`` runs; growth = capture(size) / capture(0).
- curate: ``--rounds`` rounds, each on a fresh copy in its own process: one full pass (µs per
  fact), then +50 facts and an incremental pass; median and spread of both;
  growth = incremental(size) / incremental(10k).

Usage: .venv/bin/python bench/bench_scaling.py [--sizes 0,10000,100000,1000000] [--rounds 5]
       [--what capture,curate] [--base /tmp/base/src]
Targets (issue 13): capture 1M/0 <= 1.5x; incremental 1M/10k <= 2x; full pass <= 25 us/fact.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from scaling_store import scaling_store  # noqa: E402

OURS = str(HERE.parent / "src")


def one(code: str, args: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": code, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, str(HERE / "scaling_round.py"), *args], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{code}: {' '.join(args)} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(samples: list[float]) -> dict:
    return {"median": round(statistics.median(samples), 1), "min": round(min(samples), 1),
            "max": round(max(samples), 1), "n": len(samples)}


def capture_rows(sizes: list[int], codes: dict[str, str], rounds: int) -> dict:
    found = {(label, n): [] for label in codes for n in sizes}
    for _ in range(rounds):  # interleaved: every size and tree once per round
        for n in sizes:
            for label, code in codes.items():
                found[(label, n)].append(one(code, ["capture", str(scaling_store(n)), str(n)]))
    out = {}
    for label in codes:
        med = {n: summary([r["capture_ms"] for r in found[(label, n)]]) for n in sizes}
        row = {"capture_ms": {str(n): med[n] for n in sizes}}
        if 0 in med:
            row["growth_vs_empty"] = {str(n): round(med[n]["median"] / med[0]["median"], 2)
                                      for n in sizes}
        out[label] = row
    return out


def curate_rows(sizes: list[int], codes: dict[str, str], rounds: int) -> dict:
    out = {label: {"full_us_per_fact": {}, "incremental_ms": {}} for label in codes}
    for n in [s for s in sizes if s]:
        found = {label: [] for label in codes}
        for i in range(rounds):  # each round a fresh copy: a full pass, then +50 and a pass
            for label, code in codes.items():
                found[label].append(one(code, ["curate", str(scaling_store(n)), str(n), "1",
                                               str(i)]))
        for label, results in found.items():
            out[label]["full_us_per_fact"][str(n)] = summary(
                [r["full_us_per_fact"] for r in results])
            out[label]["incremental_ms"][str(n)] = summary(
                [ms for r in results for ms in r["incremental_ms"]])
    for row in out.values():
        inc = row["incremental_ms"]
        if "10000" in inc:
            row["growth_vs_10k"] = {n: round(v["median"] / inc["10000"]["median"], 2)
                                    for n, v in inc.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,10000,100000,1000000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--what", default="capture,curate")
    parser.add_argument("--base", help="another tree's src/ to measure beside this one")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    codes = {"ours": OURS, **({"base": args.base} if args.base else {})}
    for n in sizes:
        scaling_store(n)  # build what is missing before timing anything
    what = args.what.split(",")
    if "capture" in what:
        print(json.dumps({"capture": capture_rows(sizes, codes, args.rounds)}), flush=True)
    if "curate" in what:
        print(json.dumps({"curate": curate_rows(sizes, codes, args.rounds)}), flush=True)


if __name__ == "__main__":
    main()
