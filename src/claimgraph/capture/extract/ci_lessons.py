"""failure-mode lessons from a CI loop: a CI step failed, the session changed files and
committed, and a later CI run got past that failure.

An agent fixing CI cannot run the failing step itself; it reads the failed log
(``gh run view <id> --log-failed``), edits, commits, and waits for the next run. The lesson is
the same shape as a local one (``lessons``): a failure seen in a tool's output, the change, and
proof that the change worked -- only the proof is in a later run's output:

- a later run's failed log (another run id) where the same job fails further on, or in the
  same step with another error (a job missing from that log may have been skipped), or
- a later run's step list (``gh run watch`` / ``gh run view``) showing the step, or its whole
  job, with a tick.

Each line of a failed log is ``<job>\\t<step>\\t<timestamp> <text>``; the failing step is the
one whose ``##[error]`` line ends it, and its most telling line is the error. The fix is named
by the commit that followed (its subject, without a ``fix:`` prefix) and the files edited
before it. A fix nobody proved -- the next run failed the same step with the same error, or no
later run was looked at -- is not a lesson: it is what the agent hoped ("This should be the
final fix").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.ci_runs import (
    RunRow, checked_runs, listed_runs, runs_for, viewed_run)
from claimgraph.capture.extract.held import acted_between, remote_change
from claimgraph.capture.extract.lessons import first_error_text
from claimgraph.capture.extract.session import (
    OK, SessionView, candidate, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import command_text, invocations, positional
from claimgraph.capture.extract.writes import file_ops

_LOG_LINE = lazy_regex(r"^(?P<job>[^\t\n]{1,120})\t(?P<step>[^\t\n]{1,120})\t"
                       r"(?:\d{4}-\d\d-\d\dT[\d:.]+Z\s?)?(?P<text>.*)$")
_STEP_FAILED = lazy_regex(r"##\[error\]Process completed with exit code \d+")
_TICKED = lazy_regex(r"^\s*✓\s+(?P<step>.+?)\s*$", re.MULTILINE)
#: A job's line in a run's step list: "Build in 4m5s (ID 59966857554)".
_JOB_TIME = lazy_regex(r"\s+in\s+\S+\s+\(ID \d+\)$")
#: ``-m "subject"`` or ``-m "$(cat <<'EOF'\nsubject\n…"``.
_MESSAGE = lazy_regex(r"""-m\s+(?:"\$\(cat\s+<<-?\s*'?"?\w+'?"?\s*\n\s*(?P<heredoc>[^\n]+)|"""
                      r"""["'](?P<quoted>[^"'\n]+))""")
_CONVENTIONAL = lazy_regex(r"^\w+(?:\([^)]*\))?!?:\s*")
_LONGEST = 240
_NOISE = lazy_regex(r"^(?:##\[|Full execution log|Run |shell:|env:|\s*$)")


@dataclass(frozen=True)
class StepFailure:
    """One failed CI step as a failed log shows it."""

    job: str
    step: str
    error: str


@dataclass
class _Open:
    failure: StepFailure
    run_id: str | None
    seen: Event
    edits: list[str] = field(default_factory=list)
    #: ``edits`` as a set: a fix never committed takes every later edit, and asking the list
    #: grew with edits x files (issue 29).
    edited: set[str] = field(default_factory=set)
    commit: str | None = None
    #: The commit's subject as typed, and the branches it may have gone to (the failed run's,
    #: the session's at the commit): what ties a later run to it (``ci_runs``).
    typed: str | None = None
    branches: set[str] = field(default_factory=set)
    #: Where the calls after the failed log begin (``_Done``): a remote setting, a registry
    #: or a container changed since (``held``) is read by a CI run too, so the commit may not
    #: be what fixed it.
    since: int = 0

    def note_edit(self, cited: str) -> None:
        """A file edited while the fix waits for its commit, each once, in the order edited."""
        if cited not in self.edited:
            self.edits.append(cited)
            self.edited.add(cited)


