"""``assert``, ``facts``, ``history``, ``invalidate``: stating beliefs and reading them back.

``assert`` and ``invalidate`` write, so they run under the write lease; ``facts`` and
``history`` only read. The conflict policy itself lives in logic; this module only parses what
the user typed and shows what the write path decided.
"""

from __future__ import annotations

import argparse

from claimgraph.cli.invocation import Invocation, log_surfaced
from claimgraph.cli.output import emit, emit_fact_lines, emit_json
from claimgraph.cli.scope import READ_HELP, USER_SCOPE, WRITE_HELP, add_scope_argument
from claimgraph.cli.values import drop_none, fraction_arg, resolve_fact_id, time_arg
from claimgraph.core import reads
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import EPISTEMIC_STRENGTH, SOURCE_TYPES
from claimgraph.logic.names import object_name
from claimgraph.logic.present_records import (
    entity_json, fact_json, fact_line, facts_json, short_id, show_name, show_predicate)

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

ON_CONFLICT = ("supersede", "flag", "ignore")
DEFAULT_LIMIT = 50


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    add_assert_parser(sub, common)
    p = sub.add_parser("facts", parents=[common], help="what is believed, about an entity or "
                       "the whole project", description="Facts about ENTITY, valid now or at "
                       "--as-of. Without ENTITY: every fact of the current project (or "
                       "--scope), standing commitments first, then by effective confidence.")
    p.add_argument("entity", metavar="ENTITY", nargs="?",
                   help="an entity name (default: list the project's facts)")
    p.add_argument("--predicate", "-p", help="only this predicate")
    p.add_argument("--direction", choices=("out", "in", "both"), default="out",
                   help="as subject (out, default), as object (in), or both")
    add_scope_argument(p, READ_HELP, "--entity-scope")
    p.add_argument("--as-of", metavar="TIME", help="what was believed valid at TIME (ISO date); "
                   "never shows a fact that began after TIME")
    p.add_argument("--all", action="store_true", help="include invalidated and dormant facts")
    p.add_argument("--min-confidence", metavar="X", help="only facts at or above X (0..1), "
                   "judged by confidence after decay")
    p.add_argument("--limit", "-n", type=int, default=DEFAULT_LIMIT, help="without ENTITY: at "
                   f"most this many facts (default {DEFAULT_LIMIT}; 0 = all)")
    p.set_defaults(command="facts")
    p = sub.add_parser("history", parents=[common], help="every version of subject+predicate",
                       description="All versions of SUBJECT PREDICATE, oldest first, "
                                   "including superseded and invalidated ones.")
    p.add_argument("subject", metavar="SUBJECT")
    p.add_argument("predicate", metavar="PREDICATE")
    add_scope_argument(p, READ_HELP, "--subject-scope")
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
    add_scope_argument(p, WRITE_HELP)
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
    p.add_argument("--allow-relearn", action="store_true",
                   help="assert it even though `claimgraph purge` removed it (lifts the tombstone)")
    p.set_defaults(command="assert")


def run_assert(ctx: Invocation, args: argparse.Namespace) -> int:
    options = drop_none(
        epistemic=args.epistemic, source_type=args.source_type, scope=ctx.write_scope(),
        confidence=fraction_arg(args.confidence, "--confidence"), object_kind=args.object_kind,
        subject_type=args.subject_type, object_type=args.object_type,
        valid_from=time_arg(args.valid_from, "--valid-from"),
        valid_until=time_arg(args.valid_until, "--valid-until"), on_conflict=args.on_conflict)
    from claimgraph.core import writes  # the write path: not loaded by `facts`, `history`
    with ctx.writing() as sh:
        result = writes.assert_fact(sh, args.subject, args.predicate, args.object,
                                    evidence=args.evidence, relearn=args.allow_relearn,
                                    **options)
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


