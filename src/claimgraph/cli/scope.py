"""Which scope a command reads or writes: the current directory's project unless ``--scope``.

Capture files a session's facts under its project id (git remote, else the repository root,
else the directory: ``claimgraph.project``). Commands typed in that project must land in the same
place, or ``assert`` writes a fact the agent is never shown and ``facts`` cannot find what
capture wrote. So every scoped command resolves the current directory exactly as capture does;
``--scope user`` reaches the facts that hold across projects, ``--scope ID`` another project.
Reads look in the project first and then in the user scope, as the injected context does.
"""

from __future__ import annotations

import os

from claimgraph.project import Project, resolve_project
from claimgraph.errors import ClaimgraphError

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    import argparse
    from typing import Any

USER_SCOPE = "user"
WRITE_HELP = ("the project id to write to, or user for facts that hold across projects "
              "(default: the project of the current directory)")
READ_HELP = ("read this scope only: a project id, or user (default: the current directory's "
             "project, then user)")


def add_scope_argument(parser: argparse.ArgumentParser, help_text: str,
                       *old_names: str) -> None:
    """``--scope``; flags it replaced stay accepted (hidden) so scripts keep working."""
    from argparse import SUPPRESS  # the parser is built: argparse is loaded already

    parser.add_argument("--scope", metavar="SCOPE", help=help_text)
    for name in old_names:
        parser.add_argument(name, dest="scope", help=SUPPRESS)


def current_project(environ: Any) -> Project:
    """The project of the current directory, as capture would file a session started here."""
    try:
        here = os.getcwd()
    except OSError:
        raise ClaimgraphError("cwd-gone", "the current directory no longer exists",
                              hint="cd into your project, or pass --scope") from None
    return resolve_project(here, environ)


def add_project_choice(parser: argparse.ArgumentParser, what: str) -> None:
    """``--scope`` or ``--all-projects`` for a review command (conflicts, audit), which
    otherwise looks at the current project and your user scope, like every other read."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scope", metavar="SCOPE", help=f"{what} in this scope only: a project "
                       "id, or user (default: the current directory's project plus user)")
    where.add_argument("--all-projects", action="store_true", help=f"{what} in every project")


def review_scopes(ctx: Any, args: argparse.Namespace) -> list[str] | None:
    """None (every scope) for ``--all-projects``, else what the reads look at."""
    return None if getattr(args, "all_projects", False) else ctx.read_scopes()
