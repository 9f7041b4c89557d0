"""``claimgraph serve``: the read-only web viewer on 127.0.0.1, behind a per-start token.

Only this command loads the viewer (``claimgraph.viewer``, with Starlette, Jinja2 and uvicorn
from the optional ``viewer`` extra); a missing extra is a one-line error saying how to add it.
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.errors import ClaimgraphError
from claimgraph.opening import open_store


def port_number(text: str) -> int:
    if not text.strip().isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0-65535; 0 picks a free one)")
    return int(text)


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("serve", parents=[common], help="browse memory in a local web viewer",
                       description="Serve a read-only web viewer of the store on 127.0.0.1: "
                                   "projects, facts grouped as the next session is told them, "
                                   "history and provenance, time travel, activity and review. "
                                   "The URL it prints carries a per-start token; without it "
                                   "every request is refused.")
    p.add_argument("--port", type=port_number, metavar="N",
                   help="the port (default 8731, else any free one; 0: any free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="only 127.0.0.1 (or localhost) is accepted: the viewer never listens "
                        "on another address")
    p.add_argument("--open", action="store_true", dest="open_browser",
                   help="open the URL in the default browser")
    p.set_defaults(command="serve")


def run_serve(ctx: Invocation, args: argparse.Namespace) -> int:
    try:
        from claimgraph.viewer import serve as server
        from claimgraph.viewer.source import Source
    except ImportError as err:
        raise ClaimgraphError("viewer-missing", f"the viewer's packages are missing ({err.name})",
                              hint="run ./install.sh in your claimgraph checkout (it installs the "
                                   "viewer), or there: uv tool install '.[mcp,viewer]'") from None
    server.check_host(args.host)
    open_store(ctx.db_path, read_only=True).close()  # no store, or a newer one: say so now
    source = Source(ctx.db_path, dict(ctx.environ), ctx.settings.value("half_life_days"),
                    ctx.settings.value("context_budget_chars"))
    return server.serve(source, server.bind(args.port), open_browser=args.open_browser)


COMMANDS = {"serve": run_serve}
