"""What an extractor could not do this pass, told to the capture pass that runs it.

An opt-in extractor (the model) may fail in ways that cost the pass its candidates but must
not cost the capture: the command is missing, fails, hangs, answers nonsense, or the budget is
spent. Returning ``[]`` alone would make that silent, so the extractor reports here, and the
capture pass turns each problem into a warning in its report and an event in capture.log
(which ``claimgraph status`` counts). A context variable, not a return value, because
extractors are combined behind one plain ``extract(transcript, project_root=...)`` interface.
Reported outside a ``collecting`` block (a test, a library caller), a problem is dropped:
the extractor keeps its own record of it.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator

_problems: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "claimgraph_capture_problems", default=None)


@contextlib.contextmanager
def collecting() -> Iterator[list[dict[str, Any]]]:
    """Collect the problems reported inside the block into the list it yields."""
    found: list[dict[str, Any]] = []
    token = _problems.set(found)
    try:
        yield found
    finally:
        _problems.reset(token)


def report(event: str, *, reason: str, message: str, hint: str | None, **fields: Any) -> None:
    """``event`` names the log event (``capture.model-failed``); ``reason`` is the error type."""
    found = _problems.get()
    if found is not None:
        found.append({"event": event, "reason": reason, "message": message, "hint": hint,
                      **fields})


def announce(found: list[dict[str, Any]], log: Any, **context: Any) -> list[str]:
    """Each problem once in capture.log (``status`` counts them) and once as a one-line
    warning for the report: what happened — what to install or set."""
    warnings = []
    for problem in found:
        fields = {k: v for k, v in problem.items() if k != "event"}
        log.warning(problem["event"], **context, **fields)
        warnings.append(f"{problem['message']} — {problem['hint']}")
    return warnings
