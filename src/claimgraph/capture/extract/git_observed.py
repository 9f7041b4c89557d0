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
from claimgraph.capture.extract.session import FAILED, OK, UNKNOWN, SessionView
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations, unwrap
from claimgraph.capture.extract.writes import session_ops
from claimgraph.capture.foreign_paths import as_posix
from claimgraph.logic import git_observed as go
from claimgraph.logic.git_state import EndState, Observation, positional_args
from claimgraph.logic.git_state import log_lines as gs_log_lines
from claimgraph.logic.git_state import pushes_in as gs_pushes_in

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
    return [(event, command, output) for event, command, output, failed
            in typed_lines(view) if not failed]


def typed_lines(view: SessionView) -> list[tuple[Event, str, str, bool]]:
    """(event, command, output, whether git printed an error) of each command the person
    typed at the prompt whose output shows."""
    found: list[tuple[Event, str, str, bool]] = []
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
            if pending[1]:
                found.append((pending[0], pending[1], output, bool(_FAILED.search(output))))
        pending = None
    return found


def proven_runs(runs: Sequence[Any], output: str) -> list[Any]:
    """Of a typed line git answered with an error, the commands whose own lines in its
    output say how each ended, whatever failed beside them: pushes (a ref line each,
    ``!`` for one refused), tag deletions ("Deleted tag"), and a tag made that a push on
    the line shows going up as new. The rest (a commit, a checkout, a tag no push shows)
    may be what failed: it proves nothing."""
    went_up = {update.dst.removeprefix("refs/tags/") for push in gs_pushes_in(output)
               for update in push.updates if update.tag and not update.rejected}
    kept = []
    for run in runs:
        args = list(run.words[2:])
        deleting = run.kind == "tag" and any(w in ("-d", "--delete") for w in args)
        named = [w for w in args if not w.startswith("-")]
        if run.kind == "push" or deleting or (
                run.kind == "tag" and len(named) == 1 and not any(
                    w.startswith("-") for w in args) and named[0] in went_up):
            kept.append(run)
    return kept


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


#: what may run beside a rebasing pull and the log after it (their lines are not a log's)
_AFTER_PULL = _BESIDE_LOG | {"pull", "pr_view"}


def _pulled_rebasing(runs: Sequence[Any]) -> bool:
    """The line ran ``git pull --rebase`` (or ``-r``) before its log."""
    kinds = [run.kind for run in runs]
    return "log" in kinds and any(
        run.kind == "pull" and any(w in ("-r", "--rebase") or (
            w.startswith("--rebase=") and w != "--rebase=false") for w in run.words[2:])
        for run in runs[:kinds.index("log")])


def note_runs(noted: dict[str, list[tuple[int, Sequence[Any], str]]], repo: str,
              runs: Sequence[Any], output: str, line: int) -> None:
    """Keep a line that worked and ran a log, a history rewrite, a tag or a push, for
    ``revise``."""
    if any(run.kind in ("log", "rewrite", "tag", "push", "pull") for run in runs):
        noted.setdefault(repo, []).append((line, runs, output))


def head_log(runs: Sequence[Any], output: str, line: int,
             beside: frozenset[str] = _BESIDE_LOG) -> go.HeadLog | None:
    """The line's one ``git log`` when it lists the history of the branch checked out, one
    commit a line (``--oneline``; no revision but ``X..HEAD`` / ``X..``, no path, no
    ``--all``), with nothing beside it but commands of the kinds ``beside``."""
    logs = [run for run in runs if run.kind == "log"]
    if len(logs) != 1 or any(run.kind not in beside for run in runs):
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
    return go.HeadLog(line, logs[0].cwd, listed, _limit(words)) if listed else None


def _limit(words: list[str]) -> int | None:
    """The most commits a log's words ask for (``-3``, ``-n 3``, ``--max-count=3``)."""
    for index, word in enumerate(words):
        if re.fullmatch(r"-\d+", word):
            return int(word[1:])
        if word.startswith("--max-count=") and word[12:].isdigit():
            return int(word[12:])
        if word in ("-n", "--max-count") and words[index + 1:index + 2] \
                and words[index + 1].isdigit():
            return int(words[index + 1])
    return None


#: ``git filter-repo`` / ``bfg`` words with which it rewrites nothing
_NOT_A_REWRITE = frozenset({"--version", "-h", "--help", "--analyze", "--dry-run"})


