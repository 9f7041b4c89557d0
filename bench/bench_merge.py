"""Reading N assistant lines that share ONE message id (one message streamed block by block),
beside the same N lines with N distinct ids (the baseline, measured in the same run).

Before issue 10 the shared-id case re-joined the whole text at every line (quadratic: 31-51 s
for 20,000 lines); merged once at the end it should cost about what the baseline costs.

Usage: .venv/bin/python bench/bench_merge.py [--lines 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from claimgraph.capture.readers import read_transcript


def write(path: Path, lines: int, shared: bool) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for n in range(lines):
            out.write(json.dumps({
                "type": "assistant", "uuid": f"u{n}", "sessionId": "s", "cwd": "/w",
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"id": "msg-one" if shared else f"msg-{n}", "role": "assistant",
                            "content": [{"type": "text", "text": f"part {n} " + "x" * 60}]}})
                      + "\n")


def timed(path: Path) -> float:
    started = time.perf_counter()
    read_transcript(str(path), "claude-code")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shared, distinct = Path(tmp) / "shared.jsonl", Path(tmp) / "distinct.jsonl"
        write(shared, args.lines, True)
        write(distinct, args.lines, False)
        runs = [(timed(shared), timed(distinct)) for _ in range(args.repeat)]
    one = statistics.median(r[0] for r in runs)
    base = statistics.median(r[1] for r in runs)
    print(json.dumps({"lines": args.lines, "shared_id_s": round(one, 3),
                      "distinct_ids_s": round(base, 3), "ratio": round(one / base, 2)}))


if __name__ == "__main__":
    main()
