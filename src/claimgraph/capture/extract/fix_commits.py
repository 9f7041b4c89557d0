"""failure-mode lessons from a fix commit whose message states the cause, when the session
saw the failure before it and a check pass after it.

The commit that ends a debugging loop is where the agent writes down, settled, what broke and
why ("fix(cache): key pages by locale" -- "the cache key `pages-v3` left out the locale, so
the other languages were never rendered"). Many such lessons have no same command
failing and then passing (what ``lessons`` follows): a step that ran green but did nothing, a
CI job the agent cannot run, a service's log. The message alone is still the agent's word,
so it is kept only when the record bears it out around the commit:

1. the commit was made (git printed its ``[branch hash]`` line) and its message is a fix
   with a stated cause (``logic.fix_message``: a fix subject, a first body paragraph that
   says what went wrong, settled);
2. a failure was seen since the session's previous commit: a check that failed (a test,
   lint or build of the one command vocabulary, ``commands``, alone or in a chain), one CI
   run's or pull request's checks or a CI listing showing a failure, or the person saying
   something failed, is wrong or did not happen;
3. the cause is about what the session saw: a name it spells (a code span, a path, an
   identifier, a CamelCase word, a hyphenated rule name) is in a tool's output or a command
   line since that previous commit;
4. a check passed after the failure: the last check before the commit, when it ran after a
   file changed and none failed after it (a pass before any change tests no fix), else the
   first check outcome after the commit (a check working, or one CI run's or pull request's
   checks all finished and passed; ``gh run list`` mixes other commits' runs and proves
   nothing; a failure first refutes the fix); the person saying it still fails before that
   pass refutes it too, and so does a later ``git revert`` of the commit.

The fact is one line: the cause as the message states it, then the fix (the subject) with
the commit's hash, cited with the failure, the commit and the passing check. A command after
the commit that can give it another id (a rebase, ``pull``, ``commit --amend``, a reset, a
cherry-pick, a history filter) leaves the hash out: the subject still names the fix, a stale
id would send the next agent to a commit that no longer exists.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.corroborate import named
from claimgraph.capture.extract.commands import kind_of
from claimgraph.capture.extract.git_state import dry_run, git_runs
from claimgraph.capture.extract.lessons import check_runs, run_verdict
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import (
    Invocation, call_cwd, command_text, invocations)
from claimgraph.capture.extract.tools import DELEGATES
from claimgraph.capture.extract.writes import file_ops
from claimgraph.logic.fix_message import commit_message, fix_lesson
from claimgraph.logic.lazy_regex import lazy_regex

LESSON = "core/failure-mode"
RULE = "fix-commits"
#: The kinds of command (``commands.KINDS``) whose passing run proves a fix.
_CHECKS = frozenset({"test", "lint", "build"})
#: The kind of a CI run's or pull request's checks: proved only by CI passing again.
_CI = frozenset({"ci"})
#: A CI check's name in what gh printed for it passing: ``lint<TAB>pass<TAB>…`` (``gh pr
#: checks``), ``✓ unit tests in 1m2s`` (a job of ``gh run view`` / ``watch``).
_CI_CHECK_NAME = lazy_regex(r"^(?:(?P<check>[^\t\n]+)\tpass\t|✓ (?P<job>.+?) in \d)",
                            re.MULTILINE)
#: A CI check's name in what gh printed for it failing: ``lint<TAB>fail<TAB>…``, ``X build
#: in 1m`` (a failed job of ``gh run view``).
_CI_FAILED_NAME = lazy_regex(r"^(?:(?P<check>[^\t\n]+)\tfail\t|[X✗] (?P<job>.+?) in \d)",
                             re.MULTILINE)
#: Words a CI check's name uses for a kind that no runner's name says.
_CI_WORDS = {"test": "test", "tests": "test", "testing": "test", "lint": "lint",
             "linting": "lint", "linter": "lint", "typecheck": "lint", "types": "lint",
             "build": "build", "compile": "build"}
#: A CI listing that shows a failed run: a failure seen, but of no one commit.
_LISTED = "listed"
#: A name this short ("test", "main") is in every output: it grounds nothing.
_MIN_NAME = 5
_COMMIT = lazy_regex(r"\bgit\s+(?:-\S+\s+)*commit\b")
#: git's line for a commit it made: ``[branch 1a2b3c4] subject`` (``(root-commit)`` too).
_MADE = lazy_regex(r"^\[[^\]\n]*?\b(?P<hash>[0-9a-f]{7,40})\] ", re.MULTILINE)
#: CI commands whose output shows one run's or one pull request's checks (``gh run list``
#: mixes runs of other commits and workflows: it can show a failure, never prove a fix).
_CI_ONE = lazy_regex(r"\bgh\s+(?:pr\s+checks|run\s+(?:watch|view))\b")
_CI_LIST = lazy_regex(r"\bgh\s+run\s+list\b")
_CI_FAILED = lazy_regex(r"\tfail\t|\"conclusion\":\s*\"(?:failure|timed_out|startup_failure)\"|"
                        r"^[X✗]\s|##\[error\]|completed with 'failure'|^completed\tfailure\t",
                        re.MULTILINE)
#: Still running: a pending check, a job or run not finished.
_CI_RUNNING = lazy_regex(r"\tpending\t|^\*\s|\"status\":\s*\"(?:in_progress|queued|waiting)\"",
                         re.MULTILINE)
_CI_PASSED = lazy_regex(r"\tpass\t|\"conclusion\":\s*\"success\"|^✓\s|"
                        r"completed with 'success'", re.MULTILINE)
#: Names a cause spells that ``named`` leaves out: a CamelCase word, a hyphenated rule name.
_MORE_NAMES = lazy_regex(r"\b[A-Za-z][a-z0-9]+[A-Z]\w*|\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b")
_WORD = lazy_regex(r"[\w.-]+")
#: The person saying something failed, or did not happen ("error handling", "error messages"
#: name a feature, not a failure).
_REPORTED = lazy_regex(
    r"\b(?:fail\w*|errors?(?!\s+(?:handling|messages?|codes?|types?|class(?:es)?|reporting|"
    r"logging|pages?|boundar\w*|states?)\b)|broken|crash\w*|exception|bug|"
    r"(?:is|are|was|were) wrong|"
    r"(?:does|did|do|is|was|were|are|has|have)(?:n'?t| not) (?:work\w*|run|ran|appear\w*|"
    r"show\w*|fire\w*|trigger\w*|called|publish\w*|created|found|changed|updated)|"
    r"(?:don'?t|do not|can'?t|cannot) see|nothing (?:happen\w*|changed))\b", re.IGNORECASE)
_STILL_FAILS = lazy_regex(
    r"\b(?:still\s+(?:fail\w*|broken|(?:not|n't)\b|errors?|crash\w*|the\s+same)|"
    r"same\s+(?:error|problem|issue|failure)|(?:not|isn'?t|wasn'?t)\s+fixed|"
    r"does(?:n'?t| not)\s+work|didn'?t\s+(?:work|help|fix))", re.IGNORECASE)


@dataclass
class _Fix:
    """A fix commit whose message states a cause, and what followed it."""

    what: str
    cause: str
    commit: Event
    hash: str
    failure: Event
    #: Each failure seen since the previous commit, with its kinds: a pass proves the fix
    #: when it answers one of them (``_answers_one``).
    failures: list[tuple[Event, frozenset[str]]] = field(default_factory=list)
    passed: Event | None = None
    #: The kinds of check the proving pass ran and passed.
    proof: frozenset[str] = frozenset()
    refuted: bool = False
    #: A later command may have given the commit another id: its hash is not named.
    rewritten: bool = False
    #: a push went up after the commit: CI's checks from then on may be the fix's
    pushed: bool = False


@dataclass
class _Since:
    """What the session saw since its previous commit."""

    failure: Event | None = None
    #: Each failure seen, with its kinds of check, in order (the person's word: no kind).
    failures: list[tuple[Event, frozenset[str]]] = field(default_factory=list)
    #: The last check that passed after the latest failing one, answering one of the
    #: failures seen (a pass of its kind): the fix, proved before it was committed.
    passed: Event | None = None
    proof: frozenset[str] = frozenset()
    #: A file was changed since the latest failure: a pass before that tests no fix.
    changed: bool = False
    seen: list[str] = field(default_factory=list)


def fix_commit_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    for fix in _fixes(view):
        if fix.passed is not None and not fix.refuted:
            yield _lesson(view, fix)


def _fixes(view: SessionView) -> list[_Fix]:
    """Every fix commit with a stated, grounded cause after a failure, followed to the first
    check outcome after it."""
    since = _Since()
    fixes: list[_Fix] = []
    order = 0
    places = _project_places(view)
    latest: Event | None = None  # the session's latest commit
    head: list[str] = []  # hashes of the commits the session made, newest last (``_head``)
    handed_over = _subagent_moved_head(view)
    stopped: list[_Fix] = []  # the fixes a revert that stopped on a conflict names
    for event in view.transcript.events:
        if event.derived or event.is_sidechain or event.subagent_id:
            continue
        if handed_over and event.kind == "tool_call" and event.tool_name in DELEGATES:
            head.clear()  # the subagent's commits may be on the branch now (_taken_back)
        if event.is_human_prompt:
            _heard(event, since, fixes, latest)
        elif event.kind == "tool_call":
            _reverted(command_text(event) or "", fixes, latest, view.outcome(event) != FAILED,
                      stopped)
            _taken_back(view, event, fixes, head)
            _rewritten(command_text(event) or "", fixes)
            _pushed(view, event, fixes)
            made = _made(view, event)
            if made is not None:
                # a commit in another repository is that one's: no lesson of this project
                ours = made[0] and _committed_in(view, event, places)
                fix = _stated(made, event, since) if ours else None
                if fix is not None:
                    fixes.append(fix)
                since, latest = _Since(), event
            else:
                _checked(view, order, event, since, fixes)
            order += 1
    return fixes


def _subagent_moved_head(view: SessionView) -> bool:
    """A subagent ran a git command that commits or moves HEAD. Its events are read from its
    own file and cannot be placed among the session's, so after any task the session handed a
    subagent ``HEAD~N`` no longer counts the session's commits."""
    return any(run.kind in ("commit", "picks", "reset") or run.kind in _MOVES_HEAD
               or run.words[1:2] == ("revert",)
               for event in view.calls() if event.subagent_id or event.is_sidechain
               for run in git_runs(command_text(event) or "", call_cwd(event))
               if run.words[:1] == ("git",) and len(run.words) > 1)


