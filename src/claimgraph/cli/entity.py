"""``entity ensure|list|rename|alias|merge|duplicates``: curating the names facts hang on.

Renames and merges keep old names as aliases, so what agents wrote earlier still resolves.
``list`` and ``duplicates`` read; the rest write under the lease.
"""

from __future__ import annotations

import argparse
from typing import Any

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.cli.scope import add_scope_argument
from claimgraph.core import entities as ents
from claimgraph.logic.present_records import entity_json, entity_line, plural, short_id


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    group = sub.add_parser("entity", parents=[common], help="list and curate entities",
                           description="Entities are the subjects and objects facts name.")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    scoped = argparse.ArgumentParser(add_help=False)
    add_scope_argument(scoped, "the scope the names live in: a project id, or user "
                       "(default: the project of the current directory)")
    p = actions.add_parser("ensure", parents=[common, scoped], help="find or create an entity")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--type", help="e.g. service, library, person")
    p = actions.add_parser("list", parents=[common], help="all entities of every scope, by name")
    p.add_argument("--type", help="only this type")
    p.add_argument("--scope", help="only this scope (a project id, or user)")
    p = actions.add_parser("rename", parents=[common, scoped],
                           help="rename; the old name stays as an alias")
    p.add_argument("name", metavar="NAME")
    p.add_argument("new_name", metavar="NEW_NAME")
    p = actions.add_parser("alias", parents=[common, scoped], help="teach an entity another name")
    p.add_argument("name", metavar="NAME")
    p.add_argument("alias", metavar="ALIAS")
    p = actions.add_parser("merge", parents=[common, scoped],
                           help="fold SOURCE into TARGET (facts move, names become aliases)")
    p.add_argument("source", metavar="SOURCE")
    p.add_argument("target", metavar="TARGET")
    actions.add_parser("duplicates", parents=[common],
                       help="entities whose names look alike: merge candidates")
    for name, action in actions.choices.items():
        action.set_defaults(command=f"entity {name}")


def show_entity(ctx: Invocation, entity: dict[str, Any], verb: str) -> int:
    if ctx.json:
        emit_json({"status": verb, "entity": entity_json(entity)})
    else:
        emit(f"{verb}  {entity_line(entity)}")
    return 0


def run_ensure(ctx: Invocation, args: argparse.Namespace) -> int:
    with ctx.writing() as sh:
        entity = ents.ensure_entity(sh, args.name, ctx.write_scope(), args.type)
    return show_entity(ctx, entity, "ok")


def run_list(ctx: Invocation, args: argparse.Namespace) -> int:
    entities = ents.list_entities(ctx.shell(), type=args.type, scope=args.scope)
    if ctx.json:
        emit_json({"entities": [entity_json(e) for e in entities]})
        return 0
    for entity in entities:
        emit(entity_line(entity))
    emit(plural(len(entities), "entity", "entities"))
    return 0


def run_rename(ctx: Invocation, args: argparse.Namespace) -> int:
    with ctx.writing() as sh:
        entity = ents.rename(sh, args.name, args.new_name, ctx.write_scope())
    return show_entity(ctx, entity, "renamed")


def run_alias(ctx: Invocation, args: argparse.Namespace) -> int:
    with ctx.writing() as sh:
        entity = ents.add_alias(sh, args.name, args.alias, ctx.write_scope())
    return show_entity(ctx, entity, "aliased")


def run_merge(ctx: Invocation, args: argparse.Namespace) -> int:
    with ctx.writing() as sh:
        result = ents.merge(sh, args.source, args.target, ctx.write_scope())
    if ctx.json:
        emit_json({"status": "merged", "entity": entity_json(result["entity"]),
                   "repointed": result["repointed"], "collapsed": result["collapsed"]})
        return 0
    emit(f"merged  {entity_line(result['entity'])}")
    emit(f"  {plural(result['repointed'], 'fact')} moved, "
         f"{plural(len(result['collapsed']), 'duplicate')} collapsed"
         + "".join(f" {short_id(i)}" for i in result["collapsed"]))
    return 0


def run_duplicates(ctx: Invocation, args: argparse.Namespace) -> int:
    clusters = ents.duplicate_clusters(ctx.shell())
    if ctx.json:
        emit_json({"clusters": [{**c, "entities": [entity_json(e) for e in c["entities"]]}
                                for c in clusters]})
        return 0
    if not clusters:
        emit("no look-alike entities")
    for cluster in clusters:
        names = ", ".join(repr(name) for name in sorted(e["name"] for e in cluster["entities"]))
        emit(f"{cluster['normalized']} (scope {cluster['scope']}): {names}")
    if clusters:
        emit("merge one into another with `claimgraph entity merge SOURCE TARGET`")
    return 0


COMMANDS = {"entity ensure": run_ensure, "entity list": run_list, "entity rename": run_rename,
            "entity alias": run_alias, "entity merge": run_merge,
            "entity duplicates": run_duplicates}
