"""failure-mode lessons: a command that failed, what changed, and the same command then working.

A failure is a shell command whose tool reported an error or a non-zero exit, or -- when the
output went through ``tail``/``head``/``grep`` and the exit status is the filter's -- whose
output says it failed. "The same command" is the same program doing the same thing: a known
test/build runner whatever its arguments, else the program and the file it runs
(``node assets/build.js`` and ``node build.js`` from ``assets/`` are one). What changed between
the failure and the success is the lesson:

- files edited → "failed with E; fixed by editing F" (or "by adding `x` to F" for a small change);
- a command run in between (a formatter, an install) → "fixed by running `mix format`" (never
  a check, which only reports, nor a command that was failing itself);
- nothing but where it ran → "fails when run from the project root: E; run it from assets/";
- nothing but its arguments → "fails: E; `<the working form>` works" (not when the working
  form only selects fewer tests or reports differently: it skipped the failure);
- nothing but a variable set in front of it → "fails: E; `PYTHONPATH=. pytest -q` works"
  (only for a named error: the setting is how the project has to be run).

A step inside a line counts too when the record says it failed: in ``pip install x && pytest |
tail`` the last command's status is its filter's, so a line that failed by its status failed
at the one step before it (``_failed_step``); a later line that succeeded with all its steps
joined by ``&&`` got past the same step, and what ran before it there is the fix. A push the
remote refused by a rule of its own is ``push_refused``'s (git is otherwise never followed).
A line of checks alone (``ruff check . && mypy && pytest``) is followed check by check as far
as its status and output prove each one's outcome (``chain_outcome``, ``_chain_step``).

Not lessons: a missing program (exit 126/127: the machine, not the project), reading and
searching commands, ad-hoc scripts (``python -c``), git other than a commit a hook refused,
the same command passing with nothing changed (flaky), only test files edited (the session
fixed its own test), only files the session had already changed before the failure (it fixed
its own change: a type error in the code it was writing is not a lesson about the project),
a failed assertion fixed by edits that include tests (the session changed behaviour and its
tests on purpose),
and a check aimed at a file this session wrote from scratch (work in progress on its way to
done). No fact is read from assistant text, which is what keeps a
hypothesis the assistant stated and later refuted out of memory.

A lesson must also hold to the end of the session (``held``): not when the same command fails
again later with the same error, when something outside the project changed in between (a
cluster, a registry, the machine, a file outside the root) or the failure ran in another
checkout, nor when the person said they acted themselves before the success.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.terminal import without_escapes

from claimgraph.capture.events import Event
from claimgraph.capture.extract.by_hand import hand_installs
from claimgraph.capture.extract.chain_outcome import chain_outcomes
from claimgraph.capture.extract.code import is_test_file
from claimgraph.capture.extract.commands import kind_of as command_kind
from claimgraph.capture.extract.gates import added_lines, describe_edits
from claimgraph.capture.extract.git_state import git_run
from claimgraph.capture.extract.held import (
    acted_between, changed_outside, outside_change, remote_error)
from claimgraph.capture.extract.push_refused import push_refused_candidates
from claimgraph.capture.extract.session import (
    FAILED, OK, UNKNOWN, SessionView, candidate, exit_code, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import (
    Invocation, call_cwd, command_text, invocations, positional, unwrap)
from claimgraph.capture.extract.tooling import command_form, runner_of
from claimgraph.capture.extract.writes import file_ops

_SETUP = frozenset({"cd", "source", ".", "export", "set", "sleep"})
#: Commands that only prepare the last one (``git add -A && git commit``).
_PREPARES = (("git", "add"),)
_LOOKING = frozenset({
    "ls", "cat", "sed", "grep", "rg", "ag", "find", "fd", "head", "tail", "echo", "printf",
    "pwd", "which", "type", "wc", "tree", "file", "stat", "du", "df", "ps", "env", "awk",
    "diff", "less", "more", "nl", "jq", "test", "[", "true", "false", "curl", "wget", "kill",
    "pkill", "lsof", "mkdir", "touch", "rm", "cp", "mv", "chmod", "open", "sort", "uniq",
    "xargs", "tee", "date", "whoami", "uname", "bd", "gh"})
#: The programs that only look (other rules ask whether a turn ran anything else).
LOOKING = _LOOKING
#: Tools that edit files, called through the shell (Codex's ``apply_patch``): an edit that
#: failed and was made again is no command to run differently.
_EDITORS = frozenset({"apply_patch", "applypatch"})
_SCRIPT_FLAGS = frozenset({"-c", "-e", "--eval", "-p", "--print"})
_MISSING_PROGRAM = (126, 127)
#: What a shell or ``env`` says it could not find: ``bash: foo: command not found``,
#: ``/usr/bin/env: 'bash\\r': No such file or directory``.
_NOT_FOUND = lazy_regex(r"(?P<name>[^\s:]+|\$'[^']*'|[‘'][^’']*[’']):\s*"
                        r"(?P<what>command not found|No such file or directory)")
#: Kinds of command that only report (commands.py): never the fix of another failure.
_CHECKS = frozenset({"test", "lint"})
_FAILED_OUTPUT = lazy_regex(
    r"\b(?:FAILED|FAIL|[1-9]\d* (?:failed|failures?|errors?)|Traceback|panicked|"
    r"npm ERR!|error(?:\[\w+\])?:|ERROR\b|✘|✗)", re.MULTILINE)
_PASSED_OUTPUT = lazy_regex(r"\b(?:passed|0 failures|0 failed|ok\b|Finished|✓|succeeded|"
                            r"All \d+ tests? pass)", re.IGNORECASE)
#: How telling a line of failure output is, most telling first.
_ERROR_SHAPES = (
    # a labelled line, but not a task runner's progress ("[STARTED] Backing up …")
    lazy_regex(r"^\[(?!(?:STARTED|COMPLETED|SKIPPED|TITLE|DATA|OUTPUT|RETRY|ROLLBACK|PAUSED|"
               r"SUCCESS|DONE|INFO)\])[A-Z][A-Z0-9_ -]+\]\s*\w|\b[A-Z]\w*(?:Error|Exception)\b|"
               r"\berror(?:\[\w+\])?:|\bERROR\b|^E\s"),
    lazy_regex(r"could not|cannot|can't|not found|no such file|failed to|undefined|"
               r"no module named|not permitted|permission denied", re.IGNORECASE),
    lazy_regex(r"\b\d+ (?:failures?|failed|errors?)\b"),
    lazy_regex(r"\b(?:FAIL(?:ED)?|[Ff]ailed|[Ee]rror|panicked)\b"),
)
_MAX_ERROR_LINE = 300
_RAISED = lazy_regex(r"\b[A-Z]\w*(?:Error|Exception):\s+\S")
_SETTING = lazy_regex(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
#: A runner's section banner ("____ ERROR collecting tests/x.py ____", "=== FAILURES ==="):
#: it names the section, the error is in the lines under it, so they are read first.
_BANNER = lazy_regex(r"^[_=*-]{3,}.*[_=*-]{3,}$")
#: A test's expectation, not a fault of the project ("AssertionError", "expected 3 to equal 2").
_ASSERTION = lazy_regex(r"\bAssertionError\b|\bexpected\b.*\b(?:to|but)\b|"
                        r"\bExpected values to be\b", re.IGNORECASE)
_TELLING = 1  # the least telling error shape an edit-fixed lesson may quote
#: An error that says a module or package is not there: the environment, not the code.
_MISSING_MODULE = lazy_regex(r"no module named|cannot find module|module not found|"
                             r"modulenotfounderror|could not find a version", re.IGNORECASE)
#: ``pip3`` and ``python3.12`` are pip and python: the same command on another install.
_VERSIONED = lazy_regex(r"^(pip|python|node|ruby|perl)[\d.]+$")
#: A runner's positional words that pick what it checks (a file, a directory, a test id).
_TARGET = lazy_regex(r"/|::|\.\w{1,5}$")
#: Per program, the flags whose value is a message or an inline script, not the command.
_ELIDED = {"git": frozenset({"-m", "--message", "-F", "--file"}),
           **{name: frozenset({"-c", "-e"}) for name in (
               "python", "python3", "node", "ruby", "perl", "bash", "sh", "zsh")}}
#: An inline script this short is shown in full (``perl -pi -e 's/\r$//' a.sh``): it is the fix.
_SHORT_SCRIPT = 24
#: An interpreter reading its script from standard input (``python3 - <<EOF``).
_STDIN_SCRIPT = lazy_regex(r"^(?:python|node|ruby|perl|bash|sh|zsh)[\d.]*(?: -\w+)* -(?: |$)")
_ERROR_PREFIX = lazy_regex(r"^(?:Output:\s*)?(?:[✘✗×!>]+\s*)?(?:\[(?:ERROR|error)\]\s*)?(?:E\s+)?")
_GIT_GATE = lazy_regex(r"pre-commit|hook|validation failed|husky|lefthook", re.IGNORECASE)


@dataclass(frozen=True)
class _Run:
    order: int
    call: Event
    invocation: Invocation
    key: tuple[str, ...]


@dataclass
class _Window:
    """What happened since a failure: files edited and commands that changed something."""

    failure: _Run
    error: tuple[str, int]
    #: Files the session had written or edited before the failure (its work in progress).
    touched: frozenset[str] = frozenset()
    edits: list[tuple[Event, str, list[str]]] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    #: A change outside the project happened since (``held``): no lesson can name the fix.
    outside: bool = False
    #: The failure was a step inside a line (``_failed_step``): a later line proves it passed
    #: when it got past the same step, with the same words or more (``_passed_step``).
    step: bool = False


@dataclass(frozen=True)
class _Taught:
    """A lesson with what it takes to hold it against the rest of the session."""

    lesson: dict[str, Any]
    key: tuple[str, ...]
    error: tuple[str, int]
    proved_at: int
    #: The pair named a fix (edits or a command). A working-form lesson ("X fails with E when
    #: run from the root; run it from sub/") names none: X failing again with E confirms it.
    fixed: bool = True


def lessons_of(view: SessionView) -> list[dict[str, Any]]:
    """The session's lessons, computed once per view (other rules ask which names they name):
    a command's failure and fix, and a push the remote refused by a rule (``push_refused``)."""
    return view.remembered("lessons", lambda v: [*lesson_candidates(v),
                                                 *push_refused_candidates(v)])