def _heard(prompt: Event, since: _Since, fixes: list[_Fix], latest: Event | None) -> None:
    """The person reporting a failure, or saying it still fails: that refutes a fix not yet
    proved, and the latest commit's even when a check passed before it (their run is the
    one that counts: a local pass does not outweigh their word)."""
    text = prompt.text or ""
    if since.failure is None and _REPORTED.search(text):
        since.failure = prompt
        since.failures.append((prompt, frozenset()))
    if _STILL_FAILS.search(text):
        for fix in fixes:
            if fix.passed is None or fix.commit is latest:
                fix.refuted = True


def _reverted(command: str, fixes: list[_Fix], latest: Event | None, worked: bool,
              stopped: list[_Fix]) -> None:
    """A later ``git revert`` of a fix's commit (by its hash, or ``HEAD`` while it is the
    latest commit) takes the fix back: no lesson. One that stopped on a conflict (it failed;
    an outcome never shown is no failure) takes it back only when ``--continue`` finishes it;
    ``--abort``, ``--quit`` or ``--skip`` leave the fix (git-revert(1)). ``stopped`` holds the
    fixes of the revert in progress."""
    if "revert" not in command:
        return
    for run in invocations(command):
        words = run.argv
        if words[:2] != ("git", "revert"):
            continue
        if {"--abort", "--quit", "--skip", "--continue"} & set(words[2:]):
            if worked and "--continue" in words[2:]:
                for fix in stopped:
                    fix.refuted = True
            stopped.clear()
            continue
        named = [fix for fix in fixes
                 if any(len(word) >= 7 and (fix.hash.startswith(word) or word.startswith(fix.hash))
                        or (word in ("HEAD", "@") and fix.commit is latest)
                        for word in words[2:])]
        for fix in named if worked else ():
            fix.refuted = True
        stopped[:] = [] if worked else named