def tag_events(runs: Sequence[Any], output: str, line: int) -> list[tuple[int, int, str, str]]:
    """(line, order, tag, what) of what a line did to tags, in the order its commands ran:
    made, deleted (git's "Deleted tag"), pushed or deleted on the remote (the ref lines of
    the push whose block it is). Nothing when the line's push blocks cannot be told apart
    by push (not one block a push)."""
    blocks = gs_pushes_in(output)
    pushes = [run for run in runs if run.kind == "push"]
    if len(blocks) != len(pushes):
        return []
    deleted = re.findall(r"^Deleted tag '([^']+)'", output, re.M)
    found: list[tuple[int, int, str, str]] = []
    for run in runs:
        args = [w for w in run.words[2:]]
        if run.kind == "tag" and any(w in ("-d", "--delete") for w in args):
            found += [(line, len(found), name, "deleted") for name in args if name in deleted]
        elif run.kind == "tag":
            named = _tag_made(args)
            found += [(line, len(found), named, "created")] if named else []
        elif run.kind == "push":
            for update in blocks.pop(0).updates:
                if update.rejected:
                    continue
                name = update.dst.removeprefix("refs/tags/")
                if update.tag:
                    found.append((line, len(found), name, "pushed"))
                elif update.deleted and not update.src.startswith("refs/heads/"):
                    found.append((line, len(found), name, "deleted on the remote"))
    return found


def _tag_made(args: list[str]) -> str | None:
    """The tag ``git tag [-a|-s|-f] NAME [-m msg] [commit]`` makes (None: a listing, or a
    form this does not read)."""
    if any(w in ("-l", "--list", "-v", "--verify", "-n", "--contains", "--points-at")
           or w.startswith(("--sort", "--format", "--merged", "--no-")) for w in args):
        return None
    named = positional_args(args, ("-m", "--message", "-F", "--file", "-u"))
    return named[0] if named else None


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
    go.add_listed_below(state, logs, observations)
    go.rebased_in_log(state, [log for line, runs, output in noted if _pulled_rebasing(runs)
                              and (log := head_log(runs, output, line, _AFTER_PULL))],
                      observations)
    rewrites = {line: made for line, runs, _ in noted if (made := rewrite_of(runs))
                and any(seen.line == line and seen.rewrote for seen in observations)}
    go.forced_after_rewrite(state, observations, rewrites)
    go.unseen_commits(state, _unseen_commits(view), observations)
    go.retell_tags(state, [event for line, runs, output in noted
                           for event in tag_events(runs, output, line)])
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
    commit went through and the push failed, which fails the whole line. Read once per
    view: ``revise`` asks for it in every repository, and a long session works in many (a
    scan of every call per repository grew with the square of the session's length)."""
    def compute(view: SessionView) -> int:
        lines = [call.line for call in view.calls()
                 if _TAKES_EDITS.search(command_text(call) or "")
                 and (view.outcome(call) != FAILED or _committed(view, call))]
        lines += [event.line for event, command, _ in typed_commands(view)
                  if _TAKES_EDITS.search(command)]
        return max(lines, default=-1)
    last: int = view.remembered("git_observed.last_tried", compute)
    return last


#: a git command line that commits
_COMMITS = re.compile(r"\bgit\b[^\n|;&]*?\bcommit\b")


def _unseen_commits(view: SessionView) -> list[tuple[int, str | None]]:
    """(line, folder) of the session's last ``git commit`` when its outcome never showed:
    no result (the session ended on it) or one that says nothing of how it ended. A later
    attempt, whatever its outcome, leaves the record telling more than this one."""
    def compute(view: SessionView) -> list[tuple[int, str | None]]:
        commits = [call for call in view.calls() if _COMMITS.search(command_text(call) or "")]
        typed = [event.line for event, command, _, _ in typed_lines(view)
                 if _COMMITS.search(command)]
        if not commits or any(line > commits[-1].line for line in typed):
            return []
        call = commits[-1]
        result = view.results.get(call.call_id or "")
        if result is None or (view.outcome(call) == UNKNOWN and not view.refused(result)
                              and not _committed(view, call)):
            return [(call.line, _commit_cwd(command_text(call) or "",
                                            call_cwd(call) or view.root))]
        return []
    return view.remembered("git_observed.unseen_commits", compute)


def _commit_cwd(command: str, cwd: str | None) -> str | None:
    """The folder the line's ``git commit`` ran in, as far as ``cd`` tells."""
    for run in invocations(command, cwd):
        words = unwrap(run.argv)
        if words[:1] == ("git",) and "commit" in words:
            return run.cwd
    return cwd


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
