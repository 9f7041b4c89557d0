"""Extraction stays linear in the session's length: no rule scans every tool call per result.

Counted, not timed: the number of tool calls the gate rule visits on n and on 4n tool calls.
A lookup per result (an index built once per view) visits each call a fixed number of times;
the scan it replaced visited ~n²/2 of them, 16× as many on a session 4× as long.
"""

from __future__ import annotations

from typing import Any, Iterator

from claimgraph.capture.extract.gates import gate_candidates
from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session

ADVICE = ("PreToolUse:Write hook error: [python3 ${CLAUDE_PLUGIN_ROOT}/hooks/remind.py]: "
          "Please check the style guide first.")
REFUSED = "Pre-commit validation failed:\n\n[FORMAT] Code is not formatted."


class _Counting(list):
    """A list that counts the items every iteration over it yields."""

    visits = 0

    def __iter__(self) -> Iterator[Any]:
        for item in super().__iter__():
            self.visits += 1
            yield item


def _visits(calls: int) -> tuple[int, list[dict[str, Any]]]:
    session = Session()
    for i in range(calls // 4):
        session.bash(f"pytest -k case{i}", output="1 passed")
        session.bash("git commit -m wip", error=True, output=REFUSED)
        session.write(f"{ROOT}/notes{i}.md", "x\n", error=True, output=ADVICE)
        session.write(f"{ROOT}/notes{i}.md", "x\n", output="ok")
    view = SessionView.of(session.transcript(), ROOT)
    counted = _Counting(view.calls())
    view.memo["calls"] = counted
    found = list(gate_candidates(view))
    return counted.visits, found


def test_the_gate_rule_visits_each_tool_call_a_fixed_number_of_times():
    small, small_found = _visits(200)
    large, large_found = _visits(800)
    assert small >= 200  # the rule does look at every call
    assert large <= 4 * small
    # and still finds the same thing on both: the refused commit's gate, not the advice
    assert [c["object"] for c in small_found] == [c["object"] for c in large_found]
    assert [c["object"] for c in small_found] == [
        "A pre-commit check blocks commits: [FORMAT] Code is not formatted"]


def test_a_result_is_looked_up_to_the_first_call_with_its_id():
    session = Session()
    first = session.bash("make test", output="ok")
    session.event("tool_call", tool_name="Bash", tool_input={"command": "make lint"},
                  call_id=first.call_id)
    view = SessionView.of(session.transcript(), ROOT)
    result = view.results[first.call_id]
    assert view.call_of(result) is not None
    assert view.call_of(result).tool_input == {"command": "make test"}
    orphan = session.event("tool_result", call_id="call-none", text="?")
    assert view.call_of(orphan) is None


def _git_visits(repositories: int) -> tuple[int, list[str]]:
    """The tool calls the git rule visits on a session that commits in ``repositories``
    folders, one commit each, with other work between."""
    session = Session()
    for i in range(repositories):
        session.bash(f"cd /home/dev/lib{i} && git commit -m 'feat: step {i}'",
                     output=f"[main {i:07x}f] feat: step {i}\n 1 file changed")
        session.bash("pytest -q", output="1 passed")
        session.bash("ls", output="README.md")
        session.bash("make lint", output="ok")
    view = SessionView.of(session.transcript(), ROOT)
    counted = _Counting(view.calls())
    view.memo["calls"] = counted
    found = [c["subject"] for c in git_state_candidates(view)]
    return counted.visits, found


def test_the_git_rule_visits_each_tool_call_a_fixed_number_of_times_whatever_the_repositories():
    small, small_found = _git_visits(25)
    large, large_found = _git_visits(100)
    assert small_found == [f"lib{i}" for i in range(25)]  # one fact per repository
    assert large_found == [f"lib{i}" for i in range(100)]
    assert small >= 100  # the rule does look at every call
    assert large <= 4 * small  # a scan of every call per repository: 16× as many