#: git commands after which ``HEAD~N`` no longer counts the session's own commits.
_MOVES_HEAD = frozenset({"rebase", "pull", "merge", "switch", "rewrite"})
_RELATIVE = lazy_regex(r"^(?:HEAD|@)(?P<steps>(?:~\d*|\^1?)*)$")


def _taken_back(view: SessionView, call: Event, fixes: list[_Fix], head: list[str]) -> None:
    """git-revert(1) of ``HEAD~N`` and git-reset(1) ``--hard`` (``--keep``, ``--merge``)
    back past a fix's commit take the fix back: no lesson. ``HEAD~N`` is counted over the
    commits the session made (git printed their ``[branch hash]`` lines), and only until a
    command moves HEAD otherwise (a pull, rebase, merge, branch switch, a failed or unknown
    git command that may have)."""
    command = command_text(call) or ""
    if "git" not in command:
        return
    runs = [run for run in git_runs(command, call_cwd(call) or view.root)
            if run.words[:1] == ("git",) and len(run.words) > 1]
    if not runs:
        return
    if view.outcome(call) != OK:
        if any(run.kind in ("commit", "picks", "reset") or run.kind in _MOVES_HEAD
               for run in runs):
            head.clear()
        return
    result = view.results.get(call.call_id or "")
    output = result.text if result is not None and result.text else ""
    for run in runs:
        args = run.words[2:]
        if run.kind == "reset":
            _reset_past(args, fixes, head)
        elif run.words[1] == "revert":
            for word in args:
                back = _steps_back(word)
                if back is not None and back < len(head):
                    _refute(fixes, head[-1 - back:][:1])
        elif run.kind in _MOVES_HEAD and not (run.kind == "switch" and _stays(args)):
            head.clear()
    if any(run.kind in ("commit", "picks") for run in runs):
        head.extend(match["hash"] for match in _MADE.finditer(output))


