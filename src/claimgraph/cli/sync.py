"""``claimgraph sync [--dir DIR] [--abandon-deferred]``: one memory across machines.

Every write is recorded in ``<db>.oplog/<writer>.jsonl``. ``sync`` publishes that log (and the
evidence it cites) into DIR, takes the other writers' logs from DIR, and reconciles them into
this store, under the write lease. DIR is any directory the machines share: a git checkout
(commit and pull it as usual: each writer only appends to its own file, so merges never
conflict), a synced folder, a mounted share. Without ``--dir`` (or the ``sync_dir`` setting)
the logs are read from ``<db>.oplog/`` itself. See docs/sync.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import plural


#: The sync_dir default: read the logs where they are, beside the store.
OWN_DIR = "<db>.oplog"
#: The sync_projects default: the project of the directory sync runs in.
CURRENT_PROJECT = "<current project>"


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("sync", parents=[common], help="exchange logs with other machines and "
                       "reconcile theirs into this store",
                       description="Publish this store's operation log into DIR, take the other "
                                   "writers' logs from DIR, and fold them into this store. The "
                                   "result never depends on the order logs arrive in.")
    p.add_argument("action", nargs="?", choices=("status", "trust", "untrust"),
                   help="status: this store's writer key, the writers it trusts, what was "
                        "quarantined; trust WRITER-KEY / untrust WRITER: the trust list")
    p.add_argument("writer_key", nargs="?", metavar="WRITER-KEY",
                   help="a teammate's key as `claimgraph sync status` prints it")
    p.add_argument("--name", help="with trust: the person's name, shown with their facts")
    p.add_argument("--dir", metavar="DIR", help="the shared directory (default: the sync_dir "
                   "setting, else <db>.oplog/)")
    p.add_argument("--project", action="append", metavar="ID",
                   help="a project to publish (repeatable; default: the sync_projects "
                        "setting, else the current project). The user scope never is.")
    p.add_argument("--abandon-deferred", action="store_true",
                   help="give up on effects that could not be applied in 3 passes")
    p.add_argument("--no-curate", action="store_true",
                   help="do not start the curator after applying a teammate's effects")
    p.set_defaults(command="sync")


def run_trust_verb(ctx: Invocation, args: argparse.Namespace) -> int:
    """``sync status``, ``sync trust WRITER-KEY [--name N]``, ``sync untrust WRITER``."""
    from claimgraph.oplog import files as F
    from claimgraph.oplog import identity
    directory = F.oplog_dir(ctx.db_path)
    writer = F.writer_id(directory)
    if args.action == "status":
        state = F.read_state(directory)
        data = {"writer": writer, "key": identity.public_key(directory, writer),
                "trusted": identity.read_trusted(directory),
                "quarantined": len(state.get("quarantined") or ()),
                "high_water": state.get("high-water", {})}
        if ctx.json:
            emit_json(data)
            return 0
        emit(f"this store writes as {writer}; its key (give it to teammates):\n  {data['key']}")
        for name, entry in sorted(data["trusted"].items()):
            emit(f"trusts {name}{' (' + entry['name'] + ')' if entry.get('name') else ''}: "
                 f"{entry['key']}")
        if not data["trusted"]:
            emit("trusts no other writer yet: `claimgraph sync trust WRITER-KEY`")
        emit(f"{plural(data['quarantined'], 'line')} quarantined so far")
        return 0
    if not args.writer_key:
        raise ClaimgraphError("missing-argument", f"sync {args.action} needs a WRITER-KEY",
                              hint="copy it from `claimgraph sync status` on the other machine")
    if args.action == "trust":
        entry = identity.trust(directory, writer, args.writer_key, args.name)
        emit_json(entry) if ctx.json else emit(f"trusting {entry['writer']}")
        return 0
    removed = identity.untrust(directory, args.writer_key)
    emit_json({"removed": removed}) if ctx.json else emit(
        "removed" if removed else "that writer was not trusted")
    return 0


def run_sync(ctx: Invocation, args: argparse.Namespace) -> int:
    if args.action:
        return run_trust_verb(ctx, args)
    from claimgraph.oplog.exchange import (
        cited_evidence_names, exchange, exchange_evidence, release_evidence)
    from claimgraph.oplog.logged import LoggedStore
    from claimgraph.oplog.reconcile import reconcile
    with ctx.writing() as sh:
        store = sh.store
        if not isinstance(store, LoggedStore):
            raise ClaimgraphError("sync-unsupported", f"{ctx.db_path} keeps no operation log",
                                  hint="sync works between file stores; a server store is "
                                       "already shared by everyone who uses it")
        shared = _shared_dir(ctx, args)
        scopes = _shared_projects(ctx, args)
        moved = exchange(ctx.db_path, shared, store.oplog.writer, scopes) if shared else None
        cited_before = cited_evidence_names(store)
        report = reconcile(store, ctx.db_path, abandon_deferred=args.abandon_deferred)
        report["evidence_released"] = release_evidence(ctx.db_path, cited_before, store)
        sh.forget_predicates()
        if shared and moved is not None:
            moved.update(exchange_evidence(ctx.db_path, shared, store.oplog.writer, store))
    report = {**report, "writer": store.oplog.writer, "exchange": moved}
    report["curator"] = _start_curator(ctx, args, report)
    if ctx.json:
        emit_json(report)
    else:
        emit(_summary(report))
    return 0


def _start_curator(ctx: Invocation, args: argparse.Namespace, report: dict[str, Any]) -> str:
    """What another writer says can disagree with what is here. Reconcile never links the two
    (a link made there would depend on where a pass stopped: docs/sync.md), so a sync that
    applied anything starts the curator, as a capture does, and its consolidate stage flags
    the disagreement as an open conflict moments later."""
    if args.no_curate:
        return "disabled"
    if not report["effects"]["applied"]:
        return "not-needed"
    from claimgraph.cli.curator_start import start_curator
    status, problem = start_curator(ctx, args, "claimgraph.sync")
    if problem:
        report["warnings"].append({"curator": problem})
    return status


def _shared_projects(ctx: Invocation, args: argparse.Namespace) -> set[str]:
    """``--project``, else the sync_projects setting, else the current project; never the
    user scope (docs/sync.md, "Share only what is shared")."""
    from claimgraph.cli.scope import USER_SCOPE
    setting = str(ctx.settings.value("sync_projects") or "")
    given = args.project or [p for p in setting.split(",")
                             if p.strip() and p.strip() != CURRENT_PROJECT]
    chosen = {p.strip() for p in given} if given else {ctx.project.id}
    return chosen - {USER_SCOPE}


def _shared_dir(ctx: Invocation, args: argparse.Namespace) -> Path | None:
    given = args.dir or ctx.settings.value("sync_dir")
    return None if given in (None, OWN_DIR) else Path(given).expanduser()


def _summary(report: dict[str, Any]) -> str:
    effects = report["effects"]
    lines = [f"synced as {report['writer']}: {plural(effects['applied'], 'effect')} applied, "
             f"{effects['duplicate']} already here, {effects['deferred']} deferred "
             f"from {plural(len(report['writers']), 'writer')}"
             + (" (replayed every log in order)" if report["replayed"] else "")]
    if report.get("quarantined"):
        lines.append(f"  {plural(report['quarantined'], 'line')} quarantined (never applied: "
                     "see `claimgraph logs` for sync.quarantined, docs/sync.md \"Trust\")")
    moved = report.get("exchange")
    if moved:
        lines.append(f"  {moved['dir']}: took {plural(moved['logs_taken'], 'log')}, "
                     f"{'published' if moved['published'] else 'no change to'} ours; "
                     f"evidence {moved['evidence_sent']} sent, {moved['evidence_received']} "
                     "received")
    if moved and moved.get("refused"):
        lines.append("  refused from DIR: " + ", ".join(
            f"{n} {why}" for why, n in sorted(moved["refused"].items()))
            + " (`claimgraph sync status`; trust a teammate with `claimgraph sync trust`)")
    for warning in report["warnings"][:10]:
        lines.append("  warning: " + ", ".join(f"{k}={v}" for k, v in warning.items()))
    if report.get("hint"):
        lines.append(f"  {report['hint']}")
    return "\n".join(lines)


COMMANDS = {"sync": run_sync}
