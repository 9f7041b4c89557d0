"""failure-mode lessons from failures the user reported: a failure log pasted into the chat,
the session's fix, and proof that the fix held.

``lessons`` reads only commands the session ran. When the person runs the program, a test
suite or a CI job themselves and pastes what it printed (a traceback, a compiler error, a CI
step's log), the failure is in their message -- as tool output, never as their own words.
The lesson is the same shape as a local one: the failure, what changed, proof it worked. Here:

- the report: a user message holding a failure log, read without the person's own lines that
  lead into it ("I got this error when running the build:", ``prose.split_paste``: their
  words are not the program's, and the most telling error line is looked for in the log
  only) -- at least one line that only a program
  prints (``ValueError: …``, ``Traceback (most recent call last):``, ``file.swift:12: Fatal
  error: …``, ``npm ERR!``, ``##[error]``, a runner's ``FAILURES`` banner, a line a severity
  opens in any case -- ``ERROR: …``, ``Fatal: …``, ``[error] …``, ``12:00:01 ERROR …``), and a
  named error
  among its lines (a bare "it failed" or "3 failed" teaches nothing);
- the fix: files the session edited after the report (not only tests, not only files it
  created in this session: that is its own new work);
- the proof, one of:
  - a later report of the same check that no longer shows the error (it got past it: the run
    failed further on, on something else), or
  - the person's next message after the fix says it works, or moves on to other work without
    a word of failure while a check the session ran after the last edit passed, or while the
    log itself points at a file the fix changed (a traceback's ``File "…/cart.py", line 12``:
    the failure was in the code that changed).

Refuted: a later report still showing the same error (the fix did not hold; the window starts
again from that report, so only the edits after it are the fix), or the next message
complaining ("still crashes", "same error"). A report nothing proved fixed -- the session
ended, or the person said nothing more -- is not stored: it is what the agent hoped.

A log the person's run wrote counts as their report too, when the session read it before
doing anything else in the turn (``_log_report``): "it crashed, check the crash log" -- the agent
reads ``.crash.log`` and the traceback is there. It is a report only when it is a log file (a
``.log`` name), read whole or in part by the read tool or ``cat``/``tail``/``head``, after a
message of the person's and before the session ran, changed or wrote anything since, and
when no command of the session's named the log's file before (else the log may be of the
session's own run; a ``curl`` to a server counts as a run). A log keeps
every run's failures: only its latest failure (from its last ``Traceback`` line on, else from
its last line that opens a failure) is the report. The same proof and
refutations follow as for a pasted log; a later read of the log whose latest failure is the
same error refutes the fix as a pasted one would.

The text is the failure and the change ("`opk-gui` failed: AttributeError: …; fixed by editing
opk/ui/form.py", "`app/.crash.log` showed a failure: KeyError: 'id'; fixed by editing
app/tui.py"), taken from the record, never from the agent's explanation of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.code import is_test_file
from claimgraph.capture.extract.commands import kind_of as command_kind
from claimgraph.capture.extract.gates import added_lines, describe_edits
from claimgraph.capture.extract.held import acted_between, changed_outside, user_changed
from claimgraph.capture.extract.lessons import (
    LOOKING, run_verdict, shown_command, telling_line)
from claimgraph.capture.extract.prose import split_paste
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations, positional
from claimgraph.capture.extract.tools import READ, SHELL, kind_of as tool_kind
from claimgraph.capture.extract.writes import file_ops

#: A log line's severity, by its structure: a severity word opening the line (after a
#: timestamp, if any) in any case and followed by a colon or a pipe (``ERROR: …``,
#: ``Fatal: …``, ``error[E0308]: …``, ``2024-05-01 10:00:02 | CRITICAL | …``), a bracketed level
#: (``[ERROR] …``, ``[fatal] …``), or an upper-case word after a timestamp (``12:00:01 ERROR
#: db gone``). Prose that merely names an error ("Error handling is slow", "the error: it
#: crashed") has none of these shapes.
_SEVERITY = re.compile(
    r"^\s*(?:\[?(?:\d{4}-\d\d-\d\d[T ])?\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"
    r"\s*(?:\|\s*)?(?P<bare>(?:ERROR|FATAL|CRITICAL|SEVERE|PANIC)\s+\S)?)?"
    r"(?(bare)|(?i:\[\s*(?:error|fatal|critical|severe|panic|err|crit)\s*\]\s*\S|"
    r"(?:error|fatal|critical|severe|panic)(?:\[[\w-]+\])?\s*[:|]\s*\S))")
#: A severity line that names no error, only that something ended badly.
_UNTELLING = re.compile(r"\b(?:exit (?:code|status)|non-zero|exited with)\b", re.IGNORECASE)
#: Lines only a program prints: their presence makes a message a log, not prose.
_LOG_LINE = lazy_regex(
    r"^\s*(?:Traceback \(most recent call last\):|File \"[^\"]+\", line \d+|"
    r"(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt):\s*\S|"
    r"[\w./\\-]+\.\w{1,6}:\d+(?::\d+)?:\s*(?:fatal |Fatal )?(?:error|Error)\b|"
    r"(?:Fatal error|FATAL|panic|thread '[^']+' panicked)\b.*|"
    r"npm ERR!|##\[error\]|error(?:\[E\d+\])?:\s+\S|E\s{2,}\S|"
    r"[=_]{5,}\s*(?:FAILURES|ERRORS|ERROR|short test summary)|"
    r"at [\w.$<>]+\(.*:\d+(?::\d+)?\)|"
    r"Error: Process completed with exit code \d+)")
#: A compiler's or runtime's located error ("src/a.ts:3:5: error TS2304: …"): named by its
#: place and code even when its words are plain.
_COMPILER = lazy_regex(r"^[\w./\\-]+\.\w{1,6}:\d+(?::\d+)?:\s*(?:fatal |Fatal )?(?:error|Error)\b")
#: A place in a log: a traceback's ``File "path", line N`` or a compiler's ``path:line``.
_LOCATION = lazy_regex(r"File \"([^\"\n]+\.\w{1,6})\", line \d+|([\w./\\-]+\.\w{1,6}):\d+")
#: A command the log says it came from: a CI step's "Run …" or a shell prompt ("…$ cmd",
#: "…> cmd").
_RAN = lazy_regex(r"^\s*(?:Run\s+(?P<step>\S.{2,120})|"
                  r"(?:\([\w.-]+\)\s*)?(?:[\w.@~/:-]+[$>#]|\$)\s*"
                  r"(?P<prompt>[\w./-]+(?: \S+){0,8}))\s*$")
#: The person saying the fix held.
_WORKS = lazy_regex(
    r"\b(?:(?:it|that|this|now it|everything)\s+(?:works|worked|runs|passes|passed)|"
    r"(?:it'?s|it is|that'?s|looks like it'?s) (?:working|fixed)|looks (?:good|fine) now|"
    r"works now|working now|fixed it|that fixed|(?:is|are) (?:green|passing) now|"
    r"no more (?:errors?|crash(?:es)?))\b", re.IGNORECASE)
#: The person saying something is still, or newly, wrong: no proof of anything.
_COMPLAINT = lazy_regex(
    r"\b(?:still|again|same|broke|broken|crash\w*|errors?|fail\w*|exception|traceback|"
    r"doesn'?t|does not|didn'?t|did not|isn'?t|won'?t|not work\w*|nothing|wrong|issues?|"
    r"problems?|bug|exits?|exited|hangs?|stuck|missing|never)\b", re.IGNORECASE)
#: A module an error names: ``module 'a.b' has no attribute``, ``cannot import name 'x' from
#: 'a.b'``, ``No module named 'a.b'``.
_MODULE = lazy_regex(r"(?:\bmodule|\bfrom|No module named)\s+'([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)'")
_MIN_LOG_LINES = 1
#: How much of the person's next message is read for a verdict on the fix: its opening
#: (a long new request may mention errors it wants handled, which says nothing of the fix).
_OPENING = 160
#: The most telling error shape a report's error line may have (0: a named error).
_NAMED = 0
#: A log file's name: ``app.log``, ``.crash.log``, ``server.log.1``.
_LOG_FILE = lazy_regex(r"\.log(?:\.\d+)?$")
#: The programs that show a file's text to the session.
_SHOWS = frozenset({"cat", "tail", "head", "less", "more"})
#: A read tool's line-number margin (``    12→text``, ``    12\ttext``).
_MARGIN = lazy_regex(r"^\s*\d+(?:→|\t)", re.MULTILINE)
#: The line a Python traceback ends with: the exception's (dotted) class, a colon, its message.
_EXCEPTION_LINE = lazy_regex(r"^[A-Za-z_][\w.]*: \S")
#: Where a log's latest Python failure starts.
_TRACEBACK = "Traceback (most recent call last):"
#: A stack frame under an error (``at pkg.Cls.run(Cls.java:9)``, ``File "a.py", line 3``).
_FRAME = lazy_regex(r"^\s*(?:at\s|File \")")
#: Programs that only show or search, and run nothing of the project's that could write a
#: log (``lessons.LOOKING`` less those that fetch, start, stop, run others or write files:
#: ``curl`` makes a server log anew, ``open`` starts an app, ``xargs`` runs anything).
_ONLY_READ = LOOKING - frozenset(
    "curl wget kill pkill open xargs tee mkdir touch rm cp mv chmod gh bd".split())


@dataclass
class _Report:
    """A failure the user pasted and what the session did since."""

    event: Event
    error: str
    check: str | None
    edits: list[tuple[Event, str, list[str]]] = field(default_factory=list)
    #: Files the session wrote from scratch after the report.
    created: set[str] = field(default_factory=set)
    #: A check the session ran that passed after the last edit.
    passed_since_edit: bool = False
    #: A change outside the project since the report (``held``): not the project's fix.
    outside: bool = False
    #: The log file the report was read from (``_log_report``), as cited; None: pasted.
    log: str | None = None


def reported_lesson_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """Lessons from failures the user pasted (module docstring) that the end of the session
    agrees with: the same error showing again later -- pasted by the person, or in the
    output of a run that failed -- says the fix did not hold, whatever the person said
    right after it."""
    proved = list(_proved(view))
    if not proved:
        return
    later = [(event.line, event) for event in view.transcript.events
             if event.is_human_prompt and pasted_failure(event.text) is not None]
    later += [(call.line, view.results[call.call_id]) for call in view.calls()
              if call.call_id in view.results and run_verdict(view, call) == FAILED]
    shown_texts = [(line, shown.text) for line, shown in later]
    shown_texts += [(call.line, _latest(_log_text(view, call) or "")) for call in view.calls()
                    if _log_path(view, call) is not None]
    for lesson, error, line in proved:
        again = _flat(error.rstrip("…"))
        if not any(seen > line and again in _flat(text) for seen, text in shown_texts):
            yield lesson


def _proved(view: SessionView) -> Iterator[tuple[dict[str, Any], str, int]]:
    """(lesson, its error, the line of its proof) for each report the next message proved
    fixed."""
    if not view.project:
        return
    seen: set[str] = set()
    open_report: _Report | None = None
    quiet = False  # nothing but reading since the person's last message
    for event in view.transcript.events:
        if event.is_human_prompt:
            quiet = True
            report = pasted_failure(event.text)
            if open_report is not None and open_report.edits:
                verdict = _judge(open_report, report, event.text)
                if verdict == "proved":
                    lesson = _lesson(view, open_report, event)
                    if lesson:
                        yield lesson, open_report.error, event.line
                    open_report = None
                elif verdict == "refuted":
                    open_report = None
            elif open_report is not None and report is None:
                open_report = None  # the person went on without the session changing a thing
            if report is not None:
                open_report = _Report(event, report[0], report[1])
            continue
        if event.kind != "tool_call" or event.derived:
            continue
        if quiet and open_report is None:
            logged = _log_report(view, event)
            if logged is not None:
                open_report = logged
        quiet = quiet and _only_reads(event)
        if view.outcome(event) != OK:
            continue
        if open_report is not None and changed_outside(view, event):
            open_report.outside = True
        ops = file_ops(view, event)
        for op in ops:
            cited = view.relative(op.path)
            if op.kind == "delete" or not cited:
                continue
            first = cited not in seen
            seen.add(cited)
            if open_report is not None:
                if first and op.kind == "write":
                    open_report.created.add(cited)  # a new file written for the fix
                open_report.edits.append((event, cited, added_lines(op)))
                open_report.passed_since_edit = False
        if open_report is not None and open_report.edits and not ops and _is_check(event) \
                and run_verdict(view, event) == OK:  # a pipe's exit 0 is its filter's
            open_report.passed_since_edit = True


def _judge(report: _Report, later: tuple[str, str | None] | None, text: str) -> str:
    """proved / refuted / open, for the person's next message after the session's fix."""
    if later is not None:
        error, check = later
        if _flat(report.error.rstrip("…")) in _flat(text):
            return "refuted"  # the same error again: the fix did not hold
        same_check = report.check is not None and check == report.check
        return "proved" if same_check else "refuted"
    opening = text[:_OPENING]
    rest = _WORKS.sub(" ", opening)  # "no more errors" says it works, not that it fails
    if _COMPLAINT.search(rest) or re.search(r"\b(?:not|still)\b|n't\b", rest, re.IGNORECASE):
        return "refuted"  # "it works locally but CI still fails"
    if rest != opening:
        return "proved"
    if _COMPLAINT.search(opening):
        return "refuted"
    return "proved" if report.passed_since_edit or _points_at_fix(report) else "refuted"


def _points_at_fix(report: _Report) -> bool:
    """The pasted log's own locations (``File "…/shop/cart.py", line 12``, ``src/a.ts:3:5``)
    name a file the fix edited: the failure was in the code that changed."""
    return bool(_pointed(report))


def _pointed(report: _Report) -> set[str]:
    """The files the fix edited that the pasted log's locations name."""
    split = split_paste(report.event.text) if report.log is None else None
    log = split[1] if split is not None else report.event.text
    named = {(match[1] or match[2]).rsplit("/", 1)[-1] for match in _LOCATION.finditer(log)}
    return {cited for _, cited, _ in report.edits
            if not is_test_file(cited) and cited.rsplit("/", 1)[-1] in named}