def _stays(args: tuple[str, ...]) -> bool:
    """A checkout or switch that leaves HEAD's history as it is: files restored (``--``,
    ``.``, ``-p``) or a new branch made where HEAD is."""
    words = [word for word in args if not word.startswith("-")]
    return "--" in args or words == ["."] or bool({"-p", "--patch"} & set(args)) or (
        bool({"-b", "-c", "-B", "-C"} & set(args)) and len(words) <= 1)


def _reset_past(args: tuple[str, ...], fixes: list[_Fix], head: list[str]) -> None:
    words = [word for word in args if not word.startswith("-")]
    if "--" in args or len(words) > 1:
        return  # paths: the index only
    back = _steps_back(words[0]) if words else 0
    if back is None:
        at = [index for index, made in enumerate(head) if _same_hash(made, words[0])]
        back = len(head) - 1 - at[-1] if at else None
    if back is None or back > len(head):
        head.clear()
        return
    gone = head[len(head) - back:] if back else []
    if {"--hard", "--keep", "--merge"} & set(args):
        _refute(fixes, gone)
    del head[len(head) - back:]


def _refute(fixes: list[_Fix], hashes: list[str]) -> None:
    for fix in fixes:
        if any(_same_hash(made, fix.hash) for made in hashes):
            fix.refuted = True


