"""Where the viewer reads from: one store, opened read-only for each request, and its sidecars.

A request opens its own read-only connection (about 7 ms) rather than sharing one: every page
shows what the store holds now, requests may run on any worker thread, and a read-only open
can never create, migrate or write anything, whatever a page does.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

from claimgraph import logs
from claimgraph.core.shell import Shell, wall_clock_ms
from claimgraph.logic.briefing import DEFAULT_BUDGET_CHARS
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars


@dataclass(frozen=True)
class Source:
    """The store and the settings every page reads with."""

    db: Path
    environ: Mapping[str, str] = field(default_factory=dict)
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    budget_chars: int = DEFAULT_BUDGET_CHARS
    clock: Callable[[], int] = wall_clock_ms

    @contextmanager
    def shell(self) -> Iterator[Shell]:
        store = open_store(self.db, read_only=True)
        try:
            yield Shell(store, clock=self.clock, half_life_days=self.half_life_days)
        finally:
            store.close()

    @property
    def sidecars(self) -> Sidecars:
        return Sidecars(self.db)

    def log_paths(self) -> dict[str, Path]:
        return logs.log_paths(self.db)


class NotFound(Exception):
    """A page names something the store does not hold (a project, a fact): a 404."""


class BadRequest(Exception):
    """A parameter that is not one of the values it may take: a 400, said in one line."""
