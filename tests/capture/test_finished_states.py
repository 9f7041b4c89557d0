"""A finished git state reaches the store only to replace a state stored before (issue 22;
capture/finished_states.py): end to end, real transcripts into a real SQLite file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from claimgraph.opening import open_store

sys.path.insert(0, str(Path(__file__).parent))
from test_run import Session, capture, git_repo  # noqa: E402

MERGED = "\u2713 Squashed and merged pull request #5 (Add c)"


def _states(db: Path) -> dict[str, list[tuple[str, bool]]]:
    """Subject -> (text, current) of every ``x/state`` fact the store holds."""
    store = open_store(db, create=False)
    try:
        found: dict[str, list[tuple[str, bool]]] = {}
        for fact in store.all_facts():
            if fact["predicate"] == "x/state":
                found.setdefault(fact["subject"]["name"], []).append(
                    (fact["object_lit"], fact["t_invalid"] is None))
        return found
    finally:
        store.close()


def _session(path: Path, repo: Path, session_id: str, *calls: tuple[str, str],
             later: int = 0) -> Session:
    """A session of shell calls; ``later``: its clock that many seconds on."""
    session = Session(path, repo, session_id)
    session.n = later
    session.write(session.prompt("Ship the change."))
    for command, output in calls:
        session.write(*session.tool("Bash", {"command": command}, output,
                                    {"stdout": output, "stderr": "", "interrupted": False}))
    return session


def test_a_merge_replaces_the_open_state_an_earlier_session_stored(capsys, tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    repo = git_repo(tmp_path / "shop", "git@github.com:me/shop.git")
    opened = _session(tmp_path / "a.jsonl", repo, "sess-a",
                      ("git checkout -b feat/c", "Switched to a new branch 'feat/c'"),
                      ('gh pr create --title "Add c" --body x',
                       "https://github.com/me/shop/pull/5"))
    assert capture(capsys, str(opened.path), "--no-curate")[0] == 0
    assert [current for _, current in _states(db)["shop PR #5"]] == [True]
    merged = _session(tmp_path / "b.jsonl", repo, "sess-b", ("gh pr merge 5 --squash", MERGED),
                      later=30)
    assert capture(capsys, str(merged.path), "--no-curate")[0] == 0
    states = sorted(_states(db)["shop PR #5"], key=lambda state: state[1])
    assert [current for _, current in states] == [False, True]
    assert "was opened" in states[0][0] and "was merged" in states[1][0]


def test_a_finished_state_that_replaces_nothing_is_not_stored(capsys, tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    repo = git_repo(tmp_path / "shop", "git@github.com:me/shop.git")
    merged = _session(tmp_path / "b.jsonl", repo, "sess-b", ("gh pr merge 5 --squash", MERGED),
                      ("git checkout -b feat/d", "Switched to a new branch 'feat/d'"),
                      ("git commit -m d", "[feat/d 9f8e7d6] feat: d\n 1 file changed"))
    assert capture(capsys, str(merged.path), "--no-curate")[0] == 0
    states = _states(db)
    assert "shop PR #5" not in states
    assert [text for text, _ in states["shop"]] and "9f8e7d6" in states["shop"][0][0]
