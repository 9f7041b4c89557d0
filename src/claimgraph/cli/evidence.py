"""``evidence put FILE|-``, ``evidence show NAME``, ``evidence list``: the raw-text tier.

Evidence is write-once text in ``<db>.evidence/``, named by the SHA-256 of its content, so a
fact or episode can point at exactly what it was read from. ``put`` writes (under the lease);
``show`` and ``list`` only read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import plural
from claimgraph.sidecar import Sidecars


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    group = sub.add_parser("evidence", parents=[common], help="store and read raw evidence text",
                           description="Content-addressed text beside the store "
                                       "(<db>.evidence/sha256-<hex>).")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = actions.add_parser("put", parents=[common], help="store a file's text (or stdin with -)")
    p.add_argument("source", metavar="FILE", help="a text file, or - for stdin")
    p.set_defaults(command="evidence put")
    p = actions.add_parser("show", parents=[common], help="print stored evidence")
    p.add_argument("name", metavar="NAME", help="sha256-<hex>, or the bare hex")
    p.set_defaults(command="evidence show")
    p = actions.add_parser("list", parents=[common], help="the names of all stored evidence")
    p.set_defaults(command="evidence list")


def read_text(source: str) -> str:
    """A file's text, or stdin's for ``-``; unreadable input fails with the path named."""
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ClaimgraphError("no-such-file", f"no file {source}",
                              hint="check the path, or pass - to read stdin", path=source) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ClaimgraphError("unreadable-file", f"cannot read {source} as UTF-8 text: {err}",
                              hint="evidence is text; convert the file first", path=source) from None


def run_put(ctx: Invocation, args: argparse.Namespace) -> int:
    """The text is stored redacted, like everything capture keeps: no secret in the tier."""
    from claimgraph.logic.redact import redact_with_counts
    text, redactions = redact_with_counts(read_text(args.source))
    with ctx.writing():
        name = Sidecars(ctx.db_path).put_evidence(text)
    if ctx.json:
        emit_json({"status": "stored", "name": name, "chars": len(text),
                   "redactions": dict(sorted(redactions.items()))})
    else:
        emit(name)
    return 0


def run_show(ctx: Invocation, args: argparse.Namespace) -> int:
    text = Sidecars(ctx.db_path).get_evidence(args.name)
    if ctx.json:
        emit_json({"name": args.name.strip(), "text": text})
    else:
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0


def run_list(ctx: Invocation, args: argparse.Namespace) -> int:
    names = list(Sidecars(ctx.db_path).list_evidence())
    if ctx.json:
        emit_json({"evidence": names})
        return 0
    for name in names:
        emit(name)
    emit(plural(len(names), "item"))
    return 0


COMMANDS = {"evidence put": run_put, "evidence show": run_show, "evidence list": run_list}
