"""``claimgraph demo``: capture a bundled session (the main job) and show what memory made of it.

In one command a newcomer sees what happens after every coding session: a Claude Code
transcript (``examples/demo-session.jsonl``, synthetic) is read, cleaned, redacted, its facts
extracted by the built-in extractor, screened and written with evidence, exactly as the
SessionEnd hook's ``claimgraph capture`` does it -- in process, offline, with no model.

Before the capture the store gets a short earlier history (``examples/demo.jsonl``): a
preference a decision record retired (supersession, with its history), and an old note the
session's directive then contradicts (a conflict flagged for a human, not overwritten).

The session runs in a fresh temporary project directory holding the files it wrote, so the
file evidence of ``defined-in`` facts can be checked against them; the directory and the raw
transcript are removed afterwards. The transcript's tool output carries a planted, obviously
fake OpenAI-shaped key, built only at run time, so no key-shaped literal sits in the package;
the demo shows it was redacted before anything was stored.

The demo never touches the real store: it writes to ``<data dir>/claimgraph/demo.db`` (or
``--db``), recreated on each run, and refuses to recreate a store that it did not make.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from claimgraph.cli import facts as facts_cmd
from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.config import default_db
from claimgraph.core import reads, writes
from claimgraph.core.ingest import normalize_item, open_episode
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.present_records import fact_json, fact_line, facts_json
from claimgraph.logic.timeutil import from_iso, to_iso
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars

DEMO_MARK = "demo"
PROJECT = "invoice-tools"
SESSION = "demo"
SESSION_FILE = "examples/demo-session.jsonl"
HISTORY_PREDICATE = "prefers"
STORY_KEYS = ("object_kind", "subject_type", "object_type", "source_type", "epistemic",
              "on_conflict", "evidence")
DAY_MS = 86_400_000
#: The order facts are shown in: what the person said first, then what the session did.
SHOW_ORDER = ("x/convention", "x/decided", "core/prefers", "core/decided-against",
              "core/failure-mode", "core/tested-by", "core/depends-on", "core/defined-in")
#: The person's own words: the fact whose provenance the demo walks back to its line.
SAID = ("x/convention", "x/decided", "core/prefers", "core/decided-against")
PROJECT_TOKEN, KEY_TOKEN = "{PROJECT_DIR}", "{FAKE_OPENAI_KEY}"
_TIMESTAMP = re.compile(r'"timestamp": "([0-9T:.\-]+Z)"')


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("demo", parents=[common],
                       help="capture an example session into a demo store",
                       description="Capture a bundled Claude Code session (synthetic) into a "
                                   "fresh demo store the way the SessionEnd hook does: clean, "
                                   "redact, extract, screen, write with evidence. Then show the "
                                   "facts, their provenance, a superseded preference and a "
                                   "flagged contradiction. Never touches your store.")
    p.set_defaults(command="demo")


def fake_key() -> str:
    """Secret-shaped (so redaction must catch it) and obviously fake; never stored in the repo."""
    return "sk-" + "demo" + "Fake0" * 8


def story() -> list[dict[str, Any]]:
    """The project's earlier history, one assertion per line (``days_ago``: when it became true)."""
    text = resources.files("claimgraph").joinpath("examples/demo.jsonl").read_text("utf-8")
    return [normalize_item(json.loads(line)) for line in text.splitlines() if line.strip()]


def session_text(project_dir: Path, now_ms: int | None = None) -> str:
    """The bundled transcript, its cwd and paths pointing at ``project_dir``, the key planted,
    and (given ``now_ms``) its clock moved so the session ends then: facts are valid from the
    session's own time, and the demo's session is the newest thing in its story."""
    text = resources.files("claimgraph").joinpath(SESSION_FILE).read_text("utf-8")
    text = (text.replace(PROJECT_TOKEN, json.dumps(str(project_dir))[1:-1])
            .replace(KEY_TOKEN, fake_key()))
    stamps = [from_iso(m) for m in _TIMESTAMP.findall(text)]
    shift = now_ms - max(stamps) if stamps and now_ms is not None else 0
    return _TIMESTAMP.sub(lambda m: f'"timestamp": "{to_iso(from_iso(m[1]) + shift)}"', text)


