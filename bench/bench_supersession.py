"""Supersession chains: how often search delivers a retired value first, or at all.

Generated, seeded: ``--chains`` subjects each get a value (``core/has-version`` or
``core/has-status``, both single-valued) changed N times (1..``--max-changes``) through the
write path, among ``--distractors`` unrelated facts (bench/workload.py). A share of chains
then has its current value forgotten (``--forget``): its predecessors stay retired, so the
chain has no live value and nothing of it may come first. Each chain is asked through the
search the CLI runs (limit 10) in a task's words ("which version of X do we pin").
Reported: chains where a retired (superseded or forgotten) value is the chain's first hit,
chains where one shows at all in the top 10, and chains whose current value is missing.

Usage: .venv/bin/python bench/bench_supersession.py [--chains 300] [--max-changes 6]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.reads import search  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402

ASKS = {"core/has-version": "which version of {s} do we pin",
        "core/has-status": "what is the status of {s} now"}


def chain_values(rng: random.Random, predicate: str, changes: int) -> list[str]:
    if predicate == "core/has-version":
        return [f"{rng.randrange(1, 9)}.{step}.{rng.randrange(20)}" for step in range(changes + 1)]
    states = ["planned", "in progress", "blocked on review", "shipped", "rolled back", "deprecated"]
    return [f"{states[step % len(states)]} (step {step})" for step in range(changes + 1)]


def run(chains: int, max_changes: int, distractors: int, forget_share: float, seed_: int) -> dict:
    from claimgraph.core.forget import forget
    rng = random.Random(seed_)
    stats = {"chains": chains, "retired_first": 0, "retired_shown": 0, "current_missing": 0,
             "forgotten_chains": 0}
    with tempfile.TemporaryDirectory() as tmp:
        sh = Shell(store=open_store(str(Path(tmp) / "chains.db")))
        seed(sh)
        ingest(sh, make_items(distractors, seed=seed_))
        plan = []
        for i in range(chains):
            predicate = rng.choice(sorted(ASKS))
            subject = f"service-{rng.choice(['auth', 'billing', 'search', 'ingest'])}-{i}"
            plan.append((subject, predicate, chain_values(rng, predicate, rng.randint(1, max_changes))))
        depth = max(len(values) for _, _, values in plan)
        for step in range(depth):  # a chain's changes arrive in separate batches, interleaved
            ingest(sh, [{"subject": s, "predicate": p, "object": values[step], "object_kind": "literal"}
                        for s, p, values in plan if step < len(values)])
        forgotten = set()
        for subject, predicate, values in plan:
            if rng.random() < forget_share:
                live = [f for f in sh.store.get_history(_entity_id(sh, subject), predicate)
                        if f.get("t_invalid") is None]
                forget(sh, [f["id"] for f in live], reason="bench: wrong value")
                forgotten.add(subject)
        stats["forgotten_chains"] = len(forgotten)
        for subject, predicate, values in plan:
            hits = [f for f in search(sh, ASKS[predicate].format(s=subject), limit=10)["facts"]
                    if (f.get("subject") or {}).get("name") == subject
                    and f.get("predicate") == predicate]
            current = None if subject in forgotten else values[-1]
            shown = [f.get("object_lit") for f in hits]
            retired = [v for v in shown if v != current]
            stats["retired_first"] += bool(shown) and shown[0] != current
            stats["retired_shown"] += bool(retired)
            stats["current_missing"] += current is not None and current not in shown
        sh.store.close()
    for key in ("retired_first", "retired_shown", "current_missing"):
        stats[key + "_rate"] = round(stats[key] / chains, 4)
    return stats


def _entity_id(sh: Shell, name: str) -> str:
    return sh.store.find_entities(name, None)[0]["id"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=300)
    parser.add_argument("--max-changes", type=int, default=6)
    parser.add_argument("--distractors", type=int, default=3000)
    parser.add_argument("--forget", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(run(args.chains, args.max_changes, args.distractors, args.forget, args.seed)))


if __name__ == "__main__":
    main()