def _same_hash(one: str, other: str) -> bool:
    return len(one) >= 4 and len(other) >= 4 and (one.startswith(other) or other.startswith(one))


def _steps_back(revision: str) -> int | None:
    match = _RELATIVE.match(revision)
    if match is None:
        return None
    return sum(int(part[1:]) if part.startswith("~") and part[1:] else 1
               for part in re.findall(r"~\d*|\^1?", match["steps"]))


#: git commands that can give the commits on a branch new ids. A plain ``pull`` counts: the
#: person's configuration may make it rebase, and the record does not say.
_REWRITES = frozenset({"rebase", "pull", "reset", "cherry-pick", "filter-branch", "filter-repo"})


def _rewritten(command: str, fixes: list[_Fix]) -> None:
    """A later command that may rewrite history: the fixes made before it lose their hash."""
    if not fixes or "git" not in command:
        return
    for run in invocations(command):
        words = run.argv
        if words[:1] != ("git",) or len(words) < 2:
            continue
        if words[1] in _REWRITES or (words[1] == "commit" and "--amend" in words[2:]):
            for fix in fixes:
                fix.rewritten = True
def _pushed(view: SessionView, call: Event, fixes: list[_Fix]) -> None:
    """A push that went up (not a dry run, not refused) after a fix's commit: a pull
    request's or CI run's checks before it ran on the previous commit."""
    command = command_text(call) or ""
    if "push" not in command or not fixes:
        return
    result = view.results.get(call.call_id or "")
    if result is None or result.is_error or "[rejected]" in (result.text or ""):
        return
    for run in invocations(command):
        words = run.argv
        if words[:2] == ("git", "push") and not dry_run(words):
            for fix in fixes:
                fix.pushed = True
            return


def _made(view: SessionView, call: Event) -> tuple[str, str] | None:
    """(message, hash) of a commit this call made ("" for a message not on its command line:
    ``-F``, an editor, which still ends what came before it), else None."""
    command = command_text(call)
    if not command or "commit" not in command or not _COMMIT.search(command):
        return None
    result = view.results.get(call.call_id or "")
    made = _MADE.search(result.text) if result is not None and result.text else None
    if made is None:
        return None
    return (commit_message(command) or "", made["hash"])


def _project_places(view: SessionView) -> list[str]:
    """The folders whose commits are the project's: its root, and each worktree a ``git
    worktree add`` run in it made (a worktree another repository added is that one's)."""
    places = [view.root] if view.root else []
    for call in view.calls():
        command = command_text(call) or ""
        if "worktree" not in command or view.outcome(call) != OK:
            continue
        for run in git_runs(command, call_cwd(call) or view.root):
            path = _worktree_added(run.words)
            if path and run.cwd and _within(run.cwd, places[:1]):
                places.append(posixpath.normpath(posixpath.join(run.cwd, path)))
    return places


#: ``git worktree add`` options that take the next word as their value.
_WORKTREE_VALUES = frozenset({"-b", "-B", "--reason"})


def _worktree_added(words: tuple[str, ...]) -> str | None:
    """The path a ``git worktree add`` names (None: another command, or a path this cannot
    place: ``~``, a variable)."""
    if words[1:3] != ("worktree", "add"):
        return None
    args = words[3:]
    names = [w for i, w in enumerate(args)
             if not w.startswith("-") and (i == 0 or args[i - 1] not in _WORKTREE_VALUES)]
    return names[0] if names and not names[0].startswith(("~", "$")) else None


def _within(path: str, places: list[str]) -> bool:
    path = posixpath.normpath(path)
    return any(path == place or path.startswith(place.rstrip("/") + "/") for place in places)


def _committed_in(view: SessionView, call: Event, places: list[str]) -> bool:
    """Every commit of the line ran in one of the project's folders, as its recorded
    directory, a leading ``cd`` and ``git -C`` tell (a folder the record cannot place is
    not known to be the project's)."""
    runs = [run for run in git_runs(command_text(call) or "", call_cwd(call) or view.root)
            if run.kind == "commit"]
    return bool(runs) and all(run.cwd and _within(run.cwd, places) for run in runs)


