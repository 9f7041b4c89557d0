"""Symlinks out of an agent's transcript directories: never followed without saying so.

Everything under ``~/.claude/projects``, ``~/.codex/sessions`` and ``~/.gemini/tmp`` is taken
for the agent's own transcripts, by the daemon's sweep and by the hook that names one. A link
planted there that leads elsewhere (``session.jsonl -> /etc/shadow``) would make us copy that
file into the evidence tier, so a transcript found there must stay there once resolved: the
sweep skips such a link with a warning, and a capture refuses it. A link given explicitly
from anywhere else is followed, and the capture report says where it led.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from claimgraph.errors import ClaimgraphError


def agent_dirs(environ: Mapping[str, str]) -> list[Path]:
    """Where the agents keep their transcripts (``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``…)."""
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    claude = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    codex = environ.get("CODEX_HOME", "").strip()
    return [Path(os.path.expanduser(claude)) if claude else home / ".claude",
            Path(os.path.expanduser(codex)) if codex else home / ".codex",
            home / ".gemini"]


def _within(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root + os.sep) for root in roots)


def link_target(path: str) -> str | None:
    """Where ``path`` really is, when a symlink (it or a directory above it) leads elsewhere."""
    absolute = os.path.abspath(path)
    real = os.path.realpath(absolute)
    return real if real != absolute else None


def check_transcript_link(path: str, environ: Mapping[str, str]) -> str | None:
    """None for a plain path; the target of a link that may be followed (to report); raises
    for a link from inside an agent's transcript directories to outside them."""
    target = link_target(path)
    if target is None:
        return None
    dirs = agent_dirs(environ)
    given_inside = _within(os.path.abspath(path), [os.path.abspath(d) for d in dirs])
    lands_inside = _within(target, [os.path.realpath(d) for d in dirs])
    if given_inside and not lands_inside:
        raise ClaimgraphError(
            "transcript-symlink-outside",
            f"{path} is a symlink out of the agent's transcript directories, to {target}",
            hint="claimgraph never follows such a link; capture the file by its own path if "
                 "it really is a transcript", path=path, target=target)
    return target
