"""The checks the session ran together, in one line, as its gate: how the work is verified here.

``tooling`` remembers each check alone (``uv run mypy``, ``uv run pytest``), one fact per
check, and leaves out a check that is only its toolchain's default (``cargo test``, ``cargo
clippy``): the manifest says it. What neither says is the gate: which checks this project
runs, together, before work counts as done ("`cargo fmt && cargo clippy && cargo test`",
"`uv run ruff check src/ tests/ && uv run mypy src/ tests/ && uv run pytest tests/ -v`").
When the session typed such a chain and it passed, that line is how to verify a change here,
and the next session can run it as it stands.

A line counts (``chain_of``) when all of these hold:

- it worked (the call's outcome is a pass: a line whose outcome is unknown proves nothing);
- it is nothing but checks -- tests, lints, format checks, type checks (``commands``'
  vocabulary) -- chained with ``&&``, with at most a ``cd`` or an environment's activation
  before them; a line that also commits, installs, builds or prints is some other step;
- every check's success is proved by the line's (none of them hidden in a pipe to ``tail``
  or ``grep``, none after ``;`` or ``||``);
- it runs at least two different checks (a program and subcommand each: two runs of ``cargo
  test`` for two test names are one check narrowed twice), at least one of them a test or a
  lint (formatters alone, ``ruff check --fix``, rewrite code and verify nothing), none of them
  narrowed to a few tests (``-k``, ``--grep``, a test's name, one file, a module's path
  such as ``cart::tests::``: a look at one failure, not the gate),
  and it runs in the project (a ``cd`` out of it runs someone else's checks);
- it is one line of shell of at most ``MAX_CHARS`` characters.

Of the lines that count, one is kept: the one with the most checks, the latest among those
(the gate as the session ended it). It is stored as ``core/tested-by`` with the whole line as
the session typed the checks (a command, as ``tooling`` stores one), seen (the tool's
outcome), citing the run.
"""

from __future__ import annotations

import shlex
from typing import Any, Iterator

from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.commands import kind_of, typed_key, unwrap
from claimgraph.capture.extract.session import OK, SessionView, candidate, transcript_evidence
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations
from claimgraph.capture.extract.tooling import is_target, takes_filter

#: What a check in a chain may be (``commands.KINDS``): verifying, not making or running.
CHECK_KINDS = frozenset({"test", "lint", "format"})
#: What verifies rather than rewrites: a chain of formatters alone tidies, it is no gate.
_VERIFYING = frozenset({"test", "lint"})
#: Fewest different checks a line must chain to be a gate.
MIN_CHECKS = 2
#: A chain longer than this is no longer one line someone types.
MAX_CHARS = 240
#: A file (not a folder) a run was aimed at: ``tests/test_cart.py``, ``src/app.ts``; or a
#: test id or module path (``cart::tests::``, ``tests/x.py::test_a``): some of the tests.
_FILE = lazy_regex(r"\.\w{1,5}(?:::\S*)?$|::")
#: What may come before the checks without making the line another step.
_SETUP = frozenset({"cd", "source", "."})


def check_chain_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """The one chain of checks the session's record proves it ran as its gate (module
    docstring), as ``core/tested-by``."""
    if not view.project:
        return
    best: tuple[int, int, str, Any, str] | None = None
    for call in view.calls():
        command = command_text(call)
        if command is None or view.outcome(call) != OK:
            continue
        chain = chain_of(command, call_cwd(call), view)
        if chain is None:
            continue
        checks = chain.count(" && ") + 1
        if best is None or (checks, call.line) >= (best[0], best[1]):
            best = (checks, call.line, chain, call, command)
    if best is None:
        return
    _, _, chain, call, command = best
    yield candidate("checks", view.project, "core/tested-by", chain,
                    evidence=[transcript_evidence(call.line, command)], object_kind="entity",
                    subject_type="project", object_type="tool", at=call.timestamp)


def chain_of(command: str, cwd: str | None, view: SessionView | None = None) -> str | None:
    """The checks of ``command`` joined by `` && `` when the line is a gate (module
    docstring), else None. ``view`` (when given) says whether the checks ran in the project."""
    if len(command) > MAX_CHARS or "\n" in command.strip() or not _only_and(command):
        return None
    runs = invocations(command, cwd)
    checks: list[tuple[str, ...]] = []
    for run in runs:
        argv = tuple(unwrap(run.argv))
        if not argv:
            return None
        if not checks and argv[0] in _SETUP:
            continue
        found = kind_of(argv)
        if found is None or found[0] not in CHECK_KINDS or not run.confirmed or run.piped:
            return None
        if _narrowed(argv):
            return None
        if view is not None and run.cwd and view.own(run.cwd) is None:
            return None
        checks.append(run.argv)
    found = [kind_of(tuple(unwrap(argv))) for argv in checks]
    runners = {runner for _, runner in filter(None, found)}
    if len(runners) < MIN_CHECKS or not any(kind in _VERIFYING for kind, _ in filter(None, found)):
        return None  # one check narrowed twice; or formatters alone, which verify nothing
    return " && ".join(shlex.join(argv) for argv in checks)


def _only_and(command: str) -> bool:
    """The line chains its commands with ``&&`` only (no ``;``, ``||``, background ``&``)."""
    stripped = command.replace("&&", " ").replace("2>&1", " ").replace(">&2", " ")
    return not any(mark in stripped for mark in (";", "||", "&"))


def _narrowed(argv: tuple[str, ...]) -> bool:
    """A run narrowed to some tests: a filter flag (``-k``, ``--grep``), or a bare word after
    the runner that is neither a flag, a flag's value, a path nor passed on after ``--``
    (``cargo test test_rebase``: one test's name)."""
    words = tuple(unwrap(argv))
    if any(takes_filter(word) for word in words):
        return True
    previous = ""
    for word in words[len(typed_key(words)) or 1:]:
        if word == "--":
            return False
        if not word.startswith("-") and not (previous.startswith("-") and "=" not in previous) \
                and (not is_target(word) or _FILE.search(word)):
            return True  # a test's name, or one file: a look at a few tests, not the gate
        previous = word
    return False


__all__ = ["check_chain_candidates", "chain_of"]
