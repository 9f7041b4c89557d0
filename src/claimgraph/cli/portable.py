"""``dump [--out FILE]`` and ``load FILE|-``: the whole store as JSON lines.

A dump of an unchanged store is byte-identical run to run, so dumps diff and round-trip
cleanly. Dumping only reads; loading writes under the lease and refuses a store that already
holds data, a future format, or anything that is not a claimgraph dump.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Iterable

from claimgraph.private import open_private
from claimgraph.cli.context import Context
from claimgraph.cli.evidence import read_text
from claimgraph.cli.output import emit, emit_json
from claimgraph.core import portable
from claimgraph.errors import ClaimgraphError


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("dump", parents=[common], help="write the store as JSON lines",
                       description="Predicates, entities, episodes and facts as JSON lines, to "
                                   "stdout or --out FILE.")
    p.add_argument("--out", "-o", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(command="dump")
    p = sub.add_parser("load", parents=[common], help="fill an empty store from a dump",
                       description="Restore a `claimgraph dump` into an empty store.")
    p.add_argument("source", metavar="FILE", help="a dump file, or - for stdin")
    p.set_defaults(command="load")


def run_dump(ctx: Context, args: argparse.Namespace) -> int:
    lines = list(portable.dump_lines(ctx.shell()))  # fail before the first byte, not halfway
    if args.out is None:
        for line in lines:
            sys.stdout.write(line + "\n")
        return 0
    count = write_atomically(Path(args.out), lines)
    if ctx.json:
        emit_json({"status": "dumped", "out": args.out, "lines": count})
    else:
        emit(f"dumped {count} lines to {args.out}")
    return 0


def write_atomically(path: Path, lines: Iterable[str]) -> int:
    """Write beside the target, then rename, so a failed dump never clobbers a good one."""
    scratch = path.with_name(f".{path.name}.tmp")
    count = 0
    try:
        with open_private(scratch, "w") as out:
            for line in lines:
                out.write(line + "\n")
                count += 1
        os.replace(scratch, path)
    except OSError as err:
        scratch.unlink(missing_ok=True)
        raise ClaimgraphError("cannot-write", f"cannot write {path}: {err.strerror or err}",
                              hint="check the directory exists and is writable",
                              path=str(path)) from None
    return count


def run_load(ctx: Context, args: argparse.Namespace) -> int:
    text = read_text(args.source)
    with ctx.writing() as sh:
        counts = portable.load_lines(sh, text.splitlines())
    if ctx.json:
        emit_json({"status": "loaded", "db": str(ctx.db_path), "counts": counts})
    else:
        emit(f"loaded {counts['fact']} facts, {counts['entity']} entities, "
             f"{counts['episode']} episodes, {counts['predicate']} predicates into {ctx.db_path}")
    return 0


COMMANDS = {"dump": run_dump, "load": run_load}
