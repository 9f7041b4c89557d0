"""The form of a check that works here: what a run had to add before the check could pass.

A session often learns how a project's tests run by trial: ``python -m unittest`` is not found,
``python3 -m unittest`` cannot import the package, ``PYTHONPATH=src python3 -m unittest
discover -s tests`` passes. Remembering the plainest form of the check (what the recipe
readers do to keep one fact per check) would then tell the next session the very command
this one saw fail. This module decides, from the runs of ONE check in session order, whether
the record proves that a setting was needed, and which run shows the form to remember.

Proof, each part required (when unsure, nothing):

* a run of the check failed, and the NEXT run of it passed with nothing changed in between
  (no file written or edited, no command that changes anything): the command is the only
  difference, so the difference made it pass;
* the passing run adds something that says how to run the check, not which tests to run or
  how to report: an environment setting (``PYTHONPATH=src``, ``GOFLAGS=-mod=mod``) or an
  argument the caller marks significant (``discover -s tests``); a different target, filter
  or reporting flag proves nothing (a flaky test passing on a narrower run is not a setup);
* the end state keeps it: the check's last run with a known outcome passed and still carries
  every setting learned this way (a setting the session later dropped while the check still
  passed was not what made it work).

The form remembered is that last passing run's (its settings and significant words), so a
setting learned early and a subcommand learned later are told together, as the session ended.
Pure: no I/O; the caller says what counts as a significant word.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

PASSED, FAILED, UNKNOWN = "passed", "failed", "unknown"


@dataclass(frozen=True)
class Run:
    """One run of a check. ``settings`` are the environment assignments typed before the
    program (``NAME=value``); ``significant`` the words of the command that say how the check
    runs (targets, filters and reporting flags already left out by the caller);
    ``changed_before`` says whether anything changed the tree since the previous run of the
    same check (an edit, a write, a command that is not a look)."""

    line: int
    outcome: str
    settings: tuple[str, ...]
    significant: tuple[str, ...]
    changed_before: bool


@dataclass(frozen=True)
class WorkingForm:
    """The run whose form is remembered, what it proved was needed, and the failure before."""

    run: Run
    learned: tuple[str, ...]
    failed_line: int
    passed_line: int


def learned_between(failed: Run, passed: Run) -> tuple[str, ...]:
    """What the passing run has that the failing one lacked: settings by their whole text
    (``PYTHONPATH=src``), significant words by themselves; () when the only difference is
    something else (a target, a filter, the same command again)."""
    new_settings = tuple(s for s in passed.settings if s not in failed.settings)
    new_words = tuple(w for w in passed.significant if w not in failed.significant)
    return new_settings + new_words


def _always(word: str) -> bool:
    return True


def working_form(runs: Sequence[Run],
                 proves: Callable[[str], bool] = _always) -> WorkingForm | None:
    """The proved working form of one check from its runs in session order, or None.
    ``proves`` says whether a word gained may count as the difference that made the check
    pass (a reporting flag alone, ``-v``, may not; it is still told beside a word that did)."""
    learned: list[str] = []
    proof: tuple[int, int] | None = None
    for failed, passed in zip(runs, runs[1:]):
        if failed.outcome != FAILED or passed.outcome != PASSED or passed.changed_before:
            continue
        gained = [word for word in learned_between(failed, passed) if proves(word)]
        if gained:
            learned.extend(g for g in gained if g not in learned)
            proof = (failed.line, passed.line)
    if proof is None:
        return None
    known = [run for run in runs if run.outcome in (PASSED, FAILED)]
    last = known[-1]
    if last.outcome != PASSED:
        return None  # the session ended with the check failing: its form proves nothing
    carried = set(last.settings) | set(last.significant)
    if not all(word in carried for word in learned):
        return None  # the end state dropped what seemed needed: it was not the fix
    kept = tuple(word for word in learned if word in carried)
    return WorkingForm(last, kept, proof[0], proof[1])
