"""What the session left not working, and what it published: end states of the work, from
the session's own tool outcomes (issue 22; what counts: ``logic/left_open.py``).

A check is a shell command of the command vocabulary's test, lint or build kind
(``commands.kind_of``), or a test script run by path (``bash tests/test_checkout.sh``), run in
the project. Each run's outcome is read as the record proves it:

- a line that is the check alone (after ``cd``/``export``): its exit status; when a pipe into
  ``tail``/``grep`` hid the status, what the runner printed (``logic.left_open.output_outcome``);
  a ``;`` or ``||`` after it, or a pipe into anything else: unknown;
- a line of checks joined by ``&&``: each part as ``chain_outcome`` proves it, else unknown;
- a run that failed for want of the environment (a module, program, network or credential
  missing: ``commands.did_not_run``, exit 126/127, ``for_want_of_environment``), or that the
  person turned down, or whose result never came back: unknown. It says nothing of the code.

The check is **left failing** when its last run failed and no later run of it, or of the same
kind in the same place, passed or ended unknown; not when the person said to ignore a failing
check, that it was known to fail or flaky. The fact says when it was seen, the runner's own
count of what failed, and whether files were changed after it: ``x/state`` (one value per
subject, the check in its project), trusted as seen. A check whose last run passed gives a
*finished* state (``logic.git_done.FINISHED``), written only to replace a failing state an
earlier session stored of the same check (``capture/finished_states.py``).

**Published**: a publish command that worked and whose output shows the registry took it
(``logic.left_open.published``): one ``x/state`` per package and registry, the session's last.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.foreign_paths import windows_path
from claimgraph.capture.extract.chain_outcome import chain_outcomes
from claimgraph.capture.extract.commands import did_not_run, kind_of
from claimgraph.capture.extract.git_state import git_run
from claimgraph.capture.extract.lessons import LOOKING
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, exit_code, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import (
    Invocation, call_cwd, command_text, invocations, positional, unwrap)
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.writes import file_ops
from claimgraph.logic import left_open as lo
from claimgraph.logic.git_done import FINISHED
from claimgraph.logic.timeutil import to_date

RULE = "left-open"
PREDICATE = "x/state"
_KINDS = frozenset({"test", "lint", "build"})
_SETUP = frozenset({"cd", "export", "source", ".", "set", "pushd"})
_SHELLS = frozenset({"bash", "sh", "zsh"})
#: A shell script named as a test suite: ``test.sh``, ``test_checkout.sh``, ``run-tests.sh``.
_TEST_SCRIPT = re.compile(r"(?:^|[_-])tests?(?:[_-][\w.-]*)?\.(?:sh|bash)$")
_MISSING_PROGRAM = (126, 127)
#: Programs that are no check whatever words they are given.
_NOT_CHECKS = frozenset({"git", "apply_patch", "applypatch", "pip", "pip3", "brew", "apt",
                         "apt-get"})
#: A word that may name a check: what ``_may_check`` looks for.
_CHECK_WORD = re.compile(r"(?<![a-z])(?:tests?|spec|lint|check|build|verify|ci|vitest|jest|"
                         r"mocha|pytest|tsc|clippy|typecheck|type-check)(?![a-z])",
                         re.IGNORECASE)
#: ``git_state``'s kinds of git command that bring other commits into the checkout.
_MOVES = frozenset({"pull", "rebase", "merge", "picks", "rewrite"})
#: git saying a pull, merge or rebase brought nothing in.
_UP_TO_DATE = re.compile(r"^(?:Already up[ -]to[ -]date\.?|Current branch \S+ is up to date\.)",
                         re.MULTILINE)
#: ``git stash`` verbs that leave the files as they are.
_STASH_LOOKS = frozenset({"list", "show", "create", "store", "drop", "clear"})
#: gh's words that read CI's checks (``ci_runs``' commands): a run there may be the check.
_CI_READS = frozenset({("run", "watch"), ("run", "view"), ("run", "list"), ("pr", "checks")})
#: The longest command a fact quotes: a longer one is a one-off, not a check to hand on.
_MAX_FORM = 120


def left_open_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project or not view.root:
        return
    runs, published = _runs(view)
    if runs:
        yield from _check_states(view, view.project, runs)
    yield from _last_per_subject(published)


def _last_per_subject(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One state per subject, the session's last: a second version replaces the first."""
    last = {item["subject"]: item for item in found}
    return list(last.values())


def _check_states(view: SessionView, project: str,
                  runs: list[lo.CheckRun]) -> Iterator[dict[str, Any]]:
    failing = lo.left_failing(runs)
    ignored = failing and lo.told_to_ignore(text for _, text in user_texts(view))
    for run in [] if ignored else failing:
        run = lo.summarized(runs, run)
        date = _date_of(view, run.line, run.at)
        text = lo.describe_failing(run, date, _changed_after(view, run.line))
        yield _state(project, run, text)
    for run in lo.last_passing(runs):
        found = _state(project, run, lo.describe_passing(run, _date_of(view, run.line, run.at)))
        found[FINISHED] = True
        yield found


