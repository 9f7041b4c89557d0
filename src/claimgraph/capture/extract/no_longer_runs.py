"""A command the session learned to run that, by the session's end, no longer runs.

A runner fact ("tested by `make test`", "its dev server with `npm run dev`") says a command
works for the project. When the session's LAST run of that command failed in a way that says
the command itself is not there -- ``make: *** No rule to make target 'test'``, ``Missing
script: "dev"``, ``command not found`` (``commands.did_not_run``) -- the project moved on
(the target was renamed, the script removed) and the fact would send the next session to a
command that cannot run. A later run that failed the ordinary way (a test failed) says the
command runs, and keeps the fact; a run that worked after the failure puts it back.

Precision first: only a run of the very command (its words first, arguments after) counts,
alone on its line -- in ``cd x && make test`` the ``cd`` may be what failed.

Pure logic on plain data: no file, no clock.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from claimgraph.capture.extract.commands import did_not_run

#: The predicates whose object is (or quotes) a command the project runs.
RUNNERS = frozenset({"core/tested-by", "core/built-with", "x/runs"})
_CODE_SPAN = re.compile(r"`([^`\n]{2,120})`")
#: A line that runs more than one command (the first may be what failed).
_CHAINED = re.compile(r"&&|\|\||;|\|")


def command_of(found: Mapping[str, Any]) -> str | None:
    """The command a runner fact names: its object, or the one code span in it."""
    if found.get("predicate") not in RUNNERS:
        return None
    text = str(found.get("object") or "")
    spans = _CODE_SPAN.findall(text)
    if found.get("predicate") == "x/runs":
        return spans[0].strip() if len(spans) == 1 else None
    return text.strip() or None


def stopped_running(command: str, failed: Iterable[tuple[int, str]],
                    done: Iterable[tuple[int, str]]) -> bool:
    """The session's last run of ``command`` failed saying the command is not there
    (module docstring). ``failed`` is (line, command line + its output), ``done`` (line,
    text) of what worked."""
    last_failed = max((at for at, said in failed
                       if _runs(command, said.split("\n", 1)[0])
                       and did_not_run(said.split("\n", 1)[1] if "\n" in said else "")),
                      default=None)
    if last_failed is None:
        return False
    return not any(at > last_failed and _runs(command, text)
                   for at, text in done if "\n" not in text.strip())


def _runs(command: str, line: str) -> bool:
    """``line`` runs ``command`` alone: its words first, arguments after, nothing chained."""
    words, ran = command.split(), line.split()
    return bool(words) and ran[:len(words)] == words and not _CHAINED.search(line)