def _stated(made: tuple[str, str], call: Event, since: _Since) -> _Fix | None:
    """The fix a commit's message states, when a failure came before it and its cause names
    something the session saw since the previous commit."""
    lesson = fix_lesson(made[0])
    if lesson is None or since.failure is None:
        return None
    what, cause = lesson
    if not any(name in seen for name in _names(cause) for seen in since.seen):
        return None
    return _Fix(what, cause, call, made[1][:7], since.failure, failures=list(since.failures),
                passed=since.passed, proof=since.proof)


def _names(cause: str) -> set[str]:
    """What the cause names: its code spans and identifiers (``named``), the words inside a
    code span, CamelCase words and hyphenated rule names; each at least ``_MIN_NAME`` long."""
    found = named(cause)
    found |= {word for span in re.findall(r"`([^`]+)`", cause) for word in _WORD.findall(span)}
    found |= set(_MORE_NAMES.findall(cause))
    return {name.strip(".-") for name in found if len(name.strip(".-")) >= _MIN_NAME}


def _checked(view: SessionView, order: int, call: Event, since: _Since,
             fixes: list[_Fix]) -> None:
    """One tool call that made no commit: what it showed, and whether it was a check that
    failed or passed, and of which kinds."""
    command = command_text(call) or ""
    result = view.results.get(call.call_id or "")
    output = result.text if result is not None and result.text else ""
    # the texts themselves, not a joined copy; a commit's own command line (an attempt git
    # refused, retried later) spells the message's names and would ground its cause itself
    since.seen.extend((output,) if commit_message(command) else (command, output))
    found = _outcome(view, order, call, command, output)
    outcome, kinds = found if found is not None else (None, frozenset())
    if outcome in (FAILED, _LISTED):
        since.failure = since.failure or call
        since.failures.append((call, kinds))
        since.passed, since.changed = None, False
    elif outcome == OK and since.failure is not None and since.changed:
        if _answers_one(since.failures, kinds):  # a pass answers its own kinds only
            since.passed, since.proof = call, kinds
    elif since.failure is not None and file_ops(view, call):
        since.changed = True
    if outcome is None or outcome == _LISTED:
        return
    ci = bool(_CI_ONE.search(command))
    for fix in fixes:
        if fix.passed is None and not fix.refuted and (fix.pushed or not ci):
            if outcome != OK:
                fix.refuted = True  # the first check after the fix failed
            elif _answers_one(fix.failures, kinds):
                fix.passed, fix.proof = call, kinds


def _outcome(view: SessionView, order: int, call: Event, command: str,
             output: str) -> tuple[str, frozenset[str]] | None:
    """(FAILED or OK, the kinds of check it failed or passed) for a check (a command of the
    one vocabulary that ``lessons`` follows, or one CI run's or pull request's checks, all
    finished); ``_LISTED`` for a CI listing showing a failed run; else None. A CI run is of
    kind ``ci``; one that passed as a whole also counts as the kinds its checks' names say."""
    if command and _CI_LIST.search(command):
        return (_LISTED, _CI) if _CI_FAILED.search(output) else None  # of no named check
    if command and _CI_ONE.search(command):
        if _CI_FAILED.search(output):
            return FAILED, _CI | _ci_kinds(output, _CI_FAILED_NAME)
        if _CI_RUNNING.search(output):
            return None
        return (OK, _CI | _ci_kinds(output)) if _CI_PASSED.search(output) else None
    if not _is_check(call, command):
        return None
    verdict = run_verdict(view, call)
    if verdict == OK:
        kinds = _passed_kinds(command, call)
        return (OK, kinds) if kinds else None  # no check's own success is proved
    if verdict == FAILED:
        return FAILED, _failed_kinds(view, order, call, command)
    return None


