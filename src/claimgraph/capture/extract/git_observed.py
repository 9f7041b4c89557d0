"""What git printed last, beside the tally of the session's own git commands (issue 22).

``git_state`` reads the agent's git commands. This module adds what else the record shows
git saying (``logic/git_observed.py`` decides what it changes):

- commands the person typed at the prompt (Claude Code's ``!`` shell: a ``<bash-input>``
  message, its output in the ``<bash-stdout>`` / ``<bash-stderr>`` message after it): read
  like the agent's own, as git printed them; one whose output carries git's ``error:`` or
  ``fatal:`` proves nothing, as a failed call does;
- the statuses of every command that worked: the last one that showed a branch ahead of or
  diverged from its upstream decides whether its commits went up;
- the session's edits of the project's files after its last commit, unless a later status
  showed a clean tree or a later commit (a stash, a restore) may have taken them, its
  outcome unseen;
- the branch the harness recorded checked out on the session's last event (Claude Code
  reads it from git for every message it writes), in the project's own checkout: when it
  is not the one the commands left, the fact says nothing of the branch checked out;
- the one-line logs of the branch checked out (commits a sub-agent made show only there)
  and the history rewrites (``git filter-repo``, whose paths it removed) a forced push
  followed.
"""

from __future__ import annotations

import dataclasses
import html
import posixpath
import re
from typing import Any, Sequence

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import FAILED, OK, SessionView
from claimgraph.capture.extract.shell import command_text
from claimgraph.capture.extract.writes import session_ops
from claimgraph.capture.foreign_paths import as_posix
from claimgraph.logic import git_observed as go
from claimgraph.logic.git_state import EndState, Observation
from claimgraph.logic.git_state import log_lines as gs_log_lines

_INPUT = re.compile(r"^\s*<bash-input>(?P<command>.*?)</bash-input>", re.S)
_OUT = re.compile(r"<bash-(?:stdout|stderr)>(?P<text>.*?)</bash-(?:stdout|stderr)>", re.S)
_FAILED = re.compile(r"^(?:error|fatal):", re.M)
#: git's summary line of a commit it made: ``[branch abc1234] subject``
_COMMIT_MADE = re.compile(r"^\[[^\]\s]+(?: \([^)\n]*\))? [0-9a-f]{7,40}\] ", re.M)
#: folders of the agent's own notes inside a project, never the project's work
_HARNESS_DIRS = (".claude/", ".codex/", ".gemini/")


def typed_commands(view: SessionView) -> list[tuple[Event, str, str]]:
    """(event, command, output) of each command the person typed at the prompt whose
    output shows and carries no error of git's."""
    found: list[tuple[Event, str, str]] = []
    pending: tuple[Event, str] | None = None
    for event in view.transcript.events:
        if event.kind not in ("meta", "prompt"):
            continue
        typed = _INPUT.match(event.text)
        if typed:
            pending = (event, html.unescape(typed["command"]).strip())
            continue
        outputs = _OUT.findall(event.text) if pending else []
        if pending and outputs:
            output = html.unescape("\n".join(outputs))
            if pending[1] and not _FAILED.search(output):
                found.append((pending[0], pending[1], output))
        pending = None
    return found


def note_status(statuses: dict[str, list[tuple[int, str]]], repo: str, kinds: list[str],
                output: str, line: int) -> None:
    """Keep the output of a line that ran one ``git status`` (with other commands or not)."""
    if kinds.count("status") == 1:
        statuses.setdefault(repo, []).append((line, output))


#: ``git log`` flags that keep it a one-line listing of HEAD's own history, newest first
_LOG_PLAIN = re.compile(r"^(?:--oneline|--pretty=oneline|--format=oneline|-\d+|-n|--max-count"
                        r"(?:=\d+)?|--(?:no-)?decorate|--abbrev-commit|--no-color|"
                        r"--color=never|--first-parent)$")
#: what may run beside that log on the line without printing lines like its own
_BESIDE_LOG = frozenset({"log", "push", "status"})


def note_runs(noted: dict[str, list[tuple[int, Sequence[Any], str]]], repo: str,
              runs: Sequence[Any], output: str, line: int) -> None:
    """Keep a line that worked and ran a log or a history rewrite, for ``revise``."""
    if any(run.kind in ("log", "rewrite") for run in runs):
        noted.setdefault(repo, []).append((line, runs, output))


def head_log(runs: Sequence[Any], output: str, line: int) -> go.HeadLog | None:
    """The line's one ``git log`` when it lists the history of the branch checked out, one
    commit a line (``--oneline``; no revision but ``X..HEAD`` / ``X..``, no path, no
    ``--all``), with nothing beside it that prints such lines."""
    logs = [run for run in runs if run.kind == "log"]
    if len(logs) != 1 or any(run.kind not in _BESIDE_LOG for run in runs):
        return None
    words = list(logs[0].words[2:])
    if not any(w in ("--oneline", "--pretty=oneline", "--format=oneline") for w in words):
        return None
    named = [w for i, w in enumerate(words) if not w.startswith("-")
             and not (i and words[i - 1] in ("-n", "--max-count"))]
    plain = [w for w in words if w.startswith("-")]
    if not all(_LOG_PLAIN.match(w) for w in plain) or len(named) > 1 or any(
            not (re.fullmatch(r"\d+", w) or w == "HEAD" or re.fullmatch(r"[^.\s]+\.\.(?:HEAD)?", w))
            for w in named):
        return None
    listed = tuple(gs_log_lines(output))
    return go.HeadLog(line, logs[0].cwd, listed) if listed else None


