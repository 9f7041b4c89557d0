"""The core-semantics suite runs against every backend: memory, SQLite in memory, SQLite on disk,
and a PostgreSQL server (a private test cluster)."""

from __future__ import annotations

import itertools

import pytest

from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.logic.timeutil import DAY_MS, from_iso

START = from_iso("2026-01-01")


class SteppingClock:
    """A clock tests can read and move: each read is one millisecond after the last."""

    def __init__(self, start: int = START) -> None:
        self.now = start

    def __call__(self) -> int:
        self.now += 1
        return self.now

    def advance_days(self, days: float) -> None:
        self.now += int(days * DAY_MS)


def _make_store(kind: str, tmp_path, url=None):
    if kind == "postgres":
        from claimgraph.store.postgres import PostgresStore
        return PostgresStore(url)
    if kind == "memory":
        from claimgraph.store.memory import MemoryStore
        return MemoryStore()
    from claimgraph.opening import open_store
    return open_store(":memory:" if kind == "sqlite-memory" else str(tmp_path / "claims.db"))


@pytest.fixture(params=["memory", "sqlite-memory", "sqlite-file", "postgres"])
def shell(request, tmp_path):
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    store = _make_store(request.param, tmp_path, url)
    counter = itertools.count(1)
    sh = Shell(store=store, clock=SteppingClock(), new_id=lambda p: f"{p}-{next(counter):04d}")
    seed(sh)
    yield sh
    store.close()