def _passed_kinds(command: str, call: Event) -> frozenset[str]:
    """The kinds of the checks whose own success a line that worked proves: each one the
    line's status vouches for (joined by ``&&`` to its end, not into a pipe unless
    ``pipefail``), and the last one piped into an output filter, whose output
    ``run_verdict`` read."""
    runs = invocations(command, call_cwd(call))
    pipefail = any(_sets_pipefail(inv.argv) for inv in runs)
    return frozenset(kind for inv in runs if inv.confirmed and (
        not inv.piped or pipefail or (inv is runs[-1] and inv.filtered))
        and (kind := _check_kind(inv)) is not None)


def _sets_pipefail(argv: tuple[str, ...]) -> bool:
    """``set -o pipefail`` (or ``set -euo pipefail``): the shell option itself, not the word
    in a file name or a quoted argument."""
    if not argv or argv[0] != "set":
        return False
    return any(word == "pipefail" and argv[index].startswith("-")
               and argv[index].endswith("o") for index, word in enumerate(argv[1:]))


def _failed_kinds(view: SessionView, order: int, call: Event,
                  command: str) -> frozenset[str]:
    """The kinds of check a line that failed failed at: the one its status or output shows
    stopped it (``lessons.check_runs``), else every check on it (any may have)."""
    stopped = frozenset(kind for run, outcome in check_runs(view, order, call)
                        if outcome == FAILED and (kind := _check_kind(run.invocation)))
    return stopped or frozenset(kind for inv in invocations(command, call_cwd(call))
                                if (kind := _check_kind(inv)) is not None)


def _check_kind(inv: Invocation) -> str | None:
    found = kind_of(inv.argv)
    return found[0] if found is not None and found[0] in _CHECKS else None


def _answers_one(failures: list[tuple[Event, frozenset[str]]], kinds: frozenset[str]) -> bool:
    """A pass of ``kinds`` answers one of the failures seen: the one the fix is proved for.
    A failure of another kind left open is not what this fix answered (a lint error met
    while the tests were being fixed); the person's word (no kind) any check answers."""
    return any(not _unanswered(failed, kinds) for _, failed in failures)


def _unanswered(needs: frozenset[str], kinds: frozenset[str]) -> frozenset[str]:
    """The kinds of failure a pass of ``kinds`` leaves open. A pass answers the failures of
    its own kinds. CI's failure (``ci``) is answered by CI passing, or by a local check
    passing once no kind CI's failed checks were named for stays open: CI that failed
    without saying which check (a failed run in a list) is answered by the local check run
    after the change, as an engineer would before pushing (a later CI failure refutes it);
    CI's failed build is answered only by a build."""
    left = frozenset(needs) - kinds
    if left == _CI and kinds & _CHECKS:
        return frozenset()
    return left


def _ci_kinds(output: str, names: Any = _CI_CHECK_NAME) -> frozenset[str]:
    """The kinds of check a CI run's passed (or, with ``_CI_FAILED_NAME``, failed) checks
    are named for ("lint", "unit tests", "mypy"), each name's words read through the one
    vocabulary."""
    kinds: set[str] = set()
    for match in names.finditer(output):
        name = match["check"] or match["job"] or ""
        for word in re.findall(r"[a-z][a-z0-9-]*", name.lower()):
            kind = _CI_WORDS.get(word) or _check_kind_of_word(word)
            if kind is not None:
                kinds.add(kind)
    return frozenset(kinds)


def _check_kind_of_word(word: str) -> str | None:
    found = kind_of((word,))
    return found[0] if found is not None and found[0] in _CHECKS else None


def _is_check(call: Event, command: str) -> bool:
    """Does the command run a check (a test, lint or build in the one command vocabulary,
    ``commands``), alone or chained with others (``ruff check && mypy && pytest``)? Running
    the program, installing or pushing proves no fix."""
    if not command:
        return False
    for run in invocations(command, call_cwd(call)):
        kind = kind_of(run.argv)
        if kind is not None and kind[0] in _CHECKS:
            return True
    return False


