"""``search``, ``neighbor``, ``conflicts``: finding beliefs without knowing their exact names.

All three only read. Search fuses full text, entity and one-hop routes (docs/search.md); neighbor
walks the graph around an entity; conflicts lists flagged pairs that still both stand.
"""

from __future__ import annotations

from claimgraph.cli.invocation import Invocation, log_surfaced
from claimgraph.cli.output import emit, emit_json
from claimgraph.cli.scope import READ_HELP, add_project_choice, add_scope_argument, review_scopes
from claimgraph.core import reads
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import (
    entity_json, fact_json, fact_line, facts_json, plural, short_id, show_name)

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    import argparse
    from typing import Any

DEFAULT_LIMIT = 10


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("search", parents=[common], help="find facts by words",
                       description="Rank facts by full text, entity names and their neighbours.")
    p.add_argument("query", nargs="+", metavar="WORD")
    p.add_argument("--limit", "-n", type=int, default=DEFAULT_LIMIT,
                   help=f"at most this many facts (default {DEFAULT_LIMIT}; 0 = all)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scope", metavar="SCOPE", help="search this scope only: a project id, "
                       "or user (default: the current directory's project plus user)")
    where.add_argument("--all-projects", action="store_true",
                       help="search every project's facts")
    p.set_defaults(command="search")
    p = sub.add_parser("neighbor", parents=[common], help="the graph around an entity",
                       description="Entities and facts within --depth hops of ENTITY, or, with "
                                   "--query, a walk toward the facts that match it.")
    p.add_argument("entity", metavar="ENTITY")
    p.add_argument("--depth", type=int, default=1, help="hops (default 1)")
    add_scope_argument(p, READ_HELP, "--entity-scope")
    p.add_argument("--predicate", "-p", help="only follow this predicate")
    p.add_argument("--as-of", metavar="TIME", help="the graph as believed at TIME (ISO date)")
    p.add_argument("--min-confidence", metavar="X", help="only facts at or above X (0..1)")
    p.add_argument("--query", "-q", help="walk toward facts mentioning these words")
    p.add_argument("--budget", type=int, help="with --query: at most this many facts (default 25)")
    p.add_argument("--beam", type=int, help="with --query: facts expanded per round (default 8)")
    p.set_defaults(command="neighbor")
    p = sub.add_parser("conflicts", parents=[common], help="flagged disagreements still open",
                       description="Pairs of facts flagged as contradicting that are both "
                                   "still valid, newer first.")
    p.add_argument("--as-of", metavar="TIME", help="open at TIME (default now)")
    add_project_choice(p, "conflicts")
    p.set_defaults(command="conflicts")


def run_search(ctx: Invocation, args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise ClaimgraphError("invalid-limit", f"--limit {args.limit} is negative",
                              hint="give 0 for all, or a positive number")
    scopes = None if args.all_projects else ctx.read_scopes()
    result = reads.search(ctx.shell(), " ".join(args.query), scopes, limit=args.limit or None)
    found = result["facts"]
    log_surfaced(ctx, "search", [f["id"] for f in found])
    if ctx.json:
        emit_json({"query": result["query"], "scopes": scopes,
                   "facts": [search_hit(f) for f in found],
                   "matched_entities": result["matched_entities"],
                   "entities": [entity_json(e) for e in result["entities"]]})
        return 0
    where = "in every project" if scopes is None else "in " + " and ".join(scopes)
    if not found:
        emit(f"nothing found for {show_name(result['query'])} {where}")
    for fact in found:
        emit(f"{fact_line(fact)}  [{fact.get('scope')}]")
    if result["total"] > len(found):
        emit(f"… {result['total'] - len(found)} more (raise --limit)")
    return 0


def search_hit(fact: dict[str, Any]) -> dict[str, Any]:
    return {**fact_json(fact), "retrieval_score": fact.get("retrieval_score")}


def run_neighbor(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.cli.values import drop_none, fraction_arg, time_arg  # not search's
    options = drop_none(entity_scope=ctx.read_scopes(), predicate=args.predicate,
                        as_of=time_arg(args.as_of, "--as-of"),
                        min_confidence=fraction_arg(args.min_confidence, "--min-confidence"),
                        query=args.query, budget=args.budget, beam=args.beam)
    from claimgraph.core.neighbor import neighbor  # `search` itself never walks the graph
    result = neighbor(ctx.shell(), args.entity, depth=args.depth, **options)
    if ctx.json:
        emit_json({"root": entity_json(result["root"]), "depth": result["depth"],
                   "entities": [entity_json(e) for e in result["entities"]],
                   "facts": facts_json(result["facts"])})
        return 0
    others = [e for e in result["entities"] if e["id"] != result["root"]["id"]]
    emit(f"{show_name(result['root']['name'])}: {plural(len(others), 'neighbour')}, "
         f"{plural(len(result['facts']), 'fact')}")
    for entity in others:
        emit(f"  {'  ' * (entity['depth'] - 1)}{show_name(entity['name'])}  (depth "
             f"{entity['depth']})")
    for fact in result["facts"]:
        emit("  " + fact_line(fact))
    return 0


def run_conflicts(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.cli.values import time_arg  # not search's
    result = reads.conflicts(ctx.shell(), time_arg(args.as_of, "--as-of"),
                             scopes=review_scopes(ctx, args))
    result["conflicts"] = _teammates_named(ctx, result["conflicts"])
    if ctx.json:
        emit_json({"open": result["open"], "conflicts": [
            {"fact": fact_json(p["fact"]), "candidate": fact_json(p["candidate"])}
            for p in result["conflicts"]], "suspect": [
            {"fact": fact_json(s["fact"]), "verdicts": [
                {"evidence": v["evidence"], "verdict": v["verdict"]} for v in s["verdicts"]]}
            for s in result.get("suspect", [])], "held": [
            {"fact": fact_json(h["fact"]), "reason": h["reason"]} for h in result.get("held", [])]})
        return 0
    for item in result.get("held", []):
        emit(f"held     {fact_line(item['fact'])}")
        emit(f"  not shown to agents: {item['reason']}; keep it out with "
             f"`claimgraph invalidate {short_id(item['fact']['id'])}`")
    _emit_suspects(result.get("suspect", []))
    if not result["conflicts"]:
        emit("no open conflicts")
    for pair in result["conflicts"]:
        emit(fact_line(pair["fact"]))
        emit(f"  conflicts with {fact_line(pair['candidate'])}")
    if result["conflicts"]:
        emit(f"{plural(result['open'], 'open conflict')}; settle one with "
             f"`claimgraph invalidate {short_id(result['conflicts'][0]['candidate']['id'])}` "
             "(or the other side)")
    return 0


def _teammates_named(ctx: Invocation, pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Both sides of each pair with a teammate's name ("from Ada"), as ``facts`` shows them: a
    disagreement that arrived by sync is most often one with a teammate."""
    from claimgraph.core.teammates import named
    flat = named(ctx.shell().store, [f for p in pairs for f in (p["fact"], p["candidate"])])
    return [{**p, "fact": flat[2 * i], "candidate": flat[2 * i + 1]}
            for i, p in enumerate(pairs)]


def _emit_suspects(suspect: list[dict[str, Any]]) -> None:
    """Claims the audit could not back with their cited files: they want the same review."""
    for item in suspect:
        emit(f"suspect  {fact_line(item['fact'])}")
        for verdict in item["verdicts"]:
            emit(f"  {verdict['verdict']}: {verdict['evidence']}")


COMMANDS = {"search": run_search, "neighbor": run_neighbor, "conflicts": run_conflicts}
