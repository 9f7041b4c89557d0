"""A push the remote refused by a rule of its own, and what got the same push through.

``git push`` is no command the ``lessons`` rule follows (git other than a commit teaches
nothing there: a push fails for the network, credentials, a remote that moved on). One kind
of refusal is the project's, though, and it comes back: the host refused the pushed commits
by a rule it states (``remote: error: GH013: Repository rule violations found``, a
pre-receive hook's ``! [remote rejected] main -> main (pre-receive hook declined)``). When a
later push from the same project went through, what changed in between is the lesson:

- files edited since the first refusal (what the rule objected to was removed);
- history rewritten after the last refusal (``git reset --soft``, ``git commit --amend``,
  ``git rebase``): the refused commits themselves had to go. When a push was refused again
  after a new commit on top, that commit did not help, and the lesson says so.

Not lessons: a push rejected because the remote moved (``! [rejected] … (fetch first)``,
``non-fast-forward``: a pull fixes it, every project alike), credentials or network
(``Permission to … denied``, ``Could not resolve host``: the machine, not the project), a
refusal the session never got past (its last refused push had no later success: nothing
proved the fix), a push that went through with nothing changed (the person allowed it
elsewhere, or forced it), and one the person said they acted on between the two. One lesson
per stated cause: the same refusal fixed twice is one lesson. The text names the rule's own
words only, never a URL, a commit id or a branch name from the output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.gates import describe_edits
from claimgraph.capture.extract.held import acted_between
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import Invocation, call_cwd, command_text, invocations
from claimgraph.capture.extract.writes import file_ops
from claimgraph.logic.lazy_regex import lazy_regex

#: The remote's own refusal: ``remote: error: …`` or ``! [remote rejected] ref -> ref (why)``.
_REMOTE_ERROR = lazy_regex(r"^remote:\s+error:\s*(?P<why>.+)$", re.MULTILINE)
_REMOTE_REJECTED = lazy_regex(r"!\s*\[remote rejected\][^(\n]*\((?P<why>[^)\n]+)\)")
#: A refusal about who pushes, not what: credentials and access are the machine's.
_ACCESS = lazy_regex(r"permission to|denied to|authenticat|credential|token|access rights|"
                     r"not authorized|unauthorized|403\b", re.IGNORECASE)
#: A bullet under the remote's error that says what to resolve ("remote:   - Push cannot
#: contain secrets"): a sentence (it has a lower-case word), not a heading in capitals.
_BULLET = lazy_regex(r"^remote:\s+-\s+(?P<item>[A-Z][^\n]*\b[a-z]{3,}\b[^\n]*)$", re.MULTILINE)
#: What names one push: where it went, trimmed from the cause (``for refs/heads/x``).
_REF_TAIL = lazy_regex(r"\s+(?:for|on|to)\s+(?:refs/\S+|'[^']*'|\S+/\S+)\s*$")
_URL = lazy_regex(r"https?://\S+")
#: git subcommands (and the flag that makes ``commit`` one) that rewrite commits already made.
_REWRITES = frozenset({"reset", "rebase", "filter-branch", "filter-repo"})


@dataclass
class _Refusal:
    """A cause the remote stated, from its first refusal to the push that got past it."""

    cause: str
    first: Event
    last: Event
    edits: list[tuple[Event, str, list[str]]] = field(default_factory=list)
    #: History rewritten since the last refusal, as the lesson shows the commands.
    rewrites: list[str] = field(default_factory=list)
    #: A commit was made on top since the last refusal (a push refused after it: it did
    #: not help).
    committed: bool = False
    on_top_refused: bool = False


def push_refused_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """Lessons from remote refusals the session got past (module docstring)."""
    if not view.project:
        return
    open_: dict[str, _Refusal] = {}
    done: dict[str, dict[str, Any]] = {}
    for call in view.calls():
        _note_edits(view, call, open_)
        command = command_text(call)
        if not command:
            continue
        found = invocations(command, call_cwd(call))
        if any(not _own(view, inv) for inv in found if _pushes(inv)):
            continue  # a push from another checkout: that project's lesson
        outcome = view.outcome(call)
        result = view.results.get(call.call_id or "")
        text = result.text if result is not None else ""
        cause = _refusal(text) if any(_pushes(inv) for inv in found) else None
        if cause is not None and outcome != OK:
            _refused(call, cause, open_)
        elif outcome == OK and any(_pushes(inv) for inv in found) and _refusal(text) is None:
            push = " ".join(next(inv for inv in found if _pushes(inv)).argv)
            for key in list(open_):
                lesson = _lesson(view, open_.pop(key), call, push)
                if lesson is not None:
                    done.setdefault(key, lesson)
        _note_commands(view, found, outcome, open_)
    # a cause refused again and never got past at the end: the fix did not hold
    yield from (lesson for cause, lesson in done.items() if cause not in open_)


def _pushes(inv: Invocation) -> bool:
    return inv.argv[:2] == ("git", "push")


def _own(view: SessionView, inv: Invocation) -> bool:
    return not inv.cwd or view.own(inv.cwd) is not None


def _refusal(text: str) -> str | None:
    """The cause the remote stated for refusing the push, or None (not a rule's refusal)."""
    match = _REMOTE_ERROR.search(text) or _REMOTE_REJECTED.search(text)
    if match is None or _ACCESS.search(match["why"]):
        return None
    why = _REF_TAIL.sub("", _URL.sub("", match["why"]).strip()).rstrip(". ")
    if sum(char.isalpha() for char in why) < 6:
        return None
    bullet = _BULLET.search(text, match.end())
    if bullet and not _URL.search(bullet["item"]):
        why += f" ({bullet['item'].strip().rstrip('. ')})"
    return short_quote(why, 120)


def _refused(call: Event, cause: str, open_: dict[str, _Refusal]) -> None:
    known = open_.get(cause)
    if known is None:
        open_[cause] = _Refusal(cause, call, call)
        return
    known.on_top_refused = known.on_top_refused or known.committed
    known.last, known.rewrites, known.committed = call, [], False


def _note_edits(view: SessionView, call: Event, open_: dict[str, _Refusal]) -> None:
    if not open_:
        return
    for op in file_ops(view, call):
        if op.kind == "delete" or view.own(op.path) is None:
            continue
        cited = view.relative(op.path) or op.path
        for refusal in open_.values():
            refusal.edits.append((call, cited, []))


def _note_commands(view: SessionView, found: list[Invocation], outcome: str,
                   open_: dict[str, _Refusal]) -> None:
    """History rewritten or a commit made on top, by a line that worked."""
    if not open_ or outcome == FAILED:
        return
    for inv in found:
        argv = inv.argv
        if argv[:1] != ("git",) or len(argv) < 2:
            continue
        rewrite = argv[1] in _REWRITES or (argv[1] == "commit" and "--amend" in argv)
        for refusal in open_.values():
            if rewrite:
                refusal.rewrites.append(_shown(argv))
            elif argv[1] == "commit":
                refusal.committed = True


def _shown(argv: tuple[str, ...]) -> str:
    """A git command as the lesson names it: a message or file argument left out."""
    words: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        if word in ("-m", "--message", "-F", "--file", "-C", "-c"):
            skip = True
            continue
        if word.startswith(("--message=", "--file=")):
            continue
        words.append(word)
    return short_quote(" ".join(words), 50)


def _lesson(view: SessionView, refusal: _Refusal, passed: Event,
            push: str) -> dict[str, Any] | None:
    if not refusal.edits and not refusal.rewrites:
        return None  # nothing the session did: allowed elsewhere, or forced past
    if acted_between(view, refusal.first.line, passed.line):
        return None  # the person acted themselves: not a fix the record shows
    fixes = []
    if refusal.edits:
        fixes.append(describe_edits(refusal.edits))
    if refusal.rewrites:
        shown = ", then ".join(f"`{command}`" for command in dict.fromkeys(refusal.rewrites))
        fixes.append(f"rewriting the refused commits ({shown})")
    text = (f"`git push` is refused by the remote: {refusal.cause}; it went through after "
            + " and ".join(fixes))
    if refusal.rewrites and refusal.on_top_refused:
        text += " (a new commit on top was refused again: the refused commits had to go)"
    evidence = [transcript_evidence(refusal.first.line, f"git push: {refusal.cause}"),
                transcript_evidence(passed.line, push)]
    return candidate("lessons", view.project or "", "core/failure-mode", text,
                     evidence=evidence, object_kind="literal", subject_type="project",
                     at=passed.timestamp)
