"""A Gemini JSONL session read piece by piece, as captures of a resumed session read it:
with the state the mark keeps (``resume``) and, as before it existed, replaying the head.

The input is ``bench_readers``' real-content Gemini session (``--mb`` MB, every copy with its
own ids), cut into ``--pieces`` parts at line boundaries; each read starts where the last one
ended, in-process, on a file grown to the next cut (as the agent appends). Printed: CPU
seconds of all the reads each way, beside the same-run baseline of one whole read of the
full file, and the ratio of each total to it (1.0 is the least any incremental reading can
cost; replaying the head grows with the number of pieces). The events of both ways are
compared, and must be the same.

Usage: .venv/bin/python bench/bench_gemini_resume.py [--mb 8] [--pieces 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_readers import synthetic  # noqa: E402

from claimgraph.capture.readers import read_transcript  # noqa: E402


def pieces_of(path: Path, pieces: int) -> list[int]:
    """Byte offsets where each piece ends (line boundaries), the last one the file's end."""
    data = path.read_bytes()
    cuts = []
    for i in range(1, pieces):
        cut = data.index(b"\n", len(data) * i // pieces) + 1
        cuts.append(cut)
    return [*cuts, len(data)]


def incremental(source: Path, cuts: list[int], keep_state: bool) -> tuple[float, list]:
    """CPU seconds of every read, and the events they gave (kind, line, text or call id)."""
    data = source.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / source.name
        offset, state, spent, events = 0, None, 0.0, []
        for cut in cuts:
            path.write_bytes(data[:cut])
            started = time.process_time()
            read = read_transcript(path, "gemini", offset,
                                   **({"resume": state} if keep_state and state else {}))
            spent += time.process_time() - started
            events += [(e.kind, e.line, e.text or e.call_id) for e in read.events]
            offset, state = read.end_offset, read.resume
    return spent, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=8)
    parser.add_argument("--pieces", type=int, default=20)
    args = parser.parse_args()
    source = synthetic("gemini-real-content", args.mb)
    cuts = pieces_of(source, args.pieces)
    started = time.process_time()
    whole = read_transcript(source, "gemini")
    whole_s = time.process_time() - started
    resumed_s, resumed = incremental(source, cuts, keep_state=True)
    replayed_s, replayed = incremental(source, cuts, keep_state=False)
    if resumed != replayed:
        raise SystemExit("the resumed reads gave other events than the replaying ones")
    print(json.dumps({"mb": round(source.stat().st_size / 1e6, 2), "pieces": args.pieces,
                      "events": len(resumed), "whole_read_events": len(whole.events),
                      "whole_read_cpu_s": round(whole_s, 3),
                      "resumed_cpu_s": round(resumed_s, 3),
                      "replaying_cpu_s": round(replayed_s, 3),
                      "resumed_x_whole": round(resumed_s / whole_s, 2),
                      "replaying_x_whole": round(replayed_s / whole_s, 2),
                      "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
