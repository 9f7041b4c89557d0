"""A note or a request in prose that a later edit of the session undid.

Reconcile already drops a rule quoted FROM a file that a later edit took out. What the agent
and the user say in prose names code too ("`load_config` reads `settings.toml` first", "use
`--frozen-lockfile` in CI", "`REVIEW.md` lists 12 rules"), and a later change can take
exactly that thing out of the project: the function renamed, the flag replaced after it
failed, the file deleted, the list grown. Stored, such a note tells the next session about
code that no longer exists. The session's end decides.

A stance in prose (a convention, a decision, a preference, what a file is for) is undone by:

- a named thing it says yes to, gone at the session's end: a change after it (an edit, a
  whole write) had the thing in the old text and not in the new, nothing after the stance
  shows it again (a write, an edit or a read holding it, in any file), and every file the
  session saw holding it ends without it as far as the session knows (the file's text
  as last read or written, carried through the edits; an edit the session cannot place in a
  known text leaves the file unknown, and unknown keeps the stance);
- a file it names by path (or the file a role note is about), deleted after it and not
  written again;
- for the agent's notes only, a count of what a file holds ("lists 12 rules", "three
  sections") when the session afterwards changed that file's length (an edit adding or
  removing lines, a rewrite of another length): the number was read before the change.

Only named things count: in a code span, a word with a separator, an inner capital, a call
or a flag shape; outside one, only the shapes that cannot be English (an underscore, an inner
capital, a dotted or file name, a ``--flag``, a hyphenated word with a digit): "one-time" or
"true/false" are words, and a word an edit drops is evidence only when it cannot be an
accident of wording. What the stance itself says is gone or replaced is not held against it
("`X` is no longer used", "renamed `X` to `Y`", "from `X` to `Y`", "`X` → `Y`", or any
word of its clause turning it down: "`X` is off the table"): a removal of it carries the
stance out. An edit that adds a named thing carries the stance out too.

The user's own words are held to more: what the person asked for stands even when the agent
later did otherwise, unless the thing they named failed first -- a shell command that failed
naming it, between their words and the change that took it out. Then the session's end
outranks the request for what the code does (a "use `--frozen-lockfile`" whose install failed
and was replaced is no standing decision); a request replaced without a failure is kept.

The decision is pure logic on plain data (the ``FileChange`` looks, and the deletions and
failures ``digest`` lists through ``deletions`` and ``failures``, the only readers of the
session here).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from claimgraph.capture.extract.actions import of_kind
from claimgraph.capture.extract.session import FAILED, OK, SessionView, taught_at
from claimgraph.capture.extract.shell import call_cwd, invocations
from claimgraph.capture.extract.tools import SHELL
from claimgraph.capture.extract.writes import session_ops
from claimgraph.logic.lazy_regex import lazy_regex


class Look(Protocol):
    """One look at a file (reconcile's ``FileChange``): kind read / write / edit."""

    line: int
    kind: str
    old: str

    @property
    def new(self) -> str: ...


#: A named thing strong enough to stand for itself in a code span: a separator inside a
#: word (``load_config``, ``pre-commit``, ``src/app.py``), a flag (``--frozen``), an inner
#: capital (``fetchUser``), or a call (``run()``).
_DISTINCT = lazy_regex(r"[A-Za-z0-9][_./:=-][A-Za-z0-9]|[a-z][A-Z]|^--?[a-z]|\w\(\)$")
#: The same outside a code span, where "one-time" or "true/false" are words, not names.
_DISTINCT_BARE = lazy_regex(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[a-z0-9]\.[A-Za-z]|^--[a-z]|"
                            r"\w\(\)$|\w(?:=|::)\w|[A-Za-z]-\d|\d-[A-Za-z]")
_SHORTEST = 5
#: A bare word in a code span: a name only when the session ran it (``terms_of``).
_PLAIN = lazy_regex(r"[A-Za-z][A-Za-z0-9]{3,30}")
_CODE_SPAN = lazy_regex(r"`([^`\n]+)`")
#: Git commands that make a commit in the working tree (and print its summary).
_COMMITTING = frozenset({("commit",), ("revert",), ("merge",), ("cherry-pick",), ("pull",),
                         ("am",)})
#: Git's summary line for a file a commit removed (``git commit``, ``revert``, ``merge``).
_GIT_DELETE_MODE = lazy_regex(r"^\s*delete mode \d{6} (?P<path>\S[^\n]*)$", re.MULTILINE)
_PATH_LIKE = lazy_regex(r"^[\w@.-]+(?:/[\w@.-]+)*\.[A-Za-z0-9]{1,8}$|^[\w@.-]+(?:/[\w@.-]+)+/?$")
#: A stance's own words saying the thing is gone or replaced: right after the term ...
_GONE_AFTER = lazy_regex(r"^(?:\(\))?`?\)?\s*(?:(?:\w+\s+){0,2}?"
                         r"(?:(?:is|are|was|were|has been|have been)\s+)?"
                         r"(?:not|no longer|never|removed|gone|deprecated|obsolete|"
                         r"deleted|dropped|renamed|replaced|retired)\b|(?:→|->|=>)|"
                         r"(?:should|must|will|would) (?:now )?be(?:come)?\b|becomes\b|"
                         r"(?:is|are) now\b)", re.IGNORECASE)
#: ... or just before it ("renamed `X` to `Y`", "moved `X`", "from `X` to `Y`").
_GONE_BEFORE = lazy_regex(r"\b(?:renam\w*|mov(?:e|ed|ing)|migrat\w*|switch\w*(?: from)?|"
                          r"convert\w*(?: from)?|formerly|previously|old|legacy|"
                          r"(?:in )?place of|instead of|rather than|not|no|without|never|"
                          r"avoid\w*|drop\w*|remov\w*|delet\w*|replac\w*)"
                          r"\W+(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+)?$", re.IGNORECASE)
#: Where a clause ends: what a cue inside it says no to stays within it.
_CLAUSE_MARKS = (". ", ";", " — ", " -- ", " – ", ",", "\n")
#: A clause turning its thing down, wherever in the clause the cue stands.
_REJECTED = lazy_regex(r"\b(?:not|no|never|none|without|instead|rather|avoid\w*|reject\w*|"
                       r"ruled out|off the table|abandon\w*|discard\w*|unused|unsupported|"
                       r"disabled|out of scope|(?:is|are|was|were|do|does|did|should|could|"
                       r"would|wo|ca)n[\'’]?t|cannot|no longer|gone|removed|deprecated|"
                       r"obsolete|dropped|deleted|replaced|renamed|retired)\b", re.IGNORECASE)
_FROM_TO = lazy_regex(r"\bfrom\W+(?:the\s+)?$", re.IGNORECASE)
_TO_AFTER = lazy_regex(r"^`?\s+(?:to|into)\b", re.IGNORECASE)
#: Stances a later change can undo (a lesson or a "no X" is about what happened or what
#: not to do: a removal agrees with it).
_STANCES = frozenset({"x/convention", "x/decided", "core/prefers", "x/role"})
#: Whose prose is held against later edits: the agent's notes and the user's own words.
_AGENT, _USER = "agent-note", "user-assertion"
#: How much of a failed command's output is kept to find the named thing in.
_FAILURE_CHARS = 4000
#: A count of things a file holds: "12 rules", "three sections", "lists 5 `make` targets".
_COUNT = lazy_regex(r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
                    r"\s+(?:[\w`-]+\s+){0,2}?(?P<noun>[a-z]{3,}s)\b", re.IGNORECASE)
#: Plural nouns that measure rather than count a file's contents.
_UNITS = frozenset({"seconds", "minutes", "hours", "days", "weeks", "months", "years", "times",
                    "bytes", "kbs", "mbs", "gbs", "percents", "ms", "retries", "attempts",
                    "cores", "threads", "workers", "users", "runs", "passes", "steps"})

Terms = Callable[[str], list[str]]


@dataclass(frozen=True)
class Undone:
    """Why a candidate was dropped: the named thing and the line of the change that undid
    it (``how``: "removed" from a file's text, its file "deleted", or its file "resized"
    after a count of what it holds)."""

    term: str
    line: int
    how: str


def distinct(terms: Iterable[str], text: str) -> list[str]:
    """The named things among ``terms`` strict enough to be held against edits, leaving out
    any the stance itself says is gone or replaced (module docstring)."""
    kept: list[str] = []
    spans = " ".join(_CODE_SPAN.findall(text))
    for term in terms:
        term = term.strip().strip("`").strip()
        strict = _DISTINCT if term in spans else _DISTINCT_BARE
        if len(term) < _SHORTEST or not strict.search(term) or term in kept \
                or _said_gone(term, text):
            continue
        kept.append(term)
    return kept


def _said_gone(term: str, text: str) -> bool:
    """Any mention of ``term`` in ``text`` says it is gone, replaced or not wanted: in the
    words around it, or anywhere in its clause ("`X` is off the table -- no basis")."""
    for match in re.finditer(re.escape(term), text):
        start = max((text.rfind(mark, 0, match.start()) for mark in _CLAUSE_MARKS), default=-1)
        ends = [at for mark in _CLAUSE_MARKS if (at := text.find(mark, match.end())) >= 0]
        if _REJECTED.search(text[start + 1:min(ends, default=len(text))]):
            return True
        before = text[max(0, match.start() - 40):match.start()].rstrip("`\"' ")
        after = text[match.end():match.end() + 40]
        if _GONE_BEFORE.search(before + " ") or _GONE_AFTER.match(after) \
                or (_FROM_TO.search(before + " ") and _TO_AFTER.match(after)):
            return True
    return False


@dataclass(frozen=True)
class _Event:
    """One change or read of one file that concerns a term."""

    line: int
    kind: str
    in_old: bool  # an edit's old text held it
    in_new: bool  # what the look wrote or showed holds it
    held: bool | None  # the file held it just before (None: unknown)


@dataclass
class _Trace:
    """A term's events in one file, and whether the file holds it at the end."""

    events: list[_Event] = field(default_factory=list)
    holds: bool | None = None


class History:
    """Every term's events across the session's files, read once for all candidates (a
    read's text is derived each time it is asked, so each look is read once here)."""

    def __init__(self, terms: Iterable[str], files: Mapping[str, Sequence[Look]],
                 deleted: Sequence[tuple[int, str]] = (),
                 reverted: Sequence[tuple[int, str]] = (),
                 snapshots: Sequence[int] = ()) -> None:
        self.terms = sorted(set(terms))
        self.files = files
        self.deleted = deleted
        self.reverted = reverted
        self.snapshots = snapshots
        self.traces: dict[str, dict[str, _Trace]] = {term: {} for term in self.terms}
        #: id(candidate) -> its terms, as ``history`` read them (read once per candidate).
        self.named: dict[int, list[str]] = {}
        if self.terms:
            for path, looks in files.items():
                self._read(path, looks)

    def _read(self, path: str, looks: Sequence[Look]) -> None:
        text: str | None = None  # the file's text as last seen, carried through edits
        holds: dict[str, bool | None] = {}
        for look in looks:
            new, old = look.new, look.old
            if look.kind in ("read", "write"):
                text = new
            elif text is not None and old and old in text:
                text = text.replace(old, new)
            elif text is not None and old.strip("\n") and old.strip("\n") in text:
                text = text.replace(old.strip("\n"), new.strip("\n"))  # a read shows no
                # final newline, an edit's old text may end in one
            else:
                text = None
            for term in self.terms:
                in_new, in_old = _has(new, term), bool(old) and _has(old, term)
                held = holds.get(term)
                if not (in_new or in_old or held):
                    continue
                holds[term] = _holds(look.kind, in_new, in_old, held, text, term)
                trace = self.traces[term].setdefault(path, _Trace())
                trace.events.append(_Event(look.line, look.kind, in_old, in_new, held))
                trace.holds = holds[term]

    def undone(self, terms: Sequence[str], line: int) -> Undone | None:
        """The first of ``terms`` the changes after ``line`` took out for good, or None."""
        for term in terms:
            found = self._removed(term, line) or self._file_deleted(term, line) \
                or self._reverted(term, line)
            if found is not None:
                return found
        return None

    def _removed(self, term: str, line: int) -> Undone | None:
        removal: Undone | None = None
        for trace in self.traces.get(term, {}).values():
            if trace.holds is not False:
                return None  # a file holds it still, or may, as far as the session knows
            for event in trace.events:
                if event.line <= line:
                    continue
                if event.in_new:
                    return None  # put there, or shown there, after the candidate
                if (event.kind == "edit" and event.in_old) or (
                        event.kind == "write" and event.held):
                    if removal is None or event.line < removal.line:
                        removal = Undone(term, event.line, "removed")
        return removal

    def _reverted(self, term: str, line: int) -> Undone | None:
        """The session put ``term`` into its files only by its own writes and edits, and a
        ``git checkout``/``git restore``/``git stash`` after ``line`` threw those changes away
        in every such file, with nothing showing it there again after. Git brings back what
        it last took in: a ``git add``/``git commit`` between the change and the revert keeps
        the term; and a revert of the whole tree leaves a file git never tracked (one the
        session created: its first look a write) as it is."""
        found: Undone | None = None
        traces = self.traces.get(term, {})
        for path, trace in traces.items():
            put = [event.line for event in trace.events
                   if event.in_new and event.kind != "read"]
            first = next(iter(self.files.get(path, ())), None)
            created = first is None or first.kind == "write"
            undo = next((at for at, gone in self.reverted
                         if at > line and put and at > put[-1] and _covers(gone, path)
                         and not (gone == "." and created)), None)
            if undo is None or any(event.line > undo and event.in_new for event in trace.events) \
                    or _held_before(trace.events, put[0]) \
                    or any(put[-1] < at < undo for at in self.snapshots):
                return None  # here it stays, or the file held it before the session
            if found is None or undo < found.line:
                found = Undone(term, undo, "reverted")
        return found

    def _file_deleted(self, term: str, line: int) -> Undone | None:
        """A path the candidate names, deleted after ``line`` and not written again."""
        if not _PATH_LIKE.match(term):
            return None
        for at, path in self.deleted:
            if at > line and _names(term, path) and not any(
                    look.line > at and look.kind != "read"
                    for cited, looks in self.files.items() if _names(term, cited)
                    for look in looks):
                return Undone(term, at, "deleted")
        return None

    def resized(self, path: str, line: int) -> Undone | None:
        """The first change after ``line`` to a file named ``path`` that changed how many
        lines it has: an edit adding or removing lines, or a write of another length than
        the text last seen (a write over a file never seen counts: the count was of a text
        it replaced)."""
        for cited, looks in self.files.items():
            if not _names(path, cited):
                continue
            last: str | None = None
            for look in looks:
                if look.line > line and _resizes(look, last):
                    return Undone(path, look.line, "resized")
                last = look.new if look.kind in ("read", "write") else None
        return None


def _held_before(events: Sequence[_Event], first_put: int) -> bool:
    """The file held the term before the session put it there: a read before the session's
    first change putting it in showed it, or a change up to that one replaced text holding
    it. A read after that change shows the session's own text, which git throws away too."""
    return any((event.kind == "read" and event.in_new and event.line < first_put)
               or (event.in_old and event.line <= first_put) for event in events)


def _resizes(look: Look, last: str | None) -> bool:
    if look.kind == "edit":
        return look.old.count("\n") != look.new.count("\n")
    if look.kind == "write":
        return last is None or last.rstrip("\n").count("\n") != look.new.rstrip("\n").count("\n")
    return False


def _holds(kind: str, in_new: bool, in_old: bool, held: bool | None, text: str | None,
           term: str) -> bool | None:
    """Whether the file holds ``term`` after one look: a read showing it or any change
    putting it there says yes; a write without it says no; an edit that took it out says no
    when the file's text, as last seen and carried through the edits, has it nowhere else
    (unknown otherwise); a read without it says nothing (it may show a part)."""
    if in_new:
        return True
    if kind == "write":
        return False
    if kind == "edit" and in_old:
        return None if text is None else _has(text, term)
    return held


def _has(text: str, term: str) -> bool:
    """``term`` in ``text`` as a whole name (``config.py`` is not in ``test_config.py``)."""
    if term not in text:
        return False
    return re.search(r"(?<![\w-])" + re.escape(term) + r"(?![\w-])", text) is not None


def _names(term: str, path: str) -> bool:
    term, path = term.strip("./"), path.rstrip("/")
    return bool(term) and (path == term or path.endswith("/" + term))


# --- the hook reconcile calls -------------------------------------------------------------------

def checked(found: Mapping[str, Any]) -> bool:
    """A stance in prose, cited at a transcript line (a rule quoted from a file is held
    against its file's edits by reconcile itself)."""
    return found.get("source_type") in (_AGENT, _USER) and found.get("predicate") in _STANCES \
        and taught_at(found) is not None


def terms_of(found: Mapping[str, Any], asserted: Terms,
             failed: Sequence[tuple[int, str]] = ()) -> list[str]:
    """The named things the stance says yes to, strictly (``distinct``), and a bare word
    in a code span (a tool, a library: `pnpm`, `jest`) that a command run after the stance
    named and failed with: a word the session ran is a name, not English."""
    text = str(found.get("object") or "")
    terms = distinct(asserted(text), text)
    line = taught_at(found)
    if line is None:
        return terms
    ran = [said.split("\n", 1)[0] for at, said in failed if at > line]
    for span in _CODE_SPAN.findall(text):
        word = span.strip()
        if _PLAIN.fullmatch(word) and word not in terms and not _said_gone(word, text) \
                and any(_has(command, word) for command in ran):
            terms.append(word)
    return terms


def history(candidates: Iterable[Mapping[str, Any]], later: Any, asserted: Terms) -> History:
    """One ``History`` of every term the checked candidates name (``Later``'s files and
    deletions)."""
    named = {id(found): terms_of(found, asserted, later.failed)
             for found in candidates if checked(found)}
    traces = History([term for terms in named.values() for term in terms], later.files,
                     later.deleted, getattr(later, "reverted", ()),
                     getattr(later, "snapshots", ()))
    traces.named = named
    return traces


def undone_by_edits(found: Mapping[str, Any], line: int | None, later: Any, traces: History,
                    asserted: Terms) -> Undone | None:
    """Why ``found`` no longer holds at the session's end, or None (module docstring)."""
    if line is None or not checked(found):
        return None
    terms = traces.named.get(id(found))
    if terms is None:
        terms = terms_of(found, asserted, later.failed)
    gone = traces.undone(terms, line)
    if found.get("source_type") == _USER:
        failed_first = gone is not None and any(
            line < at < gone.line and _has(said, gone.term) for at, said in later.failed)
        return gone if failed_first else None
    if gone is None:
        gone = _file_deleted(found, line, traces) or _count_outdated(found, terms, line, traces)
    return gone


def _subject_file(found: Mapping[str, Any]) -> str | None:
    subject = str(found.get("subject") or "")
    return subject if found.get("subject_type") == "file" and _PATH_LIKE.match(subject) else None


def _file_deleted(found: Mapping[str, Any], line: int, traces: History) -> Undone | None:
    """The file a role note is about, deleted after it and not written again."""
    subject = _subject_file(found)
    return traces._file_deleted(subject, line) if subject else None


def _count_outdated(found: Mapping[str, Any], terms: Sequence[str], line: int,
                    traces: History) -> Undone | None:
    """An agent's count of what a named file holds, and that file changed length later."""
    text = str(found.get("object") or "")
    if not any(match["noun"].lower() not in _UNITS for match in _COUNT.finditer(text)):
        return None
    subject = _subject_file(found)
    for path in ([subject] if subject else []) + _files_named(text, traces.files):
        resized = traces.resized(path, line)
        if resized is not None:
            return resized
    return None


def _files_named(text: str, files: Iterable[str]) -> list[str]:
    """The session's files ``text`` names: by their path, or by a name no other file of
    the session has (``Makefile``, ``rules.md``)."""
    paths = list(files)
    names: dict[str, list[str]] = {}
    for path in paths:
        names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return [path for path in paths
            if _has(text, path) or (len(names[path.rsplit("/", 1)[-1]]) == 1
                                    and len(path.rsplit("/", 1)[-1]) >= _SHORTEST
                                    and _has(text, path.rsplit("/", 1)[-1]))]


def deletions(view: SessionView) -> list[tuple[int, str]]:
    """(line, cited path) of each project file or folder a call that worked deleted: by its
    own words (``rm``, ``git rm``, a delete tool), or by git's report of a commit that took
    the file out (``git revert`` of the commit that added it: `` delete mode 100644 x.md``).
    A later ``git restore``/``git checkout -- <path>`` naming it that worked brought it back
    (git refuses one it cannot); a whole-tree one is left out, as it may not hold the file."""
    found: list[tuple[int, str]] = []
    for _call, outcome, ops in session_ops(view):
        if outcome != OK:
            continue
        for op in ops:
            cited = view.own(op.path) if op.kind == "delete" else None
            if cited:
                found.append((op.line, cited))
    found += _git_deleted(view)
    back = [(line, path) for line, path in reverts(view) if path != "."]
    return sorted((line, path) for line, path in found if not any(
        at > line and _covers(named, path) for at, named in back))


def _git_deleted(view: SessionView) -> list[tuple[int, str]]:
    """(line, cited path) of each file git reported a commit of the session deleted. Git
    names the path from the repository's top, taken here as the project's root."""
    found: list[tuple[int, str]] = []
    for action in of_kind(view, SHELL):
        if action.outcome != OK or action.result is None or "git" not in (action.command or ""):
            continue
        text = action.result.text
        if "delete mode" not in text or not any(
                invocation.argv[:1] == ("git",) and invocation.argv[1:2] in _COMMITTING
                for invocation in invocations(action.command or "")):
            continue  # ``git log --summary`` / ``git show`` tell of deletions long past
        moved = _moved_from(view, action.line)
        for match in _GIT_DELETE_MODE.finditer(text):
            path = view.resolve(match["path"].strip())
            cited = view.own(path) if path else None
            if cited and cited not in moved:
                found.append((action.line, cited))
    return found


def _moved_from(view: SessionView, before: int) -> set[str]:
    """Cited paths a ``git mv`` that worked before line ``before`` moved away: a commit that
    reports one deleted (git pairs a rename only when the contents stayed alike) moved it."""
    moved: set[str] = set()
    for action in of_kind(view, SHELL):
        if action.line >= before or action.outcome != OK or "git" not in (action.command or ""):
            continue
        for invocation in invocations(action.command or "", call_cwd(action.call)):
            words = [word for word in invocation.argv[2:] if not word.startswith("-")]
            if invocation.argv[:2] != ("git", "mv") or len(words) < 2:
                continue
            for word in words[:-1]:
                path = view.resolve(word, invocation.cwd)
                cited = view.own(path) if path else None
                if cited:
                    moved.add(cited)
    return moved


def _covers(reverted: str, path: str) -> bool:
    """A revert of ``reverted`` (a cited path, or "." for the whole tree) covers ``path``."""
    reverted = reverted.rstrip("/")
    return reverted in ("", ".") or path == reverted or path.startswith(reverted + "/")


#: Git subcommands that throw the working tree's changes away: the paths after ``--`` (or
#: every word that is no option), or the whole tree when none is named.
_DISCARDS = {"restore": False, "checkout": True, "stash": False, "reset": False}


def reverts(view: SessionView) -> list[tuple[int, str]]:
    """(line, cited path or "." for the whole tree) of each ``git restore <paths>``, ``git
    checkout -- <paths>``, ``git checkout .``, ``git stash`` (push) and ``git reset --hard``
    that worked: the session's changes to those files are gone. A stash a later ``git stash
    pop``/``apply`` brought back is none."""
    found: list[tuple[int, str]] = []
    stashed: list[int] = []  # indexes in ``found`` of the stashes not yet brought back
    for action in of_kind(view, SHELL):
        if action.outcome != OK or "git" not in (action.command or ""):
            continue
        for invocation in invocations(action.command or "", call_cwd(action.call)):
            argv = invocation.argv
            if argv[:2] == ("git", "stash") and argv[2:3] in (("pop",), ("apply",)):
                if stashed:
                    del found[stashed.pop()]
                continue
            for path in _discarded(argv):
                cited = "." if path == "." and not invocation.cwd else None
                resolved = view.resolve(path, invocation.cwd) if cited is None else None
                cited = cited or (view.own(resolved) if resolved else None) or (
                    "." if resolved == view.root else None)
                if cited:
                    if argv[:2] == ("git", "stash"):
                        stashed.append(len(found))
                    found.append((action.line, cited))
    return found


def snapshots(view: SessionView) -> list[int]:
    """Lines of each ``git add`` / ``git commit`` that worked: what they took in is what a
    later restore or checkout of the file brings back."""
    return [action.line for action in of_kind(view, SHELL)
            if action.outcome == OK and "git" in (action.command or "")
            and any(invocation.argv[:2] in (("git", "add"), ("git", "commit"))
                    for invocation in invocations(action.command or "", call_cwd(action.call)))]


def _discarded(argv: tuple[str, ...]) -> list[str]:
    words = list(argv)
    if len(words) < 2 or posixpath.basename(words[0]) != "git" or words[1] not in _DISCARDS:
        return []
    rest = words[2:]
    if words[1] == "stash":
        return ["."] if not rest or rest[0] == "push" and not rest[1:] else []
    if words[1] == "reset":
        return ["."] if "--hard" in rest else []
    if {"-p", "--patch"} & set(rest):
        return []  # hunk by hunk, as the person chose: which went back is not known
    if "--" in rest:
        return rest[rest.index("--") + 1:] or []
    if words[1] == "checkout":
        return ["."] if rest == ["."] else []  # "git checkout <branch>" switches branches
    named = [word for word in rest if not word.startswith("-")]
    return [] if "--staged" in rest and "--worktree" not in rest else named


def failures(view: SessionView) -> list[tuple[int, str]]:
    """(line, command and the head of its output) of each shell command that failed."""
    return [(action.line, (action.command or "") + "\n"
             + (action.result.text[:_FAILURE_CHARS] if action.result is not None else ""))
            for action in of_kind(view, SHELL) if action.outcome == FAILED]