def pasted_failure(text: str) -> tuple[str, str | None] | None:
    """(the most telling error line, the command it came from or None) when ``text`` holds a
    failure log, else None."""
    if not text:
        return None
    split = split_paste(text)
    if split is not None:
        text = split[1]  # the person's own lead-in ("I got this error:") is no program output
    lines = text.splitlines()
    if sum(1 for line in lines if _logged(line)) < _MIN_LOG_LINES:
        return None
    found = telling_line(text)
    if found is not None and (found[1] <= _NAMED or _COMPILER.match(found[0])):
        error = found[0]
    else:
        error = _severe(lines) or ""
    if not error:
        return None
    if not any(_logged(line) and _flat(error.rstrip("…")) in _flat(line)
               for line in lines):
        return None  # the error line is the person's sentence, not the program's output
    return error, _ran(lines)


def _severe(lines: list[str]) -> str | None:
    """The first line a severity opens that says more than that a run ended badly ("Error:
    Process completed with exit code 1" names no error), quoted as ``telling_line`` quotes."""
    for line in lines:
        if _SEVERITY.match(line) and not _UNTELLING.search(line):
            return short_quote(line.strip(), 100).rstrip(".;: ")
    return None


def _logged(line: str) -> bool:
    """A line only a program prints (``_LOG_LINE``), or one a severity opens (``_SEVERITY``)."""
    return bool(_LOG_LINE.match(line) or _SEVERITY.match(line))


