"""``claimgraph curate``: the singleton curator's lease dance and its bounded passes.

The curation lease ``<db>.curate.lock`` is tried once (wait 0): a curator that finds a live
holder logs ``curate.skipped`` naming it, sets the dirty mark (``dirty.py``) and exits 0; the
holder will run once more for it. A dead or expired holder's lease is broken (logged as
``curate.lease-broken``) and taken.

Two races are closed explicitly. A skipper that sets the dirty mark after the holder's last
check would strand its work, so after setting it the skipper tries the lease once more; and a
holder re-checks the mark after releasing and, if set, tries to take the lease back. Passes
are bounded (``MAX_PASSES``); a mark still set after that stays for the next curator, which
every capture starts anyway.

Before its first pass the curator runs SQLite's ``quick_check``: a damaged store gets the
``<db>.damaged`` flag, which stops every writer with a clear message until ``claimgraph doctor``
finds it sound again, and no stage runs. The check reads the whole file (2 s at a million
facts, far more than an incremental pass), so it runs when the last clean one (store mark
``INTEGRITY_MARK``) is older than ``INTEGRITY_EVERY_MS``, or unknown, not after every capture;
``claimgraph doctor`` checks on demand.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import structlog

from claimgraph import lease
from claimgraph.core import Shell
from claimgraph.core import tombstones
from claimgraph.curator.dirty import DirtyMark
from claimgraph.curator.stage_tools import Fence, LeaseLost, PurgedMeanwhile, StageTools
from claimgraph.curator.stages import STAGE_NAMES, run_stage, stage_table
from claimgraph.errors import ClaimgraphError
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars, atomic_write_text
from claimgraph.store import leases

log = structlog.get_logger("claimgraph.curate")
MAX_PASSES = 3
INTEGRITY_MARK = "curator:integrity-checked"
INTEGRITY_EVERY_MS = 24 * 3_600_000


@dataclass
class Options:
    db: Path
    stages: Sequence[str] = STAGE_NAMES
    dry_run: bool = False
    lease_wait_ms: int = lease.DEFAULT_WAIT_MS
    lease_ttl_ms: int = lease.DEFAULT_TTL_MS
    half_life_days: float | None = None
    environ: Mapping[str, str] = field(default_factory=dict)
    max_passes: int = MAX_PASSES


@dataclass
class Run:
    """What the run has done so far, across lease holdings."""

    run_id: str
    options: Options
    passes: int = 0
    status: str = "ok"
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)

    def result(self) -> dict[str, Any]:
        return {"status": self.status, "run_id": self.run_id, "passes": self.passes,
                "stages": self.stages}


def now_ns() -> int:
    return time.time_ns()


def curate(options: Options, run_id: str) -> dict[str, Any]:
    """One curator process: take the lease or leave a dirty mark; run; release; exit."""
    log.info("curate.started", db=str(options.db), stages=list(options.stages),
             dry_run=options.dry_run)
    run = Run(run_id, options)
    if options.dry_run:
        _pass(run, None)
        return run.result()
    held = _try_lease(options)
    if isinstance(held, dict):
        return _skip(run, held)
    _serve(run, held)
    return run.result()


def _serve(run: Run, held: lease.Lease | None) -> None:
    """Hold, release, and take the lease back if a skipper's mark arrived after our last look."""
    while held is not None:
        _hold(run, held)
        if run.status in ("lease-lost", "damaged") or run.passes >= run.options.max_passes:
            return
        again = _try_lease(run.options) if DirtyMark(run.options.db).is_set() else None
        held = again if isinstance(again, lease.Lease) else None


def _try_lease(options: Options) -> lease.Lease | dict[str, Any]:
    """The lease, or the live holder in the way."""
    try:
        held = leases.curation_lease(options.db, lease.CURATOR_OWNER, ttl_ms=options.lease_ttl_ms)
    except ClaimgraphError as err:
        if err.type != "store-locked":
            raise
        return err.data.get("holder") or {}
    if held.broken:
        log.warning("curate.lease-broken", holder=held.broken, reason=held.broken.get("reason"))
    log.info("curate.lease-acquired", lock=str(held.path), token=held.token, at_ns=now_ns(),
             broken=held.broken)
    return held


