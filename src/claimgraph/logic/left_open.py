"""What a session left not working, or put out for others, as its own record shows it (issue 22:
the session's end state decides what was true).

Two end states of the *work* (git's are ``git_state``'s) are read here, each only from tool
outcomes, never from the agent's prose:

- **left failing**: a check (a test, lint or build run) whose last run in the session failed
  and that nothing later shows passing. A later run of the same check that passed, or whose
  outcome is unknown, or any later run of the same kind that may include it, settles it the
  other way or leaves it unknown: no fact. A run that never started for want of the
  environment (a program or module missing, a refused credential, the network) says nothing
  of the code and blocks the fact too: the record cannot tell what the check would say.
- **published**: a package registry's own output that a version went out (``+ name@1.2.0``
  from ``npm publish``, cargo's ``Published name v0.3.1``, PyPI's ``View at:`` page of the
  version). A registry's version is for good (npm will not take it again even once
  unpublished), and the next release starts from it. A GitHub release is not read: it is done
  once made, like a pushed commit on the main line, and says nothing left to act on.

Both are states at the session's end (``x/state``: one value per subject, so a later session's
state of the same check or package replaces it). This module is pure: the runs and outputs
come from ``capture/extract/left_open.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from claimgraph.logic.terminal import without_escapes

PASSED, FAILED, UNKNOWN = "passed", "failed", "unknown"
#: The kind of a command that may be a check no vocabulary names: it only ever blocks a fact.
ANY = "any"
#: The kind of a command that moved the checkout under every check (another branch, edits
#: thrown away, a pull): what failed before it is no longer the code there. It blocks a fact.
MOVED = "moved"


@dataclass(frozen=True)
class CheckRun:
    """One run of a check: its ``runner`` (what identifies the check: ``pytest``,
    ``pnpm test``, a test script's path), its ``kind`` (test, lint, build), where it ran
    (``repo``), its order in the session, its outcome, the words as typed (``form``), the
    transcript line and the runner's own summary of a failure (``1 failed, 9 passed``)."""

    runner: str
    kind: str
    repo: str
    order: int
    outcome: str
    form: str
    line: int
    summary: str | None = None
    script: bool = False
    at: int | None = None  # the run's time, in ms


def left_failing(runs: Sequence[CheckRun]) -> list[CheckRun]:
    """The runs that are the last word on their check and failed, in session order: no later
    run of the same check, nor of a check of the same kind that may include it (any run of a
    known runner: ``pytest`` after ``pytest tests/a.py``, ``npm test`` after ``vitest run``),
    nor a command that may be a check unknown to the vocabulary, passed or ended unknown. Two
    test scripts by path are two checks."""
    left = []
    for index, run in enumerate(runs):
        if run.outcome != FAILED:
            continue
        if any(_covers(later, run) for later in runs[index + 1:]):
            continue
        left.append(run)
    return left


def summarized(runs: Sequence[CheckRun], run: CheckRun) -> CheckRun:
    """``run`` with the count of the last earlier run of its check that printed one, when
    every run of that check between them failed too and was typed the same (a rerun through
    ``grep FAIL`` shows the failures, not the count; another selection, ``pytest`` then
    ``pytest tests/a.py``, counts other tests)."""
    if run.summary:
        return run
    for earlier in reversed([r for r in runs if r.order < run.order and r.repo == run.repo
                             and r.runner == run.runner]):
        if earlier.outcome != FAILED or earlier.form != run.form:
            return run
        if earlier.summary:
            return replace(run, summary=earlier.summary)
    return run


def _covers(later: CheckRun, failed: CheckRun) -> bool:
    """``later`` speaks to ``failed``'s check: run after it on the same check, or on one of
    the same kind anywhere in the project that may include it (a run from a package's folder
    may be the same suite), or a command that may be a check the vocabulary does not know
    (kind ``ANY``: ``pnpm run test:cart``), or a command that moved the checkout under it
    (kind ``MOVED``: ``git checkout main``, ``git stash``)."""
    if later.kind not in (failed.kind, ANY, MOVED):
        return False
    if later.runner == failed.runner and later.repo == failed.repo:
        return True
    return not (later.script and failed.script)


def last_passing(runs: Sequence[CheckRun]) -> list[CheckRun]:
    """The runs that passed and are their check's last run: a state that replaces a failing
    one stored by an earlier session, and is written only then (a finished state)."""
    last: dict[tuple[str, str], CheckRun] = {}
    for run in runs:
        last[(run.repo, run.runner)] = run
    return [run for run in last.values() if run.outcome == PASSED]


#: A runner's own count of what failed (``2 failed, 31 passed``, ``Tests: 1 failed``,
#: ``Failed: 2``, ``3 failing``, ``Found 2 errors``, ``test result: FAILED``, ``2 targets
#: failed``).
_COUNT = re.compile(
    r"\b[1-9]\d* (?:failed|failing|failures?|errors?)\b|\bFailed: *[1-9]\d*\b|"
    r"\btest result: FAILED\b|\bFound [1-9]\d* errors?\b|\bTests?:.*\b[1-9]\d* failed\b|"
    r"\b[1-9]\d* targets? failed\b",  # cargo's count of test binaries, ``--no-fail-fast``
    re.IGNORECASE)
#: A test runner's mark of one test failing (``FAIL src/a.test.ts``, ``--- FAIL: TestX``,
#: ``FAILED tests/x.py::test_y``, ``... FAIL``): upper case, its own word.
_FAIL_MARK = re.compile(r"(?:^|\s|\.\.\.\s*)(?:---\s)?FAIL(?:ED)?\b(?!:?\s*0\b)", re.MULTILINE)
#: What a runner prints when everything passed (``5 passed in 0.3s``, ``0 failed``,
#: ``All checks passed!``, ``test result: ok.``, ``Tests: 12 passed, 12 total``).
_ALL_PASSED = re.compile(
    r"^=+ \d+ passed\b(?:(?!failed|error).)*=+$|\b0 (?:failed|failures|errors)\b|"
    r"^All checks passed!$|^test result: ok\.|^Success: no issues found|"
    r"^Tests?:\s+\d+ passed, \d+ total$|^Failed:\s*0$",
    re.MULTILINE | re.IGNORECASE)
_MAX_SUMMARY = 160


def output_outcome(output: str) -> str:
    """What a run's output says when its exit status does not (a pipe into ``tail`` or
    ``grep`` hid it): FAILED when the runner counted a failure or marked a test failing,
    PASSED when it said all passed and nothing failed, else UNKNOWN."""
    text = without_escapes(output or "")
    if _COUNT.search(text) or _FAIL_MARK.search(text):
        return FAILED
    return PASSED if _ALL_PASSED.search(text) else UNKNOWN


#: A runner's line naming one failing test: cargo's ``test a::b ... FAILED``, pytest's
#: ``FAILED tests/x.py::test_y``, Go's ``--- FAIL: TestX``.
_FAILING_TEST = re.compile(r"^test (\S+) \.\.\. FAILED$|^FAILED (\S+)|^--- FAIL: (\S+)",
                           re.MULTILINE)
_MAX_NAMED = 3


def failure_summary(output: str) -> str | None:
    """The runner's last line counting a failure (``4 failed, 31 passed in 0.8s``), trimmed
    of its banner; else the tests it marked failing (``failing: a::b``), when the output was
    cut before its count; else None."""
    text = without_escapes(output or "")
    found = None
    for line in text.splitlines():
        if _COUNT.search(line):
            found = line
    if found is None:
        names = list(dict.fromkeys(next(name for name in match.groups() if name)
                                   for match in _FAILING_TEST.finditer(text)))
        if not names:
            return None
        more = f" and {len(names) - _MAX_NAMED} more" if len(names) > _MAX_NAMED else ""
        found = "failing: " + ", ".join(names[:_MAX_NAMED]) + more
    found = " ".join(found.strip(" =-*|\t").split())
    return found if len(found) <= _MAX_SUMMARY else None


#: What says the check could not run here for want of the environment, not of the code: a
#: module or program missing, the network, a refused credential, a browser or Docker daemon.
_ENVIRONMENT = re.compile(
    r"no module named|cannot find module|module not found|command not found|"
    r"could not resolve host|name or service not known|network is unreachable|"
    r"connection refused|getaddrinfo|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|"
    r"\b(?:401|403) (?:unauthorized|forbidden)\b|authentication (?:failed|required)|"
    r"no space left on device|"
    # a browser a test runner drives, or the Docker daemon tests start containers with
    r"executable doesn'?t exist at|playwright install\b|cannot connect to the docker daemon",
    re.IGNORECASE)


def for_want_of_environment(output: str) -> bool:
    """The failure's output says the check could not run here, or failed for want of what
    the machine lacks (``_ENVIRONMENT``: a module not installed, the network, a credential):
    then it says nothing of the code."""
    return bool(_ENVIRONMENT.search(without_escapes(output or "")))


def tests_ran(output: str) -> bool:
    """The runner counted or marked its own results: the check ran, whatever else it printed."""
    text = without_escapes(output or "")
    return bool(_COUNT.search(text) or _FAIL_MARK.search(text))


#: The person telling the agent a failing check does not matter (now or known before).
_IGNORE = re.compile(
    r"\b(?:ignore|skip|disregard|don'?t (?:worry|care) about|do not (?:worry|care) about|"
    r"never ?mind)\b[^.?!\n]{0,60}\b(?:tests?|lint|linter|build|checks?|failures?|failing|"
    r"errors?|ci)\b|"
    r"\b(?:tests?|lint|build|checks?|failures?|errors?)\b[^.?!\n]{0,60}"
    r"\b(?:pre-?existing|already (?:fail|broken)|known (?:issue|failure|to fail)|flaky|"
    r"unrelated|not (?:our|your) (?:problem|concern))",
    re.IGNORECASE)


def told_to_ignore(texts: Iterable[str]) -> bool:
    """Whether any of the person's messages says a failing check is to be ignored, is known
    to fail, flaky or unrelated: then its failure is no state to hand on."""
    return any(_IGNORE.search(text) for text in texts)


def describe_failing(run: CheckRun, date: str | None, changed_after: bool) -> str:
    """The fact's words: a state seen at the session's end, with what the record showed."""
    what = f" ({run.summary})" if run.summary else ""
    after = ("; files were changed after it and it was not run again" if changed_after
             else "; it was not run again")
    return (f"Left failing at the end of the session{_of(date)}: the last run of "
            f"`{run.form}` failed{what}{after}")


def describe_passing(run: CheckRun, date: str | None) -> str:
    """The words of a finished state: what ends a failing state an earlier session stored,
    naming the run as typed (a narrower run says so by its words)."""
    return f"Passing at the end of the session{_of(date)}: the last run of `{run.form}` passed"


def _of(date: str | None) -> str:
    """" of <date>" when the record dates the session, else nothing."""
    return f" of {date}" if date else ""


@dataclass(frozen=True)
class Published:
    """A version or release the output shows went out: where (``registry``), what."""

    registry: str
    name: str
    version: str
    detail: str = ""


_NPM_ADDED = re.compile(r"^\+ (?P<name>(?:@[\w.-]+/)?[\w.-]+)@(?P<version>\d[\w.+-]*)\s*$",
                        re.MULTILINE)
_NPM_TAG = re.compile(r"\bPublishing to (?P<where>\S+) with tag (?P<tag>\S+)")
#: npm's registry, named as people name it; any other is named by its host.
_NPM_REGISTRY = "registry.npmjs.org"
#: A registry on the machine itself (a local verdaccio): a rehearsal, gone with the machine.
_LOOPBACK = re.compile(r"^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\])(?::\d+)?$")
#: A rehearsal the output owns up to (``dry-run=true`` in an .npmrc, no flag typed).
_REHEARSAL = re.compile(r"\(dry-run\)|\bdry run\b", re.IGNORECASE)
_CARGO_PUBLISHED = re.compile(
    r"^\s*Published (?P<name>[\w-]+) v(?P<version>\d[\w.+-]*) at registry `(?P<reg>[^`]+)`",
    re.MULTILINE)
_PYPI_PAGE = re.compile(
    r"View at:\s*\n\s*https://(?P<host>(?:test\.)?pypi\.org)/project/(?P<name>[^/\s]+)/"
    r"(?P<version>[^/\s]+)/?\s*$", re.MULTILINE)
_NODE_PUBLISHERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_PYPI_PUBLISHERS = frozenset({"twine", "uv", "poetry", "flit", "hatch", "pdm"})
#: Runners that fetch and run a publisher (``uvx twine upload``, ``npx pnpm publish``).
_FETCHING = frozenset({"uvx", "pipx", "npx", "bunx", "pnpx"})
#: A publish that only rehearses.
_NOT_OUT = frozenset({"--dry-run", "-n"})


def published(argv: Sequence[str], output: str) -> Published | None:
    """What went out by one command that worked, read from the output its registry printed
    (the module docstring); None for a rehearsal or anything else."""
    words = list(argv)
    if words[:1] and words[0] in _FETCHING or words[:2] == ["pipx", "run"]:
        words = words[2:] if words[:2] == ["pipx", "run"] else words[1:]
    if not words or _NOT_OUT & set(words):
        return None
    text = without_escapes(output or "")
    if _REHEARSAL.search(text):
        return None
    program = words[0]
    if program in _NODE_PUBLISHERS and "publish" in words[1:3]:
        found = _NPM_ADDED.search(text)
        tag = _NPM_TAG.search(text)
        registry = _npm_registry(words, tag["where"] if tag else None)
        if found and registry:
            return Published(registry, found["name"], found["version"],
                             f"with tag {tag['tag']}" if tag else "")
    if program == "cargo" and words[1:2] == ["publish"]:
        found = _CARGO_PUBLISHED.search(text)
        if found:
            return Published(found["reg"], found["name"], found["version"])
    if program in _PYPI_PUBLISHERS and ("upload" in words[1:3] or "publish" in words[1:3]):
        found = _PYPI_PAGE.search(text)
        if found:
            return Published(found["host"], found["name"], found["version"])
    return None


def _npm_registry(words: Sequence[str], announced: str | None) -> str | None:
    """Where a node publish went: the registry npm announced (``Publishing to <url>``), else
    the one typed (``--registry <url>``); ``npm`` for npm's own, the host for another. None
    when neither says (an .npmrc or ``publishConfig`` may name any registry), or for one on
    this machine."""
    where = announced
    for flag, value in zip(words, [*words[1:], ""]):
        if flag.startswith("--registry="):
            where = where or flag.partition("=")[2]
        elif flag == "--registry":
            where = where or value
    host = where.split("://", 1)[-1].split("/", 1)[0].lower() if where else ""
    if not host or _LOOPBACK.match(host):
        return None
    return "npm" if host == _NPM_REGISTRY else host


def describe_published(item: Published, date: str | None) -> tuple[str, str]:
    """(subject, words) of a published state: the package on its registry."""
    extra = f" {item.detail}" if item.detail else ""
    return (f"{item.name} on {item.registry}",
            f"Version {item.version} of {item.name} was published to {item.registry}{extra} "
            f"in the session{_of(date)}")


__all__ = ["ANY", "CheckRun", "FAILED", "MOVED", "PASSED", "Published", "UNKNOWN",
           "describe_failing", "describe_passing", "describe_published", "failure_summary",
           "for_want_of_environment", "last_passing", "left_failing", "output_outcome",
           "published", "summarized", "tests_ran", "told_to_ignore"]
