"""``claimgraph context``: the block the SessionStart hook injects, printed for a person to read.

The same compilation as the hook (``core.briefing``), for the project of ``--cwd`` (default: here)
plus the user scope, so what the agent was told can be checked by hand. Only reads; it never
writes into the user's repository.

Like the hook, it renders the curator's stored shortlist at its own current time when that
holds (``core.briefing.gather``: the same holding test, whatever the store's size) and compiles
live otherwise. Unlike the hook it has no live limit: a person who asks waits for the real
block, never the hook's "being refreshed" one. Its options keep the stored path exact:
``--budget`` (and ``context_budget_chars``, which the hook honours too) only cut the rendered
block, and ``--agent`` filters at render, on both paths alike. ``half_life_days`` is the
configured one, as the curator's and the hook's (docs/hooks.md, "The configured half-life and
budget"): a list stored for another fails the holding test, so that block is compiled live.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_error, emit_json
from claimgraph.core.briefing import compile_gathered, gather
from claimgraph.hooks.own_files import files_loaded
from claimgraph.logic.briefing import DEFAULT_BUDGET_CHARS, SECTIONS
from claimgraph.logic.own_instructions import LOADED_NAMES
from claimgraph.project import resolve_project


def budget(text: str) -> int:
    """A character budget: a whole number of at least 200 (below that nothing useful fits)."""
    if not text.strip().isdigit() or int(text) < 200:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of characters ≥ 200")
    return int(text)


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("context", parents=[common], help="the memory injected at session start",
                       description="The compiled context the SessionStart hook gives the agent: "
                                   "standing decisions, open conflicts, recent changes and "
                                   "current facts for the project plus the user scope.")
    p.add_argument("--cwd", metavar="DIR",
                   help="the project's directory (default: the current one)")
    p.add_argument("--budget", metavar="CHARS", type=budget,
                   help="most characters in the block (default: the context_budget_chars "
                        f"setting, {DEFAULT_BUDGET_CHARS} unless configured)")
    p.add_argument("--agent", choices=sorted(LOADED_NAMES), metavar="AGENT",
                   help="the agent about to start (claude-code, codex, gemini): leave out the "
                        "rules it reads anyway in its own instruction files, as its "
                        "SessionStart hook does (default: none left out)")
    p.set_defaults(command="context")


def run_context(ctx: Invocation, args: argparse.Namespace) -> int:
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        emit_error(f"claimgraph: --cwd {cwd} is not a directory — pass the project's directory")
        return 1
    sh = ctx.shell()
    project = resolve_project(cwd, ctx.environ)
    chars = args.budget or ctx.settings.value("context_budget_chars")
    loaded = files_loaded(args.agent, project.root, cwd) if args.agent else frozenset()
    now = sh.now()
    found = gather(sh.store, project.id, now, sh.half_life_days)  # never a live limit
    result = compile_gathered(found, project.id, now, chars, sh.half_life_days, loaded)
    if ctx.json:
        emit_json({**result, "source": project.source,
                   "shortlist": "stored" if found["stored"] else "live"})
    elif result["text"]:
        emit(result["text"])
    else:
        emit(f"nothing to inject for {project.id}: no valid facts in its scope or the user's")
    if not ctx.json and result["text"]:
        emit_error(summary(result))
    return 0


def summary(result: dict[str, Any]) -> str:
    """``context: 3 decisions, 50 of 120 current (4210 chars)`` on stderr, so stdout stays the
    block exactly as injected."""
    counts = result["sections"]
    parts = [f"{c['shown']} of {c['total']} {key}" if c["shown"] < c["total"]
             else f"{c['total']} {key}" for key, _ in SECTIONS for c in [counts[key]]
             if c["total"]]
    if result.get("read_anyway"):
        parts.append(f"{result['read_anyway']} left out (in the agent's own instruction files)")
    return f"context for {result['project']}: {', '.join(parts)} ({result['chars']} chars)"


COMMANDS = {"context": run_context}
