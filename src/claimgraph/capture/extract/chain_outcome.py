"""What one shell line's status says about each check it chained (``ruff check . && mypy &&
pytest``).

A line's exit status is its last command's. A rule that follows one check through a session
(``lessons``, ``causes``) reads a line whose last command is the check; a chain of checks is
another shape, and its status says this much about each part:

- joined by ``&&`` and the line worked: every part ran and passed (``&&`` runs the next part
  only after one passed, and the line's status is the last part's);
- joined by ``&&`` and the line failed: the first part that failed is the one that stopped the
  line, and every part before it passed. Which part that was is read from the output only when
  a part's own tool printed its own failure there (``Found 3 errors in 2 files`` is mypy's,
  ``1 failed, 9 passed`` pytest's), or when every check before the last printed its own
  success. Otherwise the chain failed as a whole and no part is known to have passed or failed;
- ``;`` and ``||`` run on after a failure, and a pipe's status is its last stage's (unless
  ``pipefail`` is set), so such a part's own outcome is not in the line's status: it is left
  out (``shell.Invocation.confirmed``, ``piped``).

What a part is (test, lint, format, build) is ``commands``' vocabulary; the signatures below
are keyed by its runner names and only say what each runner prints when it passed or failed.
"""

from __future__ import annotations

import re
from typing import Sequence

from claimgraph.logic.terminal import without_escapes

from claimgraph.capture.extract.commands import kind_of
from claimgraph.capture.extract.session import FAILED, OK
from claimgraph.capture.extract.shell import Invocation, unwrap

#: The kinds of command a chain's part may be for its outcome to be followed: a check, or a
#: build (a compiler's errors stop a ``&&`` line as a test's do).
CHECK_KINDS = frozenset({"test", "lint", "format", "build"})
#: tsc's own error lines (``src/a.ts(7,5): error TS2322:`` or, pretty, ``src/a.ts:7:5 - error
#: TS2322:``), with or without ``--noEmit``.
_TSC_FAILED = re.compile(r"(?:\(\d+,\d+\):|:\d+:\d+ -) error TS\d+: ", re.MULTILINE)
#: cargo's words when a crate did not compile (``build``, ``check`` and ``clippy`` alike).
_CARGO_FAILED = re.compile(r"^error: could not compile `", re.MULTILINE)
#: Commands that only prepare the ones after them (their outcome is nobody's lesson).
_SETUP = frozenset({"cd", "source", ".", "export", "set"})

#: What a runner prints when it failed: its own words, not any tool's ("error:").
_FAILED_BY: dict[str, re.Pattern[str]] = {
    "ruff": re.compile(r"^Found \d+ errors?\.$", re.MULTILINE),
    "ruff format": re.compile(r"^\d+ files? would be reformatted|^Would reformat: ",
                              re.MULTILINE),
    "mypy": re.compile(r"^Found \d+ errors? in \d+ files? \(checked", re.MULTILINE),
    "pytest": re.compile(r"^=+ (?:.*\b)?\d+ (?:failed|errors?)\b.* in [\d.]+s.* =+$",
                         re.MULTILINE),
    "black": re.compile(r"^\d+ files? would be reformatted|^Oh no! ", re.MULTILINE),
    "cargo test": re.compile(r"^test result: FAILED\.", re.MULTILINE),
    "cargo clippy": _CARGO_FAILED,
    "cargo check": _CARGO_FAILED,
    "cargo build": _CARGO_FAILED,
    "tsc": _TSC_FAILED,
    "tsc --noEmit": _TSC_FAILED,
    "vite build": re.compile(r"^error during build:", re.MULTILINE),
    "next build": re.compile(r"^Failed to compile\.", re.MULTILINE),
    "go test": re.compile(r"^FAIL\s+\S+\s+[\d.]+s$", re.MULTILINE),
    "eslint": re.compile(r"^✖ \d+ problems? \(\d+ errors?", re.MULTILINE),
    "pyright": re.compile(r"^\d+ errors?, \d+ warnings?, \d+ (?:informations|notes?)",
                          re.MULTILINE),
}
#: What a runner prints when it passed.
_PASSED_BY: dict[str, re.Pattern[str]] = {
    "ruff": re.compile(r"^All checks passed!$", re.MULTILINE),
    "ruff format": re.compile(r"^\d+ files? already formatted$", re.MULTILINE),
    "mypy": re.compile(r"^Success: no issues found in \d+ source files?$", re.MULTILINE),
    "pytest": re.compile(r"^=+ \d+ passed\b(?:(?!failed|error).)* in [\d.]+s.* =+$",
                         re.MULTILINE),
    "black": re.compile(r"^All done! ✨", re.MULTILINE),
    "cargo test": re.compile(r"^test result: ok\.", re.MULTILINE),
    "pyright": re.compile(r"^0 errors, \d+ warnings?, \d+ (?:informations|notes?)",
                          re.MULTILINE),
}


def chain_outcomes(found: Sequence[Invocation], outcome: str, output: str,
                   pipefail: bool = False) -> list[tuple[Invocation, str]]:
    """Each check of a line chained with ``&&`` whose own outcome the line's status and
    output prove, with that outcome (``OK`` / ``FAILED``), in the line's order (module
    docstring). [] for a line that is no such chain of at least two commands, or says nothing
    about a single check."""
    parts = [inv for inv in found if unwrap(inv.argv) and inv.argv[0] not in _SETUP]
    if len(parts) < 2 or not all(inv.confirmed for inv in parts):
        return []  # one command (``decisive_run``'s), or a ``;`` / ``||`` somewhere
    if outcome == OK:
        return [(inv, OK) for inv in parts if _check(inv) and (pipefail or not inv.piped)]
    if outcome != FAILED or (not pipefail and any(inv.piped for inv in parts)):
        return []
    failed = _failed_part(parts, without_escapes(output))
    if failed is None or not _check(parts[failed]):
        return []
    passed = [(inv, OK) for inv in parts[:failed] if _check(inv)]
    return [*passed, (parts[failed], FAILED)]


def _failed_part(parts: list[Invocation], output: str) -> int | None:
    """The index of the part that stopped the line: the first whose runner printed its own
    failure (and no other part's signature shows), else the last when every check before it
    printed its own success; None when the output does not tell."""
    runners = [_runner(inv) for inv in parts]
    shown = [index for index, runner in enumerate(runners)
             if (pattern := _FAILED_BY.get(runner or "")) is not None and pattern.search(output)]
    if shown:
        # only one part stops a ``&&`` line: two parts claiming the failure (or two runs of
        # one runner) leave it unknown
        return shown[0] if len(shown) == 1 and runners.count(runners[shown[0]]) == 1 else None
    before = runners[:-1]
    if all(runner in _PASSED_BY and _PASSED_BY[runner].search(output) for runner in before
           if runner is not None) and all(_check(inv) for inv in parts[:-1]):
        return len(parts) - 1
    return None


def _runner(inv: Invocation) -> str | None:
    found = kind_of(tuple(unwrap(inv.argv)))
    return found[1] if found else None


def _check(inv: Invocation) -> bool:
    found = kind_of(tuple(unwrap(inv.argv)))
    return found is not None and found[0] in CHECK_KINDS


__all__ = ["CHECK_KINDS", "chain_outcomes"]