#: What a write did, in words (``--json`` keeps the status ids).
STATUS_WORDS = {"superseded": "created"}  # the next line says what it replaces
REASON_WORDS = {"names-rejected": "it names something decided against",
                "revenant": "it brings back a value that was replaced",
                "backdated-overlap": "an older record overlaps it",
                "outranked": "a more trusted fact says otherwise"}


def emit_assert(result: dict[str, Any]) -> None:
    from claimgraph.logic.facts import NAMES_REJECTED  # the write path's: not loaded by reads
    status = STATUS_WORDS.get(result["status"], result["status"])
    reason = result.get("reason")
    said = f" ({REASON_WORDS.get(reason, reason)})" if reason else ""
    emit(f"{status}{said}  {fact_line(result['fact'])}")
    for old in result.get("superseded", []):
        emit(f"  replaces {short_id(old)}")
    named = (f" — its object names {show_name(object_name(result['fact']))}"
             if result.get("reason") == NAMES_REJECTED else "")
    for candidate in result.get("candidates", []):
        emit(f"  conflicts with {fact_line(candidate)}{named}")
    if status == "flagged":
        emit("  review with `claimgraph conflicts`")


def _named(ctx: Invocation, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A teammate's facts by name ("from Ada"): the trust list's (``core.teammates``)."""
    from claimgraph.core.teammates import named
    return named(ctx.shell().store, facts)


def run_facts(ctx: Invocation, args: argparse.Namespace) -> int:
    if args.entity is None:
        return run_scope_facts(ctx, args)
    result = reads.get_facts(
        ctx.shell(), args.entity, entity_scope=ctx.read_scopes(), direction=args.direction,
        predicate=args.predicate, as_of=time_arg(args.as_of, "--as-of"),
        include_invalidated=args.all,
        min_confidence=fraction_arg(args.min_confidence, "--min-confidence"))
    log_surfaced(ctx, "facts", [f["id"] for f in result["facts"]])
    result["facts"] = _named(ctx, result["facts"])
    if ctx.json:
        emit_json({"entity": entity_json(result["entity"]), "as_of": result["as_of"],
                   "facts": facts_json(result["facts"])})
        return 0
    name = show_name(result["entity"]["name"])
    emit_fact_lines(result["facts"], f"no {'' if args.all else 'valid '}facts about {name}")
    return 0


def run_scope_facts(ctx: Invocation, args: argparse.Namespace) -> int:
    """``facts`` alone: the project's memory (the user scope only when asked for)."""
    if args.limit < 0:
        raise ClaimgraphError("invalid-limit", f"--limit {args.limit} is negative",
                              hint="give 0 for all, or a positive number")
    scope = ctx.write_scope()
    result = reads.scope_facts(
        ctx.shell(), [scope], predicate=args.predicate, as_of=time_arg(args.as_of, "--as-of"),
        include_invalidated=args.all,
        min_confidence=fraction_arg(args.min_confidence, "--min-confidence"))
    facts = _named(ctx, result["facts"][:args.limit] if args.limit > 0 else result["facts"])
    if ctx.json:
        emit_json({"scope": scope, "as_of": result["as_of"], "total": len(result["facts"]),
                   "facts": facts_json(facts)})
        return 0
    hint = "" if scope == USER_SCOPE else " (`--scope user` lists the facts across projects)"
    emit_fact_lines(facts, f"no {'' if args.all else 'valid '}facts in scope {scope}{hint}")
    if len(result["facts"]) > len(facts):
        emit(f"… {len(result['facts']) - len(facts)} more (raise --limit)")
    return 0


def run_history(ctx: Invocation, args: argparse.Namespace) -> int:
    result = reads.history(ctx.shell(), args.subject, args.predicate, ctx.read_scopes())
    result["history"] = _named(ctx, result["history"])
    if ctx.json:
        emit_json({"entity": entity_json(result["entity"]), "predicate": result["predicate"],
                   "history": facts_json(result["history"])})
        return 0
    emit_fact_lines(result["history"], f"no history for {show_name(result['entity']['name'])} "
                                       f"{show_predicate(result['predicate'])}")
    return 0


def run_invalidate(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.core import writes
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