def _held_lessons(view: SessionView) -> Iterator[dict[str, Any]]:
    """The lessons the end of the session agrees with: the same command failing again later
    with the same error says the success was luck or the fix was undone -- whatever the
    pair showed, the session ended without it holding, so nothing is learnt. Only for a
    lesson that names a fix: one that says how the command must be run instead (another
    folder, other arguments, a setting in front) is a claim that the failing form fails, and
    that form failing again with the same error is one more proof of it."""
    failures: list[_Run] = []
    taught = list(_lessons(view, failures))
    for item in taught:
        if not item.fixed or not any(_fails_again(view, item, run) for run in failures
                                     if run.order > item.proved_at):
            yield item.lesson


def _fails_again(view: SessionView, item: _Taught, run: _Run) -> bool:
    """``run`` is the lesson's command (or, for a module not found, its program aimed
    elsewhere) failing with the lesson's error: its output still shows it, or its most
    telling line is the same."""
    error, tier = item.error
    if run.key != item.key and not (run.key[0] == item.key[0] and _MISSING_MODULE.search(error)):
        return False
    if error and tier <= _TELLING and _flat(error.rstrip("…")) in _shown_by(view, run):
        return True
    return first_error_line(view, run.call)[0] == error


def lesson_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """The session's lessons; several commands that failed the same way and were fixed by the
    same step are one lesson ("`pnpm run test`, `pnpm run typecheck` failed: exit code 1;
    fixed by running `pnpm install`"), not one per command -- also when the failure and the fix
    differ only in naming the failed command's own file (two scripts with CRLF line endings,
    each converted)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for lesson in _held_lessons(view):
        text = lesson["object"]
        cut = text.find("` failed")
        tail = text[cut + 1:] if cut > 0 else text
        for word in text[1:cut].split() if cut > 0 else []:
            if "/" in word or "." in word:
                tail = tail.replace(word, "")  # the failed command's own file, named again
        groups.setdefault(tail, []).append(lesson)
    for same in groups.values():
        commands = {lesson["object"] for lesson in same}
        yield same[0] if len(commands) == 1 else _joined(same)


def _joined(same: list[dict[str, Any]]) -> dict[str, Any]:
    """One lesson for several commands with one failure and one fix."""
    first = same[0]
    shown = ", ".join(lesson["object"][:lesson["object"].find("` failed") + 1] for lesson in same)
    tail = first["object"][first["object"].find("` failed") + 1:]
    evidence = [lesson["evidence"][0] for lesson in same][:3] + first["evidence"][1:]
    return {**first, "object": shown + tail, "evidence": evidence}


def _lessons(view: SessionView, failures: list[_Run]) -> Iterator[_Taught]:
    """Each lesson as its pair shows it; every failed run is added to ``failures`` for the
    end-of-session check (``_held_lessons``)."""
    if not view.project:
        return
    open_failures: dict[tuple[str, ...], _Window] = {}
    created: set[str] = set()
    touched: set[str] = set()
    taught: set[tuple[str, ...]] = set()
    for order, call in enumerate(view.calls()):
        verdict = run_verdict(view, call)
        run = _decisive_run(order, call)
        passed = _passed_step(view, order, call, open_failures)
        if passed:
            taught.add(passed[0].key)
            yield passed[1]
            continue
        if run is None and verdict == FAILED:
            _open_step(view, order, call, open_failures, taught, failures, touched)
        if run is None and verdict == OK:
            chained = _fixed_in_line(view, order, call, open_failures)
            if chained:
                taught.add(chained[0].key)
                yield chained[1]
                continue
        if run is None:
            run, verdict = _chain_step(view, order, call, open_failures, verdict)
        _note_changes(view, call, verdict, run, open_failures, created, touched)
        if run is not None and verdict == FAILED:
            failures.append(run)
        if run is None or run.key in taught:
            continue
        if verdict == FAILED and _fixable(view, call, run):
            lesson = _got_past(view, run, open_failures)
            if lesson:
                taught.add(run.key)
                yield lesson
            elif run.key not in open_failures \
                    and not _checks_new_work(run.invocation, created):
                open_failures[run.key] = _Window(run, first_error_line(view, call),
                                                 frozenset(touched))
            elif run.key in open_failures:
                _refuted(open_failures[run.key], _shown_by(view, run))
        elif verdict == OK and run.key in open_failures:
            window = open_failures.pop(run.key)
            lesson = _lesson(view, window, run, created)
            if lesson:
                taught.add(run.key)
                yield lesson
        elif verdict == OK:
            lesson = _without_prefix(view, run, open_failures)
            if lesson:
                yield lesson


def _failed_step(view: SessionView, order: int, call: Event) -> _Run | None:
    """The step that failed in a line like ``pip install x && pytest | tail``: the last
    command's status is its filter's (a filter succeeds), so a line that failed by its status
    failed at an earlier step, and with one step before the last that is not setup, that
    step is the one. Nothing when ``pipefail`` may be set, or the steps are not all joined by
    ``&&`` (a ``;`` or ``||`` runs on after a failure)."""
    command = command_text(call) or ""
    found = invocations(command, call_cwd(call)) if command else []
    if len(found) < 2 or "pipefail" in command or view.outcome(call) != FAILED \
            or not all(inv.confirmed for inv in found):
        return None
    last = found[-1]
    steps = [inv for inv in found[:-1] if not _prepares(inv)]
    if not (last.piped and last.filtered) or len(steps) != 1 or steps[0].piped:
        return None
    key = same_command_key(steps[0].argv)
    return _Run(order, call, steps[0], key) if key else None


def _open_step(view: SessionView, order: int, call: Event,
               windows: dict[tuple[str, ...], _Window], taught: set[tuple[str, ...]],
               failures: list[_Run], touched: set[str]) -> None:
    """A failed step (``_failed_step``) opens a window like a failed command: what changed
    before a later line got past the same step is its fix."""
    step = _failed_step(view, order, call)
    if step is None or step.key in taught or step.key in windows \
            or not _fixable(view, call, step):
        return
    failures.append(step)
    error = first_error_line(view, call)
    if error[0] and error[1] <= _TELLING:  # a named error: the step's own, the line stopped
        windows[step.key] = _Window(step, error, frozenset(touched), step=True)


def _same_step(failed: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """``now`` does what the failed step did, and perhaps more (``pip install -q a b c``
    after ``pip install a b`` failed): the same program, its words all there."""
    return failed == now or (failed[:1] == now[:1] and len(failed) > 1
                             and set(failed[1:]) <= set(now[1:]))


def _passed_step(view: SessionView, order: int, call: Event,
                 windows: dict[tuple[str, ...], _Window]) -> tuple[_Run, _Taught] | None:
    """A line that succeeded by its status, all its steps joined by ``&&``, got past every
    step before its last: a step that had failed (``_open_step``) passed here. Its fix is
    what ran before it in this line (``python3 -m venv .venv && . .venv/bin/activate &&
    pip install …``: never a check, a command that was failing itself, or a piped one), else
    what changed since the failure, as for any failed command."""
    if not any(window.step for window in windows.values()) or view.outcome(call) != OK:
        return None
    command = command_text(call) or ""
    found = invocations(command, call_cwd(call)) if command else []
    if len(found) < 2 or not all(inv.confirmed for inv in found):
        return None
    for index, invocation in enumerate(found[:-1]):
        key = same_command_key(invocation.argv)
        match = next((k for k, w in windows.items() if w.step and key and _same_step(k, key)),
                     None)
        if match is None or invocation.piped:
            continue
        window = windows[match]
        fixes = []
        for before in found[:index]:
            kind = command_kind(before.argv)
            before_key = same_command_key(before.argv)
            if before.argv[0] in ("source", "."):
                fixes.append(shown_command(before.argv, view.root))  # an environment entered
                continue
            if _prepares(before):
                continue
            if before_key is None or before_key in windows or before.piped \
                    or (kind is not None and kind[0] in _CHECKS) \
                    or outside_change(before.argv) is not None:
                return None
            fixes.append(shown_command(before.argv, view.root))
        if fixes and not any(word.split()[0] not in ("source", ".") for word in fixes):
            fixes = []  # only entering an environment: no command to name as the fix
        if fixes and window.edits:
            return None  # edits and a command both: which one fixed it is unknown
        if fixes:
            window.commands = [" && ".join(fixes)]
        del windows[match]
        run = _Run(order, call, invocation, match)
        lesson = _lesson(view, window, run, set())
        return (run, lesson) if lesson else None
    return None


def _refuted(window: _Window, now: str) -> None:
    """The failed command failed again with the same named error: whatever changed since is
    refuted, so only what changes after this run can be the fix (a cause the agent acted on,
    then another failure of the same check, is not the cause)."""
    if window.error[0] and window.error[1] <= _TELLING and _still_shows(window, now):
        window.edits.clear()
        window.commands.clear()
        window.outside = False


def _fixed_in_line(view: SessionView, order: int, call: Event,
                   windows: dict[tuple[str, ...], _Window]) -> tuple[_Run, _Taught] | None:
    """A failed command run again at the end of one line, after the commands that fix it
    (``pip install click && python -m app config``), and the line worked: those commands are
    the fix, in the very call that proved it. Without this, the fix's call is no run of the
    failed command (it does more than prepare it), the window stays open, and a later,
    unrelated command that happened to run before the next success is taken for the fix.
    Only when every command of the line had to succeed for the line to (``&&``), none of them
    is a check or itself failing, and nothing was edited since the failure."""
    command = command_text(call)
    found = invocations(command, call_cwd(call)) if command else []
    if len(found) < 2 or not all(inv.confirmed for inv in found):
        return None
    last = found[-1]
    key = same_command_key(last.argv)
    window = windows.get(key) if key else None
    if window is None or window.edits or (last.piped and not last.filtered):
        return None
    fixes = []
    for invocation in found[:-1]:
        if _prepares(invocation):
            continue
        before = same_command_key(invocation.argv)
        kind = command_kind(invocation.argv)
        if before is None or before in windows or (kind is not None and kind[0] in _CHECKS) \
                or outside_change(invocation.argv) is not None or invocation.piped:
            return None  # a piped fix's status is its filter's: the line says nothing of it
        fixes.append(shown_command(invocation.argv, view.root))
    if not fixes:
        return None
    run = _Run(order, call, last, key)  # type: ignore[arg-type]
    del windows[key]  # type: ignore[arg-type]
    window.commands = [" && ".join(fixes)]
    lesson = _lesson(view, window, run, set())
    return (run, lesson) if lesson else None


def _got_past(view: SessionView, run: _Run,
              windows: dict[tuple[str, ...], _Window]) -> _Taught | None:
    """A command that ran between a failure and the same command failing again, when the
    second failure no longer shows the first one's error: the run got past it, so that
    command fixed it ("No module named pytest", then ``pip install -r requirements-dev.txt``,
    then pytest runs and 4 tests fail: the install fixed the first failure, not the tests).
    Only a fix by a command, never by edits (the session's edits between two failures are
    work in progress), only a named error, and only for the same command -- or, for a
    missing module or program, the same program aimed elsewhere (``pytest tests/`` then
    ``pytest tests/test_x.py``)."""
    dropped = _without_prefix(view, run, windows)
    if dropped:
        return dropped
    now = _shown_by(view, run)
    for key, window in list(windows.items()):
        error, tier = window.error
        if window.edits or not window.commands or not error or tier > _TELLING:
            continue
        if key != run.key and not (key[0] == run.key[0] and _MISSING_MODULE.search(error)):
            continue
        if not _still_shows(window, now):
            return _closed(view, windows, key, run)
    return None


def _without_prefix(view: SessionView, run: _Run,
                    windows: dict[tuple[str, ...], _Window]) -> _Taught | None:
    """The failed command run again at once without the words in front of it (``wrap bun run
    test`` failed "unrecognized subcommand 'bun'", then ``bun run test`` ran): what was in
    front broke it. Only with nothing changed in between, only for a named error, and only
    when this run no longer shows that error (it passed, or failed on something else)."""
    now = _shown_by(view, run)
    words = run.invocation.argv
    for key, window in list(windows.items()):
        failed = window.failure.invocation.argv
        error, tier = window.error
        if window.edits or window.commands or not error or tier > _TELLING \
                or len(words) >= len(failed) or failed[-len(words):] != words \
                or window.failure.invocation.cwd != run.invocation.cwd:
            continue
        if not _still_shows(window, now):
            return _closed(view, windows, key, run)
    return None


def _shown_by(view: SessionView, run: _Run) -> str:
    """What ``run``'s result showed, flattened for a substring test."""
    result = view.results.get(run.call.call_id or "")
    return _flat(without_escapes(result.text if result else ""))


