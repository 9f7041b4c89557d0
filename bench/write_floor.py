"""The least per-fact Python a batch ingest that keeps today's oplog needs, timed piece by piece
on bench_write's 20k items (CPU µs a fact), beside the same-schema raw insert and our ingest in
the same run: what is left for deciding, resolving and plumbing if ours is to reach a ratio.

Usage: .venv/bin/python bench/write_floor.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))
import bench_write as B  # noqa: E402
from workload import make_items  # noqa: E402

from claimgraph.core.shell import uuid_ids  # noqa: E402
from claimgraph.logic import oplog as L  # noqa: E402
from claimgraph.logic.redact import redact  # noqa: E402
from claimgraph.oplog.baseline import fact_row  # noqa: E402

ENTITY = {"id": "e-1", "name": "x", "type": None, "scope": "project", "aliases": []}


def timed(label: str, n: int, work: Callable[[], Any]) -> tuple[Any, float]:
    """``work``'s result and its CPU µs per item, printed."""
    started = time.process_time()
    out = work()
    us = (time.process_time() - started) / n * 1e6
    print(f"{label:48s} {us:6.1f} us/fact")
    return out, us


def built(items: list[dict]) -> list[dict]:
    """One fact dict per item, every field, no checks (what build_fact makes)."""
    return [{"id": f"f-{i}", "subject": ENTITY, "predicate": it["predicate"],
             "object_kind": "literal", "object_ref": None, "object_lit": it["object"],
             "t_valid": 1764900000000 + i, "t_invalid": None, "recorded_at": 1764900000000 + i,
             "last_reinforced_at": 1764900000000 + i, "confidence": 0.7,
             "epistemic": "observation", "scope": "project", "source_type": "session-log",
             "episode": "ep-1", "conflicts": [], "invalidation_reason": None,
             "invalidation_kind": None, "successor": None, "evidence": [],
             "dormant_since": None} for i, it in enumerate(items)]


def main() -> None:
    redact("warm-up")
    items = make_items(20_000)
    n = len(items)
    texts = sorted({it["subject"] for it in items} | {str(it["object"]) for it in items})
    spent = [timed(f"redact each distinct text once ({len(texts)})", n,
                   lambda: [redact(x) for x in texts])[1],
             timed("mint one id per fact", n, lambda: [uuid_ids("f") for _ in items])[1]]
    facts, us = timed("build one fact dict per item (no checks)", n, lambda: built(items))
    spent.append(us)
    rows, us = timed("its oplog row (fact_row)", n, lambda: [fact_row(f, True) for f in facts])
    spent += [us, timed("the outbox's JSON of the rows", n, lambda: json.dumps(rows))[1],
              timed("each fact's log line (row_line)", n,
                    lambda: [L.row_line(r, "w-1", i, 5) for i, r in enumerate(rows)])[1]]
    with tempfile.TemporaryDirectory() as tmp:
        (_, ours_cpu), _ = B.shell_ingest(items, Path(tmp) / "c.db")
        _, raw_cpu = B.same_schema(B.written_rows(Path(tmp) / "c.db"), Path(tmp) / "raw.db")
    raw, ours, least = raw_cpu / n * 1e6, ours_cpu / n * 1e6, sum(spent)
    print(f"same-schema raw insert {raw:.1f} us/fact; our ingest {ours:.1f} "
          f"(ratio {raw / ours:.3f})")
    print(f"the pieces above {least:.1f} us/fact: raw + them gives {raw / (raw + least):.3f} at "
          f"best; 0.5 leaves {raw:.1f} us/fact for everything beyond the raw insert")


if __name__ == "__main__":
    main()
