"""``claimgraph migrate --to postgresql://…``: move a store to another place, losslessly.

The store is dumped (graph, evidence, capture positions, purge tombstones) and loaded into the
target, which must be empty; then both are dumped again and compared byte for byte, and the
command fails unless they are identical. The source is only read, so a failed move changes
nothing it had. Moving from a server back to a file works the same way (``--to PATH``).
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph import location
from claimgraph.cli.invocation import OWNER, Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.core import Shell, portable
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import plural
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars
from claimgraph.store import leases


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("migrate", parents=[common], help="move the store to a PostgreSQL "
                       "server (or a file), checked byte for byte",
                       description="Copy this store (--db) into an empty store at --to: a "
                                   "postgresql:// URL or a file path. Both are dumped after the "
                                   "copy and must be identical.")
    p.add_argument("--to", required=True, metavar="URL|PATH", help="the empty target store")
    p.set_defaults(command="migrate")


def run_migrate(ctx: Invocation, args: argparse.Namespace) -> int:
    source_db = ctx.db_path
    target_db = location.resolve(args.to, ctx.environ)
    if str(target_db) == str(source_db):
        raise ClaimgraphError("same-store", "--to names the store being migrated",
                              hint="give another store as --to")
    source = ctx.shell()
    lines = list(portable.dump_lines(source, Sidecars(source_db)))
    parsed = portable.parse_dump(lines)
    with leases.write_lease(target_db, OWNER, ctx.settings.value("lease_wait_ms")):
        target = Shell(open_store(target_db, create=True))
        try:
            counts = portable.load_parsed(target, parsed, Sidecars(target_db))
            moved = list(portable.dump_lines(Shell(target.store), Sidecars(target_db)))
        finally:
            target.store.close()
    if moved != lines:
        raise ClaimgraphError(
            "migrate-mismatch", "the target's dump differs from the source's after the copy",
            hint="the source is unchanged; report this as a bug, and keep using the source",
            target=location.redact_password(str(args.to)))
    report = {"status": "migrated", "to": location.redact_password(str(args.to)),
              "counts": counts, "lines": len(lines), "identical": True}
    if ctx.json:
        emit_json(report)
    else:
        emit(f"migrated {plural(counts.get('fact', 0), 'fact')}, "
             f"{plural(counts.get('entity', 0), 'entity', 'entities')} and "
             f"{plural(counts.get('episode', 0), 'episode')} to {report['to']}; both dumps are identical "
             f"({len(lines)} lines). Point claimgraph at it with --db or CLAIMGRAPH_DB.")
    return 0


COMMANDS = {"migrate": run_migrate}
