"""What a curator stage is handed: the shell, the fenced write, and the test-only pause.

Writes go through ``Fence.writing``: the fencing check (our curation lease token is still in
the lease file), then the write lease ``<db>.lock`` for one short store transaction. A stage
never holds the write lease across its planning reads, so captures wait milliseconds, not a
whole pass. Losing the curation lease raises ``LeaseLost``, which ends the run.

This module sits below the stages (``consolidate``, ``judge``, ``upkeep``) and the stage table
(``stages``) imports them, so nothing here may import a stage: that was the circle the table
used to close through lazy imports.

Test hook: ``CLAIMGRAPH_TEST_CURATE_PAUSE=<point>[:<seconds>]`` makes the curator log
``curate.test-paused`` and sleep at that point (a stage name; ``planned`` right after the
consolidate stage chose its facts; ``collapse`` inside a collapse transaction, after its first
group), so a test can kill -9 it mid-run. With ``CLAIMGRAPH_TEST_CURATE_RESUME=<path>`` as
well, the pause ends as soon as that file exists: a test that needs the curator held at a point
while something else happens opens the gate itself instead of betting on a sleep outlasting
the other side (which a loaded machine loses). Unset in production.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import structlog

from claimgraph import lease
from claimgraph.core import Shell
from claimgraph.core import tombstones
from claimgraph.store import leases

log = structlog.get_logger("claimgraph.curate")
PAUSE_ENV = "CLAIMGRAPH_TEST_CURATE_PAUSE"
RESUME_ENV = "CLAIMGRAPH_TEST_CURATE_RESUME"
RESUME_POLL_S = 0.02
DEFAULT_PAUSE_S = 3600.0


class LeaseLost(Exception):
    """The curation lease no longer carries our token: another curator took over."""


class PurgedMeanwhile(Exception):
    """A purge ran since this pass read the store: what it planned may name purged facts
    (a verdict quoting them, a summary describing them), so the pass stops and runs again."""


@dataclass
class Fence:
    """Write transactions fenced by the curation lease and serialized by the write lease."""

    db: Any
    curation: lease.Lease | None
    wait_ms: int = lease.DEFAULT_WAIT_MS
    ttl_ms: int = lease.DEFAULT_TTL_MS
    writes: int = 0
    epoch: Any = None  # the purge epoch when the pass began (core.tombstones)

    def check(self) -> None:
        if self.curation is not None and not self.curation.still_held():
            raise LeaseLost(f"{self.curation.path.name} no longer carries our token")

    @contextmanager
    def writing(self, sh: Shell) -> Iterator[None]:
        """Fence check, write lease, one all-or-nothing transaction (then the lease goes)."""
        self.check()
        with leases.write_lease(self.db, lease.CURATOR_OWNER, self.wait_ms,
                               ttl_ms=self.ttl_ms) as held:
            if held.broken:
                log.warning("curate.write-lease-broken", holder=held.broken)
            self.check()  # the wait may have outlasted our curation lease
            with sh.store.transaction():
                if tombstones.epoch(sh.store) != self.epoch:
                    raise PurgedMeanwhile("a purge ran since this pass planned")
                yield
        self.writes += 1


@dataclass
class StageTools:
    """What a stage gets: the shell, the fence, and whether to write at all."""

    sh: Shell
    fence: Fence
    run_id: str
    dry_run: bool = False
    environ: Mapping[str, str] = field(default_factory=dict)

    def pause(self, point: str) -> None:
        """The test-only pause (module docstring); a no-op unless the env names this point."""
        wanted, _, seconds = (self.environ.get(PAUSE_ENV) or "").partition(":")
        if wanted != point:
            return
        log.info("curate.test-paused", point=point)
        limit = float(seconds) if seconds else DEFAULT_PAUSE_S
        gate = self.environ.get(RESUME_ENV)
        if not gate:
            time.sleep(limit)
            return
        deadline = time.monotonic() + limit
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(RESUME_POLL_S)
        log.info("curate.test-resumed", point=point)
