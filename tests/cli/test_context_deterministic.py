"""Two captures of one transcript into two fresh stores give the same ``claimgraph context``.

Each capture mints its own random ids and records its facts at its own wall-clock instants;
the block must not hang on either. The transcript is a real one (a fixture) whose facts tie:
decisions learned at the same instant, and current facts of one subject whose confidences
differ only by when each was recorded (``logic.briefing.decision_key``, ``shown_order``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import run_process

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
#: (fixture, its sessions' working directory, moved under the test's directory, and the
#: sections whose lines tie there): decisions of one turn, and lessons and current facts of
#: one subject recorded milliseconds apart.
CASES = [
    ("subagent.jsonl", "/home/marco/projects/spotter", ("Standing decisions",)),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
     "/home/USER/projects/spotter-worktrees/spotter-fum", ("Lessons learned", "Current facts")),
]


def captured_context(tmp_path: Path, name: str, transcript: Path, cwd: Path) -> str:
    db = tmp_path / name / "claims.db"
    db.parent.mkdir()
    done = run_process("capture", str(transcript), "--agent", "claude-code", "--no-curate",
                       "--db", str(db), timeout=300)
    assert done.code == 0, done.err
    shown = run_process("context", "--cwd", str(cwd), "--db", str(db), timeout=120)
    assert shown.code == 0, shown.err
    return shown.out


@pytest.mark.parametrize("fixture,session_cwd,sections", CASES)
def test_the_context_of_two_captures_of_one_transcript_is_the_same(tmp_path, fixture,
                                                                    session_cwd, sections):
    cwd = tmp_path / "work"
    (cwd / "assets").mkdir(parents=True)
    transcript = tmp_path / fixture
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    transcript.write_text(text.replace(session_cwd, str(cwd)), encoding="utf-8")
    first = captured_context(tmp_path, "one", transcript, cwd)
    second = captured_context(tmp_path, "two", transcript, cwd)
    assert all(f"### {title}" in first for title in sections)
    assert first == second
