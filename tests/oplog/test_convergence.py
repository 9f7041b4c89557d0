"""Convergence: replicas that hold the same log lines hold the same store, byte for byte.

Writers do random work through the shell (asserts, invalidations, reinforcements, entity
renames and merges) and sync with each other now and then, so their logs depend on each
other. Replicas then receive the logs in a random order, cut at random points (a torn last
line), more than once, reconciling after every delivery; once everything has arrived,
every replica's dump is the same text (writers are not compared since the trust rules:
each holds its own effects on teammates' facts, which the others refuse).

The big run (5 writers x 2,000 operations) is marked ``slow``: CI runs it once
(CLAIMGRAPH_SKIP_SLOW=1 skips it in its second pass). It is one process with injected,
seeded clocks, so it is deterministic (the same seed gives the same dumps, run after run);
what it needs is CPU: about 85 CPU-seconds here, almost all of it the replays a messy
delivery forces (every replica folds every log again after each out-of-order delivery). The
suite's 120 s timeout is a hang guard sized for unit tests, and a run that gets a quarter
of a core on a loaded machine takes six minutes, so this test carries a guard of its own,
sized for its work rather than for an idle machine.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .oplog_helpers import Replica, deliver, exchange_all, random_work

#: A hang guard for the big run: ~14x its CPU time, so only a real hang trips it.
STRESS_TIMEOUT_S = 1200


def converge(root: Path, seed: int, writers: int, operations: int, replicas: int,
             rounds: int = 4) -> dict[str, str]:
    rng = random.Random(seed)
    team = [Replica(root, f"w{n}", seed_rng=seed * 31 + n) for n in range(writers)]
    for _ in range(rounds):
        for writer in team:
            random_work(writer, rng, operations // rounds)
        first, second = rng.sample(team, 2)
        exchange_all(first, second)
        second.sync()
    logs = [w.log_dir() / f"{w.name}.jsonl" for w in team]
    copies = [Replica(root, f"r{n}", kind="sqlite" if n % 2 == 0 else "memory")
              for n in range(replicas)]
    for replica in copies:
        _deliver_messily(replica, logs, rng)
    for writer in team:
        for log in logs:
            if log.parent != writer.log_dir():
                deliver(writer, log)
        writer.sync()
    # Replicas that hold the same lines hold the same graph. A writer is not compared: it
    # holds its own effects on teammates' facts (an invalidation, a supersession) that every
    # other store refuses, and its own facts as the user's while the others name it as their
    # source (docs/sync.md, "Trust"); the writers still sync everything, which must not fail.
    dumps = {r.name: r.dump() for r in copies}
    for replica in copies + team:
        replica.close()
    return dumps


def _deliver_messily(replica: Replica, logs: list[Path], rng: random.Random) -> None:
    """Every log twice, in a random order, half the time cut short; then all of them whole."""
    order = logs * 2
    rng.shuffle(order)
    for log in order:
        size = log.stat().st_size
        deliver(replica, log, rng.randint(0, size) if rng.random() < 0.5 else None)
        replica.sync()
    for log in logs:
        deliver(replica, log)
    report = replica.sync()
    assert report["effects"]["deferred"] == 0 and not report["stuck"]


def assert_identical(dumps: dict[str, str]) -> None:
    first_name, first = next(iter(dumps.items()))
    assert first.count("\n") > 20, "the workload wrote almost nothing"
    for name, text in dumps.items():
        assert text == first, f"{name} differs from {first_name}"


def test_three_writers_converge_on_every_replica(tmp_path):
    assert_identical(converge(tmp_path, seed=7, writers=3, operations=240, replicas=3))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), writers=st.integers(2, 4), operations=st.integers(8, 80))
def test_any_delivery_order_converges(tmp_path_factory, seed, writers, operations):
    root = tmp_path_factory.mktemp("converge")
    assert_identical(converge(root, seed, writers, operations, replicas=2, rounds=2))


@pytest.mark.slow
@pytest.mark.timeout(STRESS_TIMEOUT_S)
def test_five_writers_times_two_thousand_operations_converge(tmp_path):
    assert_identical(converge(tmp_path, seed=2026, writers=5, operations=2000, replicas=3))
