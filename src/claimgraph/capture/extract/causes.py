"""failure-mode lessons from a cause the agent named, kept only when the record proves it.

Many lessons are stated only in the agent's prose: "the test failed because both specs reuse
the same week numbers", "the root cause is a flag the installed tool does not have". An
agent's explanation is its hypothesis, and agents state hypotheses that later turn out wrong,
so the sentence alone is never stored. It is kept when the session's record proves it:

1. a check failed before it (a command ``lessons`` would follow -- its same-command key --
   whose run failed, and did not pass again before the sentence; in a chain of checks
   joined by ``&&``, the one its output shows stopped the line, ``lessons.check_runs``),
   and the failed command or its output spells a name the sentence names (else the cause
   explains something else);
2. after it, the session changed what the cause names: an edit whose file, removed text or
   added text holds a name the sentence spells (a code span, a path, an identifier, a flag);
3. the same check passed after the last such change, and never failed again after the first
   one (a failure after a change refutes the cause it acted on).

Never stored: a sentence that is no settled diagnosis (``logic.diagnosis``: a cause word, a
named problem or a thing's limit stated outright; hedged, questioning, conditional, in the
first or second person, or a list's lead-in, it is not); one the person answers
with "still fails" or a failing log pasted later (the user's words outrank the agent's); a
cause whose check never passed in the session. Per failure, only the last proved sentence
before the first change is kept (the agent's final understanding, not its first guess).

The fact is the agent's sentence, emphasis removed, cited with the failure, the change and
the passing run.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.corroborate import named
from claimgraph.capture.extract.lessons import check_runs, fixable, run_verdict
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import command_text
from claimgraph.capture.extract.writes import file_ops
from claimgraph.logic.diagnosis import is_diagnosis

LESSON = "core/failure-mode"
MAX_CHARS = 300
#: A name this short ("test", "app") is in every edit: it proves nothing.
_MIN_NAME = 5
#: The person saying it is not over, or pasting a failure again.
_STILL_FAILS = lazy_regex(
    r"\b(?:still\s+(?:fail\w*|broken|(?:not|n't)\b|get(?:ting)?|see(?:ing)?|errors?|"
    r"crash\w*|the\s+same)|same\s+(?:error|problem|issue|failure)|(?:not|isn'?t|wasn'?t)\s+"
    r"fixed|does(?:n'?t| not)\s+work|didn'?t\s+(?:work|help|fix)|"
    r"Traceback \(most recent call last\)|[A-Z]\w*(?:Error|Exception):)", re.IGNORECASE)


@dataclass
class _Cause:
    """A cause sentence, the failure it explains and what followed it."""

    sentence: str
    line: int
    at: int | None
    key: tuple[str, ...]
    failure: Event
    names: set[str]
    changes: list[Event] = field(default_factory=list)
    passed: Event | None = None
    refuted: bool = False


def cause_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    proved: dict[int, _Cause] = {}  # per failure (its call's line): the last proved cause
    for cause in _causes(view):
        if cause.passed is not None and cause.changes and not cause.refuted:
            proved[cause.failure.line] = cause
    for cause in proved.values():
        yield _lesson(view, cause)


def _causes(view: SessionView) -> list[_Cause]:
    """Every cause sentence after a failing check, followed to the session's end."""
    failing: dict[tuple[str, ...], Event] = {}
    causes = _Followed()
    order = 0
    for event in view.transcript.events:
        if event.derived or event.is_sidechain or event.subagent_id:
            continue
        if event.is_human_prompt:
            if causes.every and _STILL_FAILS.search(event.text or ""):  # once a message
                causes.refute(list(causes.open.values()))
        elif event.kind == "assistant" and failing:
            causes.add(_stated(view, event, failing))
        elif event.kind == "tool_call":
            _follow(view, order, event, failing, causes)
            order += 1
    return causes.every


class _Followed:
    """The causes stated so far, with the two views ``_follow`` asks of them at each call:
    the ones not refuted, and the ones of a check (its key). Each call walked every cause
    of the session for both, which grew with calls x causes (issue 29)."""

    def __init__(self) -> None:
        self.every: list[_Cause] = []
        self.open: dict[int, _Cause] = {}  # by id(), in the order stated
        self.by_key: dict[tuple[str, ...], list[_Cause]] = {}

    def add(self, causes: Iterable[_Cause]) -> None:
        for cause in causes:
            self.every.append(cause)
            self.open[id(cause)] = cause
            self.by_key.setdefault(cause.key, []).append(cause)

    def refute(self, causes: Iterable[_Cause]) -> None:
        """A refuted cause stays refuted: it leaves the open ones for good."""
        for cause in causes:
            cause.refuted = True
            self.open.pop(id(cause), None)

    def of_check(self, key: tuple[str, ...]) -> list[_Cause]:
        return self.by_key.get(key, [])