def _ran(lines: list[str]) -> str | None:
    """The command a pasted log names as the one that failed, normalized for comparison."""
    for line in lines[:40]:
        match = _RAN.match(line)
        if not match:
            continue
        command = (match["step"] or match["prompt"] or "").strip()
        words = command.split()
        if words and command_kind(tuple(words)) is not None or (
                match["prompt"] and len(words) >= 2):
            return " ".join(words)
    return None


def _is_check(call: Event) -> bool:
    """A test, lint, build or type check the session ran (it passed: the caller asks)."""
    command = command_text(call)
    found = invocations(command, call_cwd(call)) if command else []
    return any(command_kind(invocation.argv) is not None for invocation in found)


def _lesson(view: SessionView, report: _Report, proof: Event) -> dict[str, Any] | None:
    if report.outside or user_changed(proof.text[:_OPENING]) \
            or acted_between(view, report.event.line, proof.line):
        return None  # changed outside the project or by the person: not the session's fix
    edits = [(call, cited, added) for call, cited, added in report.edits
             if not is_test_file(cited)]
    if all(cited in report.created for _, cited, _ in edits):
        return None  # only tests changed, or only new files: nothing that was there broke
    if _worked_around(view, report.error, [cited for _, cited, _ in edits]):
        return None
    pointed = _pointed(report)
    if pointed:  # other files edited meanwhile served other requests
        edits = [edit for edit in edits if edit[1] in pointed]
    if report.log is not None:
        shown = f"`{report.log}` showed a failure"
    elif report.check:
        shown = f"`{shown_command(tuple(report.check.split()), view.root)}` failed"
    else:
        shown = "A run the user reported failed"
    text = f"{shown}: {report.error}; fixed by {describe_edits(edits)}"
    evidence = [transcript_evidence(report.event.line, report.error),
                transcript_evidence(edits[-1][0].line, edits[-1][1]),
                transcript_evidence(proof.line, short_quote(proof.text, 100))]
    return candidate("lessons", view.project or "", "core/failure-mode", text,
                     evidence=evidence, object_kind="literal", subject_type="project",
                     at=proof.timestamp)


