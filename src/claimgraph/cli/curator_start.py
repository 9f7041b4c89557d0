"""Starting the detached curator after a command that wrote: capture, and sync (whose
reconcile never links claims, so the curator's consolidate stage flags what a teammate's
effects contradict). Its own small module, so sync does not import the capture command."""

from __future__ import annotations

import argparse
import os

import structlog

from claimgraph.cli.invocation import Invocation


def start_curator(ctx: Invocation, args: argparse.Namespace,
                  logger: str) -> tuple[str, str | None]:
    """Spawn the detached curator for a command that just wrote (capture, sync): ``spawned``,
    or ``failed`` and what went wrong; the command itself never fails for it."""
    from claimgraph.curator import spawn_curator

    config = getattr(args, "config", None)
    extra = ["--config", os.path.abspath(config)] if config else []
    try:
        pid = spawn_curator(ctx.db_path, extra, ctx.environ)
    except OSError as exc:
        return "failed", f"could not start the curator: {exc}"
    structlog.get_logger(logger).info(f"{logger.rsplit('.', 1)[-1]}.curator-spawned",
                                      curator_pid=pid)
    return "spawned", None
