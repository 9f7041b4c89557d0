"""The session's runs of each check, read for the form that works here (``logic.working_form``).

``tooling`` remembers one plain form per check (``python3 -m unittest``), which is right when
every form the session ran worked. When the plain form failed and, with nothing changed in
between, a form with a setting or an argument more passed (``PYTHONPATH=src python3 -m
unittest discover -s tests``), the plain form is what the next session must NOT type: this
module finds those checks and the form the session ended with, and ``tooling`` stores it in
place of the plain one, citing the run that passed and the one that failed.

A run's outcome is only what the record proves: a failed line fails its last simple command
(``cd app && pytest`` failing is pytest's failure; in ``pytest; echo done`` nothing is
known), a line that worked proves the commands its success implies, never one whose status a
pipe hid. Between two runs of a check, a write, an edit, any command that is not a look
(``ls``, ``git status``, ``cat``) or a run of a check, a tool of another kind (a sub-agent, an
MCP server: what it did is unknown) and a message of the person's (they may have fixed
something themselves: "I installed it, try again") count as a change.
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex
from dataclasses import dataclass
from typing import Any, Iterator

from claimgraph.capture.extract.actions import Action, actions
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import Invocation, call_cwd, invocations, looks
from claimgraph.capture.extract.tools import EDIT, OTHER, SHELL, WRITE
from claimgraph.capture.extract.tooling import (
    check_of, command_form, is_target, reporting_flag, runner_of, takes_filter,
    tooling_candidates)
from claimgraph.logic.working_form import (
    FAILED as RUN_FAILED, PASSED, UNKNOWN, Run, WorkingForm, working_form)

_SETTING = lazy_regex(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DOTTED = lazy_regex(r"\w+(?:\.\w+)+")


@dataclass(frozen=True)
class Found:
    """A check's proved working form: its predicate and text, and the lines to cite."""

    predicate: str
    form: str
    passed: Action
    failed: Action
    last: Action


def working_forms(view: SessionView) -> dict[tuple[str, ...], Found]:
    """Per check (``tooling.check_of``'s key), the working form the record proves, if any."""
    found: dict[tuple[str, ...], Found] = view.remembered("working_forms", _compute)
    return found


def _compute(view: SessionView) -> dict[tuple[str, ...], Found]:
    runs: dict[tuple[str, ...], list[tuple[Run, Action, str, str]]] = {}
    changed: set[tuple[str, ...]] = set()
    prompts = iter(sorted(e.line for e in view.transcript.events if e.is_human_prompt))
    prompt = next(prompts, None)
    for action in actions(view):
        while prompt is not None and prompt < action.line:
            changed, prompt = set(runs), next(prompts, None)  # the person may have acted
        if action.kind in (WRITE, EDIT, OTHER):
            changed = set(runs)  # a file changed, or a tool whose effect is unknown ran
            continue
        if action.kind != SHELL or not action.command:
            continue
        line = invocations(action.command, call_cwd(action.call))
        for index, invocation in enumerate(line):
            runner = runner_of(invocation.argv)
            if runner is None:
                if not looks(invocation.argv):
                    changed = set(runs)
                continue
            key = check_of(runner[0], command_form(invocation.argv))
            words = significant(invocation.argv)
            run = Run(action.line, _outcome(action, line, index),
                      settings_of(action.command, invocation), words,
                      changed_before=key in changed)
            runs.setdefault(key, []).append((run, action, runner[0], " ".join(words)))
            changed.discard(key)
    found: dict[tuple[str, ...], Found] = {}
    for key, seen in runs.items():
        form = working_form([run for run, *_ in seen], proves=lambda w: not reporting_flag(w))
        if form is not None:
            found[key] = _found(form, seen)
    return found


def _found(form: WorkingForm, seen: list[tuple[Run, Action, str, str]]) -> Found:
    by_line = {run.line: (action, predicate) for run, action, predicate, _ in seen}
    last, predicate = by_line[form.run.line]
    text = " ".join((*form.run.settings, *form.run.significant))
    return Found(predicate, text, by_line[form.passed_line][0], by_line[form.failed_line][0],
                 last)


def _outcome(action: Action, line: tuple[Invocation, ...], index: int) -> str:
    invocation = line[index]
    if action.outcome == OK:
        return PASSED if invocation.confirmed and not invocation.piped else UNKNOWN
    if action.outcome == FAILED and index == len(line) - 1 and not invocation.piped:
        return RUN_FAILED
    return UNKNOWN


def significant(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The words that say how a check runs: the command minus what it was aimed at (a file,
    a directory, a test id ``tests.test_cli``), the tests it was filtered to (``-k x``,
    ``-run X``) and reporting flags (``-v``) -- a reporting-shaped flag stays when a kept
    word follows it, its value (``discover -s tests``: there ``-s`` names where to look)."""
    kept: list[str] = []
    skip = False
    for index, word in enumerate(argv):
        if skip:
            skip = False
            continue
        if takes_filter(word):
            skip = "=" not in word
            continue
        if index and (is_target(word) or _DOTTED.fullmatch(word)):
            continue
        kept.append(word)
    return tuple(word for position, word in enumerate(kept)
                 if not reporting_flag(word) or _value_follows(kept, position))


def _value_follows(words: list[str], position: int) -> bool:
    return position + 1 < len(words) and not words[position + 1].startswith("-") \
        and "=" not in words[position]


def settings_of(command: str, invocation: Invocation) -> tuple[str, ...]:
    """The environment settings typed right before the invocation's program in the line
    (``PYTHONPATH=src python3 -m …``): the words leave them out."""
    program = invocation.argv[0]
    words = command.split()
    for index, word in enumerate(words):
        if word != program:
            continue
        settings: list[str] = []
        for before in reversed(words[:index]):
            if not _SETTING.match(before):
                break
            settings.insert(0, before)
        return tuple(settings)
    return ()


def check_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """``tooling``'s facts, with each check the record proves needs more than its plain form
    told in the form that worked (its plain form, seen to fail, left out)."""
    found = working_forms(view)
    told: set[tuple[str, ...]] = set()
    for fact in tooling_candidates(view):
        key = check_of(fact["predicate"], fact["object"]) if fact["rule"] == "tooling" else None
        if key is None or key not in found:
            yield fact
            continue
        if key not in told:
            told.add(key)
            yield _working_fact(view, found[key], fact)


def _working_fact(view: SessionView, found: Found, plain: dict[str, Any]) -> dict[str, Any]:
    evidence = [transcript_evidence(found.last.line, found.last.command or ""),
                transcript_evidence(found.failed.line, found.failed.command or "")]
    return candidate("tooling", view.project or "", plain["predicate"], found.form,
                     evidence=list(dict.fromkeys(evidence)), object_kind="entity",
                     subject_type="project", object_type="tool",
                     at=found.last.call.timestamp)