#: ``git filter-repo`` / ``bfg`` words with which it rewrites nothing
_NOT_A_REWRITE = frozenset({"--version", "-h", "--help", "--analyze", "--dry-run"})


def rewrite_of(runs: Sequence[Any]) -> str | None:
    """What a line's whole-history rewrite was (``git filter-repo``, ``bfg``), with the
    paths ``--invert-paths`` removed from every commit (None: the line ran none)."""
    for run in runs:
        if run.kind != "rewrite":
            continue
        words = list(run.words)
        if any(w in _NOT_A_REWRITE for w in words):
            continue
        tool = f"`git {words[1]}`" if words[1] != "bfg" else "`bfg`"
        paths = [value for flag, value in zip(words, words[1:]) if flag == "--path"]
        if "--invert-paths" in words and paths:
            named = ", ".join(f"`{p}`" for p in paths[:4]) + (
                f" and {len(paths) - 4} more" if len(paths) > 4 else "")
            return f"{tool} removing {named} from every commit"
        return tool
    return None


def revise(view: SessionView, repo: str, state: EndState, observations: list[Observation],
           statuses: list[tuple[int, str]],
           noted: Sequence[tuple[int, Sequence[Any], str]] = ()) -> None:
    """Change ``state`` by what git printed last (``logic/git_observed.revise``)."""
    places = {seen.line: seen.place for seen in observations}
    logs = [dataclasses.replace(found, place=places.get(line, found.place))
            for line, runs, output in noted if (found := head_log(runs, output, line))]
    go.add_logged(state, logs, observations)
    rewrites = {line: made for line, runs, _ in noted if (made := rewrite_of(runs))
                and any(seen.line == line and seen.rewrote for seen in observations)}
    go.forced_after_rewrite(state, observations, rewrites)
    upstreams = [u for line, text in statuses if (u := go.upstream_in(text, line))]
    clean = [line for line, text in statuses if go.clean_in(text)]
    in_root = repo == view.root
    worked_in = [seen.place for seen in observations if seen.commits or seen.pushes]
    at_root = in_root and (not worked_in or _same(worked_in[-1], view.root))
    go.revise(state, upstreams, _edits(view) if in_root else [], clean,
              _end_branch(view) if at_root else None, _last_tried(view))


#: a git command that may commit the edits or set them aside
_TAKES_EDITS = re.compile(r"\bgit\b[^\n|;&]*?\b(?:commit|stash|restore|reset|checkout|am)\b")


def _last_tried(view: SessionView) -> int:
    """The last line of a git command that may have taken the edits away from the working
    tree and did not fail: its outcome may never show (the session ended), and then the
    record cannot tell whether they were left uncommitted. A call that failed counts when
    its output shows git's summary of a new commit: in ``git commit … && git push`` the
    commit went through and the push failed, which fails the whole line."""
    lines = [call.line for call in view.calls()
             if _TAKES_EDITS.search(command_text(call) or "")
             and (view.outcome(call) != FAILED or _committed(view, call))]
    lines += [event.line for event, command, _ in typed_commands(view)
              if _TAKES_EDITS.search(command)]
    return max(lines, default=-1)


def _committed(view: SessionView, call: Event) -> bool:
    """The call's output holds git's line for a commit it made (``[main 4ade307] subject``)."""
    result = view.results.get(call.call_id or "")
    return result is not None and bool(_COMMIT_MADE.search(result.text or ""))


def _edits(view: SessionView) -> list[tuple[int, str]]:
    """(line, path in the project) of every edit or write of the project's files that
    worked, in order; the harness's own notes under the project are not its work."""
    def compute(view: SessionView) -> list[tuple[int, str]]:
        found = []
        for call, outcome, ops in session_ops(view):
            if outcome != OK:
                continue
            for op in ops:
                if op.kind == "delete":
                    continue
                path = view.relative(op.path)
                if path and path != "." and not path.startswith(("../", *_HARNESS_DIRS)):
                    found.append((call.line, path))
        return found
    return view.remembered("git_observed.edits", compute)


def _end_branch(view: SessionView) -> str | None:
    """The branch Claude Code recorded checked out on the session's last event in the
    project's root (None: another harness, a detached HEAD, or a last event elsewhere)."""
    last: Any = next((e for e in reversed(view.transcript.events)
                      if e.git_branch and e.cwd), None)
    if last is None or last.agent != "claude-code" or not _same(last.cwd, view.root):
        return None
    return None if last.git_branch == "HEAD" else last.git_branch


def _same(folder: str | None, root: str | None) -> bool:
    """The same folder, as recorded (a Windows path in its POSIX form)."""
    return bool(folder and root) and posixpath.normpath(as_posix(folder or "")) == root
