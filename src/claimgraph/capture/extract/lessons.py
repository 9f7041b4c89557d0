"""failure-mode lessons: a check that failed, files edited, then the same check passing.

Only known test/lint/build runs qualify (``tooling.runner_of``): a failing ``git commit``
that later succeeds after edits is not a lesson about the project. The run must decide the
line's outcome on its own (only ``cd``/``source``/``export`` before it, no pipe hiding its
status), "the same check" means the same directory, program and first positional words,
and a missing program (exit 126/127) is an environment problem, not something an edit fixed.
When only test files were edited in between, the session fixed its own test, not the
project: no lesson. Nor when the check names a file this session wrote from scratch (``pytest
tests/test_new.py`` right after creating it): that is work in progress failing on its way to
done, not a way the project is known to fail.

The lesson is built mechanically from the command, the first error line the runner printed,
and the files edited in between -- never from the assistant's explanation. No fact at all is
read from assistant text, which is what keeps a hypothesis the assistant stated and later
refuted out of memory. Confidence stays low (0.4): the edit is what happened between, not
necessarily the cause.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.code import is_test_file
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, exit_code, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import (
    Invocation, call_cwd, command_text, invocations, positional, unwrap)
from claimgraph.capture.extract.tooling import runner_of
from claimgraph.capture.extract.writes import file_ops

LESSON_CONFIDENCE = 0.4
_SETUP = frozenset({"cd", "source", ".", "export", "set"})
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_NAMED_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b|\berror(?:\[\w+\])?:|^E\s")
_FAILURE_WORD = re.compile(r"\b(?:FAIL(?:ED)?|[Ff]ailed|[Ee]rror|panicked)\b")
_GUTTER = re.compile(r"^E\s+")  # pytest's margin before an error line
_MISSING_PROGRAM = (126, 127)


@dataclass(frozen=True)
class _Failure:
    order: int
    call: Event
    error: str


def lesson_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    failures: dict[tuple[Any, ...], _Failure] = {}
    edits: list[tuple[int, str]] = []
    created: set[str] = set()
    taught: set[tuple[Any, ...]] = set()
    for order, call in enumerate(view.calls()):
        outcome = view.outcome(call)
        if outcome == OK:
            ops = [op for op in file_ops(view, call) if op.kind != "delete"]
            edits.extend((order, view.relative(op.path) or op.path) for op in ops)
            created.update(posixpath.basename(op.path) for op in ops if op.kind == "write")
        run = _decisive_run(call)
        if run is None:
            continue
        key = (run.cwd, *positional(unwrap(run.argv))[:3])
        if outcome == FAILED and _edit_can_fix(view, call):
            failures[key] = _Failure(order, call, _first_error_line(view, call))
        elif outcome == OK and key in failures and key not in taught:
            failure = failures.pop(key)
            files = list(dict.fromkeys(path for when, path in edits if when > failure.order))
            if not all(is_test_file(path) for path in files) \
                    and not _checks_new_work(run, created):
                taught.add(key)
                yield _lesson(view, run, failure, call, files)


def _decisive_run(call: Event) -> Invocation | None:
    """The test/build run whose status is the call's status, if there is exactly that."""
    command = command_text(call)
    found = invocations(command, call_cwd(call)) if command else []
    if not found or any(inv.argv[0] not in _SETUP for inv in found[:-1]):
        return None
    last = found[-1]
    return last if not last.piped and runner_of(last.argv) else None


def _checks_new_work(run: Invocation, created: set[str]) -> bool:
    """The check is aimed at a file the session wrote whole (``pytest tests/test_new.py``,
    ``vitest Nav.test.tsx``, ``pytest t.py::test_x``)."""
    arguments = positional(unwrap(run.argv))[1:]
    return any(posixpath.basename(arg.split("::")[0].rstrip("/")) in created
               for arg in arguments)


def _edit_can_fix(view: SessionView, call: Event) -> bool:
    result = view.results.get(call.call_id or "")
    if result is None:
        return False
    return exit_code(result) not in _MISSING_PROGRAM and "command not found" not in result.text


def _first_error_line(view: SessionView, call: Event) -> str:
    """The most telling line of the failure: a named error first, then any failure word."""
    result = view.results.get(call.call_id or "")
    text = _ANSI.sub("", result.text) if result else ""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if sum(char.isalnum() for char in line) >= 6
             and not line.startswith("Exit code")]
    for pattern in (_NAMED_ERROR, _FAILURE_WORD):
        hit = next((line for line in lines if pattern.search(line)), None)
        if hit:
            return "with " + short_quote(_GUTTER.sub("", hit), 100).rstrip(".;: ")
    code = exit_code(result) if result else None
    return f"with exit code {code}" if code is not None else ""


def _lesson(view: SessionView, run: Invocation, failure: _Failure, fixed: Event,
            files: list[str]) -> dict[str, Any]:
    shown = " ".join(run.argv)
    edited = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    text = f"`{shown}` failed {failure.error}".rstrip() + f"; fixed by editing {edited}"
    evidence = [transcript_evidence(failure.call.line, command_text(failure.call) or shown),
                transcript_evidence(fixed.line, command_text(fixed) or shown)]
    return candidate("lessons", view.project or "", "core/failure-mode", text,
                     evidence=evidence, epistemic="observation", confidence=LESSON_CONFIDENCE,
                     source_type="failure-report", object_kind="literal",
                     subject_type="project")
