"""Pages worth keeping for a moment: one build per page and store state, however many ask.

A project's page on a big store costs one query over all its facts (``Store.context_sections``):
hundreds of milliseconds at 100,000 facts, and twenty people (or tabs, or a reload storm) asking
at once would run it twenty times over, each with its own connection, sort and page cache. So
a page is built once per key — the page's parameters and the store's state (its write
counter, ``Source.state``: every commit that changed anything moves it) — and
whoever asks while it is built waits for that build (a single flight); builds run on a pool of
``builds`` threads of their own, so at most that many run at once and only those threads'
allocator arenas ever hold a build's memory (glibc keeps an arena per thread at its high-water
mark: builds spread over the server's forty request threads left 350 MB behind).

A kept page is served for at most ``ttl_s`` seconds (effective confidence decays with time, so
a page is rebuilt at least that often even when nothing was written) and shows the instant it
was built, as every page does. A cache made with ``refresh_s`` keeps serving an entry that old
(up to ``refresh_s``) while ONE rebuild runs in the background, so no reader waits for a
rebuild that only the clock asked for; a write to the store changes the key, and the first
reader after it waits for the new build as before (the project placements use this; their
builds after the first advance the last placement by what the write touched: ``viewer.advance``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

DEFAULT_TTL_S = 30.0
DEFAULT_SIZE = 16
DEFAULT_BUILDS = 2


@dataclass
class _Flight:
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None


class PageCache:
    def __init__(self, ttl_s: float = DEFAULT_TTL_S, size: int = DEFAULT_SIZE,
                 builds: int = DEFAULT_BUILDS,
                 clock: Callable[[], float] = time.monotonic,
                 refresh_s: float | None = None) -> None:
        self.ttl_s, self.size, self.clock = ttl_s, size, clock
        self.refresh_s = refresh_s
        self._lock = threading.Lock()
        self._kept: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self._flights: dict[Hashable, _Flight] = {}
        self._builds = ThreadPoolExecutor(max_workers=builds, thread_name_prefix="page-build")
        self.built = 0

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The kept page for ``key``, else the one being built, else ``build()``'s. A build
        that fails is not kept: whoever waited for it gets its error."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                made, page = kept
                age = self.clock() - made
                if age < self.ttl_s:
                    self._kept.move_to_end(key)
                    return page
                if self.refresh_s is not None and age < self.refresh_s:
                    self._kept.move_to_end(key)
                    if key not in self._flights:  # one background rebuild; readers keep reading
                        self._flights[key] = _Flight()
                        self._builds.submit(self._refresh, key, build)
                    return page
            flight = self._flights.get(key)
            leader = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
        if not leader:
            flight.done.wait()
            if flight.error is not None:
                raise flight.error
            return flight.value
        try:
            flight.value = self._builds.submit(build).result()
            self.built += 1
        except BaseException as err:
            flight.error = err
            raise
        else:
            with self._lock:
                self._keep(key, flight.value)
            return flight.value
        finally:
            with self._lock:
                self._flights.pop(key, None)
            flight.done.set()

    def drop(self, stale: Callable[[Hashable], bool]) -> None:
        """Forget the kept entries whose key ``stale`` names (those of an older store state:
        nobody asks for them again, and a placement holds every id of a project)."""
        with self._lock:
            for key in [k for k in self._kept if stale(k)]:
                del self._kept[key]

    def _refresh(self, key: Hashable, build: Callable[[], Any]) -> None:
        """A background rebuild of a kept entry: replaces it when it succeeds; a failure
        leaves the old one to age out (the next reader past ``refresh_s`` builds again)."""
        flight = self._flights[key]
        try:
            flight.value = build()
            self.built += 1
            with self._lock:
                self._keep(key, flight.value)
        except BaseException as err:  # noqa: BLE001 - a reader past refresh_s will see it
            flight.error = err
        finally:
            with self._lock:
                self._flights.pop(key, None)
            flight.done.set()

    def _keep(self, key: Hashable, value: Any) -> None:
        self._kept[key] = (self.clock(), value)
        self._kept.move_to_end(key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)
