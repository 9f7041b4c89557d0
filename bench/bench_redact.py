"""Redaction throughput (MB/s) of this tree's redactor against a baseline's, in the same run.

The input is what capture hands the redactor: every string of the real fixture transcripts
(Claude Code, Codex, Gemini), repeated to ``--mb`` MB, and the same with issue 25's generated
corpus planted every ~50 KB (text dense in secrets). Each redactor runs in its own process
(``PYTHONPATH`` selects the checkout: this tree's ``src`` and ``--baseline``'s), alternating,
``--repeat`` times; the median is reported with the ratio. Module import and the first call
(rule compilation) are timed apart as ``load_s``. The machine is shared and noisy: read the
ratio, not the MB/s.

Usage: .venv/bin/python bench/bench_redact.py --baseline ../main/src [--mb 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = r"""
import json, sys, time
t0 = time.perf_counter()
from claimgraph.logic.redact import redact
redact("warm up: password=x1y2z3 ghp_x")
load = time.perf_counter() - t0
texts = json.load(open(sys.argv[1]))
size = sum(len(t.encode()) for t in texts)
t0 = time.process_time()
changed = sum(redact(t) != t for t in texts)
cpu = time.process_time() - t0
print(json.dumps({"mb": size / 1e6, "cpu_s": cpu, "mb_s": size / 1e6 / cpu, "load_s": load,
                  "changed": changed}))
"""


def fixture_strings() -> list[str]:
    out: list[str] = []
    for path in sorted((ROOT / "tests" / "fixtures" / "transcripts").rglob("*.json*")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for row in (text.splitlines() if path.suffix == ".jsonl" else [text]):
            try:
                out.extend(_strings(json.loads(row)))
            except ValueError:
                out.append(row)
    return [s for s in out if s]


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def inputs(mb: float, workdir: Path) -> dict[str, Path]:
    sys.path.insert(0, str(ROOT / "tests" / "logic"))
    from secret_shapes import shapes
    base = fixture_strings()
    size = sum(len(s.encode()) for s in base)
    plain = base * max(1, int(mb * 1e6 // size))
    corpus = [text for _, _, text in shapes(25)]
    planted, since = [], 0
    for index, text in enumerate(plain):
        since += len(text)
        if since > 50_000:
            text, since = text + "\n" + corpus[index % len(corpus)], 0
        planted.append(text)
    files = {}
    for name, texts in (("fixtures", plain), ("fixtures+corpus", planted)):
        files[name] = workdir / f"redact-{name}.json"
        files[name].write_text(json.dumps(texts))
    return files


def run(src: Path, path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    done = subprocess.run([sys.executable, "-c", WORKER, str(path)], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout's src/")
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    workdir = ROOT / "bench" / "results"
    workdir.mkdir(parents=True, exist_ok=True)
    report = {}
    for name, path in inputs(args.mb, workdir).items():
        ours, base = [], []
        for _ in range(args.repeat):
            ours.append(run(ROOT / "src", path))
            base.append(run(args.baseline.resolve(), path))
        med = {label: {"mb_s": round(statistics.median(r["mb_s"] for r in rows), 2),
                       "load_s": round(statistics.median(r["load_s"] for r in rows), 3),
                       "changed": rows[0]["changed"]}
               for label, rows in (("this", ours), ("baseline", base))}
        med["mb"] = round(ours[0]["mb"], 1)
        med["ratio"] = round(med["this"]["mb_s"] / med["baseline"]["mb_s"], 2)
        report[name] = med
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