def write_session_files(text: str, project_dir: Path) -> list[Path]:
    """Replay the session's Write and Edit calls, so the project holds what the session left."""
    written: dict[Path, None] = {}
    for line in text.splitlines():
        message = json.loads(line).get("message") or {}
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            tool_input = block.get("input") or {}
            if block.get("type") != "tool_use" or block.get("name") not in ("Write", "Edit"):
                continue
            path = Path(tool_input["file_path"])
            if project_dir not in path.parents:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if block["name"] == "Write":
                path.write_text(tool_input["content"], encoding="utf-8")
            else:
                old = path.read_text(encoding="utf-8")
                path.write_text(old.replace(tool_input["old_string"], tool_input["new_string"], 1),
                                encoding="utf-8")
            written[path] = None
    return list(written)


def demo_path(ctx: Invocation, args: argparse.Namespace) -> Path:
    """``--db`` when given on the command line; never $CLAIMGRAPH_DB or the config file."""
    if getattr(args, "db", None):
        return Path(args.db)
    return Path(default_db(ctx.environ)).with_name("demo.db")


def recreate(path: Path) -> None:
    """Remove a previous demo store and its sidecars; refuse anything the demo did not create."""
    if path.exists() and not is_demo_store(path):
        raise ClaimgraphError("not-a-demo-store", f"{path} exists and is not a demo store",
                              hint="give the demo a new path with --db, or omit --db", db=str(path))
    for leftover in [path, *path.parent.glob(f"{path.name}-*"),
                     *path.parent.glob(f"{path.name}.*")]:
        if leftover.is_dir():
            shutil.rmtree(leftover)
        else:
            leftover.unlink(missing_ok=True)


def is_demo_store(path: Path) -> bool:
    try:
        store = open_store(path, read_only=True)
    except ClaimgraphError:
        return False
    try:
        return bool(store.get_mark(DEMO_MARK))
    finally:
        store.close()


def replay(ctx: Invocation, scope: str) -> list[dict[str, Any]]:
    """Assert the earlier history in order, as one episode, in the project's scope."""
    results = []
    with ctx.writing() as sh:
        sh.store.set_mark(DEMO_MARK, True)
        episode = open_episode(sh, "session-log", ref=f"demo:{PROJECT}-history")
        for item in story():
            options = {k: item[k] for k in STORY_KEYS if k in item}
            results.append(writes.assert_fact(
                sh, item["subject"], item["predicate"], item["object"], episode=episode["id"],
                scope=scope, valid_from=sh.now() - item["days_ago"] * DAY_MS, **options))
    return results


def capture_session(ctx: Invocation, path: Path, transcript: Path,
                    project_dir: Path) -> dict[str, Any]:
    """Exactly what ``claimgraph capture TRANSCRIPT --agent claude-code --session demo --cwd
    PROJECT --no-curate`` does, in process."""
    from claimgraph.capture import run

    request = run.make_request(str(transcript), agent="claude-code", session=SESSION,
                               cwd=str(project_dir))
    settings = ctx.settings
    return run.capture(request, run.Options(
        db=path, lease_wait_ms=settings.value("lease_wait_ms"),
        lease_ttl_ms=settings.value("lease_ttl_ms"),
        half_life_days=settings.value("half_life_days"), environ=dict(ctx.environ)))


