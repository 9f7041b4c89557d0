"""Starting the server: settings, the log, the project, then the SDK's stdio loop.

Two doors lead here: ``claimgraph mcp`` (the CLI verb) and ``python -m claimgraph.mcp``, the
command ``claimgraph install --mcp`` registers — it skips the CLI's imports of every other
command, which the agent would otherwise wait for at each session start. Both take the same
flags and settings (flag > ``CLAIMGRAPH_*`` > config file > default).

Nothing here prints to stdout: stdout is the protocol. The log is ``<db>.mcp.log`` (JSON
lines); a failure to start is one line on stderr (Claude Code shows MCP servers' stderr in its
logs) and exit code 1.
"""

from __future__ import annotations

import os
import sys
import time
from importlib.machinery import PathFinder
from pathlib import Path
from types import SimpleNamespace
from typing import Mapping, Sequence

from claimgraph import location, startup
from claimgraph.config import Settings, load_settings
from claimgraph.errors import ClaimgraphError
from claimgraph.logsetup import configure_logging
from claimgraph.mcp.journal import log
from claimgraph.mcp.session import ServerState, default_project, session_ref

MISSING_SDK = ("claimgraph mcp: the MCP server needs the optional `mcp` package — install it "
               "by running ./install.sh in your claimgraph checkout (or there: "
               "`uv tool install '.[mcp,viewer]'`)")


TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

#: No flags, the command ``claimgraph install --mcp`` registers: nothing to parse, and argparse
#: is not loaded for it.
NO_FLAGS = SimpleNamespace(cwd=None, db=None, lease_wait=None, config=None, sdk_only=False)


def parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(prog="python -m claimgraph.mcp",
                                description="claimgraph's MCP server over stdio.")
    add_flags(p)
    p.add_argument("--db", metavar="PATH", help="the store (default: $CLAIMGRAPH_DB, else "
                   "the config file's db, else $XDG_DATA_HOME/claimgraph/claims.db)")
    p.add_argument("--lease-wait", metavar="MS", type=int, help="how long memory_assert waits "
                   "for another writer's lease before failing (default 5000)")
    p.add_argument("--config", metavar="FILE", help="config file")
    p.add_argument("--sdk-only", action="store_true", help="serve every message with the MCP "
                   "SDK, without the fast front (for comparing the two)")
    return p


def add_flags(p: argparse.ArgumentParser) -> None:
    """The flags the CLI verb shares (the CLI adds --db, --lease-wait, --config itself)."""
    p.add_argument("--cwd", metavar="DIR", help="the project's directory (default: the "
                   "server's working directory, which agents set to the project)")


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv) if argv else NO_FLAGS
    if args.lease_wait is not None and args.lease_wait < 0:
        return refuse("--lease-wait must be a whole number of milliseconds ≥ 0")
    try:
        settings = load_settings({"db": args.db, "lease_wait_ms": args.lease_wait}, environ,
                                 args.config)
    except ClaimgraphError as error:
        return refuse(f"{error.message} — {error.hint}" if error.hint else error.message)
    return serve(settings, args.cwd, environ, sdk_only=args.sdk_only)


def serve(settings: Settings, cwd: str | None, environ: Mapping[str, str],
          sdk_only: bool = False) -> int:
    """Run the server until the client hangs up; 0, or 1 with one line on stderr.

    The fast front (``front``) answers the session's hot path and hands anything else to the
    SDK, which it imports only then; the SDK must be installed either way."""
    if sdk_missing():
        return refuse(MISSING_SDK)
    cwd = os.path.abspath(cwd or os.getcwd())
    if not os.path.isdir(cwd):
        return refuse(f"--cwd {cwd} is not a directory — pass the project's directory")
    state = server_state(settings, cwd, environ)
    log.start = lambda: start_log(state.db, settings.value("log_level"))
    log.info("mcp.started", project=state.project, db=str(state.db),
             episode_ref=state.episode_ref, cwd=cwd, lease_wait_ms=state.lease_wait_ms)
    try:
        if sdk_only:
            log.flush()
            with startup.more_imports():  # the SDK's models live as long as the server
                from claimgraph.mcp import server
            server.run_sdk_only(state)
        else:
            from claimgraph.mcp import front

            front.serve(state)
    except KeyboardInterrupt:
        pass
    log.info("mcp.stopped")
    log.flush()
    return 0


def sdk_missing() -> bool:
    """Whether ``import mcp`` would fail, without importing it: an entry of None in
    ``sys.modules`` is Python's own way of blocking an import; otherwise the path is searched
    (``importlib.util`` costs more than this check)."""
    if "mcp" in sys.modules:
        return sys.modules["mcp"] is None
    return PathFinder.find_spec("mcp") is None


def server_state(settings: Settings, cwd: str, environ: Mapping[str, str]) -> ServerState:
    """What every tool runs against: the store, the project of ``cwd``, this session's episode."""
    return ServerState(
        db=location.resolve(settings.value("db"), environ), project=default_project(cwd, environ),
        episode_ref=session_ref(environ, os.getpid(), time.time_ns() // 1_000_000),
        lease_wait_ms=settings.value("lease_wait_ms"), lease_ttl_ms=settings.value("lease_ttl_ms"),
        half_life_days=settings.value("half_life_days"),
        user_scope_writes=bool(settings.value("mcp_user_scope")))


def start_log(db: Path, level: str) -> None:
    """JSON lines to ``<db>.mcp.log`` (stderr when that cannot be opened); the SDK's own
    warnings go to the same file."""
    import logging

    from claimgraph.sidecar import Sidecars

    path = Sidecars(db).mcp_log
    try:
        configure_logging("json", path, level=level)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError as error:
        configure_logging("console", level=level)
        handler = logging.StreamHandler(sys.stderr)
        log.warning("mcp.log-unwritable", path=str(path), reason=str(error))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def refuse(line: str) -> int:
    print(line, file=sys.stderr)
    return 1