def _state(project: str, run: lo.CheckRun, text: str) -> dict[str, Any]:
    """The check's state, its subject the check in its project (and the folder it ran in)."""
    where = "" if run.repo == "." else f" in {run.repo}"
    return candidate(RULE, f"{project} check `{run.runner}`{where}", PREDICATE, text,
                     evidence=[transcript_evidence(run.line, short_quote(run.form))],
                     object_kind="literal", subject_type="check", at=run.at)


def _runs(view: SessionView) -> tuple[list[lo.CheckRun], list[dict[str, Any]]]:
    """Every check run of the session, in order, and the published states."""
    runs: list[lo.CheckRun] = []
    published: list[dict[str, Any]] = []
    for order, call in enumerate(view.calls()):
        command = command_text(call)
        if not command:
            continue
        found = invocations(command, call_cwd(call) or view.root)
        checks = [(inv, check) for inv in found if (check := _check_of(view, inv))]
        if checks:
            runs += _outcomes(view, call, order, found, checks)
        elif view.outcome(call) != FAILED and any(
                _moves_checkout(view, inv, _output(view, call)) for inv in found):
            runs.append(lo.CheckRun(command, lo.MOVED, ".", order, lo.UNKNOWN, command,
                                    call.line))
        elif any(_may_check(inv) for inv in found):
            runs.append(lo.CheckRun(command, lo.ANY, ".", order, lo.UNKNOWN, command, call.line))
        elif view.outcome(call) == OK and len(_parts(found)) == 1:
            item = lo.published(unwrap(_parts(found)[0].argv), _output(view, call))
            if item is not None:
                published.append(_published(view, call, item))
    return runs, published


def _check_of(view: SessionView, inv: Invocation) -> tuple[str, str, str, bool] | None:
    """(runner, kind, repo, script) of a check run in the project, else None."""
    words = unwrap(inv.argv)
    if not words or inv.cwd is None:
        return None
    repo = view.own(inv.cwd)
    if repo is None or _points_away(view, inv):
        return None
    kind = kind_of(tuple(words))
    if kind is not None and kind[0] in _KINDS:
        return kind[1], kind[0], repo, False
    script = _test_script(words)
    return (script, "test", repo, True) if script else None


def _points_away(view: SessionView, inv: Invocation) -> bool:
    """A word of the command names a path outside the project (``pytest ../other/tests``,
    ``npm --prefix /src/other test``): the run may be another repository's check. Such a run
    is then only one that may be a check (``_may_check``)."""
    for word in inv.argv[1:]:
        path = word.partition("=")[2] if word.startswith("-") else word
        path = windows_path(path) or path
        if "/" not in path or "://" in path or path.startswith(("~", "$")):
            continue
        if view.own(posixpath.normpath(posixpath.join(inv.cwd or "", path))) is None:
            return True
    return False


def _moves_checkout(view: SessionView, inv: Invocation, output: str) -> bool:
    """A git command that changes the project's files under every check (``git_state``'s
    reading of it): a switch to another commit, a hard reset, a stash or its pop, restored
    files, a pull, rebase, merge or cherry-pick. Not a new branch where HEAD is, a reset or
    restore of the index alone, a look at the stash, nor a pull or merge git said brought
    nothing ("Already up to date.")."""
    run = git_run(inv)
    if run is None or run.cwd is None or view.own(run.cwd) is None or len(run.words) < 2:
        return False
    verb, args = run.words[1], run.words[2:]
    names = [word for word in args if not word.startswith("-")]
    if run.kind == "switch":
        return not ({"-b", "-c", "-B", "-C"} & set(args) and len(names) <= 1)
    if run.kind == "reset":
        return bool({"--hard", "--keep", "--merge"} & set(args))
    if verb == "stash":
        return (names[:1] or ["push"])[0] not in _STASH_LOOKS
    if verb == "restore":
        return not ({"--staged", "-S"} & set(args)) or bool({"--worktree", "-W"} & set(args))
    if run.kind in _MOVES:
        return not _UP_TO_DATE.search(output)
    return verb == "apply"


def _may_check(inv: Invocation) -> bool:
    """A command the vocabulary does not know that may run a check (``pnpm run test:cart``,
    ``make check``, ``pnpm vitest run``): a word naming one, run by a program that does more
    than look or use git; or a look at CI's checks (``gh run watch``, ``gh pr checks``). It
    only ever keeps a failing state from being stated."""
    words = unwrap(inv.argv)
    if words[:1] == ("gh",) and tuple(positional(words)[1:3]) in _CI_READS:
        return True  # CI's checks, read after a push: the fix may have been proved there
    if not words or words[0] in LOOKING or words[0] in _SETUP or words[0] in _NOT_CHECKS:
        return False
    return any(_CHECK_WORD.search(word) for word in words)


