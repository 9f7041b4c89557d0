"""The store the scaling bench grows: bench_curate's shape at any size, cached by store_cache.

Facts come from ``workload.make_items`` with a preference on one fact in fifty (conflict
candidates for the sweep), ingested in episodes of 500 stamped an hour in the past (history to
an incremental curator pass, not the last minutes' captures), then 1 % of them repeated
(duplicates for the collapse). Size 0 is a store with only the seeded vocabulary.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from store_cache import cached_store  # noqa: E402

KIND = "scaling"


def build_scaling_store(db: Path, n: int) -> None:
    """Deterministic content (seeded workload); ids and times come from the shell."""
    from claimgraph.core import Shell
    from claimgraph.core.ingest import ingest
    from claimgraph.core.vocabulary import seed
    from claimgraph.opening import open_store
    from workload import make_items

    hour, episode = 3_600_000, 500
    store = open_store(db)
    sh = Shell(store, clock=lambda: time.time_ns() // 1_000_000 - hour)
    seed(sh)
    items = make_items(n, 7) if n else []
    for i in range(0, n, 50):
        items[i] = {"subject": items[i]["subject"], "predicate": "prefers",
                    "object": "tabs" if i % 100 else "spaces"}
    for start in range(0, n, episode):
        ingest(sh, items[start:start + episode])
    repeated = sh.store.select_facts()[::100]
    with sh.store.transaction():
        for fact in repeated:
            sh.store.insert_fact({**fact, "id": sh.new_id("f"), "conflicts": [],
                                  "recorded_at": fact["recorded_at"] + 1})
    store.close()


def scaling_store(n: int, rebuild: bool = False) -> Path:
    return cached_store(KIND, n, build_scaling_store, rebuild)


if __name__ == "__main__":
    for size in [int(a) for a in sys.argv[1:]] or [0, 10_000, 100_000, 1_000_000]:
        print(scaling_store(size))