def _worked_around(view: SessionView, error: str, edited: list[str]) -> bool:
    """The error names a module of the project (``module 'app.tools.scaffold' has no attribute
    'init'``) and the fix edited none of its files: it went around the failure elsewhere, so
    what was wrong with the module itself is unknown (a file never committed, a stale build)."""
    for name in _MODULE.findall(error):
        path = name.replace(".", "/")
        if any(cited.startswith(path) for cited in edited):
            continue
        if any(path + ".py" in (command_text(call) or str(call.tool_input or ""))
               for call in view.calls()):
            return True
    return False


def _log_report(view: SessionView, call: Event) -> _Report | None:
    """A report read from a log file (module docstring): its latest failure, cited at the
    read's result."""
    path = _log_path(view, call)
    result = view.results.get(call.call_id or "")
    if path is None or result is None or _session_logs_to(view, call, path):
        return None
    latest = _latest(_log_text(view, call) or "")
    found = pasted_failure(latest)
    error = found[0] if found is not None else _raised(latest)
    if error is None:
        return None
    return _Report(replace(result, text=latest), error, None, log=path)


def _session_logs_to(view: SessionView, read: Event, path: str) -> bool:
    """Did a command of the session's own, before the read, name the log's file (``python -m
    app > run.log 2>&1 &``, ``--log-file run.log``)? Then the log may be of the session's run,
    its failure the session's work in progress, not the person's report."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for call in view.calls():
        if call.line >= read.line:
            break
        command = command_text(call) if tool_kind(call.tool_name) == SHELL else None
        if command and name in command and not _only_reads(call):
            return True
    return False


def _log_path(view: SessionView, call: Event) -> str | None:
    """The log file a call showed the session (module docstring), as cited, else None."""
    kind = tool_kind(call.tool_name)
    target: str | None = None
    if kind == READ:
        given = dict(call.tool_input or {})
        path = given.get("file_path") or given.get("absolute_path") or given.get("path")
        target = view.resolve(path, call.cwd) if isinstance(path, str) else None
    elif kind == SHELL:
        command = command_text(call)
        runs = [run for run in (invocations(command, call_cwd(call)) if command else [])
                if run.argv[0] != "cd"]
        if len(runs) == 1 and runs[0].argv[0] in _SHOWS:
            files = [word for word in positional(runs[0].argv)[1:] if not word.isdigit()]
            target = view.resolve(files[0], runs[0].cwd) if len(files) == 1 else None
    if target is None or not _LOG_FILE.search(target):
        return None
    return view.relative(target) or target


def _log_text(view: SessionView, call: Event) -> str | None:
    """What the read showed of the log, without a read tool's line-number margin."""
    result = view.results.get(call.call_id or "")
    return _MARGIN.sub("", result.text) if result is not None and result.text else None


