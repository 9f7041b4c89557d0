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
  is not the one the commands left, the fact says nothing of the branch checked out.
"""

from __future__ import annotations

import html
import posixpath
import re
from typing import Any

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import FAILED, OK, SessionView
from claimgraph.capture.extract.shell import command_text
from claimgraph.capture.extract.writes import session_ops
from claimgraph.capture.foreign_paths import as_posix
from claimgraph.logic import git_observed as go
from claimgraph.logic.git_state import EndState, Observation

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


def revise(view: SessionView, repo: str, state: EndState, observations: list[Observation],
           statuses: list[tuple[int, str]]) -> None:
    """Change ``state`` by what git printed last (``logic/git_observed.revise``)."""
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
