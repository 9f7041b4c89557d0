"""The curator's decay and audit stages: thin adapters from the stage table to the shell.

Both passes live in ``core`` (``core.decay``, ``core.audit_record``) so they can run without a
curator; here they get the curator's fenced write transactions, so every write they make is
checked against the curation lease and serialized by the write lease.
"""

from __future__ import annotations

from typing import Any

from claimgraph.config import load_settings
from claimgraph.core.audit_record import audit_pass
from claimgraph.core.decay import decay_pass
from claimgraph.curator.stage_tools import StageTools
from claimgraph.sidecar import Sidecars


def _as_stage_result(outcome: dict[str, Any]) -> dict[str, Any]:
    """A pass's flat result -> {status, counts}; "dry-run" is a successful stage."""
    counts = {k: v for k, v in outcome.items() if k != "status"}
    status = outcome.get("status", "ok")
    return {"status": "ok" if status == "dry-run" else status, "counts": counts}


def decay(ctx: StageTools) -> dict[str, Any]:
    """Mark facts whose effective confidence fell below the dormancy threshold dormant."""
    threshold = load_settings(environ=dict(ctx.environ)).value("dormancy_threshold")
    return _as_stage_result(decay_pass(
        ctx.sh, ctx.sh.now(), threshold, transaction=lambda: ctx.fence.writing(ctx.sh),
        dry_run=ctx.dry_run))


def audit(ctx: StageTools) -> dict[str, Any]:
    """Check every file-citing claim against its file; record changed verdicts."""
    return _as_stage_result(audit_pass(
        ctx.sh, ctx.sh.now(), sidecars=Sidecars(ctx.fence.db), environ=ctx.environ,
        transaction=lambda: ctx.fence.writing(ctx.sh), dry_run=ctx.dry_run))