def _still_shows(window: _Window, now: str) -> bool:
    """Does the run's output (``_shown_by``) still hold the window's first error?"""
    return _flat(window.error[0].rstrip("…")) in now


def _closed(view: SessionView, windows: dict[tuple[str, ...], _Window], key: tuple[str, ...],
            run: _Run) -> _Taught | None:
    """The window at ``key`` closed by ``run``: taken out of the open ones, its lesson made."""
    window = windows.pop(key)
    return _lesson(view, window, run, set())


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def run_verdict(view: SessionView, call: Event) -> str:
    """ok / failed / unknown; a run piped into an output filter is judged by its output."""
    outcome = view.outcome(call)
    command = command_text(call)
    runs = invocations(command, call_cwd(call)) if command else []
    if outcome != OK or not runs or not runs[-1].piped:
        return outcome
    result = view.results.get(call.call_id or "")
    text = without_escapes(result.text if result else "")
    if _FAILED_OUTPUT.search(text) and not re.search(r"\b0 (?:failures|failed|errors)\b", text):
        return FAILED
    return OK if _PASSED_OUTPUT.search(text) else UNKNOWN


def _decisive_run(order: int, call: Event) -> _Run | None:
    """The command whose status is the call's: the last one, after only setup commands."""
    command = command_text(call)
    found = invocations(command, call_cwd(call)) if command else []
    if not found or not all(_prepares(inv) for inv in found[:-1]):
        return None
    last = found[-1]
    if last.piped and not last.filtered:
        return None
    key = same_command_key(last.argv)
    return _Run(order, call, last, key) if key else None


