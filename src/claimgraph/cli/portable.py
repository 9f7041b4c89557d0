"""``dump [--out FILE] [--evidence DIR]`` and ``load FILE|- [--evidence DIR]``: the whole
store as JSON lines, evidence included.

A dump of an unchanged store is byte-identical run to run, so dumps diff and round-trip
cleanly. It carries the transcript segments its episodes cite (inline, or as files in
``--evidence DIR``), so a restored store keeps provenance. Dumping only reads; loading writes
under the lease and refuses a store that already holds data, a future format, evidence that
does not match its name, or anything that is not a claimgraph dump.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Iterable

from claimgraph.cli.evidence import read_text
from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_error, emit_json
from claimgraph.core import portable
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import plural
from claimgraph.private import open_private
from claimgraph.sidecar import Sidecars


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("dump", parents=[common], help="write the store as JSON lines",
                       description="Predicates, entities, episodes and facts as JSON lines, to "
                                   "stdout or --out FILE.")
    p.add_argument("--out", "-o", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--evidence", metavar="DIR", help="write the cited transcript segments "
                   "as files into DIR instead of inline in the dump")
    p.set_defaults(command="dump")
    p = sub.add_parser("load", parents=[common], help="fill an empty store from a dump",
                       description="Restore a `claimgraph dump` into an empty store, with the "
                                   "evidence it carries (or finds in --evidence DIR).")
    p.add_argument("source", metavar="FILE", help="a dump file, or - for stdin")
    p.add_argument("--evidence", metavar="DIR", help="the directory `dump --evidence` wrote")
    p.set_defaults(command="load")


def run_dump(ctx: Invocation, args: argparse.Namespace) -> int:
    missing: list[str] = []
    bundle = Path(args.evidence) if args.evidence else None
    lines = list(portable.dump_lines(ctx.shell(), Sidecars(ctx.db_path), bundle, missing))
    for name in missing:  # fail before the first byte, not halfway; but say what is absent
        emit_error(f"claimgraph: warning: evidence {name} is missing from "
                   f"{Sidecars(ctx.db_path).evidence_dir}; the dump carries no copy")
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
        scratch.unlink(missing_ok=True)
        with open_private(scratch, "x") as out:
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


def run_load(ctx: Invocation, args: argparse.Namespace) -> int:
    text = read_text(args.source)
    bundle = Path(args.evidence) if args.evidence else None
    parsed = portable.parse_dump(text.splitlines(), bundle)  # refuse before creating a store
    with ctx.writing() as sh:
        counts = portable.load_parsed(sh, parsed, Sidecars(ctx.db_path))
    if ctx.json:
        emit_json({"status": "loaded", "db": str(ctx.db_path), "counts": counts})
    else:
        emit(f"loaded {plural(counts['fact'], 'fact')}, "
             f"{plural(counts['entity'], 'entity', 'entities')}, "
             f"{plural(counts['episode'], 'episode')} "
             f"({plural(counts['evidence'], 'transcript segment')}), "
             f"{plural(counts['predicate'], 'predicate')} into {ctx.db_path}")
    return 0


COMMANDS = {"dump": run_dump, "load": run_load}
