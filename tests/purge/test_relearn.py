"""Purging a session, then capturing the same transcript again, learns nothing purged — also
when the transcript moved (capture would read it from the start) — unless --allow-relearn."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from claimgraph.cli.main import main
from claimgraph.logsetup import reset_logging

from .conftest import process

SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code" / \
    "full-session-four.jsonl"


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


def capture(capsys, transcript: Path, *flags: str, session: str = "full-session-four") -> dict:
    capsys.readouterr()
    assert main(["capture", str(transcript), "--cwd", str(transcript.parent), "--no-curate",
                 "--session", session, *flags]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def facts(capsys, project: Path) -> list[str]:
    capsys.readouterr()
    assert main(["facts", "--scope", str(project), "--json", "--all"]) == 0
    return sorted(f["object"] for f in json.loads(capsys.readouterr().out)["facts"])


@pytest.fixture
def captured(tmp_path: Path, capsys) -> tuple[Path, list[str]]:
    project = tmp_path / "proj"
    project.mkdir()
    transcript = project / "session.jsonl"
    shutil.copy(SESSION, transcript)
    first = capture(capsys, transcript)
    assert first["status"] == "captured" and first["counts"] == {"created": 2}
    return transcript, facts(capsys, project)


def test_recapturing_a_purged_session_learns_nothing(captured, capsys, db):
    transcript, learned = captured
    done = process("purge", "--session", "full-session-four", "--yes")
    assert done.returncode == 0, done.stderr
    assert facts(capsys, transcript.parent) == []
    again = capture(capsys, transcript)
    assert again["status"] == "nothing-new"
    moved = transcript.with_name("moved.jsonl")  # read from the start, were it not for the purge
    shutil.copy(transcript, moved)
    again = capture(capsys, moved)
    assert again["status"] == "nothing-new", again
    assert facts(capsys, transcript.parent) == []
    evidence = Path(f"{db}.evidence")
    assert not evidence.exists() or list(evidence.iterdir()) == []


def test_the_same_facts_told_by_another_session_are_refused_by_their_tombstones(
        captured, capsys, db):
    transcript, learned = captured
    done = process("purge", "--entity", "proj", "--yes")  # every fact the session taught
    assert done.returncode == 0, done.stderr
    copy = transcript.with_name("other.jsonl")
    shutil.copy(transcript, copy)
    capsys.readouterr()
    assert main(["capture", str(copy), "--cwd", str(copy.parent), "--no-curate",
                 "--session", "another-session"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["status"] == "captured" and report["counts"] == {"purged": 2}
    assert facts(capsys, transcript.parent) == []


def test_allow_relearn_reads_the_session_again_and_lifts_its_tombstones(captured, capsys, db):
    transcript, learned = captured
    assert process("purge", "--session", "full-session-four", "--yes").returncode == 0
    moved = transcript.with_name("moved.jsonl")
    shutil.copy(transcript, moved)
    again = capture(capsys, moved, "--allow-relearn")
    assert again["status"] == "captured" and again["counts"] == {"created": 2}
    assert facts(capsys, transcript.parent) == learned
    capsys.readouterr()
    assert main(["dump"]) == 0
    assert '"tombstone"' not in capsys.readouterr().out