def decisive_run(order: int, call: Event) -> _Run | None:
    """The run whose status is the call's, with its same-command key (for other rules that
    follow one check through a session: ``causes``)."""
    return _decisive_run(order, call)


def check_runs(view: SessionView, order: int, call: Event) -> list[tuple[_Run, str]]:
    """Each run whose outcome the call proves, with that outcome: the decisive run with the
    call's verdict (``run_verdict``), else the checks of a ``&&`` chain its status and output
    prove (``chain_outcome``: ``ruff check . && mypy && pytest``)."""
    run = _decisive_run(order, call)
    if run is not None:
        return [(run, run_verdict(view, call))]
    return _chained_runs(view, order, call)


def _chain_step(view: SessionView, order: int, call: Event,
                windows: dict[tuple[str, ...], _Window], verdict: str
                ) -> tuple[_Run | None, str]:
    """The check of a line of checks alone (``ruff check . && mypy && pytest``) that the
    lesson loop follows, with its outcome: the one that failed, or the first that passed
    while it had a failure open. Nothing for a line that also changes something (an
    install, a formatter): what fixed a check there is ``_fixed_in_line``'s question."""
    runs = _chained_runs(view, order, call)
    command = command_text(call) or ""
    steps = [inv for inv in invocations(command, call_cwd(call)) if not _prepares(inv)]
    if not runs or any((command_kind(step.argv) or ("",))[0] not in _CHECKS for step in steps):
        return None, verdict
    failed = [run for run, outcome in runs if outcome == FAILED]
    if failed:
        return failed[0], FAILED
    reopened = [run for run, _ in runs if run.key in windows]
    return (reopened[0], OK) if reopened else (None, verdict)


