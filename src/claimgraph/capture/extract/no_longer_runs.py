"""A command the session learned to run that, by the session's end, no longer runs.

A runner fact ("tested by `make test`", "its dev server with `npm run dev`") says a command
works for the project. When the session's LAST run of that command failed in a way that says
the command itself is not there -- ``make: *** No rule to make target 'test'``, ``Missing
script: "dev"``, ``bin/dev: command not found`` (``commands.did_not_run``) -- the project moved on
(the target was renamed, the script removed) and the fact would send the next session to a
command that cannot run. A later run that failed the ordinary way (a test failed) says the
command runs, and keeps the fact; a run that worked after the failure puts it back.

Precision first: only a run of the very command (its words first, arguments after) counts,
alone on its line -- in ``cd x && make test`` the ``cd`` may be what failed. And the failure
must be about the command, not about something else the run named: when the message names
what is missing (a make target, an npm script), that must be one of the command's own words
(``No rule to make target 'db.sql', needed by 'test'`` is a missing prerequisite of a target
that is there; ``make lint`` failing says nothing of ``make``); when it names nothing, the run
must have had no arguments beyond the command's (``pytest tests/gone.py`` failing on a file
that is not there, or on an option, says the arguments were wrong, not that pytest is gone).
A program the shell cannot find by its bare name (``pytest: command not found`` once the
virtualenv is no longer active) is the machine, not the project: only a path (``bin/dev``)
that is not found says the project's own script went away.

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
#: A program the shell could not find: the machine's PATH, unless the program is a path.
_NOT_ON_PATH = re.compile(r"command not found|is not recognized as an internal", re.IGNORECASE)
#: What a "not there" message says is missing, when it names it: a make target, a script.
_MISSING_NAMED = re.compile(r"No rule to make target [`'\u2018\"]?(?P<target>[^`'\u2019\",\n]+)"
                            r"|Missing script:? [\"']?(?P<script>[^\"'\s]+)", re.IGNORECASE)


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
    last_failed = max((at for at, said in failed if _gone(command, *_split(said))),
                      default=None)
    if last_failed is None:
        return False
    return not any(at > last_failed and _runs(command, text)
                   for at, text in done if "\n" not in text.strip())


def _runs(command: str, line: str) -> bool:
    """``line`` runs ``command`` alone: its words first, arguments after, nothing chained."""
    words, ran = command.split(), line.split()
    return bool(words) and ran[:len(words)] == words and not _CHAINED.search(line)


def _split(said: str) -> tuple[str, str]:
    """(command line, output) of a failure as ``failed`` holds it."""
    line, _, output = said.partition("\n")
    return line, output


def _gone(command: str, line: str, output: str) -> bool:
    """``line`` ran ``command`` and its output says the command itself is not there (the
    module docstring: what the message names is the command's, or it names nothing and the
    run added no arguments)."""
    if not _runs(command, line) or not did_not_run(output):
        return False
    words = command.split()
    if "/" not in words[0] and _NOT_ON_PATH.search(output):
        return False  # the machine has no such program (a venv not active): not the project
    named = [match["target"] or match["script"] for match in _MISSING_NAMED.finditer(output)]
    if named:
        return any(name.strip() in words for name in named)
    return len(line.split()) == len(words)
