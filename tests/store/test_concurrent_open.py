"""Several processes opening a store that does not exist yet, at the same moment.

This is what a fresh install sees when a few agents end their sessions together: every
SessionEnd hook's capture opens (creates, switches to WAL, migrates) the same new file. Each
must get a working store; before the fix one in nine rounds lost a process to "database is
locked" (the switch to WAL does not wait), to "not a claimgraph store" (the version and the
tables were read as two snapshots, with another process's migration committed between them),
or, more rarely, to "malformed" (the lock-free identity read met a page mid-checkpoint).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest

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


def _unstamped_sqlite_file(path: Path) -> None:
    """A SQLite file with no tables and no application id yet: a store another process has
    just created and not yet migrated (the identity check must look inside it)."""
    import sqlite3
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.close()


def test_a_torn_identity_read_is_tried_again_not_called_corrupt(tmp_path, monkeypatch):
    """The identity check reads without locks, so another process's checkpoint can hand it a
    half-written page ("malformed"): once is a race, not damage."""
    from claimgraph.store import sqlite_db
    from claimgraph.store.sqlite import SqliteStore
    path = tmp_path / "claims.db"
    _unstamped_sqlite_file(path)
    real, torn = sqlite_db.SqliteDb._read_identity, []

    def torn_once(self):
        if not torn:
            torn.append(1)
            raise sqlite3.DatabaseError("database disk image is malformed")
        return real(self)

    monkeypatch.setattr(sqlite_db.SqliteDb, "_read_identity", torn_once)
    store = SqliteStore(path)
    assert torn and store.schema_version() == STORE_FORMAT
    store.close()


def test_a_file_that_stays_malformed_is_still_refused_as_corrupt(tmp_path, monkeypatch):
    from claimgraph.errors import ClaimgraphError
    from claimgraph.store import sqlite_db
    from claimgraph.store.sqlite import SqliteStore
    path = tmp_path / "claims.db"
    _unstamped_sqlite_file(path)
    reads = []

    def always_torn(self):
        reads.append(1)
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(sqlite_db.SqliteDb, "_read_identity", always_torn)
    with pytest.raises(ClaimgraphError) as refused:
        SqliteStore(path)
    assert refused.value.type == "corrupt-store" and len(reads) == sqlite_db.IDENTITY_TRIES