def run_demo(ctx: Invocation, args: argparse.Namespace) -> int:
    from claimgraph.project import resolve_project

    path = demo_path(ctx, args)
    recreate(path)
    demo = Invocation(argparse.Namespace(**{**vars(args), "db": str(path)}), ctx.environ)
    try:
        with tempfile.TemporaryDirectory(prefix="claimgraph-demo-") as tmp:
            project_dir = Path(tmp).resolve() / PROJECT
            transcript = Path(tmp).resolve() / "transcripts" / f"{SESSION}.jsonl"
            project_dir.mkdir(parents=True)
            scope = resolve_project(project_dir, ctx.environ).id
            history_results = replay(demo, scope)
            text = session_text(project_dir, demo.shell().now())
            transcript.parent.mkdir()
            transcript.write_text(text, encoding="utf-8")
            written = write_session_files(text, project_dir)
            report = capture_session(demo, path, transcript, project_dir)
            shown = gather(demo, path, report, scope, project_dir)
            shown["files"] = [str(p.relative_to(project_dir)) for p in written]
            shown["transcript_lines"] = len(text.splitlines())
    finally:
        demo.close()
    if ctx.json:
        emit_json({"db": str(path), "history_replay": [facts_cmd.assert_json(r)
                                                        for r in history_results],
                   "capture": report, "facts": facts_json(shown["facts"]),
                   "verified": shown["verified"], "provenance": shown["provenance"],
                   "history": facts_json(shown["history"]),
                   "conflicts": [{"fact": fact_json(p["fact"]),
                                  "candidate": fact_json(p["candidate"])}
                                 for p in shown["conflicts"]]})
        return 0
    narrate(path, history_results, report, shown)
    return 0


def gather(demo: Invocation, path: Path, report: dict[str, Any], scope: str,
           project_dir: Path) -> dict[str, Any]:
    """Everything the narration shows, read back from the store and its evidence tier."""
    sh = demo.shell()
    ids = [f["id"] for f in sh.store.select_facts(episodes=[report["episode"]])]
    captured = sorted(sh.store.get_facts_by_ids(ids), key=lambda f: (
        SHOW_ORDER.index(f["predicate"]) if f["predicate"] in SHOW_ORDER else len(SHOW_ORDER),
        f["subject"]["name"], str(f.get("object"))))
    episode = sh.store.get_episode(report["episode"])
    if episode is None:
        raise ClaimgraphError("demo-failed", f"the demo's episode {report['episode']} is not in "
                              "the store it just captured into")
    segment = [json.loads(line) for line in
               Sidecars(path).get_evidence(report["evidence"]).splitlines()[1:]]
    directive = next(f for f in captured if f["predicate"] in SAID
                     and f["evidence"][0].startswith("transcript#"))
    reference, _, quote = directive["evidence"][0].partition(": ")
    cited = int(reference.removeprefix("transcript#L"))
    stored = next(e["text"] for e in segment if e["line"] == cited)
    secret_line = next(line for e in segment if e.get("kind") == "tool_result"
                       for line in e.get("text", "").splitlines() if "OPENAI_API_KEY" in line)
    return {"facts": captured, "verified": verify(captured, project_dir),
            "provenance": {"fact": directive["id"], "episode": episode["ref"],
                           "evidence": episode["evidence"], "line": cited,
                           "stored_text": sentence_around(stored, quote),
                           "redacted_line": secret_line},
            "history": reads.history(sh, PROJECT, HISTORY_PREDICATE, scope)["history"],
            "conflicts": reads.conflicts(sh)["conflicts"],
            "context": _next_session_block(demo, scope)}


def _next_session_block(demo: Invocation, scope: str) -> str:
    """The block the SessionStart hook would inject into the project's next session."""
    from claimgraph.core.briefing import compile_for
    sh = demo.shell()
    budget = demo.settings.value("context_budget_chars")
    block: str = compile_for(sh.store, scope, sh.now(), budget, sh.half_life_days)["text"]
    return block


def _command() -> str:
    """How to run claimgraph from this shell: by name when PATH finds this installation,
    else by its full path (a fresh install's ~/.local/bin may not be on PATH yet)."""
    import sys
    here = Path(sys.executable).parent / "claimgraph"
    found = shutil.which("claimgraph")
    if found and (not here.exists() or Path(found).resolve() == here.resolve()):
        return "claimgraph"
    return str(here) if here.exists() else "claimgraph"


