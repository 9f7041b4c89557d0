"""``assert``, ``facts``, ``history``, ``invalidate``: stating beliefs and reading them back.

``assert`` and ``invalidate`` write, so they run under the write lease; ``facts`` and
``history`` only read. The conflict policy itself lives in logic; this module only parses what
the user typed and shows what the write path decided.
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph.cli.context import Context
from claimgraph.cli.memory import log_surfaced
from claimgraph.cli.output import (
    emit, emit_fact_lines, emit_json, entity_json, fact_json, fact_line, facts_json, short_id,
    show_name, show_predicate,
)
from claimgraph.cli.values import drop_none, fraction_arg, resolve_fact_id, time_arg
from claimgraph.core import reads, writes
from claimgraph.logic.model import EPISTEMIC_STRENGTH, SOURCE_TYPES

ON_CONFLICT = ("supersede", "flag", "ignore")


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    add_assert_parser(sub, common)
    p = sub.add_parser("facts", parents=[common], help="what is believed about an entity",
                       description="Facts about an entity, valid now or at --as-of.")
    p.add_argument("entity", metavar="ENTITY")
    p.add_argument("--predicate", "-p", help="only this predicate")
    p.add_argument("--direction", choices=("out", "in", "both"), default="out",
                   help="as subject (out, default), as object (in), or both")
    p.add_argument("--scope", help="only facts in this scope")
    p.add_argument("--entity-scope", help="the scope ENTITY is named in (default project)")
    p.add_argument("--as-of", metavar="TIME", help="what was believed valid at TIME (ISO date)")
    p.add_argument("--all", action="store_true", help="include invalidated facts")
    p.add_argument("--min-confidence", metavar="X", help="only facts at or above X (0..1), "
                   "judged by confidence after decay")
    p.set_defaults(command="facts")
    p = sub.add_parser("history", parents=[common], help="every version of subject+predicate",
                       description="All versions of SUBJECT PREDICATE, oldest first, "
                                   "including superseded and invalidated ones.")
    p.add_argument("subject", metavar="SUBJECT")
    p.add_argument("predicate", metavar="PREDICATE")
    p.add_argument("--subject-scope", help="the scope SUBJECT is named in (default project)")
    p.set_defaults(command="history")
    p = sub.add_parser("invalidate", parents=[common], help="close a fact's valid time by hand",
                       description="Mark a fact as no longer true. Facts are never deleted.")
    p.add_argument("fact", metavar="FACT_ID", help="a full id or the short f-xxxxxxxx shown")
    p.add_argument("--reason", help="why (default: manually invalidated)")
    p.add_argument("--at", metavar="TIME", help="when it stopped being true (default now)")
    p.set_defaults(command="invalidate")


def add_assert_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("assert", parents=[common], help="state a fact",
                       description="Assert SUBJECT PREDICATE OBJECT through the conflict policy: "
                                   "it is created, reinforces an equal fact, supersedes an old "
                                   "value, or is flagged for review.")
    p.add_argument("subject", metavar="SUBJECT")
    p.add_argument("predicate", metavar="PREDICATE", help="e.g. prefers, depends-on, x/owned-by")
    p.add_argument("object", metavar="OBJECT")
    p.add_argument("--epistemic", choices=tuple(EPISTEMIC_STRENGTH),
                   help="default: the predicate's own class")
    p.add_argument("--source-type", choices=tuple(SOURCE_TYPES), default="user-assertion",
                   help="where the claim comes from; caps its confidence (default user-assertion)")
    p.add_argument("--confidence", metavar="X", help="0..1 (default 0.8)")
    p.add_argument("--scope", help="project id, or user (default project)")
    p.add_argument("--object-kind", choices=("entity", "literal"),
                   help="for predicates that take either")
    p.add_argument("--subject-type", help="e.g. service, library")
    p.add_argument("--object-type")
    p.add_argument("--valid-from", metavar="TIME", help="when it became true (default now)")
    p.add_argument("--valid-until", metavar="TIME", help="when it stopped being true")
    p.add_argument("--on-conflict", choices=ON_CONFLICT,
                   help="override the policy (default: supersede; flag when a commitment is involved)")
    p.add_argument("--evidence", action="append", default=[], metavar="CITATION",
                   help="'path: quoted text' backing the claim (repeatable)")
    p.set_defaults(command="assert")


def run_assert(ctx: Context, args: argparse.Namespace) -> int:
    options = drop_none(
        epistemic=args.epistemic, source_type=args.source_type, scope=args.scope,
        confidence=fraction_arg(args.confidence, "--confidence"), object_kind=args.object_kind,
        subject_type=args.subject_type, object_type=args.object_type,
        valid_from=time_arg(args.valid_from, "--valid-from"),
        valid_until=time_arg(args.valid_until, "--valid-until"), on_conflict=args.on_conflict)
    with ctx.writing() as sh:
        result = writes.assert_fact(sh, args.subject, args.predicate, args.object,
                                    evidence=args.evidence, **options)
    if ctx.json:
        emit_json(assert_json(result))
    else:
        emit_assert(result)
    return 0


def assert_json(result: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"status": result["status"], "fact": fact_json(result["fact"])}
    if "superseded" in result:
        out["superseded"] = result["superseded"]
    if "candidates" in result:
        out["candidates"] = facts_json(result["candidates"])
    if result.get("reason"):
        out["reason"] = result["reason"]
    return out


def emit_assert(result: dict[str, Any]) -> None:
    status = result["status"]
    reason = f" ({result['reason']})" if result.get("reason") else ""
    emit(f"{status}{reason}  {fact_line(result['fact'])}")
    for old in result.get("superseded", []):
        emit(f"  supersedes {short_id(old)}")
    for candidate in result.get("candidates", []):
        emit(f"  conflicts with {fact_line(candidate)}")
    if status == "flagged":
        emit("  review with `claimgraph conflicts`")


def run_facts(ctx: Context, args: argparse.Namespace) -> int:
    result = reads.get_facts(
        ctx.shell(), args.entity, entity_scope=args.entity_scope, direction=args.direction,
        predicate=args.predicate, scope=args.scope, as_of=time_arg(args.as_of, "--as-of"),
        include_invalidated=args.all,
        min_confidence=fraction_arg(args.min_confidence, "--min-confidence"))
    log_surfaced(ctx, "facts", [f["id"] for f in result["facts"]])
    if ctx.json:
        emit_json({"entity": entity_json(result["entity"]), "as_of": result["as_of"],
                   "facts": facts_json(result["facts"])})
        return 0
    name = show_name(result["entity"]["name"])
    emit_fact_lines(result["facts"], f"no {'' if args.all else 'valid '}facts about {name}")
    return 0


def run_history(ctx: Context, args: argparse.Namespace) -> int:
    result = reads.history(ctx.shell(), args.subject, args.predicate, args.subject_scope)
    if ctx.json:
        emit_json({"entity": entity_json(result["entity"]), "predicate": result["predicate"],
                   "history": facts_json(result["history"])})
        return 0
    emit_fact_lines(result["history"], f"no history for {show_name(result['entity']['name'])} "
                                       f"{show_predicate(result['predicate'])}")
    return 0


def run_invalidate(ctx: Context, args: argparse.Namespace) -> int:
    at = time_arg(args.at, "--at")
    with ctx.writing() as sh:
        result = writes.invalidate(sh, resolve_fact_id(sh, args.fact), args.reason, at)
    if ctx.json:
        emit_json({"status": result["status"], "fact": fact_json(result["fact"])})
    else:
        emit(f"invalidated  {fact_line(result['fact'])}")
    return 0


COMMANDS = {"assert": run_assert, "facts": run_facts, "history": run_history,
            "invalidate": run_invalidate}
