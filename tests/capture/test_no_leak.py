"""Issue 10 §1 end to end: the corpus planted in a real session, captured by a real process,
then every byte under the store's directory (the SQLite file, its WAL, the evidence tier, the
logs, the spool) and a dump of the database are searched for each secret."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimgraph.logsetup import reset_logging
from claimgraph.sidecar import Sidecars

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "logic"))
from secret_corpus import CORPUS, pem  # noqa: E402
from test_run import Session, spool_payload  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


def plant_corpus(session: Session) -> list[str]:
    """Each shape once in a prompt, once in a Bash command, once in a tool output; the
    secrets planted, in order."""
    lines = [text.format(secret) for _, _, secret, text in CORPUS]
    block = "\n".join(lines)
    session.write(session.prompt("Here is everything for the deploy:\n" + block))
    for index, line in enumerate(lines):
        session.write(*session.tool("Bash", {"command": line, "description": f"step {index}"},
                                    f"ran: {line}", {"stdout": f"ran: {line}", "stderr": "",
                                                     "interrupted": False}))
    session.write(session.say("Noted. " + block))
    return [secret for _, _, secret, _ in CORPUS]


def plant_cut_key(session: Session) -> str:
    """A key whose BEGIN line falls in the middle that output truncation drops."""
    key = pem("RSA ", count=30)
    output = "x" * 9_000 + "\n" + "log line\n" * 1_500 + key + "\ndone\n"
    session.write(*session.tool("Bash", {"command": "cat deploy.log"}, output))
    return key.splitlines()[-2]  # a body line that lands in the kept tail


def plant_failing_then_passing_pytest(session: Session, password: str) -> None:
    """The worst case the issue found: the password went into a failure-mode fact."""
    command = f"pytest -q --db-password {password}"
    session.write(
        *session.tool("Bash", {"command": command}, "1 failed in 0.2s",
                      {"stdout": "FAILED tests/test_db.py::test_connect", "stderr": "",
                       "interrupted": False}, error=True),
        *session.tool("Bash", {"command": command}, "3 passed in 0.2s",
                      {"stdout": "3 passed in 0.2s", "stderr": "", "interrupted": False}))


def plant_printed_token(session: Session, token: str) -> None:
    session.write(*session.tool("Bash", {"command": "heroku auth:token"}, token,
                                {"stdout": token, "stderr": "", "interrupted": False}))


def plant_envelope(session: Session) -> list[str]:
    """Tokens in the strings around the text (issue 29): a record's branch, version and cwd,
    a tool's name and its call id. The evidence stores each event's envelope."""
    tokens = ["ghp_" + "".join(c.upper() if i % 3 else c for i, c in enumerate(
        f"{n}a9f3c2e7b1d8046f5e2c9a7b3d1f0e8c6b4a2d9"))[:36] for n in range(5)]
    record = session.prompt("next step")
    record.update(gitBranch="fix/" + tokens[0], version=tokens[1],
                  cwd=str(session.cwd / tokens[2]))
    call, answer = session.tool("Bash", {"command": "ls"}, "ok")
    block = call["message"]["content"][0]
    block["id"] = answer["message"]["content"][0]["tool_use_id"] = "toolu_" + tokens[3]
    block["name"] = "mcp " + tokens[4]
    session.write(record, call, answer)
    return tokens


def wait_for(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def needles(secrets: list[str]) -> list[str]:
    """What to search for: a multi-line secret (a key) by each of its lines, as JSON escapes
    them too; the BEGIN/END markers are no secret."""
    found = []
    for secret in secrets:
        for line in secret.replace("\\n", "\n").splitlines():
            if len(line) >= 8 and not line.startswith("-----"):
                found.append(line)
    return found


def found_in(paths: list[Path], secrets: list[str]) -> dict[str, list[str]]:
    leaks: dict[str, list[str]] = {}
    for path in paths:
        data = path.read_bytes() if path.is_file() else b""
        for needle in needles(secrets):
            if needle.encode() in data:
                leaks.setdefault(needle, []).append(path.name)
    return leaks


def test_no_planted_secret_reaches_any_file_of_the_store_or_its_dump(tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    session = Session(tmp_path / "planted.jsonl", tmp_path)
    secrets = plant_corpus(session)
    secrets.append(plant_cut_key(session))
    secrets.append("Pg" + "7q" * 6 + "zX")
    plant_failing_then_passing_pytest(session, secrets[-1])
    secrets.append("6f1c0de2-4b7a-4e8f-9a31-" + "0c5d" * 3)
    plant_printed_token(session, secrets[-1])
    secrets.extend(plant_envelope(session))
    assert found_in([session.path], secrets).keys() == set(needles(secrets))
    spool = spool_payload(db, session.path, tmp_path, "planted")
    sidecars = Sidecars(db)
    with open(sidecars.capture_log, "ab") as log:  # as the hook runs it
        done = subprocess.run([sys.executable, "-m", "claimgraph", "capture", "--spool",
                               str(spool)], stdout=log, stderr=log, timeout=120)
    assert done.returncode == 0, sidecars.capture_log.read_text()
    report = json.loads(sidecars.capture_log.read_text().splitlines()[-1])
    assert report["status"] == "captured" and sum(report["redactions"].values()) >= len(CORPUS)
    wait_for(lambda: sidecars.curate_log.exists()
             and "curate.lease-released" in sidecars.curate_log.read_text())
    dumps = write_dumps(db, tmp_path)
    everything = [p for p in db.parent.rglob("*")] + dumps
    assert any(p.parent == sidecars.evidence_dir for p in everything)
    assert found_in(everything, secrets) == {}


def write_dumps(db: Path, tmp_path: Path) -> list[Path]:
    """``claimgraph dump``, the memory context every later session is given, and SQLite's own
    dump of every table (FTS shadow tables included)."""
    env = dict(os.environ)
    subprocess.run([sys.executable, "-m", "claimgraph", "dump", "--out",
                    str(tmp_path / "dump.json")], check=True, env=env, timeout=60)
    context = subprocess.run([sys.executable, "-m", "claimgraph", "context", "--cwd",
                              str(tmp_path)], capture_output=True, env=env, timeout=60)
    (tmp_path / "context.txt").write_bytes(context.stdout + context.stderr)
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (tmp_path / "sqlite-dump.sql").write_text("\n".join(connection.iterdump()))
    finally:
        connection.close()
    return [tmp_path / "dump.json", tmp_path / "context.txt", tmp_path / "sqlite-dump.sql"]
