"""The command table: which group (module of ``claimgraph.cli``) defines each command word.

Commands live one group per module; each module adds its parsers (``add_parsers``) and
exports ``COMMANDS``, a table from command name to ``handler(ctx, args) -> int``. The table
here is known without importing any group, so a command loads its own group only. Adding a
command: its group module, and its word here (tests/cli/test_main.py checks both agree).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    import argparse
    from types import ModuleType
    from typing import Callable

    from claimgraph.cli.invocation import Invocation

    Handler = Callable[["Invocation", argparse.Namespace], int]


#: The command groups (modules of ``claimgraph.cli``), in the order the top-level help lists them.
GROUPS = ("init", "facts", "search", "entity", "predicates", "evidence", "portable", "info",
          "demo", "capture", "hooks", "audit", "briefing", "logs", "status", "daemon",
          "memory", "doctor", "forget", "serve", "sync", "migrate", "completion")
#: Each top-level command word and the group that defines it, known without importing any
#: group: a command loads its own group only (`claimgraph facts` never loads the daemon's or
#: the capture's libraries). tests/cli/test_main.py checks this against every group's parsers.
GROUP_OF = {
    "init": "init", "assert": "facts", "facts": "facts", "history": "facts",
    "invalidate": "facts", "search": "search", "neighbor": "search", "conflicts": "search",
    "entity": "entity", "predicates": "predicates", "evidence": "evidence", "dump": "portable",
    "load": "portable", "stats": "info", "config": "info", "version": "info", "demo": "demo",
    "capture": "capture", "curate": "capture", "hook": "hooks", "install": "hooks",
    "uninstall": "hooks", "audit": "audit", "provenance": "audit", "context": "briefing",
    "logs": "logs", "status": "status", "daemon": "daemon", "recall": "memory",
    "coach": "memory", "outcome": "memory", "mcp": "memory", "doctor": "doctor",
    "forget": "forget", "purge": "forget", "serve": "serve", "sync": "sync",
    "migrate": "migrate", "completion": "completion",
}


def group(name: str) -> ModuleType:
    """The group's module (``__import__``, not ``importlib``: a command's start need not load
    ``importlib`` and the ``warnings`` it brings, issue 29)."""
    module = f"claimgraph.cli.{name}"
    __import__(module)
    return sys.modules[module]


def handler(command: str) -> Handler:
    """The handler of a parsed command line ("facts", "entity merge"), from its group's table
    (looked up at call time, so a test can patch one group's ``COMMANDS``)."""
    found: Handler = group(GROUP_OF[command.split()[0]]).COMMANDS[command]
    return found


def dispatch_table() -> dict[str, Handler]:
    """Every command line's handler (imports every group: for tests and tools, not commands)."""
    return {name: run for g in GROUPS for name, run in group(g).COMMANDS.items()}