def _skip(run: Run, holder: dict[str, Any]) -> dict[str, Any]:
    """Leave the mark, then try once more in case the holder finished before seeing it."""
    log.info("curate.skipped", holder=holder, reason="another curator holds the lease")
    at_ns = now_ns()  # taken before the mark exists: a holder's pass that clears it is later
    DirtyMark(run.options.db).set(run.run_id, at_ns // 1_000_000)
    log.info("curate.dirty-set", path=str(DirtyMark(run.options.db).path), at_ns=at_ns)
    held = _try_lease(run.options)
    if isinstance(held, dict):
        return {**run.result(), "status": "already-running", "holder": holder}
    _serve(run, held)
    return run.result()


def _hold(run: Run, held: lease.Lease) -> None:
    """Passes while the dirty mark keeps being set (bounded), then release."""
    held.on_lost = lambda lost: log.error("curate.lease-lost", lock=str(lost.path))
    dirty = DirtyMark(run.options.db)
    try:
        while run.passes < run.options.max_passes:
            cleared = dirty.clear()
            if run.passes and cleared:
                log.info("curate.dirty-pass", set_by=cleared)
            _pass(run, held)
            if run.status in ("lease-lost", "damaged") or not dirty.is_set():
                break
        if dirty.is_set() and run.passes >= run.options.max_passes:
            log.warning("curate.dirty-left", passes=run.passes,
                        detail="pass limit reached; the next curator picks it up")
    finally:
        log.info("curate.lease-released", lock=str(held.path), at_ns=now_ns())
        held.release()


def _pass(run: Run, held: lease.Lease | None) -> None:
    """One pass over the selected stages, on a store opened for just this pass."""
    run.passes += 1
    options = run.options
    log.info("curate.pass-started", n=run.passes, at_ns=now_ns())
    try:
        store = open_store(options.db, create=True)
    except ClaimgraphError as error:
        if error.type != "store-damaged":
            raise
        return _damaged(run, [error.message])
    checked = run.passes == 1 and not options.dry_run and _integrity_due(store)
    if checked and (problems := store.check_integrity(quick=True)):
        store.close()
        mark_damaged(options.db, problems, run.run_id)
        return _damaged(run, problems)
    try:
        sh = Shell(store) if options.half_life_days is None else Shell(
            store, half_life_days=options.half_life_days)
        fence = Fence(options.db, held, options.lease_wait_ms, options.lease_ttl_ms,
                      epoch=tombstones.epoch(store))
        if checked:
            _note_clean_check(sh, fence)
        ctx = StageTools(sh, fence, run.run_id, options.dry_run, options.environ)
        _run_stages(run, ctx)
    finally:
        store.close()
    log.info("curate.pass-finished", n=run.passes, status=run.status)


def _integrity_due(store: Any) -> bool:
    """No clean check within INTEGRITY_EVERY_MS (or the mark cannot even be read)."""
    try:
        last = store.get_mark(INTEGRITY_MARK)
    except Exception:  # a damaged file may fail here already: then check it
        return True
    return not isinstance(last, int) or time.time_ns() // 1_000_000 - last >= INTEGRITY_EVERY_MS


def _note_clean_check(sh: Shell, fence: Fence) -> None:
    """Record the clean check; a lost lease or a purge is left for the stages to meet."""
    try:
        with fence.writing(sh):
            sh.store.set_mark(INTEGRITY_MARK, sh.now())
    except (LeaseLost, PurgedMeanwhile):
        pass


def mark_damaged(db: Path, problems: list[str], found_by: str) -> None:
    """Leave the flag that stops every writer (``store.open``) until ``doctor`` clears it."""
    flag = Sidecars(db).damaged
    atomic_write_text(flag, json.dumps({"problems": problems, "found_by": found_by,
                                        "at": time.time_ns() // 1_000_000}) + "\n")


def _damaged(run: Run, problems: list[str]) -> None:
    """The store failed ``quick_check``: no stage runs, no curator writes on (module doc)."""
    run.status = "damaged"
    run.stages["integrity"] = {"status": "error", "problems": problems[:5]}
    log.error("curate.store-damaged", problems=problems[:5],
              hint="run `claimgraph doctor`; writes are stopped until it finds the store sound")


def _run_stages(run: Run, ctx: StageTools) -> None:
    table = stage_table()
    for name in [n for n in table if n in run.options.stages]:
        try:
            outcome = run_stage(name, table[name], ctx)
        except LeaseLost as lost:
            log.error("curate.stopped", reason="lease-lost", detail=str(lost), stage=name)
            run.status = "lease-lost"
            return
        except PurgedMeanwhile:
            log.info("curate.purge-seen", stage=name, detail="a purge ran; planning again")
            DirtyMark(run.options.db).set(run.run_id, time.time_ns() // 1_000_000)
            return
        run.stages[name] = merge_outcome(run.stages.get(name), outcome)
        if outcome["status"] == "error":
            run.status = "partial"


def merge_outcome(before: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any]:
    """A stage's report over several passes: numbers summed, an error in any pass kept."""
    if before is None:
        return dict(now)
    counts = dict(before.get("counts") or {})
    for key, value in (now.get("counts") or {}).items():
        summable = isinstance(value, int) and isinstance(counts.get(key), int)
        counts[key] = counts[key] + value if summable else value
    status = "error" if "error" in (before["status"], now["status"]) else now["status"]
    merged = {**before, **now, "status": status, "counts": counts}
    merged["duration_ms"] = before.get("duration_ms", 0) + now.get("duration_ms", 0)
    return merged