def _stated(view: SessionView, event: Event,
            failing: dict[tuple[str, ...], Event]) -> Iterator[_Cause]:
    """The cause sentences of an agent's message, each tied to the latest check still
    failing whose command or output spells one of the names the sentence does (a cause
    that names nothing the failure showed explains some other thing)."""
    latest: list[tuple[tuple[str, ...], Event]] | None = None  # sorted once a message
    for sentence in sentences(event.text or ""):
        plain = sentence.replace("**", "").strip()
        if len(plain) > MAX_CHARS or not is_diagnosis(sentence):
            continue
        names = {name for name in named(plain) if len(name) >= _MIN_NAME}
        if not names:
            continue
        if latest is None:
            latest = sorted(failing.items(), key=lambda item: -item[1].line)
        for key, failure in latest:
            if _shows(view, failure, names):
                yield _Cause(plain, event.line, event.timestamp, key, failure, names)
                break


def _shows(view: SessionView, failure: Event, names: set[str]) -> bool:
    """Does the failed call's command or output spell one of the names?"""
    result = view.results.get(failure.call_id or "")
    return spelled(command_text(failure) or "", result.text if result else "", names)


def spelled(command: str, output: str, names: set[str]) -> bool:
    """Does ``command`` and ``output``, one line after the other, hold one of the names? The
    two are searched apart, not joined (a copy of the output for each sentence and check):
    only a name holding the line break between them is found in the join alone."""
    return any(name in command or name in output
               or ("\n" in name and name in f"{command}\n{output}") for name in names)


def _follow(view: SessionView, order: int, call: Event,
            failing: dict[tuple[str, ...], Event], causes: _Followed) -> None:
    """One tool call: a change touching a cause's names, a run of a cause's check."""
    verdict = run_verdict(view, call)
    if verdict != FAILED:
        # a refuted cause stays refuted and is never a lesson: what touches it changes nothing
        for op in file_ops(view, call) if causes.open else ():
            if op.kind == "delete":
                continue
            change = _Change(view, op)
            for cause in causes.open.values():
                if change.touches(cause.names):
                    cause.passed = None  # changed again after a pass: needs a new one
                    cause.changes.append(call)
    for run, outcome in check_runs(view, order, call):
        if outcome == FAILED and fixable(view, call, run):
            failing[run.key] = call
            # the same check failed after the change
            causes.refute([cause for cause in causes.of_check(run.key) if cause.changes])
        elif outcome == OK:
            failing.pop(run.key, None)
            for cause in causes.of_check(run.key):
                if cause.changes and cause.passed is None:
                    cause.passed = call


class _Change:
    """One file change as ``_touches`` reads it, its path cited and its texts read once: a
    packed write's content is decompressed on each read, and a change is held against every
    open cause."""

    def __init__(self, view: SessionView, op: Any) -> None:
        self.cited = (view.relative(op.path) or op.path).lower()
        self.base = posixpath.basename(self.cited)
        self._op = op
        self._texts: list[str] | None = None

    def texts(self) -> list[str]:
        """What the change took out or put in, read when a name is first looked for there."""
        if self._texts is None:
            op = self._op
            found = [op.content] if op.kind != "edit" else [
                part for edit in op.edits for part in edit[:2]]
            self._texts = [text for text in found if text]
        return self._texts

    def touches(self, names: set[str]) -> bool:
        """Does the change hold one of the names: in its path, or in the text it took out or
        put in?"""
        for name in names:
            lowered = name.lower()
            if lowered == self.base or ("/" in lowered
                                        and self.cited.endswith(lowered.lstrip("./"))):
                return True
            if any(name in text for text in self.texts()):
                return True
        return False


def _lesson(view: SessionView, cause: _Cause) -> dict[str, Any]:
    assert cause.passed is not None
    evidence = [transcript_evidence(cause.line, cause.sentence),
                transcript_evidence(cause.failure.line, command_text(cause.failure) or ""),
                transcript_evidence(cause.passed.line, command_text(cause.passed) or "")]
    return candidate("causes", view.project or "", LESSON, cause.sentence.rstrip("."),
                     evidence=evidence, object_kind="literal", subject_type="project",
                     at=cause.passed.timestamp)