def sentence_around(text: str, quote: str) -> str:
    """The sentence of ``text`` that holds ``quote`` (the whole text if it is not there)."""
    at = text.find(quote)
    if at < 0:
        return text
    start = text.rfind(". ", 0, at) + 2 if text.rfind(". ", 0, at) >= 0 else 0
    end = text.find(". ", at)
    return text[start:end + 1 if end >= 0 else len(text)]


def verify(facts: list[dict[str, Any]], project_dir: Path) -> dict[str, bool]:
    """Fact id -> whether the file its evidence cites says what it quotes, by the audit's own
    check (``core.audit.check_citation``: the same verdict ``claimgraph audit`` would give)."""
    from claimgraph.core.audit import check_citation, cited_files
    checked = {}
    for fact in facts:
        for item in cited_files(fact):
            checked[fact["id"]] = check_citation(item, project_dir)["verdict"] == "supported"
    return checked


def narrate(path: Path, history_results: list[dict[str, Any]], report: dict[str, Any],
            shown: dict[str, Any]) -> None:
    emit(f"claimgraph demo: capture one coding session into a fresh demo store: {path}\n")
    emit(f"1. Earlier memory of {PROJECT} (a past session, a decision record, an old note):")
    for result in history_results:
        facts_cmd.emit_assert(result)
    emit(f"\n2. The session ends. Capture reads its transcript ({shown['transcript_lines']} lines, "
         f"Claude Code format),\n   cleans and redacts it, extracts facts with the built-in "
         f"extractor (no model, no network),\n   screens them and writes them with evidence:")
    counts = ", ".join(f"{n} {status}" for status, n in sorted(report["counts"].items()))
    emit(f"  {report['status']}: {report['events']} events, {report['candidates']} candidates "
         f"-> {counts}; {len(report['inadmissible'])} left out by screening")
    redactions = ", ".join(f"{n} {kind}" for kind, n in report["redactions"].items()) or "none"
    emit(f"  secrets redacted before storing: {redactions} (a fake key planted in `cat .env` "
         "output)")
    emit(f"  episode {report['episode']}, segment stored as evidence {report['evidence'][:19]}…")
    emit("\n3. What memory now holds from this session, with evidence:")
    for fact in shown["facts"]:
        emit(f"  {fact_line(fact)}")
        for item in fact.get("evidence") or []:
            emit(f"      evidence: {item}")
        if fact["id"] in shown["verified"]:
            found = "found in" if shown["verified"][fact["id"]] else "NOT found in"
            emit(f"      checked: the quoted code is {found} the file the session wrote")
    prov = shown["provenance"]
    emit(f"\n4. Provenance of {prov['fact'][:10]}: episode {prov['episode']}")
    emit(f"  it cites transcript line {prov['line']}; the stored (cleaned) segment has it:")
    emit(f"    {json.dumps(prov['stored_text'], ensure_ascii=False)}")
    emit(f"  the .env output the session printed, as stored: {prov['redacted_line']}")
    emit(f"\n5. How {PROJECT}'s preferences changed (history, oldest first):")
    for fact in shown["history"]:
        emit(f"  {fact_line(fact)}")
    emit("\n6. Open conflicts, kept for a human instead of silently overwritten:")
    for pair in shown["conflicts"]:
        emit(f"  {fact_line(pair['fact'])}")
        emit(f"    conflicts with {fact_line(pair['candidate'])}")
    emit(f"\n7. What the next session in {PROJECT} is told when it starts (the SessionStart "
         "hook injects this block):")
    for line in (shown["context"] or "(nothing)").splitlines():
        emit(f"    {line}")
    emit("\nThis happens in every session once the hooks are registered: "
         f"{_command()} install --agent claude-code\n(./install.sh registers them for every "
         "agent it finds).")
    emit(f"\nExplore it (the demo project was a temporary directory, so search every "
         f"project):\n  {_command()} --db {path} search pytest --all-projects")


COMMANDS = {"demo": run_demo}
