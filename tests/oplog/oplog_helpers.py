"""Writers and replicas for the oplog tests: real stores, real log files, a random workload.

A writer is a store wrapped in the oplog's LoggedStore with its own id and clock; its log
lands in ``<db>.oplog/<writer>.jsonl`` like a user's. Random work goes through the shell
(asserts, invalidations, reinforcements, entity renames and merges), so the logs hold what
real use writes. ``deliver`` copies log bytes into a replica's ``<db>.oplog/`` the way a file
sync might: in any order, more than once, and cut anywhere (a torn last line).
"""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path
from typing import Any

from claimgraph.core import Shell
from claimgraph.core import entities as ents
from claimgraph.core import portable
from claimgraph.core import writes
from claimgraph.core.vocabulary import seed
from claimgraph.errors import ClaimgraphError
from claimgraph.opening import open_store
from claimgraph.oplog.files import log_files, oplog_dir
from claimgraph.oplog.logged import LoggedStore
from claimgraph.oplog.own_log import OwnLog
from claimgraph.oplog.reconcile import reconcile
from claimgraph.store.memory import MemoryStore

START_MS = 1_767_225_600_000  # 2026-01-01
SUBJECTS = [f"svc-{n}" for n in range(12)] + ["Auth Service", "auth_service", "Kuzu"]
LITERALS = ["uv", "pip", "poetry", "tabs", "spaces", "REST", "gRPC"]
PREDICATES = ["core/prefers", "core/depends-on", "core/decided-against", "core/tested-by"]


class Clock:
    """A writer's clock: moves forward by a random step on each read."""

    def __init__(self, rng: random.Random, start: int = START_MS) -> None:
        self.rng, self.now = rng, start

    def __call__(self) -> int:
        self.now += self.rng.randint(1, 50)
        return self.now


class Replica:
    """One store (SQLite file or memory) with a log directory beside its path."""

    def __init__(self, root: Path, name: str, kind: str = "sqlite", seed_rng: int = 0) -> None:
        self.name, self.db = name, root / name / "claims.db"
        self.db.parent.mkdir(parents=True, exist_ok=True)
        inner = (open_store(self.db).inner if kind == "sqlite" else MemoryStore())
        self.clock = Clock(random.Random(seed_rng))
        self.store = LoggedStore(inner, OwnLog(oplog_dir(self.db), name, clock=self.clock))
        counter = itertools.count(1)
        self.sh = Shell(self.store, clock=self.clock,
                        new_id=lambda prefix: f"{prefix}-{name}-{next(counter):05d}")

    def sync(self, **options: Any) -> dict[str, Any]:
        report = reconcile(self.store, self.db, **options)
        self.sh.forget_predicates()
        return report

    def dump(self) -> str:
        return "\n".join(portable.dump_lines(Shell(self.store.inner)))

    def log_dir(self) -> Path:
        return oplog_dir(self.db)

    def close(self) -> None:
        self.store.close()


def random_work(writer: Replica, rng: random.Random, count: int) -> None:
    """``count`` random operations through the shell; refusals are part of the workload."""
    seed(writer.sh)
    for _ in range(count):
        try:
            _one_operation(writer.sh, rng)
        except ClaimgraphError:
            pass


def _one_operation(sh: Shell, rng: random.Random) -> None:
    roll = rng.random()
    if roll < 0.62:
        predicate = rng.choice(PREDICATES)
        obj = rng.choice(SUBJECTS) if predicate == "core/depends-on" else rng.choice(LITERALS)
        writes.assert_fact(sh, rng.choice(SUBJECTS), predicate, obj, scope="proj",
                           on_conflict=rng.choice([None, "supersede", "flag"]))
        return
    valid = sh.store.select_facts(valid_cheap=True)
    if roll < 0.78 and valid:
        writes.invalidate(sh, rng.choice(valid)["id"], reason="changed")
    elif roll < 0.86 and valid:
        writes.reinforce(sh, rng.choice(valid)["id"])
    elif roll < 0.94:
        entity = _random_entity(sh, rng)
        if entity:
            ents.rename(sh, entity["name"], f"{entity['name']}-v{rng.randint(1, 9)}", "proj")
    else:
        first, second = _random_entity(sh, rng), _random_entity(sh, rng)
        if first and second and first["id"] != second["id"]:
            ents.merge(sh, first["name"], second["name"], "proj")


def _random_entity(sh: Shell, rng: random.Random) -> dict[str, Any] | None:
    found = sh.store.list_entities(scope="proj")
    return rng.choice(found) if found else None


def exchange_all(source: Replica, target: Replica) -> None:
    """Copy every log the source holds into the target's log directory (a file sync)."""
    target.log_dir().mkdir(parents=True, exist_ok=True)
    for path in log_files(source.log_dir()):
        if path.name != f"{target.name}.jsonl":
            shutil.copyfile(path, target.log_dir() / path.name)


def deliver(target: Replica, path: Path, cut: int | None = None) -> None:
    """Put (a prefix of) one log into the target's directory, as a file sync would: the
    new bytes replace what the target held of that log only when they are longer."""
    data = path.read_bytes()
    data = data if cut is None else data[:cut]
    into = target.log_dir() / path.name
    target.log_dir().mkdir(parents=True, exist_ok=True)
    if not into.exists() or len(into.read_bytes()) < len(data):
        into.write_bytes(data)
