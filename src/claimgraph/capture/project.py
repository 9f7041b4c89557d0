"""Moved to ``claimgraph.project`` (the shell and every vertical share it; core must not import
up into capture). Kept as a re-export only so imports written before the move still resolve;
new code imports ``claimgraph.project``."""

from claimgraph.project import (Project, git_environ, normalize_remote, project_id,
                                resolve_project)

__all__ = ["Project", "git_environ", "normalize_remote", "project_id", "resolve_project"]
