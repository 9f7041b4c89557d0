"""``logs`` and ``logs path``: the capture, curator and daemon logs, newest last.

Reading never opens the store, so the logs still answer when the store is what broke. The
human view is one line per event (time, log, level, event, the fields worth a glance); --json
gives the events exactly as written, so nothing is lost to the rendering.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from claimgraph import logs
from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.errors import ClaimgraphError

CHOICES = (*logs.LOG_NAMES, "all", "path")
DEFAULT_LINES = 20
KEY_FIELDS = ("status", "session", "run_id", "stage", "tool", "duration_ms", "error", "reason",
              "hint")
MAX_VALUE_CHARS = 80


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("logs", parents=[common], help="show the capture, curator, daemon logs",
                       description="The last events of a log, oldest to newest, across rotated "
                                   "files. `claimgraph logs path` prints where each log is.")
    p.add_argument("which", nargs="?", choices=CHOICES, default="all", metavar="LOG",
                   help="capture, curate, daemon, mcp, all (default), or path")
    p.add_argument("-n", dest="lines", type=int, default=DEFAULT_LINES, metavar="N",
                   help=f"how many events (default {DEFAULT_LINES}; 0 = all)")
    p.add_argument("-f", "--follow", action="store_true",
                   help="keep printing new events until Ctrl-C (survives log rotation)")
    p.add_argument("--level", help="this level and above: debug, info, warning, error")
    p.add_argument("--event", metavar="PATTERN",
                   help="event name prefix (capture) or glob (curate.*-failed)")
    p.add_argument("--session", help="only this agent session id")
    p.add_argument("--run", metavar="RUN_ID", help="only this run (cap-… or cur-…)")
    p.add_argument("--since", metavar="WHEN", help="30m, 1h, 2d, or an ISO date/time")
    p.add_argument("--all-events", action="store_true",
                   help="also the routine events of runs that went well (a curator stage "
                        "began, a lease was taken); shown anyway with --json, --run, --event "
                        "or --level debug")
    p.add_argument("--interval", type=float, default=0.5, help=argparse.SUPPRESS)
    p.set_defaults(command="logs")


def run_logs(ctx: Invocation, args: argparse.Namespace) -> int:
    check_combination(args, ctx.json)
    paths = logs.log_paths(ctx.db_path)
    if args.which == "path":
        return show_paths(ctx, paths)
    chosen = paths if args.which == "all" else {args.which: paths[args.which]}
    filters = build_filters(args, time.time_ns() // 1_000_000, ctx.json)
    followers = [logs.Follower(n, p) for n, p in chosen.items()] if args.follow else []
    ends = {f.log: f.offset for f in followers}
    entries = logs.tail(chosen, filters, args.lines, ends)
    if ctx.json:
        emit_json([entry.as_json() for entry in entries])
        return 0
    for entry in entries:
        emit(render(entry))
    if not entries and not followers:
        emit(f"no matching events in the {' and '.join(chosen)} log(s)")
    return follow(followers, filters, args.interval) if followers else 0


def check_combination(args: argparse.Namespace, as_json: bool) -> None:
    """Refuse flags that cannot mean anything together, naming the fix."""
    if args.lines < 0:
        raise ClaimgraphError("invalid-lines", f"-n {args.lines} is negative",
                              hint="give -n a count, or -n 0 for every event")
    filtered = [f"--{name}" for name in ("level", "event", "session", "run", "since")
                if getattr(args, name) is not None]
    if args.which == "path" and (args.follow or filtered):
        raise ClaimgraphError("bad-flags", "`logs path` only prints where the logs are",
                              hint="drop " + ", ".join(["--follow"] * args.follow + filtered))
    if args.follow and as_json:
        raise ClaimgraphError("bad-flags", "--follow and --json do not combine: --json prints "
                              "one list when done, and --follow is never done",
                              hint="drop --json, or follow the raw JSON lines with "
                                   "`tail -F` on the file from `claimgraph logs path`")


def build_filters(args: argparse.Namespace, now_ms: int, as_json: bool = False) -> logs.Filters:
    level = logs.parse_level(args.level)
    routine_hidden = not (as_json or args.all_events or args.event or args.run
                          or level == "debug")
    return logs.Filters(level=level, event=args.event, session=args.session, run=args.run,
                        since_ms=logs.parse_since(args.since, now_ms),
                        hide_routine=routine_hidden)


def show_paths(ctx: Invocation, paths: dict[str, Any]) -> int:
    if ctx.json:
        emit_json({name: str(path) for name, path in paths.items()})
        return 0
    for name, path in paths.items():
        emit(f"{name:<8} {path}")
    return 0


def follow(followers: list[logs.Follower], filters: logs.Filters, interval: float) -> int:
    """Ctrl-C is how a follow ends, so it is a clean exit, not an interruption."""
    try:
        for entry in logs.follow(followers, filters, interval):
            emit(render(entry))
            sys.stdout.flush()
    except KeyboardInterrupt:
        return 0
    return 0


def render(entry: logs.Entry) -> str:
    """``2026-01-31T09:00:00.123Z  capture  info     capture.report  status=captured …``"""
    if entry.event is None:
        mark = "raw, truncated" if entry.truncated else "raw"
        return f"{'':24}  {entry.log:<8} {mark:<8} {entry.raw}"
    data = entry.event
    head = (f"{str(data.get('ts', '')):<24}  {entry.log:<8} {str(data.get('level', '')):<8} "
            f"{data.get('event', '')}")
    fields = [f"{key}={_short(data[key])}" for key in KEY_FIELDS if data.get(key) is not None]
    fields += _what_it_did(data)
    return "  ".join([head, *fields]) if fields else head


def _what_it_did(data: dict[str, Any]) -> list[str]:
    """A capture's report says what it learned and where; a curator's what it changed."""
    if data.get("event") == "capture.report" and isinstance(data.get("counts"), dict):
        counts = data["counts"]
        learned = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()) if n) or "nothing"
        where = data.get("project") or "no project"
        return [f"learned={_short(learned)}", f"project={_short(where)}"]
    return []


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS - 1] + "…"


COMMANDS = {"logs": run_logs}
