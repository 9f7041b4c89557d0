"""Several processes opening a store that does not exist yet, at the same moment.

This is what a fresh install sees when a few agents end their sessions together: every
SessionEnd hook's capture opens (creates, switches to WAL, migrates) the same new file. Each
must get a working store; before the fix one in nine rounds lost a process to "database is
locked" (the switch to WAL does not wait) or to "not a claimgraph store" (the version and the
tables were read as two snapshots, with another process's migration committed between them).
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from claimgraph import STORE_FORMAT

PROCESSES = 6
ROUNDS = 30


def _open_at(path: str, start: float, results: "multiprocessing.Queue[str]") -> None:
    from claimgraph.store.sqlite import SqliteStore
    while time.time() < start:  # all of them at once
        pass
    try:
        store = SqliteStore(path)
        store.set_mark(f"opened-by-{multiprocessing.current_process().pid}", 1)
        results.put(f"ok {store.schema_version()}")
        store.close()
    except Exception as error:  # reported, so the assertion says which and why
        results.put(f"{type(error).__name__}: {getattr(error, 'type', '')} {error}")


def test_processes_creating_one_new_store_at_once_all_get_it(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    outcomes: list[str] = []
    for n in range(ROUNDS):
        path = str(tmp_path / f"claims-{n}.db")
        results = context.Queue()
        start = time.time() + 0.05
        children = [context.Process(target=_open_at, args=(path, start, results))
                    for _ in range(PROCESSES)]
        for child in children:
            child.start()
        outcomes += [results.get(timeout=60) for _ in children]
        for child in children:
            child.join(timeout=60)
    failures = [o for o in outcomes if o != f"ok {STORE_FORMAT}"]
    assert not failures, failures
    assert len(outcomes) == PROCESSES * ROUNDS