def _chained_runs(view: SessionView, order: int, call: Event) -> list[tuple[_Run, str]]:
    command = command_text(call)
    if not command:
        return []
    result = view.results.get(call.call_id or "")
    parts = chain_outcomes(invocations(command, call_cwd(call)), view.outcome(call),
                           result.text if result else "", pipefail="pipefail" in command)
    keyed = [(part, outcome, same_command_key(part.argv)) for part, outcome in parts]
    return [(_Run(order, call, part, key), outcome) for part, outcome, key in keyed if key]


def fixable(view: SessionView, call: Event, run: _Run) -> bool:
    """A failure the project can fix (not a missing program): see ``_fixable``."""
    return _fixable(view, call, run)


def _prepares(invocation: Invocation) -> bool:
    return invocation.argv[0] in _SETUP or tuple(invocation.argv[:2]) in _PREPARES


@functools.lru_cache(maxsize=4096)
def same_command_key(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """What makes two runs "the same command", or None for commands that teach nothing.
    Memoized (it depends on the words alone): several rules ask it of every run."""
    words = unwrap(argv)
    if not words or words[0] in _LOOKING or words[0] in _EDITORS \
            or _SCRIPT_FLAGS & set(words[1:2]):
        return None
    names = positional(words)
    if names[0] == "git":
        return ("git", "commit") if names[1:2] == ["commit"] else None
    runner = runner_of(argv)
    program = runner[1] if runner else _VERSIONED.sub(r"\1", names[0])
    skip = len(program.split()) if runner else 1
    targets = [n for n in names[skip:] if not runner or _TARGET.search(n)]
    return (program, *(posixpath.basename(name.rstrip("/")) for name in targets))


def _fixable(view: SessionView, call: Event, run: _Run) -> bool:
    """A failure an edit or a changed command can fix: not a missing program, and a git
    commit only when a hook or validation refused it."""
    result = view.results.get(call.call_id or "")
    if result is None or _program_missing(run.invocation.argv, result.text,
                                          exit_code(result)):
        return False
    return run.key != ("git", "commit") or bool(_GIT_GATE.search(result.text))


def _program_missing(argv: tuple[str, ...], text: str, code: int | None) -> bool:
    """The run's own program is not there (exit 126/127, "command not found"): the machine,
    not the project. Not when what was not found is a name inside it -- an interpreter a
    script's first line names with a carriage return (``/usr/bin/env: 'bash\\r': No such
    file or directory``: the script's line endings), a line of the script run as a command
    (``$'\\r': command not found``): the program ran, and its files are what failed."""
    text = without_escapes(text)
    if "command not found" not in text and (
            code not in _MISSING_PROGRAM or "No such file or directory" not in text):
        return code in _MISSING_PROGRAM  # no name to read: the pattern below would find none
    names = [m["name"] for m in _NOT_FOUND.finditer(text)
             if m["what"] == "command not found" or code in _MISSING_PROGRAM]
    if not names:
        return code in _MISSING_PROGRAM
    return not all("\\r" in name or "\r" in name for name in names)


def _note_changes(view: SessionView, call: Event, verdict: str, run: _Run | None,
                  windows: dict[tuple[str, ...], _Window], created: set[str],
                  touched: set[str]) -> None:
    """Record an edit or a state-changing command in every open failure's window; a change
    outside the project (``held``) marks them all: whatever fixed them is not the project's."""
    if verdict == FAILED:
        return
    if windows and changed_outside(view, call):
        for window in windows.values():
            window.outside = True
    for op in file_ops(view, call):
        if op.kind == "delete":
            continue
        cited = view.relative(op.path) or posixpath.basename(op.path)
        touched.add(cited)
        if op.kind == "write":
            created.update((posixpath.basename(op.path), cited))
        if view.own(op.path) is None:
            continue  # outside the project: marked above, or scratch that nothing reads
        for window in windows.values():
            window.edits.append((call, cited, added_lines(op)))
    command = command_text(call)
    if run is not None and verdict == OK and command and not file_ops(view, call) \
            and _may_change_state(run, windows):
        for key, window in windows.items():
            if key != run.key:
                window.commands.append(shown_command(run.invocation.argv, view.root))


def _may_change_state(run: _Run, windows: dict[tuple[str, ...], _Window]) -> bool:
    """Whether a command that worked can be what fixed another one: not a check (a test or
    a lint only reports), and not a command that was failing itself (its passing is a sign
    of the fix, not the fix)."""
    found = command_kind(run.invocation.argv)
    return run.key not in windows and (found is None or found[0] not in _CHECKS) \
        and outside_change(run.invocation.argv) is None


def _lesson(view: SessionView, window: _Window, fixed: _Run,
            created: set[str]) -> _Taught | None:
    failure = window.failure
    if window.outside or acted_between(view, failure.call.line, fixed.call.line):
        return None  # changed outside the project, or by the person: not the project's fix
    if any(cwd and view.own(cwd) is None
           for cwd in (_place(failure.invocation), _place(fixed.invocation))):
        return None  # run in another project (a sibling checkout): not this one's lesson
    if not window.edits and remote_error(window.error[0]):
        return None  # a remote's answer (a 404, a timeout) changed: no command here fixed it
    files = [cited for _, cited, _ in window.edits if not is_test_file(cited)]
    if window.edits and (not files or all(path in created or path in window.touched
                                          for path in files)):
        return None  # the session fixed its own test, its own new code or its own change
    if files != [cited for _, cited, _ in window.edits] and _ASSERTION.search(window.error[0]):
        return None  # a test's expectation failed and the fix rewrote tests: a change of
        # behaviour the session made on purpose, not a lesson about the project
    shown = f"`{shown_command(failure.invocation.argv)}`"
    error = f": {window.error[0]}" if window.error[0] else ""
    if window.edits and window.error[1] > _TELLING:
        return None  # "11 failures; fixed by editing f" teaches nothing
    settings = _added_settings(failure, fixed)
    if settings and (window.edits or window.commands):
        if not _MISSING_MODULE.search(window.error[0]):
            return None  # edits and a new setting both: which one fixed it is unknown
        # a module not found, then found with the setting (PYTHONPATH=.): the setting, not
        # the edits made meanwhile, is how the command has to be run
        window = _Window(window.failure, window.error, window.touched)
    if not window.edits and ((cut_short(fixed.invocation.argv) and not window.commands) or any(
            command.endswith("…") and not command.endswith(" …") for command in window.commands)):
        return None  # the form that worked, cut at a length, reads like the one that failed
        # (an edit or a command as the fix quotes not that form: a long one may be cut)
    if window.edits:
        text = f"{shown} failed{error}; fixed by {describe_edits(window.edits)}"
    elif window.commands and _STDIN_SCRIPT.match(window.commands[-1]):
        return None  # a script fed on standard input: what it changed is not in the command
    elif window.commands:
        text = f"{shown} failed{error}; fixed by running `{window.commands[-1]}`"
        by_hand = hand_installs(view, window.commands[-1])
        if by_hand is not None and by_hand[1]:
            return None  # declared (the environment was not set up), or no manifest seen
        if by_hand is not None:
            named = ", ".join(f"`{name}`" for name in by_hand[0])
            text += f" ({named} must be installed by hand: no manifest of the project lists it)"
    elif failure.invocation.cwd != fixed.invocation.cwd and fixed.invocation.cwd:
        where = _where(view, failure.invocation.cwd)
        text = (f"{shown} fails when run from {where}{error}; run it from "
                f"{_where(view, fixed.invocation.cwd)} "
                f"(`{shown_command(fixed.invocation.argv)}`)")
    elif failure.invocation.argv != fixed.invocation.argv and not _narrower(failure, fixed) \
            and not _bypasses(failure, fixed):
        text = f"{shown} fails{error}; `{shown_command(fixed.invocation.argv)}` works"
    elif settings and window.error[1] <= _TELLING:
        added = " ".join(settings)
        text = f"{shown} fails{error}; `{added} {shown_command(fixed.invocation.argv)}` works"
    else:
        return None
    evidence = [transcript_evidence(failure.call.line, command_text(failure.call) or shown),
                transcript_evidence(fixed.call.line, command_text(fixed.call) or shown)]
    lesson = candidate("lessons", view.project or "", "core/failure-mode", text,
                       evidence=evidence, object_kind="literal",
                       subject_type="project", at=fixed.call.timestamp)
    return _Taught(lesson, failure.key, window.error, fixed.order,
                   fixed=bool(window.edits or window.commands))


def _added_settings(failure: _Run, fixed: _Run) -> list[str]:
    """The variable settings in front of the working run that the failed one lacked
    (``PYTHONPATH=. pytest -q`` after ``pytest -q`` failed to import the package): the same
    words, so the setting is what made it work -- how the project has to be run."""
    before = set(leading_settings(command_text(failure.call) or ""))
    return [word for word in leading_settings(command_text(fixed.call) or "")
            if word not in before]


def leading_settings(command: str) -> list[str]:
    """``NAME=value`` words in front of a line's last simple command."""
    last = re.split(r"&&|\|\||;|\n", command)[-1].split()
    found: list[str] = []
    for word in last:
        if not _SETTING.match(word):
            break
        found.append(word)
    return found


#: A flag that gets a command past its own check rather than fixing what it found.
_BYPASS_FLAG = lazy_regex(r"^--(?:no-verify|no-check\S*|skip\S*|force\S*|allow-\S+|ignore-\S+|"
                          r"unsafe\S*|no-strict)(?:=.*)?$")
#: Flags that make a command a check (or a strict run): dropping one turns it into another
#: command (``cargo fmt --check`` reports, ``cargo fmt`` rewrites).
_CHECK_FLAGS = frozenset({"--check", "--verify", "--dry-run", "--diff", "--strict", "--locked",
                          "--frozen", "--frozen-lockfile", "--ci"})


def _bypasses(failure: _Run, fixed: _Run) -> bool:
    """The working run only switched the failing check off (``cargo package --no-verify``
    after a manifest check failed; ``cargo fmt`` after ``cargo fmt --check``): what failed
    still fails, so "this form works" would teach the next agent to skip the check."""
    before, after = set(failure.invocation.argv), set(fixed.invocation.argv)
    return any(_BYPASS_FLAG.match(word) for word in after - before) or \
        bool(_CHECK_FLAGS & (before - after))


def _narrower(failure: _Run, fixed: _Run) -> bool:
    """The working run is the failing one pointed at fewer tests or reporting differently
    (``npm test -- --grep Login`` after ``npm test`` failed): it skipped what failed, it did
    not fix it."""
    argv = failure.invocation.argv
    return runner_of(argv) is not None and \
        command_form(argv) == command_form(fixed.invocation.argv)


def shown_command(argv: tuple[str, ...], root: str | None = None) -> str:
    """A command as a lesson quotes it: a commit message or inline script left out, paths
    inside the project relative to it."""
    if root:
        argv = tuple(w.replace(root.rstrip("/") + "/", "") for w in argv)
    elided = _ELIDED.get(posixpath.basename(argv[0]) if argv else "", frozenset())
    words: list[str] = []
    for word in argv:
        if words and words[-1] in elided and (words[-1] not in ("-c", "-e") or
                                              len(word) > _SHORT_SCRIPT):
            words[-1] += " …"
            continue
        words.append(word)
    return short_quote(" ".join(words), SHOWN_CHARS)


#: The longest command a lesson quotes whole.
SHOWN_CHARS = 80


def cut_short(argv: tuple[str, ...], root: str | None = None) -> bool:
    """``shown_command`` would cut the command: a working form or a fix cut at a length is
    another command (often the failing one's beginning), so no lesson tells it."""
    return shown_command(argv, root).endswith("…") and not shown_command(
        argv, root).endswith(" …")


def _place(invocation: Invocation) -> str | None:
    """Where a command works: its folder, or for git the repository ``-C`` / ``--git-dir``
    point it at (``git_state.git_run``)."""
    run = git_run(invocation) if invocation.argv[:1] == ("git",) else None
    return run.cwd if run is not None else invocation.cwd


def _where(view: SessionView, cwd: str | None) -> str:
    if not cwd:
        return "another directory"
    cited = view.relative(cwd)
    return "the project root" if cited in (".", None) and cwd == view.root else \
        f"{cited or cwd}/"


def _checks_new_work(run: Invocation, created: set[str]) -> bool:
    """The check is aimed at a file the session wrote whole (``pytest tests/test_new.py``,
    ``vitest Nav.test.tsx``, ``pytest t.py::test_x``)."""
    arguments = positional(unwrap(run.argv))[1:]
    return any(posixpath.basename(arg.split("::")[0].rstrip("/")) in created
               for arg in arguments)


def first_error_line(view: SessionView, call: Event) -> tuple[str, int]:
    """The most telling line of the failure and how telling it is (0 = a named error; a bare
    count of failures or a failure word say less)."""
    result = view.results.get(call.call_id or "")
    found = _telling_line(result.text if result else "")
    if found:
        return found
    code = exit_code(result) if result else None
    # a zero status is a pipe's filter's (``cmd | tee log``): it names nothing about cmd
    return (f"exit code {code}" if code else ""), len(_ERROR_SHAPES)


def first_error_text(text: str) -> str:
    """The most telling error line of a tool's output, or "" when none has an error's shape."""
    found = _telling_line(text)
    return found[0] if found else ""


def telling_line(text: str) -> tuple[str, int] | None:
    """(the most telling error line of ``text``, its tier: 0 = a named error), or None."""
    return _telling_line(text)


def _telling_line(text: str) -> tuple[str, int] | None:
    text = without_escapes(text).replace("\\n", "\n")
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if sum(char.isalnum() for char in line) >= 6
             and len(line) <= _MAX_ERROR_LINE
             and not line.lower().startswith(("exit code", "at ", "file \""))]
    lines = [line for line in lines if not _BANNER.match(line)] + \
        [line for line in lines if _BANNER.match(line)]
    for tier, pattern in enumerate(_ERROR_SHAPES):
        hit = next((line for line in lines if pattern.search(line)), None)
        if tier == 0 and hit is not None:  # an exception with its message says the most
            hit = next((line for line in lines if _RAISED.search(line)), hit)
        if hit:
            return short_quote(_ERROR_PREFIX.sub("", hit), 100).rstrip(".;: "), tier
    return None