def _latest(text: str) -> str:
    """A log's latest failure: from its last ``Traceback`` line on; in a log with none (a
    server's, another language's), from the last line that opens a failure (a severity, an
    error's name; not a stack frame under it, nor a runner's closing "exit code 1" that
    names no error). Read whole, a log's first failure -- last week's -- would be the report
    of today's fix."""
    at = text.rfind(_TRACEBACK)
    if at >= 0:
        return text[at:]
    lines = text.splitlines(keepends=True)
    heads = [index for index, line in enumerate(lines)
             if (_SEVERITY.match(line) or _LOG_LINE.match(line))
             and not (_FRAME.match(line) or _UNTELLING.search(line))]
    return "".join(lines[heads[-1]:]) if heads else text


def _raised(latest: str) -> str | None:
    """The exception a log's latest traceback ends with, whatever its class is called
    (``pkg.mod.StaleHandle: …``): the first line after the frames that opens flush left with a
    dotted name and a colon."""
    if not latest.startswith(_TRACEBACK):
        return None
    for line in latest.splitlines()[1:]:
        if _EXCEPTION_LINE.match(line):
            return short_quote(line.strip(), 100).rstrip(".;: ")
    return None


def _only_reads(call: Event) -> bool:
    """A call that only looks (the read tool, or shell programs that only show or search): the
    session has run nothing that could have written a log."""
    kind = tool_kind(call.tool_name)
    if kind == READ:
        return True
    if kind != SHELL:
        return False
    command = command_text(call)
    runs = invocations(command, call_cwd(call)) if command else []
    return bool(runs) and all(run.argv[0] in _ONLY_READ or run.argv[0] == "cd" for run in runs)


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()
