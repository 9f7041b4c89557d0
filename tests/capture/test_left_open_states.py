"""A check left failing is an x/state that a later session's passing run replaces (issue 22;
capture/extract/left_open.py, capture/finished_states.py): end to end, real transcripts into a
real SQLite file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_finished_states import _states  # noqa: E402
from test_run import Session, capture, git_repo  # noqa: E402

RED = "FAILED tests/test_cart.py::test_total\n===== 1 failed, 9 passed in 0.31s =====\n"
GREEN = "===== 10 passed in 0.29s =====\n"


def _run(path: Path, repo: Path, session_id: str, output: str, error: bool,
         later: int = 0) -> Session:
    session = Session(path, repo, session_id)
    session.n = later
    session.write(session.prompt("Run the tests."))
    session.write(*session.tool("Bash", {"command": "pytest -q"}, output, error=error))
    return session


def test_a_passing_run_replaces_the_failing_state_an_earlier_session_stored(capsys, tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    repo = git_repo(tmp_path / "shop", "git@github.com:me/shop.git")
    failed = _run(tmp_path / "a.jsonl", repo, "sess-a", RED, error=True)
    assert capture(capsys, str(failed.path), "--no-curate")[0] == 0
    [(text, current)] = _states(db)["shop check `pytest`"]
    assert current and text.startswith("Left failing at the end of the session of ")
    passed = _run(tmp_path / "b.jsonl", repo, "sess-b", GREEN, error=False, later=30)
    assert capture(capsys, str(passed.path), "--no-curate")[0] == 0
    states = sorted(_states(db)["shop check `pytest`"], key=lambda state: state[1])
    assert [current for _, current in states] == [False, True]
    assert states[1][0].startswith("Passing at the end of the session of ")


def test_a_passing_run_alone_stores_no_state(capsys, tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    repo = git_repo(tmp_path / "shop", "git@github.com:me/shop.git")
    passed = _run(tmp_path / "b.jsonl", repo, "sess-b", GREEN, error=False)
    assert capture(capsys, str(passed.path), "--no-curate")[0] == 0
    assert "shop check `pytest`" not in _states(db)
