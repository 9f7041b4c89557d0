"""``predicates [list]`` and ``predicates register x/...``: the vocabulary facts are written in.

``core/*`` rows are curated and seeded with the store; people and agents coin ``x/*`` rows,
either implicitly on first use or explicitly here with a shape of their choosing.
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.core import vocabulary
from claimgraph.logic.model import EPISTEMIC_STRENGTH
from claimgraph.logic.predicates import CARDINALITIES, OBJECT_KINDS, OBJECT_SHAPES, STATUSES
from claimgraph.logic.present_records import plural

#: Registration flags and the row fields they fill (the flag is the field, dashed).
REGISTER_FIELDS: dict[str, dict[str, Any]] = {
    "label": {}, "category": {}, "definition": {},
    "object_kind": {"choices": OBJECT_KINDS}, "object_shape": {"choices": OBJECT_SHAPES},
    "cardinality": {"choices": CARDINALITIES},
    "default_epistemic": {"choices": tuple(EPISTEMIC_STRENGTH)},
    "status": {"choices": STATUSES}, "replaced_by": {}, "inverse_of": {}, "exclusion_group": {},
}


def list_flags(suppress: bool) -> argparse.ArgumentParser:
    """Filters accepted both as ``predicates --usage`` and ``predicates list --usage``."""
    default: dict[str, Any] = {"default": argparse.SUPPRESS} if suppress else {}
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--category", help="structural, procedural, decision, provenance, "
                       "experimental", **default)
    flags.add_argument("--status", choices=STATUSES, **default)
    flags.add_argument("--usage", action="store_true", help="count the facts using each", **default)
    return flags


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    group = sub.add_parser("predicates", parents=[common, list_flags(False)],
                           help="the predicate vocabulary",
                           description="List the registry (the default), or register an x/* "
                                       "predicate with its shape.")
    group.set_defaults(command="predicates list")
    actions = group.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", parents=[common, list_flags(True)], help="list predicates (default)")
    p = actions.add_parser("register", parents=[common], help="register or amend an x/* predicate")
    p.add_argument("id", metavar="x/NAME")
    for field, options in REGISTER_FIELDS.items():
        p.add_argument("--" + field.replace("_", "-"), **options)
    p.set_defaults(command="predicates register")


def run_list(ctx: Invocation, args: argparse.Namespace) -> int:
    rows = vocabulary.list_predicates(ctx.shell(), category=args.category, status=args.status,
                                      with_usage=args.usage)
    if ctx.json:
        emit_json({"predicates": rows})
        return 0
    for row in rows:
        emit(predicate_line(row, args.usage))
    emit(plural(len(rows), "predicate"))
    return 0


def predicate_line(row: dict[str, Any], with_usage: bool) -> str:
    """``prefers  decision, either, many, preference  — The subject favours ...``"""
    traits = [row.get("category"), row.get("object_kind"), row.get("cardinality"),
              row.get("default_epistemic")]
    if row.get("status") != "stable":
        traits.append(row.get("status") if not row.get("replaced_by")
                      else f"{row.get('status')} → {_id(row['replaced_by'])}")
    if with_usage:
        traits.append(plural(row.get("usage", 0), "fact"))
    definition = f"  — {row['definition']}" if row.get("definition") else ""
    return f"{_id(row['id'])}  ({', '.join(t for t in traits if t)}){definition}"


def _id(pred_id: str) -> str:
    """The vocabulary lists ids (``x/owned-by`` is what --predicate takes); core's read bare."""
    return pred_id.removeprefix("core/")


def run_register(ctx: Invocation, args: argparse.Namespace) -> int:
    row = {"id": args.id.strip()}
    row.update({field: getattr(args, field) for field in REGISTER_FIELDS
                if getattr(args, field) is not None})
    with ctx.writing() as sh:
        registered = vocabulary.register(sh, row)
    if ctx.json:
        emit_json({"status": "registered", "predicate": registered})
    else:
        emit(f"registered  {predicate_line(registered, False)}")
    return 0


COMMANDS = {"predicates list": run_list, "predicates register": run_register}
