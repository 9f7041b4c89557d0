"""What git took back of commits the session knows: ``git revert`` and ``git reset --hard``.

git-revert(1): "Given one or more existing commits, revert the changes that the related
patches introduce, and record some new commits that record them" -- the commit's diff
applied the other way round; with ``-n`` / ``--no-commit`` the same change is left in the
tree and index, uncommitted. git-reset(1): ``--hard`` "Resets the index and working tree.
Any changes to tracked files in the working tree since <commit> are discarded": a reset to
``HEAD~1`` (``HEAD^``, ``@~1``) moves the branch back past the last commit and makes the
tree match, so that commit's changes are gone; ``--soft`` and ``--mixed`` leave the tree;
``--keep`` and ``--merge`` move it with the branch but keep its uncommitted changes. A change
a ``revert -n`` left uncommitted that git throws away (``reset --hard``, ``revert --abort``)
puts the commit's text back.

A commit that modified a file names no file in git's summary (only its ``create mode`` /
``delete mode`` lines do), so what a commit changed is what the session knows of it:

- the session's own changes it took in: an edit or write of a file after the last commit,
  staged by a ``git add`` naming the file (or ``.``, ``-A``, ``-u``) or by ``commit -a`` /
  ``commit <paths>`` at or after the change (a change made after its file's last staging
  stays in the tree, uncommitted);
- the diff git printed for that commit (``git show <hash>``, ``git log -p``): its hunks.

What git took back is handed on as changes of the files at the line of the revert or reset
(each edit the other way round, a file the commit created written empty, a rewrite written
back to the text before it when that is known), so the stages that carry each file's text
through the session (``undone``, ``reconcile``) judge it as any other edit: a take-back that
does not fit the text last seen leaves the file unknown, and unknown keeps what was said.

What cannot be followed takes nothing back: ``HEAD~N`` counted across a pull, merge, rebase,
branch switch, a rewrite or a git command whose outcome never showed, or over a commit made
from another folder than the revert's (a nested repository looks alike); a revision named by
a branch, a tag or a range; a merge commit (``-m``); a command in another repository (``-C``
elsewhere, ``--git-dir``, ``--work-tree``).

The walk is pure logic over the session's looks and its git commands (``timeline``), read
from the view by ``taken_back``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from claimgraph.capture.extract.actions import of_kind
from claimgraph.capture.extract.git_state import git_run
from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.shell import call_cwd, invocations, unwrap
from claimgraph.capture.extract.tools import DELEGATES, SHELL
from claimgraph.logic import git_state as gs
from claimgraph.logic.lazy_regex import lazy_regex

#: ``HEAD``, ``@``, ``HEAD~2``, ``HEAD^``, ``HEAD^^``, ``@~`` (first parents only).
_RELATIVE = lazy_regex(r"^(?:HEAD|@)(?P<steps>(?:~\d*|\^1?)*)$")
_HASH = lazy_regex(r"^[0-9a-f]{7,40}$")
#: A diff git printed for one commit: ``commit <hash>`` then its ``diff --git`` sections.
_COMMIT_HEADER = lazy_regex(r"^commit (?P<hash>[0-9a-f]{7,40})\b.*$", re.MULTILINE)
_DIFF_FILE = lazy_regex(r"^diff --git a/(?P<old>\S+) b/(?P<new>\S+)$", re.MULTILINE)
_HUNK = lazy_regex(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
#: Git's summary line for a file a commit added.
_CREATE_MODE = lazy_regex(r"^\s*create mode \d{6} (?P<path>\S[^\n]*)$", re.MULTILINE)
#: Short options of ``git commit`` that take the next word (or the rest of the cluster).
_COMMIT_VALUE_LETTERS = frozenset("mFCcSt")
#: Git options before the verb that point it at another repository.
_ELSEWHERE_FLAGS = ("--git-dir", "--work-tree")
#: Git commands that move HEAD in a way the walk does not follow.
_UNFOLLOWED = frozenset({"rebase", "pull", "merge", "rewrite"})
#: Git commands that move HEAD or the tree's committed state: one a subagent ran may have
#: moved the branch under the session (a subagent's lines are numbered in its own file).
_MOVES_HEAD = frozenset({"commit", "revert", "reset", "cherry-pick", "am", "checkout",
                         "switch", "stash"}) | _UNFOLLOWED
#: The verb of the step a task handed to a subagent that moved HEAD stands for.
_HANDED_OVER = "subagent"
#: Options of ``git revert`` that take the next word.
_REVERT_VALUES = frozenset({"-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option",
                            "--gpg-sign", "--cleanup"})


@dataclass(frozen=True)
class Change:
    """One change of one file: an edit (``old`` replaced by ``new``) or a write of ``new``
    over ``old`` (None: the text before is unknown; "" when the write created the file)."""

    path: str
    kind: str
    old: str | None
    new: str


@dataclass
class _Commit:
    hash: str | None
    changes: list[Change]
    #: the folder git made it from (``GitStep.prefix``): a nested repository looks alike
    place: str = ""


@dataclass
class _Pending:
    change: Change
    staged: bool = False
    #: a change a ``revert -n`` left in the tree (noted as taken back): git throwing it away
    #: puts the commit's text back
    reverted: bool = False


@dataclass
class _Walk:
    """The state of the walk: the branch's commits the walk followed (newest last), whether
    something unfollowed moved HEAD before them, every commit known by hash, the changes not
    yet committed, and each file's text as last seen."""

    head: list[_Commit] = field(default_factory=list)
    barrier: bool = False
    known: list[_Commit] = field(default_factory=list)
    pending: list[_Pending] = field(default_factory=list)
    stashed: list[list[_Pending]] = field(default_factory=list)
    text: dict[str, str | None] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    taken: list[tuple[str, int, str, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class GitStep:
    """One git command of the session, as the walk reads it: its words from the verb on, the
    lines its output showed, and whether it ran here and worked."""

    line: int
    words: tuple[str, ...]
    output: str
    worked: bool
    here: bool
    #: where it ran, from the project's root ("" at the root): pathspecs are relative to it
    prefix: str = ""


def timeline(looks: Mapping[str, Sequence[Any]], steps: Sequence[GitStep]
             ) -> list[tuple[str, int, str, str, str]]:
    """(path, line, kind, old, new) of each change git took back (module docstring): an
    ``edit`` of ``old`` into ``new``, or a ``write`` of ``new``."""
    walk = _Walk()
    events: list[tuple[int, int, Any]] = []
    for path, changes in looks.items():
        for look in changes:
            events.append((look.line, 0, (path, look)))
    events += [(step.line, 1, step) for step in steps]
    for _line, order, item in sorted(events, key=lambda event: (event[0], event[1])):
        if order == 0:
            _look(walk, *item)
        else:
            _step(walk, item)
    return walk.taken


def _look(walk: _Walk, path: str, look: Any) -> None:
    kind, new = look.kind, look.new
    before = walk.text.get(path)
    if kind == "read":
        walk.text[path] = new
        walk.seen.add(path)
        return
    if kind == "write":
        old = before if path in walk.seen else None  # new, or a file never seen
        walk.text[path] = new
        walk.pending.append(_Pending(Change(path, "write", old, new)))
    else:
        walk.text[path] = _applied(before, look.old, new)
        walk.pending.append(_Pending(Change(path, "edit", look.old, new)))
    walk.seen.add(path)


def _applied(text: str | None, old: str, new: str) -> str | None:
    if text is None or not old:
        return None
    if old in text:
        return text.replace(old, new, 1)
    trimmed = old.strip("\n")
    return text.replace(trimmed, new.strip("\n"), 1) if trimmed and trimmed in text else None


def _step(walk: _Walk, step: GitStep) -> None:
    verb, args = step.words[1], step.words[2:]
    if not step.here:
        return
    if not step.worked:
        if verb in ("commit", "revert", "reset", "cherry-pick", "am", "checkout", "switch",
                    "stash") or verb in _UNFOLLOWED:
            _lose_track(walk)
        return
    _note_diffs(walk, step.output)
    if verb == "add":
        _stage(walk, step, args)
    elif verb == "commit":
        _commit(walk, step, args)
    elif verb == "revert":
        _revert(walk, step, args)
    elif verb == "reset":
        _reset(walk, step, args)
    elif verb in ("cherry-pick", "am"):
        made = gs.commits_in(step.output)
        if len(made) != 1:
            _lose_track(walk)
        else:
            walk.head.append(_Commit(made[0][1], [], step.prefix))
    elif verb == "stash":
        _stash(walk, args)
    elif verb in ("checkout", "switch"):
        if _switches(verb, args):
            _lose_track(walk)
    elif verb in _UNFOLLOWED or verb == _HANDED_OVER:
        _lose_track(walk)


def _lose_track(walk: _Walk) -> None:
    walk.head, walk.barrier = [], True


def _stage(walk: _Walk, step: GitStep, args: tuple[str, ...]) -> None:
    """``git add``: the changes of the files it names (``.``, ``-A``, ``-u``: all of them).
    Hunk by hunk (``-p``) stages what the person chose: nothing known."""
    if {"-p", "--patch", "-i", "--interactive", "-n", "--dry-run"} & set(args):
        return
    named = _paths(step, args)
    every = bool({"-A", "--all", "-u", "--update"} & set(args))
    for pending in walk.pending:
        if every or any(_under(pending.change.path, path) for path in named):
            pending.staged = True


def _paths(step: GitStep, args: tuple[str, ...]) -> list[str]:
    """The pathspecs among ``args``, as paths from the project's root ("." for all)."""
    rest = list(args[args.index("--") + 1:]) if "--" in args else \
        [word for word in args if not word.startswith("-")]
    return [_from_root(step, word) for word in rest]


def _from_root(step: GitStep, word: str) -> str:
    path = posixpath.normpath(posixpath.join(step.prefix, word))
    return "." if path in (".", "") else path


def _under(path: str, named: str) -> bool:
    return named in (".", "", "*") or path == named or path.startswith(named.rstrip("/") + "/")


def _commit(walk: _Walk, step: GitStep, args: tuple[str, ...]) -> None:
    """The changes the commit took in: the staged ones, every tracked one with ``-a``, and
    the ones under the paths it names; a file git reports created (``create mode``) was new."""
    made = gs.commits_in(step.output)
    created = {match["path"].strip() for match in _CREATE_MODE.finditer(step.output)}
    everything = any(_all_flag(word) for word in args)
    named = _commit_paths(step, args)
    taken: list[Change] = []
    kept: list[_Pending] = []
    for pending in walk.pending:
        change = pending.change
        if pending.staged or (everything and change.old is not None) \
                or any(_under(change.path, path) for path in named):
            if change.kind == "write" and change.old is None and change.path in created:
                change = Change(change.path, "write", "", change.new)
            taken.append(change)
        else:
            kept.append(pending)
    walk.pending = kept
    commit = _Commit(made[0][1] if len(made) == 1 else None, taken, step.prefix)
    if "--amend" in args and walk.head:
        commit.changes = walk.head[-1].changes + taken
        walk.head[-1] = commit
    else:
        walk.head.append(commit)
    if commit.hash:
        walk.known.append(commit)


def _all_flag(word: str) -> bool:
    """``-a`` / ``--all`` alone or in a cluster of short options before one taking a value
    (``-am msg``)."""
    if word == "--all":
        return True
    if not word.startswith("-") or word.startswith("--"):
        return False
    for letter in word[1:]:
        if letter == "a":
            return True
        if letter in _COMMIT_VALUE_LETTERS:
            return False
    return False


def _commit_paths(step: GitStep, args: tuple[str, ...]) -> list[str]:
    """The pathspecs of ``git commit [options] <paths>``: words that are neither options
    nor the value of one that takes one (``-m msg``, ``-F file``, ``--author x``)."""
    if "--" in args:
        return _paths(step, args)
    found: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word.startswith("--"):
            skip = "=" not in word and word in ("--message", "--file", "--author", "--date",
                                                "--reuse-message", "--reedit-message",
                                                "--fixup", "--squash", "--cleanup",
                                                "--template", "--trailer")
        elif word.startswith("-"):
            skip = word[-1] in _COMMIT_VALUE_LETTERS and len(word) >= 2
        else:
            found.append(_from_root(step, word))
    return found


def _revert(walk: _Walk, step: GitStep, args: tuple[str, ...]) -> None:
    if "--abort" in args:  # back to before the revert: what a ``revert -n`` left goes
        walk.pending = _thrown_away(walk, step.line, lambda pending: pending.reverted)
    if any(word in ("--continue", "--abort", "--skip", "--quit", "-m", "--mainline")
           for word in args):
        _lose_track(walk)
        return
    revisions = gs.positional_args(args, _REVERT_VALUES)
    uncommitted = "-n" in args or "--no-commit" in args
    made = iter(gs.commits_in(step.output))
    for revision in revisions:
        commit = _resolve(walk, revision, step.prefix)
        if commit is None:
            _lose_track(walk)
            return
        inverse = _taken_back(walk, commit.changes, step.line)
        if uncommitted:
            walk.pending += [_Pending(change, True, True) for change in inverse]
        else:
            one = next(made, None)
            walk.head.append(_Commit(one[1] if one else None, inverse, step.prefix))
            if one:
                walk.known.append(walk.head[-1])


def _resolve(walk: _Walk, revision: str, place: str) -> _Commit | None:
    """The commit ``revision`` names: ``HEAD~N`` counted over commits made from the same
    folder only (another folder may be a nested repository), or a hash git printed."""
    back = _steps_back(revision)
    if back is not None:
        walked = walk.head[len(walk.head) - 1 - back:] if back < len(walk.head) else []
        return walked[0] if walked and _one_place(walked, place) else None
    if _HASH.match(revision):
        found = [commit for commit in walk.known if commit.hash and (
            commit.hash.startswith(revision) or revision.startswith(commit.hash))]
        return found[-1] if found else None
    return None


def _one_place(commits: Sequence[_Commit], place: str) -> bool:
    return all(commit.place == place for commit in commits)


def _steps_back(revision: str) -> int | None:
    match = _RELATIVE.match(revision)
    if match is None:
        return None
    steps = 0
    for part in re.findall(r"~\d*|\^1?", match["steps"]):
        steps += int(part[1:]) if part.startswith("~") and part[1:] else 1
    return steps


def _taken_back(walk: _Walk, changes: Sequence[Change], line: int) -> list[Change]:
    """The changes undoing ``changes``, newest first, noted at ``line`` as taken back."""
    inverse: list[Change] = []
    for change in reversed(changes):
        if change.kind == "edit":
            undo = Change(change.path, "edit", change.new, change.old or "")
        elif change.old is None:
            walk.text[change.path] = None  # the text before the rewrite is not known
            continue
        else:
            undo = Change(change.path, "write", change.new, change.old)
        inverse.append(undo)
        if undo.kind == "edit":
            walk.text[undo.path] = _applied(walk.text.get(undo.path), undo.old or "", undo.new)
        else:
            walk.text[undo.path] = undo.new
        walk.taken.append((undo.path, line, undo.kind, undo.old or "", undo.new))
    return inverse


def _reset(walk: _Walk, step: GitStep, args: tuple[str, ...]) -> None:
    words = [word for word in args if not word.startswith("-")]
    if "--" in args or len(words) > 1:
        return  # ``git reset <paths>``: the index only
    # --keep and --merge move the tree with the branch but keep its uncommitted changes
    # (git-reset(1)); --hard throws those away too
    hard = "--hard" in args or "--keep" in args or "--merge" in args
    discards = "--hard" in args
    target = words[0] if words else "HEAD"
    back = _steps_back(target)
    if back is None and _HASH.match(target):
        known = _resolve(walk, target, step.prefix)
        back = next((len(walk.head) - 1 - at for at, commit in enumerate(walk.head)
                     if commit is known), None) if known else None
    if back is None:
        _lose_track(walk)
        if discards:
            walk.pending = _thrown_away(walk, step.line)
        return
    if back > len(walk.head) and walk.barrier:
        _lose_track(walk)
        return
    back = min(back, len(walk.head))  # past the session's first commit: all of them
    gone = walk.head[len(walk.head) - back:] if back else []
    if not _one_place(gone, step.prefix):
        _lose_track(walk)
        return
    walk.head = walk.head[:len(walk.head) - back]
    if hard:
        if discards:
            walk.pending = _thrown_away(walk, step.line)
        for commit in reversed(gone):
            _taken_back(walk, commit.changes, step.line)
    else:
        walk.pending = [_Pending(change, "--soft" in args)
                        for commit in gone for change in commit.changes] + walk.pending


def _thrown_away(walk: _Walk, line: int, which: Any = None) -> list[_Pending]:
    """The changes left after git threw away the tree's (``which`` of them; all but the
    untracked files by default): a change a ``revert -n`` left is taken back in turn, so the
    commit's text is handed on again (the session's own edits are ``undone``'s)."""
    kept: list[_Pending] = []
    for pending in reversed(walk.pending):
        if (which(pending) if which else not _untracked(pending)):
            if pending.reverted:
                _taken_back(walk, [pending.change], line)
        else:
            kept.append(pending)
    return kept[::-1]


def _untracked(pending: _Pending) -> bool:
    """A file the session created and never staged: git leaves it where it is."""
    return not pending.staged and pending.change.kind == "write" \
        and pending.change.old in (None, "")


def _stash(walk: _Walk, args: tuple[str, ...]) -> None:
    if not args or args[0] in ("push", "save"):
        walk.stashed.append([pending for pending in walk.pending if not _untracked(pending)])
        walk.pending = [pending for pending in walk.pending if _untracked(pending)]
    elif args[0] in ("pop", "apply") and walk.stashed:
        walk.pending += walk.stashed.pop() if args[0] == "pop" else walk.stashed[-1]


def _switches(verb: str, args: tuple[str, ...]) -> bool:
    """A checkout or switch that moves HEAD to other history (not a file restore, not a new
    branch made where HEAD is)."""
    if "--" in args or {"-p", "--patch"} & set(args):
        return False
    words = [word for word in args if not word.startswith("-")]
    if verb == "checkout" and words in ([], ["."]):
        return False
    if {"-b", "-c", "-B", "-C", "--orphan"} & set(args) and len(words) <= 1:
        return "--orphan" in args
    return True


def _note_diffs(walk: _Walk, output: str) -> None:
    """Each commit whose diff git printed (``git show``, ``git log -p``), by its hash."""
    if "diff --git" not in output:
        return
    heads = list(_COMMIT_HEADER.finditer(output))
    for at, header in enumerate(heads):
        end = heads[at + 1].start() if at + 1 < len(heads) else len(output)
        changes = list(_hunks(output[header.end():end]))
        if changes and not any(commit.hash == header["hash"] for commit in walk.known):
            walk.known.append(_Commit(header["hash"], changes))


def _hunks(diff: str) -> Iterable[Change]:
    """Each hunk of a commit's diff as an edit of its file: the old side into the new."""
    files = list(_DIFF_FILE.finditer(diff))
    for at, section in enumerate(files):
        if section["old"] != section["new"]:
            continue  # a rename: the walk does not follow the path
        end = files[at + 1].start() if at + 1 < len(files) else len(diff)
        old: list[str] | None = None
        new: list[str] = []
        for row in diff[section.end():end].split("\n"):
            if _HUNK.match(row):
                if old is not None:
                    yield Change(section["new"], "edit", "\n".join(old), "\n".join(new))
                old, new = [], []
            elif old is None or row.startswith("\\"):
                continue
            elif row.startswith("-"):
                old.append(row[1:])
            elif row.startswith("+"):
                new.append(row[1:])
            elif row.startswith(" ") or row == "":
                old.append(row[1:])
                new.append(row[1:])
        if old is not None:
            yield Change(section["new"], "edit", "\n".join(old).rstrip("\n"),
                         "\n".join(new).rstrip("\n"))


# --- read from the session ---------------------------------------------------------------------

def git_steps(view: SessionView) -> list[GitStep]:
    """The session's git commands in order, each with the output of its line. A subagent's
    commands are numbered in its own file and cannot be placed among the session's: when one
    of them moved HEAD, each task the session handed a subagent stands for a command whose
    outcome never showed."""
    steps: list[GitStep] = []
    moved = False
    for action in of_kind(view, SHELL):
        command = action.command or ""
        if "git" not in command:
            continue
        output = action.result.text if action.result is not None else ""
        for invocation in invocations(command, call_cwd(action.call)):
            words = unwrap(invocation.argv)
            run = git_run(invocation) if words[:1] == ("git",) else None
            if run is None or len(run.words) < 2:
                continue
            if action.call.subagent_id or action.call.is_sidechain:
                moved = moved or run.words[1] in _MOVES_HEAD
                continue
            elsewhere = any(word.split("=", 1)[0] in _ELSEWHERE_FLAGS for word in words[1:]
                            if word.startswith("--"))
            here = not elsewhere and _here(view, run.cwd)
            prefix = (view.relative(run.cwd) or "") if here and run.cwd else ""
            steps.append(GitStep(action.line, run.words, output, action.outcome == OK, here,
                                 "" if prefix == "." else prefix))
    if moved:
        steps += [GitStep(call.line, ("git", _HANDED_OVER), "", True, True)
                  for call in view.calls() if call.tool_name in DELEGATES
                  and not call.subagent_id and not call.is_sidechain]
        steps.sort(key=lambda step: step.line)
    return steps


def _here(view: SessionView, cwd: str | None) -> bool:
    if cwd is None:
        return True
    resolved = view.resolve(".", cwd)
    return resolved is not None and (resolved == view.root or view.own(resolved) is not None)


def taken_back(view: SessionView, looks: Mapping[str, Sequence[Any]]
               ) -> list[tuple[str, int, str, str, str]]:
    """(cited path, line, kind, old, new) of each change git took back (module docstring)."""
    if not any("revert" in command or "reset" in command for action in of_kind(view, SHELL)
               if (command := action.command or "")):
        return []  # a quick look before parsing every git command of the session
    steps = git_steps(view)
    if not any(step.words[1] in ("revert", "reset") for step in steps):
        return []
    return timeline(looks, steps)
