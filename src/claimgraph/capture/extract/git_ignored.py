"""What git refused to add because the project ignores it: a failure the tool's output explains.

``git add`` of an ignored path fails and says why, naming what the ignore rules matched
("The following paths are ignored by one of your .gitignore files:" then the paths). That is
the project's rule, proved by git itself, and the next session trips on it the same way (it
tries to commit a plan under ``notes/`` or a local doc under ``scratch/``). A later ``git add
-f`` of the same path that worked is part of the lesson: forcing it is how that file got in.

Not kept: a path whose ignore rules the session then changed (it wrote or edited a
``.gitignore`` afterwards: the end state may differ), and output that names no path.
"""

from __future__ import annotations

import posixpath
from claimgraph.logic.lazy_regex import lazy_regex
from typing import Any, Iterator

from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import command_text, invocations
from claimgraph.capture.extract.writes import file_ops

_IGNORED = lazy_regex(r"The following paths are ignored by one of your \.gitignore files:\s*\n"
                      r"(?P<paths>(?:[^\n]+\n?)+?)(?:hint:|Use -f|\Z)")
_PATH = lazy_regex(r"^[\w@.+/-]+$")


def ignored_in(output: str) -> list[str]:
    """The paths git's refusal names, in order."""
    match = _IGNORED.search(output)
    if not match:
        return []
    paths = [line.strip() for line in match["paths"].splitlines()]
    return [path for path in paths if path and _PATH.match(path)]


def git_ignored_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    refused: dict[str, tuple[Any, str]] = {}  # ignored path -> (call, the git add it refused)
    forced: dict[str, Any] = {}
    changed_rules_after: dict[str, int] = {}
    for order, call in enumerate(view.calls()):
        if any(posixpath.basename(op.path) == ".gitignore" for op in file_ops(view, call)):
            for path in refused:
                changed_rules_after.setdefault(path, order)
        command = command_text(call)
        result = view.results.get(call.call_id or "")
        if not command or result is None:
            continue
        adds = [run.argv for run in invocations(command) if run.argv[:2] == ("git", "add")]
        if not adds:
            continue
        if view.outcome(call) == FAILED:
            for path in ignored_in(result.text):
                refused.setdefault(path, (call, _shown(adds[0], path)))
        elif view.outcome(call) == OK:
            for argv in adds:
                if "-f" in argv or "--force" in argv:
                    for path in refused:
                        if any(_under(word, path) for word in argv[2:]):
                            forced.setdefault(path, call)
    for path, (call, shown) in refused.items():
        if path in changed_rules_after:
            continue  # the session changed the ignore rules afterwards
        text = (f"`{path}` is git-ignored in this project: `{shown}` was refused (The following "
                f"paths are ignored by one of your .gitignore files)")
        evidence = [transcript_evidence(call.line, f"{shown}: paths are ignored: {path}")]
        if path in forced:
            text += "; `git add -f` added it anyway"
            evidence.append(transcript_evidence(forced[path].line,
                                                command_text(forced[path]) or "git add -f"))
        yield candidate("lessons", view.project or "", "core/failure-mode", text,
                        evidence=evidence, object_kind="literal", subject_type="project",
                        at=call.timestamp)


def _under(word: str, path: str) -> bool:
    word = word.rstrip("/")
    return word == path or word.startswith(path.rstrip("/") + "/")


def _shown(argv: tuple[str, ...], path: str) -> str:
    """The refused ``git add`` as far as it concerns ``path``: the words under it."""
    words = [word for word in argv[2:] if _under(word, path)] or list(argv[2:5])
    return " ".join(["git", "add", *words[:3]]) + (" …" if len(words) > 3 else "")
