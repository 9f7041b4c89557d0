"""docs/sync.md says a team sets sync up in three commands: this runs the doc's own three
commands (read from the doc, the placeholders filled in) on two fresh stores with a shared
directory, and checks that each side then holds the other's facts, under the other's name."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "sync.md"


def _three_commands() -> list[list[str]]:
    section = DOC.read_text().split("### Setting up a team: three commands", 1)[1]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line.split("#", 1)[0]) for line in block.strip().splitlines()]
    assert len(commands) == 3 and all(c[0] == "claimgraph" for c in commands), commands
    return [c[1:] for c in commands]


def _run(db: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAIMGRAPH_DB": str(db)}
    done = subprocess.run([sys.executable, "-m", "claimgraph", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (argv, done.stderr)
    return done


def test_the_three_commands_of_the_doc_set_up_a_team(tmp_path: Path) -> None:
    status, trust, share = _three_commands()
    assert status == ["sync", "status"] and trust[:2] == ["sync", "trust"]
    project = share[share.index("--project") + 1]
    shared = tmp_path / "team" / "claimgraph-sync"
    names = {"ada": "Ada", "bo": "Bo"}
    dbs = {who: tmp_path / who / "claims.db" for who in names}
    keys = {}
    for who, db in dbs.items():  # 1. on each machine: its key
        printed = _run(db, status, tmp_path).stdout
        found = re.search(r"^\s+(w-\S+:ed25519:\S+)$", printed, re.MULTILINE)
        assert found, printed
        keys[who] = found.group(1)
    for who, db in dbs.items():  # 2. once per teammate
        other = "bo" if who == "ada" else "ada"
        argv = [keys[other] if a.startswith("w-…") else a for a in trust]
        argv[argv.index("--name") + 1] = names[other]
        _run(db, argv, tmp_path)
    _run(dbs["ada"], ["assert", "api", "prefers", "REST", "--scope", project], tmp_path)
    _run(dbs["bo"], ["assert", "api", "depends-on", "postgres", "--scope", project], tmp_path)
    argv = [str(shared) if a.startswith("~/") else a for a in share]
    for who in ("ada", "bo", "ada"):  # 3. share (the second run of Ada's takes Bo's)
        _run(dbs[who], argv, tmp_path)
    for who, theirs, other in (("ada", "postgres", "Bo"), ("bo", "REST", "Ada")):
        facts = json.loads(_run(dbs[who], ["facts", "--scope", project, "--json"],
                                tmp_path).stdout)["facts"]
        by_object = {f["object"]: f for f in facts}
        assert by_object[theirs]["teammate"] == other
        listed = _run(dbs[who], ["facts", "--scope", project], tmp_path).stdout
        assert f"from {other}" in next(l for l in listed.splitlines() if theirs in l)