def failed_steps(log: str) -> list[StepFailure]:
    """The steps a ``--log-failed`` output shows failing, each with its most telling line."""
    steps: dict[tuple[str, str], list[str]] = {}
    failed: list[tuple[str, str]] = []
    for line in log.splitlines():
        match = _LOG_LINE.match(line)
        if not match:
            continue
        key = (match["job"].strip(), match["step"].strip())
        text = match["text"].strip()
        if _STEP_FAILED.search(text):
            if key not in failed:
                failed.append(key)
            continue
        if not _NOISE.match(text):
            steps.setdefault(key, []).append(text[:_LONGEST])  # a command line can be long
    found = []
    for key in failed:
        error = first_error_text("\n".join(steps.get(key, [])))
        if error:
            found.append(StepFailure(key[0], key[1], error))
    return found


def commit_subject(command: str) -> str | None:
    """A commit's subject line from its command, without a conventional prefix."""
    match = _MESSAGE.search(command)
    subject = (match["heredoc"] or match["quoted"]) if match else None
    subject = _CONVENTIONAL.sub("", subject.strip()) if subject else ""
    return subject if len(re.findall(r"[A-Za-z]{2,}", subject)) >= 3 else None


def typed_subject(command: str) -> str | None:
    """A commit's subject line from its command, as typed (a run's title is that line)."""
    match = _MESSAGE.search(command)
    subject = (match["heredoc"] or match["quoted"]) if match else None
    return subject.strip() if subject else None


def got_past(failure: StepFailure, later_log: str | None, ticked: set[str]) -> bool:
    """Whether a later run shows the step past that failure: ticked, or its failed log no
    longer shows that step failing with that error."""
    return _got_past(failure, None if later_log is None else failed_steps(later_log), ticked)


def _got_past(failure: StepFailure, later_failed: list[StepFailure] | None,
              ticked: set[str]) -> bool:
    """``got_past`` with the later log's failed steps read once (``failed_steps``): it is
    asked for every fix still waiting for proof."""
    if failure.step in ticked or failure.job in ticked:
        return True  # the step, or its whole job ("✓ build in 2m (ID 5)"), passed
    if later_failed is None:
        return False
    later = [f for f in later_failed if f.job == failure.job]
    # the job must show in the later log (failing further on, or the same step failing
    # otherwise): a job missing from it may have been skipped, which proves nothing
    return bool(later) and not any(f.step == failure.step and f.error == failure.error
                                   for f in later)


def ci_lesson_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """CI lessons the end of the session agrees with: a later run's failed log showing the
    same step fail with the same error says the fix did not hold (the first pass was luck, a
    retry, or the fix was undone)."""
    logs: list[tuple[int, list[StepFailure]]] = []
    proved = list(_proved(view, logs))
    for lesson, failure, line in proved:
        if not any(seen > line and failure in failures for seen, failures in logs):
            yield lesson


