"""``claimgraph demo``: replay a small project story into a fresh store and show what memory made of it.

Until capture exists this is the README's main job: in one command a newcomer sees facts being
created, a preference retired by a decision record (with its history), and a contradiction
flagged instead of silently overwritten. The demo never touches the real store: it writes to
``<data dir>/claimgraph/demo.db`` (or ``--db``), recreated on each run, and refuses to recreate
a store that it did not make.
"""

from __future__ import annotations

import argparse
import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from claimgraph.cli import facts as facts_cmd
from claimgraph.cli.context import Context
from claimgraph.cli.output import emit, emit_fact_lines, emit_json, fact_json, fact_line, facts_json
from claimgraph.config import default_db
from claimgraph.core import reads, writes
from claimgraph.core.ingest import normalize_item, open_episode
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso
from claimgraph.store.open import open_store

DEMO_MARK = "demo"
SUBJECT, HISTORY_PREDICATE = "billing-api", "prefers"
STORY_KEYS = ("subject_type", "object_type", "source_type", "epistemic", "on_conflict", "evidence")


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("demo", parents=[common], help="replay an example project into a demo store",
                       description="Replay a small coding-project story (dependencies, tests, a "
                                   "retired preference, a flagged contradiction) into a fresh "
                                   "demo store and show the results. Never touches your store.")
    p.set_defaults(command="demo")


def story() -> list[dict[str, Any]]:
    """The bundled example, one assertion per line."""
    text = resources.files("claimgraph").joinpath("examples/demo.jsonl").read_text("utf-8")
    return [normalize_item(json.loads(line)) for line in text.splitlines() if line.strip()]


def demo_path(ctx: Context, args: argparse.Namespace) -> Path:
    """``--db`` when given on the command line; never $CLAIMGRAPH_DB or the config file."""
    if getattr(args, "db", None):
        return Path(args.db)
    return Path(default_db(ctx.environ)).with_name("demo.db")


def recreate(path: Path) -> None:
    """Remove a previous demo store and its sidecars; refuse anything the demo did not create."""
    if path.exists() and not is_demo_store(path):
        raise ClaimgraphError("not-a-demo-store", f"{path} exists and is not a demo store",
                              hint="give the demo a new path with --db, or omit --db", db=str(path))
    for leftover in [path, *path.parent.glob(f"{path.name}-*"), *path.parent.glob(f"{path.name}.*")]:
        if leftover.is_dir():
            shutil.rmtree(leftover)
        else:
            leftover.unlink(missing_ok=True)


def is_demo_store(path: Path) -> bool:
    try:
        store = open_store(path, create=False)
    except ClaimgraphError:
        return False
    try:
        return bool(store.get_mark(DEMO_MARK))
    finally:
        store.close()


def replay(ctx: Context) -> list[dict[str, Any]]:
    """Assert the story in order, as one episode, and return each write's result."""
    results = []
    with ctx.writing() as sh:
        sh.store.set_mark(DEMO_MARK, True)
        episode = open_episode(sh, "session-log", ref="demo:billing-api")
        for item in story():
            options = {k: item[k] for k in STORY_KEYS if k in item}
            results.append(writes.assert_fact(
                sh, item["subject"], item["predicate"], item["object"], episode=episode["id"],
                valid_from=from_iso(item["valid_from"]), **options))
    return results


def run_demo(ctx: Context, args: argparse.Namespace) -> int:
    path = demo_path(ctx, args)
    recreate(path)
    demo = Context(argparse.Namespace(**{**vars(args), "db": str(path)}), ctx.environ)
    try:
        results = replay(demo)
        sh = demo.shell()
        now = reads.get_facts(sh, SUBJECT)["facts"]
        history = reads.history(sh, SUBJECT, HISTORY_PREDICATE)["history"]
        conflicts = reads.conflicts(sh)["conflicts"]
    finally:
        demo.close()
    if ctx.json:
        emit_json({"db": str(path), "replay": [facts_cmd.assert_json(r) for r in results],
                   "facts": facts_json(now), "history": facts_json(history),
                   "conflicts": [{"fact": fact_json(p["fact"]), "candidate": fact_json(p["candidate"])}
                                 for p in conflicts]})
        return 0
    narrate(path, results, now, history, conflicts)
    return 0


def narrate(path: Path, results: list[dict[str, Any]], now: list[dict[str, Any]],
            history: list[dict[str, Any]], conflicts: list[dict[str, Any]]) -> None:
    emit(f"Replaying a small project story into a fresh demo store: {path}\n")
    for result in results:
        facts_cmd.emit_assert(result)
    emit(f"\nWhat memory now holds about {SUBJECT}:")
    emit_fact_lines(now, "  (nothing)", indent="  ")
    emit(f"\nHow {SUBJECT}'s preferences changed (history, oldest first):")
    emit_fact_lines(history, "  (no history)", indent="  ")
    emit("\nOpen conflicts, kept for a human instead of silently overwritten:")
    for pair in conflicts:
        emit(f"  {fact_line(pair['fact'])}")
        emit(f"    conflicts with {fact_line(pair['candidate'])}")
    emit(f"\nExplore it: claimgraph --db {path} facts {SUBJECT}")


COMMANDS = {"demo": run_demo}
