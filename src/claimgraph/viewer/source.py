"""Where the viewer reads from: one store, opened read-only, and its sidecars.

Every store the viewer reads through is opened read-only (it can never create, migrate or
write anything, whatever a page does). The small reads a page makes on every load (the
store's state, the facts it shows, which of a write's facts a filter keeps) borrow one of
a few stores kept open between requests (``Stores``) rather than opening their own: an open
costs about 7 ms on SQLite (a connection to the server on PostgreSQL), twenty pages at once
paid it twenty times over, and a kept connection sees every commit as a new one does (a
read outside a snapshot reads the newest state; the store drops its caches when another
connection has written). One is lent to one request at a time; one that failed is closed,
not kept; one open for ``Stores.max_age_s``, or opened on a file since replaced (another
inode at the path), is closed. A walk over a whole project or store (a placement made whole
or advanced, the projects page, time travel) opens its own and closes it, as every read did
before: SQLite keeps every page a connection read mapped until it closes.

Which state the store is in (``Source.state``) is its write counter (``Store.write_count``,
docs/store.md, "The write counter"), the same on every backend: the kept pages and
placements are keyed by it, so a write shows on the next page load on SQLite and on
PostgreSQL alike (the store file's size and modification time, read before, do not exist
on a server, and a checkpoint moved them without any write).
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from claimgraph import logs
from claimgraph.core.shell import Shell, wall_clock_ms
from claimgraph.logic.briefing import DEFAULT_BUDGET_CHARS
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars


#: Stores kept open between requests: as many as pages are built at once (``viewer.cache``).
KEPT_STORES = 2
#: A kept store is closed after this long: a burst of loads shares it, and what it keeps
#: mapped (every page it read: about 13 MB for 500 facts scattered over a 100,000-fact
#: store) is given back soon after.
STORE_MAX_AGE_S = 5.0


def file_key(db: Path) -> tuple[int, int] | None:
    """(device, inode) of the store's file: another one means the file was replaced. None
    for a server store (its stand-in is no database) or a missing file."""
    try:
        st = os.stat(db)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


@dataclass
class _Kept:
    store: Any
    key: tuple[int, int] | None
    opened: float


class Stores:
    """Read-only stores of one database kept open between requests, each lent to one
    request at a time. One that has been open ``max_age_s`` is closed when it comes back, or
    by a sweep as often while it waits unused (what it keeps mapped is given back soon after
    the last load)."""

    def __init__(self, kept: int = KEPT_STORES, max_age_s: float = STORE_MAX_AGE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.kept, self.max_age_s, self.clock = kept, max_age_s, clock
        self._lock = threading.Lock()
        self._idle: list[_Kept] = []
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None
        self.opened = 0

    def take(self, db: Path) -> _Kept:
        key, found, stale = file_key(db), None, []
        with self._lock:
            while self._idle and found is None:
                kept = self._idle.pop()
                if kept.key == key and not self._old(kept):
                    found = kept
                else:
                    stale.append(kept)
        for kept in stale:  # not under the lock: SQLite's last connection out folds the WAL
            kept.store.close()
        if found is not None:
            return found
        store = open_store(db, read_only=True)
        self.opened += 1
        return _Kept(store, key, self.clock())

    def give(self, kept: _Kept, failed: bool) -> None:
        with self._lock:
            if not failed and not self._old(kept) and len(self._idle) < self.kept:
                self._idle.append(kept)
                self._sweeping()
                return
        kept.store.close()

    def sweep(self) -> None:
        """Close the waiting stores that are too old."""
        with self._lock:
            old = [kept for kept in self._idle if self._old(kept)]
            self._idle = [kept for kept in self._idle if not self._old(kept)]
        for kept in old:
            kept.store.close()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            idle, self._idle = self._idle, []
        for kept in idle:
            kept.store.close()

    def _old(self, kept: _Kept) -> bool:
        return self.clock() - kept.opened >= self.max_age_s

    def _sweeping(self) -> None:
        """Start the sweep once (the lock is held)."""
        if self._sweeper is None:
            self._sweeper = threading.Thread(target=self._sweep_until_closed,
                                             name="viewer-stores-sweep", daemon=True)
            self._sweeper.start()

    def _sweep_until_closed(self) -> None:
        while not self._stop.wait(self.max_age_s):
            self.sweep()


@dataclass(frozen=True)
class Source:
    """The store and the settings every page reads with."""

    db: Path
    environ: Mapping[str, str] = field(default_factory=dict)
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    budget_chars: int = DEFAULT_BUDGET_CHARS
    clock: Callable[[], int] = wall_clock_ms
    stores: Stores = field(default_factory=Stores, compare=False, repr=False)
    state_stores: Stores = field(default_factory=lambda: Stores(kept=1), compare=False,
                                 repr=False)
    state_lock: Any = field(default_factory=threading.Lock, compare=False, repr=False)

    @contextmanager
    def shell(self, kept_open: bool = False) -> Iterator[Shell]:
        """A shell over the store, read-only. ``kept_open``: borrowed from the stores kept
        open (``Stores``), for the small reads a page makes on every load (the facts it
        shows); else opened for this read and closed after it, as a walk over a whole
        project or store is: a SQLite connection keeps the pages it read mapped (``mmap``)
        until it closes, and a kept one would hold a whole store's worth of them in the
        viewer's resident memory."""
        if not kept_open:
            store = open_store(self.db, read_only=True)
            try:
                yield Shell(store, clock=self.clock, half_life_days=self.half_life_days)
            finally:
                store.close()
            return
        with self._lent(self.stores) as store:
            yield Shell(store, clock=self.clock, half_life_days=self.half_life_days)

    @contextmanager
    def _lent(self, stores: Stores) -> Iterator[Any]:
        kept = stores.take(self.db)
        failed = True
        try:
            yield kept.store
            failed = False
        except (NotFound, BadRequest):  # the page's answer, not the store's failure
            failed = False
            raise
        finally:
            stores.give(kept, failed)

    def state(self) -> tuple[Any, ...]:
        """(write counter, file): what moves whenever a write commits, the store's write
        counter on every backend, and which file the store is (``file_key``; None on a
        server): a store replaced by another holds other facts, whatever its counter says.
        Every load asks, twice: one store of its own answers, one reader at a time (one
        mark read: microseconds), so a burst of loads never opens a store to ask."""
        with self.state_lock, self._lent(self.state_stores) as store:
            return (store.write_count(), file_key(self.db))

    def close(self) -> None:
        """Close the stores kept open (the viewer stops)."""
        self.stores.close()
        self.state_stores.close()

    @property
    def sidecars(self) -> Sidecars:
        return Sidecars(self.db)

    def log_paths(self) -> dict[str, Path]:
        return logs.log_paths(self.db)


class NotFound(Exception):
    """A page names something the store does not hold (a project, a fact): a 404."""


class BadRequest(Exception):
    """A parameter that is not one of the values it may take: a 400, said in one line."""
