"""Candidates cited from files git ignores are not the project's word (docs/capture.md).

A session can read an instruction file, a manifest or a task file under a git-ignored folder
(a build output, a vendored checkout, a scratch clone): what such a file says belongs to
someone else, or to nobody, and must not become a standing rule of the project. The rules
already refuse folders that are someone else's code by name (node_modules/, vendor/, a
virtualenv); this asks git about the rest, once per capture, for every cited path at once.

Plumbing, not logic: it runs ``git check-ignore`` in the project root. Whatever goes wrong
(no git, not a repository, the root gone, a timeout) keeps every candidate: an unanswered
question is not a reason to lose facts. Tracked files are never reported as ignored.
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex
import subprocess
from typing import Any, Callable, Iterable

_FILE_CITATION = lazy_regex(r"^(?P<path>[^\s`]+?): `")
TIMEOUT_SECONDS = 10

Runner = Callable[..., subprocess.CompletedProcess]


def cited_file(candidate: dict[str, Any]) -> str | None:
    """The project-relative file the candidate's first evidence cites, if it cites one."""
    evidence = candidate.get("evidence") or []
    found = _FILE_CITATION.match(evidence[0]) if evidence and isinstance(evidence[0], str) \
        else None
    if found is None or found["path"].startswith(("transcript#", "/")):
        return None
    path = found["path"]
    return path[2:] if path.startswith("./") else path


def drop_ignored(candidates: Iterable[dict[str, Any]], root: str | None,
                 run: Runner = subprocess.run) -> list[dict[str, Any]]:
    """``candidates`` minus those whose cited file git ignores in ``root``."""
    candidates = list(candidates)
    paths = sorted({p for p in map(cited_file, candidates) if p})
    if not root or not paths:
        return candidates
    ignored = ignored_paths(root, paths, run)
    return [c for c in candidates if cited_file(c) not in ignored]


def ignored_paths(root: str, paths: list[str], run: Runner = subprocess.run) -> set[str]:
    """The ``paths`` (relative to ``root``) that git ignores there; empty when git cannot say."""
    try:
        done = run(["git", "-C", root, "check-ignore", "-z", "--stdin"],
                   input="\0".join(paths) + "\0", capture_output=True, text=True,
                   timeout=TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return set()
    if done.returncode not in (0, 1):
        return set()
    return {p for p in done.stdout.split("\0") if p}
