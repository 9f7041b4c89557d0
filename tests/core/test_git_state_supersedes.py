"""Where a session left the work (``x/state``) holds one value per subject: the next
session's state of the same repository replaces the last one, so the context never shows a
stale state beside the newer one; a pull request is its own subject, so its state neither
replaces nor is replaced by the repository's."""

from __future__ import annotations

from claimgraph.core.writes import assert_fact

DAY = 86_400_000


def _state(shell, subject: str, text: str, day: int) -> dict:
    return assert_fact(shell, subject, "x/state", text, object_kind="literal",
                       source_type="session-log", valid_from=1_700_000_000_000 + day * DAY)


def test_a_later_sessions_state_replaces_the_earlier_one(shell):
    first = _state(shell, "shop", "Where the session of day 1 left the work in git: 1 commit", 1)
    pr = _state(shell, "shop PR #5", "PR #5 \"Feat\" was opened in the session of day 1", 1)
    second = _state(shell, "shop", "Where the session of day 2 left the work in git: pushed", 2)
    assert (first["status"], pr["status"]) == ("created", "created")
    assert second["status"] == "superseded"
    assert second["superseded"] == [first["fact"]["id"]]


def test_a_pull_requests_later_state_replaces_its_earlier_one(shell):
    opened = _state(shell, "shop PR #5", "PR #5 \"Feat\" was opened in the session of day 1", 1)
    merged = _state(shell, "shop PR #5", "PR #5 \"Feat\" was merged (seen merged on day 3)", 3)
    other = _state(shell, "shop PR #6", "PR #6 \"Fix\" was opened in the session of day 3", 3)
    assert merged["superseded"] == [opened["fact"]["id"]]
    assert other["status"] == "created"
