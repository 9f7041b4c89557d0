"""``claimgraph init``: create the store, seed the vocabulary, stamp the format; idempotent.

Any write creates the store too; ``init`` exists so set-up scripts can make it explicit, and
so a person learns where their memory lives.
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.core import reads


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("init", parents=[common], help="create the store (safe to re-run)",
                       description="Create the store at --db (or $CLAIMGRAPH_DB, or the default "
                                   "path) with the core predicates; re-running changes nothing.")
    p.set_defaults(command="init")


def run_init(ctx: Invocation, args: argparse.Namespace) -> int:
    existed = ctx.db_path.exists()
    with ctx.writing() as sh:
        stats = reads.stats(sh)
    predicates = sum(stats["predicates"].values())
    if ctx.json:
        emit_json({"status": "exists" if existed else "created", "db": str(ctx.db_path),
                   "format": stats["format"], "predicates": predicates})
        return 0
    verb = "already initialized" if existed else "created"
    emit(f"{verb}: claimgraph store at {ctx.db_path} "
         f"(format {stats['format']}, {predicates} predicates)")
    return 0


COMMANDS = {"init": run_init}