def _proved(view: SessionView, logs: list[tuple[int, list[StepFailure]]]
            ) -> Iterator[tuple[dict[str, Any], StepFailure, int]]:
    """(lesson, the failure it fixed, the line of its proof) for each failure a later run got
    past; every failed log read is added to ``logs``."""
    if not view.project:
        return
    pending: list[_Open] = []
    rows: dict[str, RunRow] = {}  # what gh printed about each run, by id (``ci_runs``)
    done = _Done(view)
    for call in view.calls():
        command = command_text(call) or ""
        result = view.results.get(call.call_id or "")
        if result is None or view.outcome(call) != OK:
            continue
        if pending:  # a call no fix waited through is in no fix's window
            done.calls.append(call)
        for op in file_ops(view, call):
            cited = view.relative(op.path)
            for item in pending:
                if cited and item.commit is None:
                    item.note_edit(cited)
        runs = [positional(run.argv) for run in invocations(command)]
        if any(words[:2] == ["git", "commit"] for words in runs):
            subject = commit_subject(command)
            for item in pending:
                if item.commit is None and item.edits and subject:
                    item.commit = subject
                    item.typed = typed_subject(command)
                    item.branches.update(filter(None, [call.git_branch]))
            continue
        _read_runs(runs, result.text, rows)
        looked = [words for words in runs if words[:3] in (["gh", "run", "view"],
                                                            ["gh", "run", "watch"])]
        if not looked:
            continue
        run_id = next((w for words in looked for w in words[3:]
                       if w.isdigit() and len(w) >= 5), None)
        log = result.text if "##[error]" in result.text else None
        failures = failed_steps(log) if log else []  # once, not once per fix waiting
        later_failed = failures if log is not None else None
        ticked = {_JOB_TIME.sub("", m["step"]) for m in _TICKED.finditer(result.text)}
        for item in list(pending):
            if item.commit is None or run_id is None or run_id == item.run_id \
                    or _older(run_id, item.run_id):
                continue  # the failed run itself, or one started before it: not the fix's
            failed_on = rows.get(item.run_id or "")
            branches = item.branches | {failed_on.branch} if failed_on and failed_on.branch \
                else item.branches
            if not runs_for(rows.get(run_id), item.typed, branches):
                continue  # a run of another commit or branch proves nothing of this fix
            if _got_past(item.failure, later_failed, ticked):
                pending.remove(item)
                if not done.outside(item.since) and not acted_between(
                        view, item.seen.line, call.line, shipping=False):
                    yield _candidate(view, item, call), item.failure, call.line
            elif log is not None and item.failure in failures:
                pending.remove(item)  # the next run failed the same way: not proved
        logs.append((call.line, failures))
        for failure in failures:
            pending.append(_Open(failure, run_id, call, since=len(done.calls)))


class _Done:
    """The calls that worked while some fix waited, in order, and whether one changed
    something outside the project (``held.remote_change``), asked only for the calls after a
    fix's failure when a later run proves it: asking it of every call while any fix waited
    tokenized each command again for the rest of the session once one CI failure stayed
    unproved (issue 29)."""

    def __init__(self, view: SessionView) -> None:
        self.view = view
        self.calls: list[Event] = []
        self._remote: dict[int, bool] = {}  # by index in ``calls``: asked at most once

    def outside(self, since: int) -> bool:
        """A call from index ``since`` to the latest changed a remote, a registry or a
        container."""
        return any(self._changed(index) for index in range(since, len(self.calls)))

    def _changed(self, index: int) -> bool:
        if index not in self._remote:
            self._remote[index] = remote_change(self.view, self.calls[index])
        return self._remote[index]


def _older(run_id: str, than: str | None) -> bool:
    """A run GitHub numbered before ``than`` (its run ids grow): it ran before the fix."""
    return bool(than) and run_id.isdigit() and than.isdigit() and int(run_id) < int(than)


def _read_runs(runs: list[list[str]], output: str, rows: dict[str, RunRow]) -> None:
    """What the line's gh commands printed about runs, added to ``rows`` by run id: a ``gh
    run list``'s rows, a ``gh run view``/``watch`` heading, a ``gh pr checks``' links."""
    verbs = {tuple(words[1:3]) for words in runs if words[:1] == ["gh"]}
    if ("run", "list") in verbs:
        rows.update(listed_runs(output))
    if ("pr", "checks") in verbs:
        rows.update(checked_runs(output))
    if ("run", "view") in verbs or ("run", "watch") in verbs:
        for run_id, row in viewed_run(output).items():
            known = rows.get(run_id)
            rows[run_id] = known if known and known.title else row


def _candidate(view: SessionView, item: _Open, proof: Event) -> dict[str, Any]:
    failure = item.failure
    files = ", ".join(item.edits[:3])
    text = (f"CI job `{failure.job}` step `{failure.step}` failed: {failure.error}; "
            f"fixed by {item.commit} (editing {files})")
    evidence = [transcript_evidence(item.seen.line, f"{failure.step}: {failure.error}"),
                transcript_evidence(proof.line, short_quote(command_text(proof) or "", 100))]
    return candidate("lessons", view.project or "", "core/failure-mode", text,
                     evidence=evidence, object_kind="literal", subject_type="project",
                     at=proof.timestamp)
