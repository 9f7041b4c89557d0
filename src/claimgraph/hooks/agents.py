"""What each agent's hook registration looks like: its file, its events, its units, its shapes.

All three agents nest handlers the same way, ``{"hooks": {Event: [{matcher?, "hooks":
[handler]}]}}``, so one planner (``install``) serves them; what differs is recorded here, as
measured with the real clients (docs/agents.md):

- Claude Code: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` ``/settings.json`` (or a project's
  ``.claude/settings.json``); timeouts in seconds; groups carry ``"matcher": ""``.
- Codex CLI: ``$CODEX_HOME`` or ``~/.codex`` ``/hooks.json``; timeouts in seconds, SessionEnd's
  clamped to 3 s (1 s by default); no matcher. SessionEnd fires at the end of ``codex exec``
  and of a ``--no-daemon`` TUI, but the default TUI runs sessions in a daemon and fires it only
  when the daemon unloads the thread, so Stop (after every turn) captures too. Codex runs a
  hook only once its exact definition is TRUSTED (``codex_trust``).
- Gemini CLI: ``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini`` ``/settings.json``, user level
  (project-level hooks run only in a folder the user trusted, after a warning); timeouts in
  MILLISECONDS; groups carry ``"matcher": "*"`` and handlers a ``name``. Gemini waits for
  SessionEnd hooks (and for their stdout to close) and fires SessionEnd three times on an
  interactive exit: our hook returns at once and a session's repeats capture nothing twice.

The command names the agent (``--agent codex``) except Claude Code's, which keeps the form
earlier releases installed, so an existing install stays "already installed".
"""

from __future__ import annotations

import os
import shlex
from collections import namedtuple
from pathlib import Path

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

MARKER = "claimgraph-hook:v1"


class AgentHooks(namedtuple("AgentHooks", "name events timeouts matcher named scopes",
                            defaults=(False, ("user",)))):
    """One agent's registration rules; ``events`` maps its event name to our hook's. A named
    tuple, not a dataclass: ``status`` reads these tables, and dataclasses costs a read command
    ~15 ms of imports."""

    __slots__ = ()
    if TYPE_CHECKING:  # the fields' types, for a type checker
        name: str
        events: Mapping[str, str]
        timeouts: Mapping[str, int]
        matcher: str | None
        named: bool
        scopes: tuple[str, ...]

    def command(self, python: str, event: str) -> str:
        agent = "" if self.name == "claude-code" else f" --agent {self.name}"
        return f"{shlex.quote(python)} -m claimgraph.hooks {event}{agent} # {MARKER}"

    def handler(self, python: str, agent_event: str, event: str,
                timeout: int | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {"type": "command", "command": self.command(python, event),
                                 "timeout": timeout or self.timeouts[agent_event]}
        return {"name": f"claimgraph-{event}", **found} if self.named else found

    def group(self, handler: dict[str, Any]) -> dict[str, Any]:
        if self.matcher is None:
            return {"hooks": [handler]}
        return {"matcher": self.matcher, "hooks": [handler]}


CLAUDE_CODE = AgentHooks("claude-code", {"SessionEnd": "session-end",
                                         "SessionStart": "session-start"},
                         {"SessionEnd": 10, "SessionStart": 10}, "", scopes=("user", "project"))
CODEX = AgentHooks("codex", {"SessionEnd": "session-end", "SessionStart": "session-start",
                             "Stop": "stop"},
                   {"SessionEnd": 3, "SessionStart": 10, "Stop": 5}, None)
GEMINI = AgentHooks("gemini", {"SessionEnd": "session-end", "SessionStart": "session-start"},
                    {"SessionEnd": 5000, "SessionStart": 10000}, "*", named=True)
BY_NAME = {spec.name: spec for spec in (CLAUDE_CODE, CODEX, GEMINI)}
AGENTS = tuple(BY_NAME)


def home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or os.path.expanduser("~"))


def claude_config_dir(environ: Mapping[str, str]) -> Path:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    explicit = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(os.path.expanduser(explicit)) if explicit else home(environ) / ".claude"


def codex_home(environ: Mapping[str, str]) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``."""
    explicit = environ.get("CODEX_HOME", "").strip()
    return Path(os.path.expanduser(explicit)) if explicit else home(environ) / ".codex"


def gemini_dir(environ: Mapping[str, str]) -> Path:
    """``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``."""
    explicit = environ.get("GEMINI_CLI_HOME", "").strip()
    base = Path(os.path.expanduser(explicit)) if explicit else home(environ)
    return base / ".gemini"


def agent_dir(agent: str, environ: Mapping[str, str]) -> Path:
    """The directory whose existence says the agent is used on this machine."""
    return {"claude-code": claude_config_dir, "codex": codex_home,
            "gemini": gemini_dir}[agent](environ)


def user_hooks_file(agent: str, environ: Mapping[str, str]) -> Path:
    """Where an agent reads its user-level hooks."""
    name = "hooks.json" if agent == "codex" else "settings.json"
    return agent_dir(agent, environ) / name
