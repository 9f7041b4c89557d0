#!/usr/bin/env python3
"""A small transaction on a big memory store: what one outer ``transaction()`` costs.

The memory store deep-copied every table at the start of each outer transaction; it now keeps
an undo journal of the rows the transaction changes (``store.memory_journal``). This builds a
memory store of ``--facts`` facts, then times transactions that each write a little (a mark, an
invalidation, a reinforcement, one new fact), committed and rolled back, for two source trees
run in turn in fresh processes (base, candidate, base, ...), so load hits both alike, and prints
each tree's median per transaction and the ratio.

    python bench/bench_memory_transaction.py --base /tmp/base/src --candidate src [--facts 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def child(facts: int, transactions: int) -> dict[str, float]:
    """In a process whose ``claimgraph`` is the tree measured: median ms per transaction."""
    from claimgraph.store.memory import MemoryStore

    store = MemoryStore()
    with store.transaction():
        for n in range(1000):
            store.insert_entity({"id": f"e-{n}", "name": f"name-{n}", "scope": "proj"})
        store.insert_facts({
            "id": f"f-{i:06d}", "subject": f"e-{i % 1000}", "predicate": "core/uses",
            "object_kind": "literal", "object_ref": None, "object_lit": f"value {i}",
            "t_valid": 1000 + i, "t_invalid": None, "recorded_at": 1000 + i,
            "last_reinforced_at": None, "confidence": 0.8, "epistemic": "observation",
            "scope": "proj", "source_type": "session-log", "episode": None, "conflicts": [],
            "invalidation_reason": None, "invalidation_kind": None, "successor": None,
            "evidence": []} for i in range(facts))
    timed: dict[str, list[float]] = {"commit": [], "rollback": []}
    for n in range(transactions):
        for kind in timed:
            started = time.perf_counter()
            try:
                with store.transaction():
                    store.set_mark("bench", n)
                    store.invalidate(f"f-{n:06d}", 10**9)
                    store.reinforce(f"f-{n + 1:06d}", 10**9, 0.9)
                    store.insert_fact({**store.get_fact(f"f-{n:06d}"), "id": f"g-{kind}-{n}",
                                       "subject": "e-0", "object_ref": None})
                    if kind == "rollback":
                        raise RuntimeError("rolled back")
            except RuntimeError:
                pass
            timed[kind].append((time.perf_counter() - started) * 1000)
    return {kind: statistics.median(ms) for kind, ms in timed.items()}


def run(src: str, facts: int, transactions: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    done = subprocess.run([sys.executable, __file__, "--child", "--facts", str(facts),
                           "--transactions", str(transactions)], env=env, check=True,
                          capture_output=True, text=True, timeout=1800)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base")
    parser.add_argument("--candidate")
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--transactions", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.facts, args.transactions)))
        return 0
    if not (args.base and args.candidate):
        parser.error("--base and --candidate name the two source trees")
    seen: dict[str, list[dict[str, float]]] = {"base": [], "candidate": []}
    for _ in range(args.rounds):
        for name in seen:
            seen[name].append(run(getattr(args, name), args.facts, args.transactions))
    print(f"{args.facts:,} facts, {args.transactions} transactions of each kind a round, "
          f"{args.rounds} rounds; load {os.getloadavg()[0]:.2f}")
    for kind in ("commit", "rollback"):
        base = statistics.median(r[kind] for r in seen["base"])
        cand = statistics.median(r[kind] for r in seen["candidate"])
        print(f"{kind:9} base {base:9.3f} ms  candidate {cand:9.3f} ms  "
              f"base/candidate {base / cand:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
