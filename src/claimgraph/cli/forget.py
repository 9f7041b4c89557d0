"""``forget`` and ``purge``: taking back what should never have been kept.

``forget`` is soft: facts are invalidated as ``forgotten`` with a reason, hidden from every
read but their history. ``purge`` is hard: rows, full-text entries, transcript segments, log
lines, spool payloads and oplog entries are removed (or, with ``--match``, the text is replaced
by ``[purged]``), the store is compacted so no byte survives in its files, and tombstones keep
capture, load and sync from bringing any of it back. A purge always shows what it will remove
and asks first (``--yes`` skips the question, ``--dry-run`` only shows).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_error, emit_fact_lines, emit_json
from claimgraph.cli.scope import READ_HELP, add_scope_argument
from claimgraph.cli.values import resolve_fact_id, time_arg
from claimgraph.core import forget as forgetting
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import facts_json, plural
from claimgraph.logic.purge import PLACEHOLDER, Filters
from claimgraph.sidecar import Sidecars


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("forget", parents=[common], help="stop remembering facts (soft: history "
                       "keeps them)", description="Invalidate facts as `forgotten`, with a "
                       "reason: never shown in context, search or coach again, still in their "
                       "history. For a secret or anything that must be gone, use `purge`.")
    p.add_argument("facts", nargs="*", metavar="FACT_ID", help="full ids or the short f-xxxxxxxx")
    p.add_argument("--entity", metavar="NAME", help="every fact about this entity")
    add_scope_argument(p, READ_HELP)
    p.add_argument("--reason", help="why (kept with the fact; default: forgotten by request)")
    p.set_defaults(command="forget")
    p = sub.add_parser("purge", parents=[common], help="delete from memory for good (hard; "
                       "asks first)", description="Remove what the filters select (they "
                       "combine: a fact must pass all), with the transcript segments it came "
                       "from, then compact the store so none of it survives in its files. "
                       "Shows what will go and asks first.")
    p.add_argument("--fact", action="append", metavar="ID", help="this fact (repeatable)")
    p.add_argument("--session", action="append", metavar="SESSION",
                   help="what this agent session taught (its id, or agent:id; repeatable)")
    p.add_argument("--project", action="append", metavar="PROJECT",
                   help="a project's facts (its id, or its directory; repeatable)")
    p.add_argument("--entity", action="append", metavar="NAME",
                   help="every fact naming this entity (repeatable; every scope unless --scope)")
    p.add_argument("--scope", metavar="SCOPE", help="with --entity: only in this scope")
    p.add_argument("--match", metavar="TEXT", help="a literal string (a leaked token): facts "
                   f"holding it go, and everywhere else it is replaced by {PLACEHOLDER}")
    p.add_argument("--before", metavar="DATE", help="only what was recorded before DATE")
    p.add_argument("--dry-run", action="store_true", help="show what would go; change nothing")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.set_defaults(command="purge")


def run_forget(ctx: Invocation, args: argparse.Namespace) -> int:
    if not args.facts and not args.entity:
        raise ClaimgraphError("usage", "name the facts to forget, or --entity NAME",
                              hint="e.g. `claimgraph forget f-1234abcd --reason 'wrong'`")
    with ctx.writing() as sh:
        ids = [resolve_fact_id(sh, typed) for typed in args.facts]
        if args.entity:
            ids += forgetting.facts_about(sh, args.entity, ctx.read_scopes())["ids"]
        result = forgetting.forget(sh, ids, args.reason)
    if ctx.json:
        emit_json({"status": "forgotten", "reason": result["reason"],
                   "forgotten": facts_json(result["forgotten"]),
                   "already": facts_json(result["already"])})
        return 0
    emit(f"forgot {plural(len(result['forgotten']), 'fact')} ({result['reason']})")
    emit_fact_lines(result["forgotten"], "", indent="  ") if result["forgotten"] else None
    if result["already"]:
        emit(f"  {plural(len(result['already']), 'fact')} already forgotten")
    return 0


def run_purge(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.purge import plan as planning
    from claimgraph.purge import run as purging

    sidecars = Sidecars(ctx.db_path)
    preview = planning.build(ctx.shell(), sidecars, _filters(ctx, ctx.shell(), args))
    pending = ctx.shell().store.get_mark("purge:pending") is not None
    show_plan(ctx, preview, pending)
    if args.dry_run or (preview.empty() and not pending):
        return 0
    if not args.yes and not preview.empty() and not _confirmed():
        emit_error("claimgraph: purge cancelled; nothing was changed")
        return 1
    with ctx.writing() as sh:
        finished = purging.finish_pending(sh, sidecars)
        plan = planning.build(sh, sidecars, _filters(ctx, sh, args))
        if plan.counts() != preview.counts() and not args.yes:
            raise ClaimgraphError("purge-changed", "memory changed since the preview; nothing "
                                  "was purged", hint="run the purge again to see the new counts")
        if plan.empty():
            return _nothing(ctx, finished)
        result = purging.apply(sh, sidecars, plan, ctx.environ)
    return show_result(ctx, result, plan.filters)


def _filters(ctx: Invocation, sh: Any, args: argparse.Namespace) -> Filters:
    """The typed filters resolved against the store (ids, entity ids, project ids, times)."""
    from claimgraph.purge.plan import resolve_entities

    given = [args.fact, args.session, args.project, args.entity, args.match, args.before]
    if all(value is None for value in given):
        raise ClaimgraphError("usage", "purge needs at least one filter",
                              hint="e.g. --match TEXT, --session ID, --project ID, --entity NAME")
    if args.match is not None and not args.match.strip():
        raise ClaimgraphError("usage", "--match needs some text", hint="give the literal string")
    return Filters(
        facts=_set(resolve_fact_id(sh, f) for f in args.fact) if args.fact else None,
        sessions=_set(args.session) if args.session else None,
        projects=_set(_project_id(ctx, p) for p in args.project) if args.project else None,
        entities=resolve_entities(sh, args.entity, args.scope) if args.entity else None,
        match=args.match, before=time_arg(args.before, "--before"))


def _set(values: Any) -> frozenset[str]:
    return frozenset(v.strip() for v in values if v and v.strip())


def _project_id(ctx: Invocation, given: str) -> str:
    """A project id as stored, or a directory (resolved as capture would file its sessions)."""
    if os.path.isdir(given):
        from claimgraph.project import resolve_project
        return resolve_project(os.path.abspath(given), ctx.environ).id
    return given


def _confirmed() -> bool:
    print("purge this for good? [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline() if sys.stdin is not None else ""
    return answer.strip().lower() in ("y", "yes")


def show_plan(ctx: Invocation, plan: Any, pending: bool) -> None:
    counts = plan.counts()
    if ctx.json:
        emit_json({"status": "plan", "filters": plan.filters.given(), "counts": counts,
                   "facts_losing_transcript": plan.transcripts_lost, "pending": pending})
        return
    if pending:
        emit("an interrupted purge left work unfinished; it is finished first")
    emit("purge will remove:" if not plan.empty() else "nothing matches these filters")
    for kind, count in counts.items():
        emit(f"  {count:>6}  {kind}{_detail(kind, plan)}")
    if plan.transcripts_lost:
        emit(f"  {plan.transcripts_lost} kept facts lose the transcript they came from (their "
             f"episode's segment goes; --match TEXT would rewrite it instead)")


def _detail(kind: str, plan: Any) -> str:
    if kind == "entities":
        return " (left without facts)"
    if kind == "evidence segments" and plan.rewrite_segments:
        return f" ({len(plan.rewrite_segments)} rewritten with {PLACEHOLDER})"
    if kind == "log lines" and plan.log_lines:
        return f" (text replaced with {PLACEHOLDER})"
    return ""


def _nothing(ctx: Invocation, finished: Any) -> int:
    done = "finished an interrupted purge; " if finished else ""
    if ctx.json:
        emit_json({"status": "nothing", "finished_pending": bool(finished)})
    else:
        emit(f"{done}nothing (more) to purge")
    return 0


_MANY = {"entities": "entity", "oplog entries": "oplog entry"}


def _counted(kind: str, n: int) -> str:
    """``1 entity``, ``2 facts``: kinds are named in the plural."""
    return plural(n, _MANY.get(kind, kind[:-1]), kind)


def show_result(ctx: Invocation, result: dict[str, Any], filters: Filters) -> int:
    if ctx.json:
        emit_json({"status": "purged", **result, "left": len(result["left"])})
    else:
        counts = ", ".join(_counted(kind, n) for kind, n in result["counts"].items())
        emit(f"purged {counts} ({result['purge']})")
    if not result["wal_truncated"]:
        emit_error("claimgraph: warning: another process kept the store open, so its WAL could "
                   "not be cut; it is folded back when that process closes the store")
    if result["left"]:
        alone = filters.given() == ["match"]
        emit_error(f"claimgraph: {'error' if alone else 'warning'}: the text still appears in "
                   f"{plural(len(result['left']), 'file')} of the store"
                   + ("" if alone else " outside these filters — run `claimgraph purge "
                      "--match TEXT` alone to remove it everywhere"))
        return 1 if alone else 0
    return 0


COMMANDS = {"forget": run_forget, "purge": run_purge}
