"""What each agent's tools are, in one table: the only place a rule's world meets tool names.

Every agent names its tools its own way (Claude Code ``Bash``/``Read``/``Edit``, Codex
``exec_command``/``apply_patch``, Gemini ``run_shell_command``/``read_file``/``replace``). A
rule never asks for a name; it asks what kind of action a call was (``actions.py``):

- ``shell``: runs a command line (``command``); Windows' ``PowerShell`` tool is one too;
- ``read``: shows a file (``path``; the result is the text);
- ``write``: replaces a whole file (``path``, ``content``);
- ``edit``: swaps text in a file (``path``, old and new text), or applies a patch;
- ``ask``: asks the user a question with options (the result holds the answers: Claude
  Code's ``AskUserQuestion``, Codex's ``request_user_input``, Gemini's ``ask_user``);
- ``plan``: puts a plan to the user for approval;
- ``other``: anything else (searches, web fetches, todo lists, subagents).

Adding an agent means adding its names here (docs/contributing-capture.md).
"""

from __future__ import annotations

SHELL, READ, WRITE, EDIT, ASK, PLAN, OTHER = (
    "shell", "read", "write", "edit", "ask", "plan", "other")
KINDS = (SHELL, READ, WRITE, EDIT, ASK, PLAN, OTHER)

TOOL_KINDS: dict[str, str] = {
    # Claude Code
    "Bash": SHELL, "PowerShell": SHELL, "Read": READ, "Write": WRITE, "Edit": EDIT,
    "MultiEdit": EDIT,
    "AskUserQuestion": ASK, "ExitPlanMode": PLAN,
    # Codex CLI
    "shell": SHELL, "exec_command": SHELL, "shell_command": SHELL, "local_shell": SHELL,
    "container.exec": SHELL,
    "apply_patch": EDIT, "request_user_input": ASK,
    # Gemini CLI
    "run_shell_command": SHELL, "read_file": READ, "read_many_files": READ,
    "write_file": WRITE, "replace": EDIT, "ask_user": ASK,
    # others
    "view": READ, "powershell": SHELL,
}


#: Tools that hand a task to a sub-agent and return its report (Claude Code's ``Task``, named
#: ``Agent`` in later versions): the report is the sub-agent's account of what it did.
DELEGATES = frozenset({"Task", "Agent"})


def kind_of(tool_name: str | None) -> str:
    """The action kind of a tool's name; ``other`` for a name the table does not know."""
    return TOOL_KINDS.get(tool_name or "", OTHER)


def names_of(kind: str) -> frozenset[str]:
    """Every tool name of one kind (for the few helpers that filter calls cheaply)."""
    return frozenset(name for name, known in TOOL_KINDS.items() if known == kind)
