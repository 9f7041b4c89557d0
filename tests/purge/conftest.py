"""A store worth purging: two captured sessions in two projects, a user fact, evidence segments,
logs (live and rotated), a crash log and a spool payload — with a leaked token in several of
them. Facts are written through the real write path, segments through the real evidence tier."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claimgraph.cli.main import main
from claimgraph.core import Shell
from claimgraph.core.ingest import ingest
from claimgraph.core.vocabulary import seed
from claimgraph.logic.timeutil import from_iso
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars

SECRET = "hunter2-acme-7412"
PROJECT_A = "github.com/acme/shop"
PROJECT_B = "github.com/acme/billing"
JAN, FEB, MAR = (from_iso(d) for d in ("2026-01-10", "2026-02-10", "2026-03-10"))


@dataclass
class Seeded:
    db: Path
    sidecars: Sidecars
    segments: dict[str, str]  # session -> segment name

    def store(self):
        return open_store(self.db)

    def facts(self) -> list[dict[str, Any]]:
        store = self.store()
        try:
            return store.all_facts()
        finally:
            store.close()

    def statements(self) -> set[tuple[str, str, str]]:
        return {statement(f) for f in self.facts()}

    def files(self) -> dict[str, bytes]:
        """Every file of the store, by name relative to its directory."""
        root = self.db.parent
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and p.name.startswith(self.db.name)
                or p.is_file() and p.parent.name.startswith(self.db.name)}


def statement(fact: dict[str, Any]) -> tuple[str, str, str]:
    obj = fact["object_lit"] if fact["object_kind"] == "literal" else fact["object_ref"]["name"]
    return fact["subject"]["name"], fact["predicate"].removeprefix("core/"), obj


def _session(sh: Shell, sidecars: Sidecars, agent: str, session: str, text: str,
             items: list[dict[str, Any]], end: int) -> str:
    name = sidecars.put_evidence(text)
    result = ingest(sh, items, source_type="session-log", ref=f"{agent}:{session}@0-{end}",
                    evidence=name)
    sh.store.set_mark(f"capture:{agent}:{session}", {
        "transcript": f"/transcripts/{session}.jsonl", "offset": end, "line": 9,
        "subagents": {}, "episode": result["episode"]["id"], "captured_at": sh.now()})
    return name


def seed_store(db: Path) -> Seeded:
    sidecars = Sidecars(db)
    clock = {"now": JAN}
    sh = Shell(open_store(db), clock=lambda: clock["now"])
    seed(sh)
    segments = {"s1": _session(sh, sidecars, "claude-code", "s1",
                               f"user: deploy with key {SECRET}\nassistant: we use REST\n", [
        {"subject": "api", "predicate": "prefers", "object": "REST", "scope": PROJECT_A},
        {"subject": "api", "predicate": "prefers", "object": f"auth token {SECRET}",
         "scope": PROJECT_A},
        {"subject": "api", "predicate": "depends-on", "object": "kuzu", "scope": PROJECT_A},
    ], 400)}
    clock["now"] = FEB
    segments["s2"] = _session(sh, sidecars, "codex", "s2",
                              f"user: billing retries; old key was {SECRET}\n", [
        {"subject": "billing", "predicate": "depends-on", "object": "stripe",
         "scope": PROJECT_B},
        {"subject": "billing", "predicate": "failure-mode", "object": f"leaks {SECRET}",
         "scope": PROJECT_B},
        {"subject": "api", "predicate": "prefers", "object": "gRPC", "scope": PROJECT_B},
    ], 300)
    clock["now"] = MAR
    ingest(sh, [{"subject": "user", "predicate": "prefers", "object": "uv", "scope": "user"}],
           source_type="user-assertion")
    sh.store.close()
    _sidecar_files(db, sidecars)
    return Seeded(db, sidecars, segments)


def _sidecar_files(db: Path, sidecars: Sidecars) -> None:
    line = {"ts": "2026-01-10T00:00:00.000Z", "level": "info", "event": "capture.report",
            "session": "s1", "detail": f"saw {SECRET}"}
    sidecars.capture_log.write_text(json.dumps(line) + "\n" + json.dumps({"event": "x"}) + "\n")
    Path(f"{sidecars.capture_log}.1").write_text(f'{{"event": "old", "v": "{SECRET}"}}\n')
    Path(f"{db}.crash.log").write_text(f"Traceback ...\nValueError: bad token {SECRET}\n")
    sidecars.spool_dir.mkdir(exist_ok=True)
    (sidecars.spool_dir / "claude-code-s1.json").write_text(json.dumps({
        "agent": "claude-code", "session_id": "s1", "transcript_path": "/transcripts/s1.jsonl",
        "cwd": "/work/shop"}))


@pytest.fixture
def seeded(isolated_home: Path) -> Seeded:
    return seed_store(Path(os.environ["CLAIMGRAPH_DB"]))


@pytest.fixture
def purge(capsys: pytest.CaptureFixture[str]):
    """``purge("--match", X)`` in-process with --yes; returns (code, stdout, stderr)."""
    def run(*argv: str, yes: bool = True) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["purge", *argv, *(["--yes"] if yes else [])])
        out, err = capsys.readouterr()
        return code, out, err
    return run


def process(*argv: str, stdin: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m claimgraph ...`` as a real process."""
    return subprocess.run([sys.executable, "-m", "claimgraph", *argv], input=stdin, text=True,
                          capture_output=True, env={**os.environ, **(env or {})}, timeout=120)


def holding(files: dict[str, bytes], text: str = SECRET) -> list[str]:
    return sorted(name for name, data in files.items() if text.encode() in data)


@pytest.fixture
def db(isolated_home: Path) -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])
