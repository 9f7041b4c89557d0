"""A later session's own record ends the state an earlier session stored (issue 22): "PR #5
was opened" stops being current once a later session's git or gh output proves the PR
merged or closed, and nothing ends when that output may be about another pull request.
Two captures of invented sessions into one real SQLite store, then the block."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from claimgraph.cli.main import main

sys.path.insert(0, str(Path(__file__).parent))
from test_finished_states import _session, _states  # noqa: E402
from test_run import capture, git_repo  # noqa: E402

OPENED = ('gh pr create --title "Add the cart page" --body x',
          "https://github.com/me/shop/pull/5")


def _opened_then(capsys, tmp_path: Path, *later: tuple[str, str]) -> tuple[Path, Path]:
    """The first session opens PR #5 from ``feat/cart``; the second runs ``later``."""
    repo = git_repo(tmp_path / "shop", "git@github.com:me/shop.git")
    first = _session(tmp_path / "a.jsonl", repo, "sess-a",
                     ("git checkout -b feat/cart", "Switched to a new branch 'feat/cart'"),
                     OPENED)
    assert capture(capsys, str(first.path), "--no-curate")[0] == 0
    second = _session(tmp_path / "b.jsonl", repo, "sess-b", *later, later=600)
    assert capture(capsys, str(second.path), "--no-curate")[0] == 0
    return Path(os.environ["CLAIMGRAPH_DB"]), repo


def _block(capsys, repo: Path) -> str:
    capsys.readouterr()
    assert main(["context", "--cwd", str(repo)]) == 0
    return capsys.readouterr().out


def _current(db: Path, subject: str) -> list[str]:
    return [text for text, current in _states(db).get(subject, []) if current]


def test_a_squash_subject_in_a_later_log_ends_the_opened_state(capsys, tmp_path):
    db, repo = _opened_then(capsys, tmp_path, (
        "git checkout main && git pull && git log --oneline -3",
        "Switched to branch 'main'\nAlready up to date.\n"
        "4e5f6a7 Add the cart page (#5)\n1a2b3c4 Add the shop skeleton (#2)\n"
        "0f0e0d0 Initial commit"))
    states = _states(db)["shop PR #5"]
    assert [current for _, current in states].count(True) == 1
    [now] = _current(db, "shop PR #5")
    assert "was merged" in now and "seen merged" in now and "4e5f6a7" in now
    assert any("was opened" in text and not current for text, current in states)
    # a PR the earlier session never stored is no news: nothing is written for #2
    assert "shop PR #2" not in _states(db)
    block = _block(capsys, repo)
    assert "PR #5" in block and "was opened from branch" not in block.split("Changed")[0]


def test_gh_showing_the_pr_merged_ends_the_opened_state(capsys, tmp_path):
    db, _ = _opened_then(capsys, tmp_path, (
        "gh pr view 5 --json state,title",
        '{"state":"MERGED","title":"Add the cart page"}'))
    [now] = _current(db, "shop PR #5")
    assert "was merged" in now


def test_gh_showing_the_pr_closed_ends_the_opened_state(capsys, tmp_path):
    db, _ = _opened_then(capsys, tmp_path, (
        "gh pr view 5 --json state", '{"state":"CLOSED"}'))
    [now] = _current(db, "shop PR #5")
    assert "closed unmerged" in now and "was opened" not in now


def test_another_repository_named_to_gh_ends_nothing(capsys, tmp_path):
    db, _ = _opened_then(capsys, tmp_path, (
        "gh pr view 5 --repo someone/else --json state", '{"state":"MERGED"}'))
    [now] = _current(db, "shop PR #5")
    assert "was opened" in now


def test_a_pr_shown_open_again_ends_nothing(capsys, tmp_path):
    db, _ = _opened_then(capsys, tmp_path, (
        "gh pr view 5 --json state", '{"state":"OPEN"}'))
    [now] = _current(db, "shop PR #5")
    assert "was opened" in now


def test_the_sessions_own_commit_naming_the_number_ends_nothing(capsys, tmp_path):
    # the later session commits "… (#5)" on the PR's branch itself: a follow-up, not a merge
    db, _ = _opened_then(capsys, tmp_path, (
        'git commit -m "Address review (#5)" && git log --oneline -1',
        "[feat/cart 7c8d9e0] Address review (#5)\n 1 file changed, 2 insertions(+)\n"
        "7c8d9e0 Address review (#5)"))
    [now] = _current(db, "shop PR #5")
    assert "was opened" in now


def test_another_number_in_the_log_ends_nothing(capsys, tmp_path):
    db, _ = _opened_then(capsys, tmp_path, (
        "git log --oneline -2", "9a8b7c6 Fix the footer (#6)\n1a2b3c4 Add the shop skeleton"))
    [now] = _current(db, "shop PR #5")
    assert "was opened" in now
    assert "shop PR #6" not in _states(db)