def _test_script(words: tuple[str, ...]) -> str | None:
    """The path of a test suite's shell script the words run (``bash tests/test_x.sh``,
    ``./test.sh``), else None."""
    if words[0] in _SHELLS and len(words) >= 2 and not words[1].startswith("-"):
        path = words[1]
    elif words[0].startswith(("./", "../")) or "/" in words[0]:
        path = words[0]
    else:
        return None
    name = posixpath.basename(path)
    return posixpath.normpath(path) if _TEST_SCRIPT.search(name) else None


def _parts(found: tuple[Invocation, ...]) -> list[Invocation]:
    return [inv for inv in found if unwrap(inv.argv) and unwrap(inv.argv)[0] not in _SETUP]


def _outcomes(view: SessionView, call: Event, order: int, found: tuple[Invocation, ...],
              checks: list[tuple[Invocation, tuple[str, str, str, bool]]]) -> list[lo.CheckRun]:
    output = _output(view, call)
    status = view.outcome(call)
    parts = _parts(found)
    proven: dict[int, str] = {}
    if len(parts) == 1 and parts[0] is checks[0][0]:
        proven[id(parts[0])] = _alone(view, call, parts[0], status, output)
    else:
        for inv, outcome in chain_outcomes(found, status, output):
            proven[id(inv)] = lo.PASSED if outcome == OK else lo.FAILED
    # a failure for want of the environment says nothing of the code, however the line
    # proved it failed (alone, through a pipe or in a ``&&`` chain)
    environment = did_not_run(output) or lo.for_want_of_environment(output)
    runs = []
    for inv, (runner, kind, repo, script) in checks:
        outcome = proven.get(id(inv), lo.UNKNOWN)
        form = shlex.join(inv.argv)
        if outcome == lo.FAILED and (environment or len(form) > _MAX_FORM or "\n" in form):
            outcome = lo.UNKNOWN  # the machine's want, or a one-off line: no check to hand on
        summary = lo.failure_summary(output) if outcome == lo.FAILED else None
        runs.append(lo.CheckRun(runner, kind, repo, order, outcome, form, call.line,
                                summary, script, call.timestamp))
    return runs


def _alone(view: SessionView, call: Event, inv: Invocation, status: str, output: str) -> str:
    """The outcome of a line that is one check (module docstring). Through a pipe, the output
    proves a failure whatever read it (``grep FAIL`` passes the runner's own lines), and a pass
    only through an output filter (``shell.OUTPUT_FILTERS``). Known limit: ``head`` hides the
    last lines, where a later failure would be; ``Invocation`` does not say which filter ran."""
    if status not in (OK, FAILED) or did_not_run(output):
        return lo.UNKNOWN  # no verdict, or the check never ran: neither passed nor failed
    if inv.piped:
        said = lo.output_outcome(output)
        return said if said == lo.FAILED or inv.filtered else lo.UNKNOWN
    if status == OK:  # unless the runner's own words say it failed: a script hid its status
        return lo.PASSED if inv.confirmed and lo.output_outcome(output) != lo.FAILED \
            else lo.UNKNOWN
    result = view.results.get(call.call_id or "")
    code = exit_code(result, output) if result is not None else None
    if code in _MISSING_PROGRAM or not inv.confirmed or not lo.tests_ran(output):
        return lo.UNKNOWN  # it may never have started
    return lo.FAILED


def _output(view: SessionView, call: Event) -> str:
    result = view.results.get(call.call_id or "")
    return (result.text or "") if result is not None else ""


def _changed_after(view: SessionView, line: int) -> bool:
    """Whether the session changed a file of the project after ``line``."""
    for call in view.calls():
        if call.line <= line or view.outcome(call) == FAILED:
            continue
        if any(view.own(op.path) is not None for op in file_ops(view, call)):
            return True
    return False


def _date_of(view: SessionView, line: int, at: int | None) -> str | None:
    """The day of the run (or of the last dated event before it); None when nothing is dated."""
    if at is not None:
        return to_date(at)
    stamps = [event.timestamp for event in view.transcript.events
              if event.line <= line and event.timestamp is not None]
    return to_date(stamps[-1]) if stamps else None


def _published(view: SessionView, call: Event, item: lo.Published) -> dict[str, Any]:
    subject, text = lo.describe_published(item, _date_of(view, call.line, call.timestamp))
    return candidate(RULE, subject, PREDICATE, text, trust="left-open.published",
                     evidence=[transcript_evidence(call.line, short_quote(
                         command_text(call) or ""))],
                     object_kind="literal", subject_type="release", at=call.timestamp)
