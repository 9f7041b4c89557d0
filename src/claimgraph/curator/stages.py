"""The curator's stage table and the containment around each stage.

Each stage is attempted on its own: an exception inside one is logged with its traceback and
reported as ``error`` while the others still run (the run is then ``partial``). The one thing
not contained is losing the curation lease: a curator that is no longer the curator must stop
writing at once, so ``LeaseLost`` ends the run (status ``lease-lost``).

What a stage is handed (``StageTools``, ``Fence``, the test pause) lives in
``stage_tools``, below the stages, so the stages never import the table that runs them.
"""

from __future__ import annotations

import time
import traceback
from typing import Any, Callable

import structlog

from claimgraph.curator.stage_tools import (
    PAUSE_ENV, RESUME_ENV, Fence, LeaseLost, PurgedMeanwhile, StageTools)

__all__ = ["PAUSE_ENV", "RESUME_ENV", "STAGE_NAMES", "Fence", "LeaseLost", "PurgedMeanwhile",
           "Stage", "StageTools", "run_stage", "stage_table"]

log = structlog.get_logger("claimgraph.curate")

Stage = Callable[[StageTools], dict[str, Any]]


def run_stage(name: str, stage: Stage, ctx: StageTools) -> dict[str, Any]:
    """One stage, timed and contained; only LeaseLost escapes."""
    started = time.monotonic()
    log.info("curate.stage-started", stage=name)
    ctx.pause(name)
    try:
        outcome = {"status": "ok", "counts": {}, **stage(ctx)}
    except (LeaseLost, PurgedMeanwhile):
        raise
    except Exception as err:
        outcome = {"status": "error", "counts": {}, "error": f"{type(err).__name__}: {err}"}
        log.error("curate.stage-failed", stage=name, error=outcome["error"],
                  traceback=traceback.format_exc())
    outcome["duration_ms"] = round((time.monotonic() - started) * 1000)
    log.info("curate.stage-finished", stage=name, **outcome)
    return outcome


def stage_table() -> dict[str, Stage]:
    """Every stage in run order.

    Imported here, not at the top: a curator that finds the lease held exits without ever
    loading the stages (and the model client they bring), which keeps a burst of skippers
    cheap. No cycle hides behind this: the stages import ``stage_tools``, not this module.
    """
    from claimgraph.curator.consolidate import consolidate
    from claimgraph.curator.shortlists import refresh_shortlists
    from claimgraph.curator.upkeep import audit, decay

    return {"consolidate": consolidate, "decay": decay, "audit": audit,
            "shortlists": refresh_shortlists}


#: ``shortlists`` last: it stamps what the stages before it wrote (curator/shortlists.py).
STAGE_NAMES = ("consolidate", "decay", "audit", "shortlists")
