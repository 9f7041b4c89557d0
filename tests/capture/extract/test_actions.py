"""One normalized action per tool call, whatever the agent calls its tools."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.actions import actions, of_kind
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.tools import TOOL_KINDS, kind_of

from .extract_helpers import ROOT, Session


@pytest.mark.parametrize("agent,shell,read,write,edit", [
    ("claude-code", "Bash", "Read", "Write", "Edit"),
    ("codex", "exec_command", "view", "apply_patch", "apply_patch"),
    ("gemini", "run_shell_command", "read_file", "write_file", "replace"),
])
def test_every_agents_calls_become_the_same_actions(agent, shell, read, write, edit):
    session = Session(agent=agent)
    session.tool(shell, {"command": "pytest -q"}, output="3 passed", extras={"exit_code": 0})
    session.tool(read, {"file_path": "README.md"}, output="# Shop")
    if write == "apply_patch":
        session.tool(write, {"input": "*** Begin Patch\n*** Add File: notes.md\n+hello\n"
                                      "*** End Patch"})
    else:
        session.tool(write, {"file_path": "notes.md", "content": "hello\n"})
    if edit != "apply_patch":
        session.tool(edit, {"file_path": "notes.md", "old_string": "hello", "new_string": "hi"})
    done = actions(SessionView.of(session.transcript(), None))
    assert [a.kind for a in done][:3] == ["shell", "read", "write" if write != "apply_patch"
                                          else "edit"]
    assert done[0].command == "pytest -q" and done[0].outcome == "ok"
    assert done[1].path == f"{ROOT}/README.md" and done[1].content == "# Shop"
    if edit != "apply_patch":
        assert done[3].kind == "edit" and done[3].path == f"{ROOT}/notes.md"


def test_questions_and_plans_are_ask_and_plan_and_the_rest_is_other():
    session = Session()
    session.tool("AskUserQuestion", {"questions": []}, output="answered")
    session.tool("ExitPlanMode", {"plan": "1. Do it"}, output="User has approved")
    session.tool("WebSearch", {"query": "x"}, output="results")
    view = SessionView.of(session.transcript(), None)
    assert [a.kind for a in actions(view)] == ["ask", "plan", "other"]
    assert [a.content for a in of_kind(view, "plan")] == ["1. Do it"]


def test_the_one_table_names_only_known_kinds():
    assert set(TOOL_KINDS.values()) <= {"shell", "read", "write", "edit", "ask", "plan"}
    assert kind_of(None) == kind_of("SomethingNew") == "other"


@pytest.mark.parametrize("name", ["PowerShell", "powershell"])
def test_a_powershell_call_is_a_shell_action(name):
    session = Session()
    session.tool(name, {"command": "git status -sb; pytest -q"}, output="3 passed")
    [done] = actions(SessionView.of(session.transcript(), None))
    assert (done.kind, done.command, done.outcome) == ("shell", "git status -sb; pytest -q", "ok")


def test_codex_questions_are_asks_like_claude_codes():
    session = Session(agent="codex")
    session.tool("request_user_input", {"questions": []}, output="{}")
    assert [a.kind for a in actions(SessionView.of(session.transcript(), None))] == ["ask"]
