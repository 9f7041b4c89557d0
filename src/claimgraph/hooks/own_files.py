"""The instruction files the starting agent loads on its own, as project-relative paths.

``logic.own_instructions`` says which names each agent loads in each folder from the
project's root down to the session's directory; this adds what only the disk can say, for
Codex: which of ``AGENTS.override.md`` and ``AGENTS.md`` a folder holds (Codex loads the first
it finds) and where its default 32 KiB of instructions runs out (a file past that is cut, so
its lines are not counted as loaded). A name no folder holds on disk still counts for the
agents that load every name: a fact quoting a file that is gone is the audit's to judge, and
a missing file loads nothing for the next agent to be told twice.

Used by the SessionStart hook (the agent that fired it) and by ``claimgraph context --agent``;
standard library only, a few ``stat`` calls, never a read of the files themselves.
"""

from __future__ import annotations

import os
import stat

from claimgraph.logic.own_instructions import FIRST_FOUND, candidate_files, folder_chain

#: Codex reads at most this many bytes of AGENTS files, root first (``project_doc_max_bytes``).
CODEX_MAX_BYTES = 32 * 1024


def files_loaded(agent: str, root: str | None, cwd: str | None) -> frozenset[str]:
    """Project-relative paths of the instruction files ``agent`` loads when it starts in
    ``cwd`` of the project at ``root``; empty for an agent we do not know."""
    if not root:
        return frozenset()
    groups = candidate_files(agent, folder_chain(_relative(root, cwd)))
    if agent not in FIRST_FOUND:
        return frozenset(path for group in groups for path in group)
    loaded: set[str] = set()
    used = 0
    for group in groups:
        present = [(path, size) for path in group for size in [_size(root, path)]
                   if size is not None]
        path, size = present[0] if present else (group[-1], 0)
        used += size
        if used > CODEX_MAX_BYTES:
            break  # this file and every one after it is cut or never read
        loaded.add(path)
    return frozenset(loaded)


def _relative(root: str, cwd: str | None) -> str:
    """``cwd`` relative to ``root`` ("" at the root; "../x" outside it)."""
    if not cwd:
        return ""
    try:
        return os.path.relpath(os.path.realpath(cwd), os.path.realpath(root))
    except ValueError:  # another drive (Windows): not inside the project
        return ".."


def _size(root: str, path: str) -> int | None:
    try:
        found = os.stat(os.path.join(root, path))
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None
