"""``stats``, ``config``, ``version``: what is in the store, which settings apply, what runs.

``config`` and ``version`` never open the store, so they still answer when it is broken.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from claimgraph import STORE_FORMAT, __version__
from claimgraph.cli.invocation import Invocation, describe
from claimgraph.cli.output import emit, emit_error, emit_json
from claimgraph.config import BY_NAME
from claimgraph.core import reads


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("stats", parents=[common], help="counts of facts, entities, episodes",
                       description="How much the store holds.")
    p.set_defaults(command="stats")
    p = sub.add_parser("config", parents=[common], help="effective settings and their sources",
                       description="Every setting, its value, where it came from "
                                   "(flag > env CLAIMGRAPH_* > config file > default) and what "
                                   "it does. See docs/configuration.md.")
    p.set_defaults(command="config")
    p = sub.add_parser("version", parents=[common], help="claimgraph and store format versions")
    p.set_defaults(command="version")


def run_stats(ctx: Invocation, args: argparse.Namespace) -> int:
    stats = reads.stats(ctx.shell())
    if ctx.json:
        emit_json({"db": str(ctx.db_path), **stats})
        return 0
    facts = stats["facts"]
    emit(f"store      {ctx.db_path} (format {stats['format']})")
    emit(f"facts      {facts['total']} ({facts['valid']} valid, {facts['invalidated']} invalidated)")
    emit(f"entities   {stats['entities']}")
    emit(f"episodes   {stats['episodes']}")
    by_status = ", ".join(f"{n} {status}" for status, n in sorted(stats["predicates"].items()))
    emit(f"predicates {sum(stats['predicates'].values())} ({by_status or 'none'})")
    return 0


def run_config(ctx: Invocation, args: argparse.Namespace) -> int:
    settings = ctx.settings
    rows = describe(settings)
    if ctx.json:
        emit_json({"file": str(settings.file_path), "settings": rows,
                   "warnings": settings.warnings})
        return 0
    width = max(len(r["name"]) for r in rows)
    for row in rows:
        emit(f"{row['name']:<{width}}  {row['value']}  ({row['source']})")
        emit(f"{'':<{width}}    {BY_NAME[row['name']].help}")
    emit(f"config file: {settings.file_path}")
    for warning in settings.warnings:
        emit_error(f"claimgraph: warning: {warning}")
    return 0


def run_version(ctx: Invocation, args: argparse.Namespace) -> int:
    python = sys.version.split()[0]
    if ctx.json:
        emit_json({"version": __version__, "format": STORE_FORMAT, "python": python})
    else:
        emit(f"claimgraph {__version__} (store format {STORE_FORMAT}, python {python})")
    return 0


COMMANDS = {"stats": run_stats, "config": run_config, "version": run_version}