def _lesson(view: SessionView, fix: _Fix) -> dict[str, Any]:
    assert fix.passed is not None
    cause = fix.cause if fix.cause.endswith((".", "!")) else f"{fix.cause}."
    named = "" if fix.rewritten else f" ({fix.hash})"
    text = f"{cause} Fix{named}: {fix.what}"
    # the failure the proving pass answers: the first of its kinds, else the first seen
    first = next((event for event, kinds in fix.failures if kinds and kinds <= fix.proof),
                 fix.failure)
    failure = first.text if first.kind == "prompt" else command_text(first) or ""
    evidence = [transcript_evidence(first.line, failure),
                transcript_evidence(fix.commit.line, f"{fix.hash} fix: {fix.what}"),
                transcript_evidence(fix.passed.line, command_text(fix.passed) or "")]
    return candidate(RULE, view.project or "", LESSON, text, evidence=evidence,
                     object_kind="literal", subject_type="project",
                     at=fix.passed.timestamp)


#: Rules whose lessons are read from the record alone (the command, its error, what changed):
#: better grounded than a fix commit's message, which is the agent's account borne out.
_FROM_RECORD = frozenset({"lessons"})
#: Rules whose lessons are the agent's own prose, proved by the record like a fix commit's
#: message but said before the loop ended, not written down once it had.
_FROM_PROSE = frozenset({"causes"})
_CITED_LINE = lazy_regex(r"^transcript#L(?P<line>\d+):")


def one_lesson_per_failure(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One failure, one lesson. A fix commit's lesson spans a failure, the commit and a pass;
    another rule's lesson whose failure (its first citation) lies between that failure and
    that commit is about the same failure (for the record's lessons: when the failed
    commands are of one kind of check, ``_same_check``). The record's own lesson
    (``lessons``: every word of it read from tool output) is kept over the fix commit's; the
    fix commit's (the cause written down once the loop had ended) over the agent's earlier
    sentence (``causes``)."""
    windows = [(found, window) for found in candidates if found.get("rule") == RULE
               and found.get("predicate") == LESSON and (window := _window(found))]
    if not windows:
        return candidates
    dropped: set[int] = set()
    for found in candidates:
        if found.get("predicate") != LESSON or found.get("rule") == RULE:
            continue
        failed = _cited(found, 0)
        if failed is None:
            continue
        for fix, (start, end) in windows:
            if not start <= failed <= end:
                continue
            if found.get("rule") in _FROM_RECORD:
                if _same_check(fix, found):
                    dropped.add(id(fix))
            elif found.get("rule") in _FROM_PROSE:
                dropped.add(id(found))
    return [found for found in candidates if id(found) not in dropped]


def _same_check(fix: dict[str, Any], found: dict[str, Any]) -> bool:
    """Is the record's lesson about the fix's failure, as far as the failed commands tell?
    A lint failure met while the tests were being fixed is another failure with its own
    lesson. Unsure (a command of no known kind, a CI run, the person's word): the same."""
    kinds = [_cited_kinds(one) for one in (fix, found)]
    return not kinds[0] or not kinds[1] or bool(kinds[0] & kinds[1])


def _cited_kinds(found: dict[str, Any]) -> frozenset[str]:
    """The kinds of check of the command a lesson's first citation quotes."""
    evidence = found.get("evidence") or []
    quote = evidence[0].split(": ", 1)[1] if evidence and ": " in evidence[0] else ""
    return frozenset(kind for inv in invocations(quote)
                     if (kind := _check_kind(inv)) is not None)


def _window(found: dict[str, Any]) -> tuple[int, int] | None:
    """(the failure's line, the commit's line) a fix commit's lesson cites."""
    start, end = _cited(found, 0), _cited(found, 1)
    return (start, end) if start is not None and end is not None else None


def _cited(found: dict[str, Any], index: int) -> int | None:
    evidence = found.get("evidence") or []
    match = _CITED_LINE.match(evidence[index]) if len(evidence) > index else None
    return int(match["line"]) if match else None
