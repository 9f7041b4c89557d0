"""``recall``, ``coach``, ``outcome``, ``mcp``: memory asked mid-task, and judged afterwards.

``recall`` and ``coach`` read the current project's facts plus the user's (``--cwd`` names
another project, ``--all-projects`` lifts the limit), like the agent's memory_recall and
memory_coach tools. Both log what they surfaced to ``<db>.retrievals`` (coach only when it has
something to push), and ``outcome accepted|rejected`` judges everything surfaced since the last
outcome. ``mcp`` runs the MCP server over stdio; it needs the optional ``mcp`` extra, imported
only when this command runs.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Mapping

from claimgraph import retrievals
from claimgraph.cli.invocation import Invocation, log_surfaced
from claimgraph.cli.output import emit, emit_fact_lines, emit_json
from claimgraph.core.briefing import USER_SCOPE
from claimgraph.core.outcome import check_valence, judge
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import facts_json, jsonable, plural
from claimgraph.retrievals import VALENCES
from claimgraph.sidecar import Sidecars


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("recall", parents=[common], help="facts, else session summaries, else "
                       "transcript lines about a topic",
                       description="Search facts; when fewer than --min-hits turn up, escalate "
                                   "to summaries of earlier sessions, then to the raw lines of "
                                   "their transcripts that mention the words.")
    p.add_argument("query", nargs="+", metavar="WORD")
    p.add_argument("--min-hits", type=int, default=1, metavar="N",
                   help="escalate when fewer facts than this are found (default 1)")
    p.add_argument("--limit", "-n", type=int, default=10, help="at most this many facts "
                   "(default 10)")
    _project_flags(p)
    p.set_defaults(command="recall")
    p = sub.add_parser("coach", parents=[common], help="what memory would tell the agent "
                       "about a task", description="The briefing for a task: standing "
                       "decisions and preferences, hazards (lessons from failures) and open "
                       "conflicts that touch it; nothing when nothing is relevant.")
    p.add_argument("task", nargs="+", metavar="WORD")
    _project_flags(p)
    p.set_defaults(command="coach")
    p = sub.add_parser("outcome", parents=[common], help="judge what memory surfaced since the "
                       "last outcome", description="accepted: reinforce every fact the reads "
                       "since the last outcome surfaced (their decay clock restarts); "
                       "rejected: list them for review, changing nothing.")
    p.add_argument("valence", choices=VALENCES)
    p.set_defaults(command="outcome")
    p = sub.add_parser("mcp", parents=[common], help="serve memory to an agent over MCP (stdio)",
                       description="An MCP server on stdin/stdout with the memory_* tools, for "
                                   "the project of --cwd (default: the working directory). "
                                   "Register it with `claimgraph install --mcp`. Logs to "
                                   "<db>.mcp.log.")
    p.add_argument("--cwd", metavar="DIR", help="the project's directory (default: here)")
    p.set_defaults(command="mcp")


def _project_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cwd", metavar="DIR", help="the project's directory (default: here)")
    p.add_argument("--all-projects", action="store_true",
                   help="every project's facts, not just this one's and the user's")


def scopes(ctx: Invocation, args: argparse.Namespace) -> tuple[str, ...] | None:
    """This project's scope and the user's, or None (every scope) with --all-projects."""
    if args.all_projects:
        return None
    from claimgraph.project import resolve_project

    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise ClaimgraphError("no-project-dir", f"--cwd {cwd} is not a directory",
                              hint="pass the project's directory")
    return (resolve_project(cwd, ctx.environ).id, USER_SCOPE)


def run_recall(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.core.recall import recall

    if args.min_hits < 1 or args.limit < 1:
        raise ClaimgraphError("usage", "--min-hits and --limit must be 1 or more",
                              hint="e.g. --min-hits 3")
    sh = ctx.shell()
    found = recall(sh, " ".join(args.query), scopes=scopes(ctx, args), min_hits=args.min_hits,
                   fetch_evidence=Sidecars(ctx.db_path).get_evidence, limit=args.limit)
    log_surfaced(ctx, "recall", [f["id"] for f in found["facts"]])
    from claimgraph.logic.present_records import fact_json, fact_line
    from claimgraph.logic.trust_tiers import teammate_writer
    from claimgraph.logic.trust_tiers import tier as trust_tier

    if ctx.json:  # each fact names how it was learned, as the context block's lines do
        emit_json({**found, "facts": [{**fact_json(f), "learned": trust_tier(f)}
                                      for f in found["facts"]]})
        return 0
    emit(f"answered from {found['tier']}" if found["tier"] != "nothing"
         else f"nothing in memory about {found['query']!r}")
    for fact in found["facts"]:  # a teammate's line already says whom it is from
        tier = "" if teammate_writer(fact) else f" [{trust_tier(fact)}]"
        emit(f"  {fact_line(fact)}{tier}")
    for episode in found["episodes"]:
        emit(f"  session {episode['ref']}: {episode.get('summary') or '(no summary)'}")
    for hit in found["evidence"]:
        emit(f"  session {hit['ref']} ({hit['evidence']}):")
        for line in hit["lines"]:
            emit(f"    {line}")
    return 0


def run_coach(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.core.coach import coach
    from claimgraph.logic.coach import surfaced_ids

    found = coach(ctx.shell(), " ".join(args.task), scopes(ctx, args))
    if found["push"]:
        log_surfaced(ctx, "coach", surfaced_ids(found))
    if ctx.json:
        emit_json(coach_json(found))
    else:
        emit(found["briefing"] or "nothing in memory bears on this task")
    return 0


def coach_json(found: Mapping[str, Any]) -> dict[str, Any]:
    return {"push": found["push"], "query": found["query"],
            "commitments": facts_json(found["commitments"]),
            "hazards": facts_json(found["hazards"]),
            "conflicts": [{"fact": facts_json([p["fact"]])[0],
                           "candidate": facts_json([p["candidate"]])[0]}
                          for p in found["conflicts"]],
            "briefing": found["briefing"]}


def run_outcome(ctx: Invocation, args: argparse.Namespace) -> int:
    valence = check_valence(args.valence)
    waiting = retrievals.pending(ctx.db_path)
    if not waiting["fact_ids"]:
        if ctx.json:
            emit_json({"valence": valence, "reads": 0, "reinforced": [], "review": []})
        else:
            emit("nothing was surfaced since the last outcome; nothing to judge")
        return 0
    if valence == "accepted":
        with ctx.writing() as sh:
            result = judge(sh, valence, waiting["fact_ids"])
    else:
        result = judge(ctx.shell(), valence, waiting["fact_ids"])
    retrievals.log_outcome(ctx.db_path, valence, waiting["fact_ids"], ctx.shell().now())
    show_outcome(ctx, result, len(waiting["reads"]))
    return 0


def show_outcome(ctx: Invocation, result: Mapping[str, Any], reads: int) -> None:
    if ctx.json:
        emit_json(jsonable({"valence": result["valence"], "reads": reads,
                            **{k: facts_json(result[k]) for k in ("reinforced", "review",
                                                                   "invalid")},
                            "missing": result["missing"]}))
        return
    if result["valence"] == "accepted":
        emit(f"reinforced {plural(len(result['reinforced']), 'fact')} surfaced by "
             f"{plural(reads, 'read')} since the last outcome")
        if result["reinforced"]:
            emit_fact_lines(result["reinforced"], "", indent="  ")
    else:
        emit(f"{plural(len(result['review']), 'fact')} to review (surfaced by "
             f"{plural(reads, 'read')}); nothing was changed")
        if result["review"]:
            emit_fact_lines(result["review"], "", indent="  ")
            emit("  a wrong one: `claimgraph invalidate ID`; a contested one: `claimgraph history`")
    if result["invalid"] or result["missing"]:
        emit(f"  skipped {len(result['invalid']) + len(result['missing'])} no longer valid or "
             "no longer stored")


def run_mcp(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.mcp.main import serve

    return serve(ctx.settings, args.cwd, ctx.environ)


COMMANDS = {"recall": run_recall, "coach": run_coach, "outcome": run_outcome, "mcp": run_mcp}
