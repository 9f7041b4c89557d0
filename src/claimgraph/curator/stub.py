"""``claimgraph curate`` until the curator lands: take the curation lease, log, release.

The lease is tried once (wait 0): a second curator never queues behind the first, because the
first will pick up whatever the second was started for. A live holder means ``curate.skipped``
naming the holder, and success (exit 0): being second is not a failure. A dead holder's lease is
broken and the break is logged. Each run logs JSON lines bound to its ``run_id``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import structlog

from claimgraph import lease
from claimgraph.errors import ClaimgraphError

log = structlog.get_logger("claimgraph.curate")


def new_run_id() -> str:
    return "cur-" + os.urandom(6).hex()


def curate(db: Path, run_id: str | None = None) -> dict[str, Any]:
    """One stub run: {status: "ok"|"already-running", run_id, holder?}."""
    run_id = run_id or new_run_id()
    structlog.contextvars.bind_contextvars(run_id=run_id)
    log.info("curate.started", db=str(db))
    try:
        held = lease.curation_lease(db, lease.CURATOR_OWNER)
    except ClaimgraphError as err:
        if err.type != "store-locked":
            raise
        holder = err.data.get("holder")
        log.info("curate.skipped", holder=holder, reason="another curator holds the lease")
        return {"status": "already-running", "run_id": run_id, "holder": holder}
    with held:
        log.info("curate.lease-acquired", lock=str(held.path), token=held.token,
                 broken=held.broken)
        log.info("curate.stub", detail="consolidation, decay and audit arrive with the curator")
    log.info("curate.lease-released", lock=str(held.path))
    return {"status": "ok", "run_id": run_id}
