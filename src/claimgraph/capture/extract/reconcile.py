"""Reconcile: every candidate held against what happened later in the same session.

The rules read a session line by line, but what was true is decided by how the session ENDED
(docs/capture.md, "The pass, step by step"). This stage sits between extraction and
screening and drops, or rewrites, what the rest of the session overtook:

- a rule or setting quoted from a file that a later write or edit of that file took out (a
  design reverted, a doc rewritten three times: only the last version counts), an edit
  with nothing in its place and a ``sed -i`` substitution included (``unseen_edits``), or
  whose file was deleted after the session last saw it (``git revert`` of the commit that
  added it too);
- a runner fact whose command's last run said the command is not there (``No rule to make
  target``: ``no_longer_runs``), and a package the session installed and removed again
  (``removed_packages``);
- a "no X" / decided-against that the session then did anyway (it added `X` to a file, or
  ran it and it worked): the state changed again, the old stance is stale. The user's own
  words are exempt -- the agent going against them does not make them untrue;
- the agent's own notes written while it laid out options ("Option 1 … Option 2 …"),
  hedged ("might", "probably") or later took back ("I was wrong: …", naming the same things):
  a fragment of a choice, a guess or a refuted claim is not a fact about the project;
- a user's choice among the agent's options in prose ("let's go with option 2", "let's go with
  the second one"): rewritten to what that option says, in the project's scope; dropped when no
  earlier message lists it (the bare pick says which option, never what it is). A reply that
  names several labels is the one label it does not turn down ("not option 1, option 2",
  "option B rather than A", "not option A but C"); one that turns down its only label, names
  two it does not turn down, or compares them in a way a word list cannot read ("option 2
  is better than 1", "option 1 vs 2") is dropped: storing the rejected option would be worse
  than storing none;
- a stance on a named thing (a code span, an identifier) that later words retire: the user
  later turning it down or replacing it ("replace `audience` with `github_app`", "don't add
  `oidc-audience`", "I don't want monthly-salted ids" after the agent praised them), or,
  for anything but the user's own words, the agent reporting it replaced or removed
  ("Replaced the `audience` input with `github-app`"). A candidate that stores more than it
  decided (a picked option's whole text) names its ``stance`` (the title and first sentence
  it was picked by): later words retiring the stance drop it; words retiring only the rest
  leave the stance alone stored;
- an agent's note that leans on a referent it does not carry ("Do not use it as an app
  selector"): alone, it says nothing the next session can act on;
- the user's answers to the agent's questions that fed a plan the user then turned down
  (ExitPlanMode refused) and never approved later in the session: they were inputs to a
  design nobody carried out, not standing decisions; and an answer the person's very next
  words take back ("actually make it …");
- an agent's note resting on a word the person later denies ("I'm not headless" after the
  agent's "ensure you are not headless"): the user's account of their own situation
  outranks the agent's diagnosis;
- what the person asked for, when the agent later put that very ask back to them as a
  question ("You asked for the index to live in app.db. … How should I handle this?") and
  they answered: the answer is their latest word on it (kept as its own decision), the
  earlier wording is not;
- a stance in prose (the agent's note, the user's convention, decision or preference) whose
  named thing a later edit took out of the project for good, whose file a later change
  deleted, or (the agent's) whose count of a file's contents a later change outgrew
  (``undone``; the user's words only once the thing they named failed first), or whose
  named thing only the session's own writes put in files that git then threw back
  (``git restore``, ``git checkout -- f``, ``git stash``);
- a user's stance that later words overtook without being a request of its shape: a rename
  the session carried out (rewritten to the new name when safe), a design the person approved
  that says yes to what the stance said no to, a later "only these" word that leaves out what
  the stance shows (``overtaken``);
- a user's standing request the same person revised later in other words, on the same
  subject ("zip by default" … "no, make zipping a separate command"; "let's not zip after
  all"): only their last word is their decision (``revised``) -- also when the later
  words turn the thing down by name ("forget Redis", "actually, spaces, not tabs"), take
  back what was said about it, or call it temporary, though those words are not kept.

Pure logic: ``digest`` reduces the in-memory session to the few facts reconciling needs, and
``reconcile`` decides on plain data -- no file is read, no clock is asked.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.revision_cues import NOT_ASKED_NOT_TO

from claimgraph.capture.events import Event
from claimgraph.capture.extract.observed import with_observed
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.session import (
    OK, UNKNOWN, SessionView, taught_at, transcript_evidence)
from claimgraph.capture.extract.actions import of_kind
from claimgraph.capture.extract.approvals import lettered_options, sets_terms
from claimgraph.capture.extract.asked import answers, questions
from claimgraph.capture.extract.corroborate import Record, read_outputs, unsupported
from claimgraph.capture.extract.no_longer_runs import command_of, stopped_running
from claimgraph.capture.extract.offered import position_pick
from claimgraph.capture.extract.overtaken import overtake, plan_texts
from claimgraph.capture.extract.removed_packages import (
    PackageChange, package_changes, removed_later)
from claimgraph.capture.extract.revised import revised_away
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.superseded import DECISIONS, superseded
from claimgraph.capture.extract.taken_back import taken_back
from claimgraph.capture.extract.tools import ASK, PLAN, SHELL
from claimgraph.capture.extract.unseen_edits import emptying_edits, substituted
from claimgraph.capture.packed import EventTexts
from claimgraph.capture.extract.undone import (
    History, deletions, failures, history as edit_history, reverts, snapshots,
    undone_by_edits)

Candidate = dict[str, Any]
_FILE_QUOTE = lazy_regex(r"^(?P<path>[^\s`]+?): `(?P<quote>.*)`$", re.DOTALL)
_CODE_SPAN = re.compile(r"`([^`\n]{3,80})`")
_NEGATION = lazy_regex(r"^(?:no|not|never|avoid|without|don'?t|do not|stop|skip)\s+"
                       r"(?:(?:use|using|add|adding|run|running|have|commit|any)\s+)?"
                       r"(?P<what>[^,.;:!?]{3,60})$", re.IGNORECASE)
#: A pick by label: "option B", "option #2", "options A and C" ("options" too, never the
#: plural's "s" as label "S", nor "choices" or "alternatives" as a pick at all).
_OPTION_REF = lazy_regex(r"\b(?:option|approach|alternative|choice)(?:s\b)?\s*#?\s*"
                         r"(?P<label>\d+|(?<=[\s#])[A-Z])\b", re.IGNORECASE)
_OPTION_LINE = lazy_regex(r"^\s*(?:#{1,6}\s*)?(?:[-*]\s*)?(?:\*\*)?\s*(?:option|approach|"
                          r"alternative)\s*#?\s*(?P<label>\d+|[A-Z])\b\s*(?:\*\*)?\s*"
                          r"[:.)\-–—]*\s*(?:\*\*)?\s*(?P<text>.*)$", re.IGNORECASE)
_HEDGE = lazy_regex(r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|could be|"
                    r"i think|i believe|seems?|appears? to|unclear|not sure|"
                    r"guess|presumably|should be fine)\b", re.IGNORECASE)
_NEGATIVE_WORD = lazy_regex(r"\b(?:no|not|never|avoid|without|don'?t|do not|stop|skip|instead)\b",
                            re.IGNORECASE)
#: Stances a later action can make stale (a lesson or a runner is about what happened).
_STANCES = frozenset({"x/convention", "x/decided", "core/prefers", "core/decided-against"})
_RETRACTION = lazy_regex(r"\b(?:i was wrong|i was mistaken|that was wrong|(?:my|the) (?:earlier |"
                         r"previous )?(?:claim|assumption|statement) was (?:wrong|incorrect)|"
                         r"contrary to what i (?:said|assumed)|turns out|so that'?s not (?:right|"
                         r"true)|was incorrect)\b",
                         re.IGNORECASE)
_WORD = lazy_regex(r"[A-Za-z][\w.-]{3,}")
_COMMON = frozenset({"that", "this", "with", "from", "into", "when", "then", "than", "they",
                     "them", "have", "will", "would", "should", "could", "also", "only", "just",
                     "used", "uses", "using", "file", "files", "instead"})
#: Shared words that tie a retraction to an earlier note of the agent.
_MIN_SHARED = 3
_MIN_OPTIONS = 2
#: The person's words taking back what they just answered ("actually make it X").
_CORRECTION = lazy_regex(r"^\W*(?:actually|no[,.!]|nope\b|wait\b|scratch that|on second thought|"
                         r"instead\b|change (?:it|that)\b|rather\b)", re.IGNORECASE)
#: "not X" / "isn't X" / "I'm not on X" in the person's words: X denied.
_DENIAL = lazy_regex(r"\b(?:not|never|isn'?t|aren'?t|wasn'?t|no longer)\s+(?:(?:a|an|the|on|in|"
                     r"using|running|in\s+a)\s+)?(?P<word>[A-Za-z]+)", re.IGNORECASE)
#: The shortest word of an agent's note a denial must name (short words are too common).
_MIN_DENIED = 5
#: Sources whose words reconcile may overrule with later actions (never the user's own).
_CHANGEABLE_RULES = frozenset({"answers"})
#: A plan put to the user for approval, and its verdict (Claude Code's ExitPlanMode result).
_PLAN_APPROVED = ("User has approved", "User approved")
_PLAN_REFUSED = "The user doesn't want to proceed"
#: A named thing: a code span, or a word shaped like an identifier (``oidc-audience``,
#: ``github_app``, ``@scope/pkg``, ``camelCase``).
_IDENTIFIER = lazy_regex(r"(?<![\w@/.-])(?:@?[A-Za-z][\w]*(?:[-_./][\w]+)+|"
                         r"[a-z]+[A-Z][A-Za-z]+)(?![\w/-])")
#: Up to a few words between a verb and what it retires, never crossing "with" / "by" / "to"
#: (in "replaced X with Y", Y is what stays).
_GAP = r"(?:(?!\b(?:with|by|to|for|into|in favou?r of)\b)[^.;:\n]){0,40}?"
_RETIRED_BEFORE = (r"\b(?:replaced|removed|deleted|dropped|reverted|deprecated|retired|"
                   r"got rid of|no longer (?:uses?|supports?|accepts?|needs?|requires?|sends?))\b")
_RETIRED_AFTER = (r"\b(?:is|are|was|were|has been|have been|got|now)\s+(?:now\s+)?"
                  r"(?:removed|rejected|replaced|deleted|dropped|deprecated|gone|obsolete)\b")
_INSTEAD_OF = r"\b(?:instead of|rather than)\b"
#: What only the user's later words retire with: a request to replace or a refusal -- not
#: when asked not to ("don't forget the migration", "never drop the index": a reminder).
_USER_RETIRES = (r"\b" + NOT_ASKED_NOT_TO
                 + r"(?:replace|remove|delete|drop|revert|get rid of|stop using|"
                 r"forget(?: about)?|ditch|no more|"
                 r"(?:do not|don'?t|never|no need to) (?:use|add|keep|send|require|want|need))\b")
_ANY_RETIRING = lazy_regex(_RETIRED_BEFORE + "|" + _INSTEAD_OF + "|" + _RETIRED_AFTER,
                           re.IGNORECASE)
_ANY_USER_RETIRING = lazy_regex(_ANY_RETIRING.pattern + "|" + _USER_RETIRES, re.IGNORECASE)
#: A bare pronoun in a note's first words: its referent was in the message, not in the note.
_LOST_REFERENT = lazy_regex(r"^(?:\W*\w+\W+){0,3}?(?:it|them|they|its|their)\b", re.IGNORECASE)


class FileChange:
    """One look at a file in session order: ``kind`` read / write / edit; ``old`` what an
    edit replaced; ``new`` what a write or edit put there, or what a read showed.

    ``new`` may be given as the look itself (anything with a ``text``): a read's text is
    then derived when asked, not held for every file of the session (reads.SeenFile)."""

    __slots__ = ("line", "kind", "old", "_new")

    def __init__(self, line: int, kind: str, old: str, new: str | SeenFile) -> None:
        self.line, self.kind, self.old, self._new = line, kind, old, new

    @property
    def new(self) -> str:
        return self._new if isinstance(self._new, str) else self._new.text


@dataclass(frozen=True)
class Later:
    """What reconciling needs to know about the session, as plain data."""

    #: Cited path (relative, as in evidence) -> its looks in order.
    files: Mapping[str, list[FileChange]] = field(default_factory=dict)
    #: (line, text) of what the session did that worked: text it wrote, commands it ran.
    done: list[tuple[int, str]] = field(default_factory=list)
    #: (line, {label: option text}) of agent messages that laid out options.
    options: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    #: The project's name (a chosen option is a decision of the project).
    project: str | None = None
    #: (line, text) of agent messages that take something back ("I was wrong: both run").
    retractions: list[tuple[int, str]] = field(default_factory=list)
    #: (line, text) of what the person typed (their own words, no pasted document).
    user_said: list[tuple[int, str]] = field(default_factory=list)
    #: (line, text) of the agent's messages (its reports of what it did); in a pass, read
    #: from the events as asked (``packed.EventTexts``), not held inflated through reconcile.
    agent_said: Sequence[tuple[int, str]] = field(default_factory=list)
    #: (line, approved) of each plan put to the user that got a verdict: True approved,
    #: False turned down (an error or an interrupt is no verdict and is not listed).
    plan_verdicts: list[tuple[int, bool]] = field(default_factory=list)
    #: Lines of the agent's questions to the user and of their answers (a picked option cites
    #: the question first, an answer the person typed cites the answer).
    asked: frozenset[int] = frozenset()
    #: (line, text) of each question the agent asked through the harness that got an answer.
    questions: list[tuple[int, str]] = field(default_factory=list)
    #: What the session's own writes and edits left in each file, and every human prompt
    #: with what was pasted into it: the record an agent's note is checked against
    #: (``corroborate``).
    record: Record = field(default_factory=Record)
    #: (line, path) of each file or folder the session deleted (cited paths), and (line,
    #: what was run and what it printed) of each shell command that failed (``undone``).
    deleted: list[tuple[int, str]] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    #: (line, text) of each plan the person approved (``overtaken``).
    plans: list[tuple[int, str]] = field(default_factory=list)
    #: (line, command) of shell commands that ran but whose outcome never showed (sent to
    #: the background, no result): work the session moved on to, done or not
    ran: list[tuple[int, str]] = field(default_factory=list)
    #: (line, cited path or "." for the whole tree) of each git command that threw the
    #: working tree's changes away (``git restore``, ``git checkout -- f``, ``git stash``).
    reverted: list[tuple[int, str]] = field(default_factory=list)
    #: Lines of each ``git add`` / ``git commit`` that worked (what a revert brings back).
    snapshots: list[int] = field(default_factory=list)
    #: Each package a command that worked added or removed (``removed_packages``).
    packages: list[PackageChange] = field(default_factory=list)


def _agent_messages(view: SessionView) -> tuple[list[tuple[int, dict[str, str]]],
                                                list[tuple[int, str]], EventTexts]:
    """The main thread's messages (not a subagent's side chain) as ``digest`` keeps them: the
    options each lays out, the ones that take something back, and the agent's own words. Each
    message is read once for all three: a long one is held compressed (capture/packed.py)
    and every read inflates it again."""
    options: list[tuple[int, dict[str, str]]] = []
    retractions: list[tuple[int, str]] = []
    agent_said: list[Event] = []  # read from the events when asked (``packed.EventTexts``)
    for event in view.transcript.events:
        if event.kind != "assistant" or event.is_sidechain:
            continue
        text = event.text
        found = options_in(text)
        if len(found) >= _MIN_OPTIONS:
            options.append((event.line, found))
        if _RETRACTION.search(text):
            retractions.append((event.line, text))
        if not event.subagent_id and not event.derived:
            agent_said.append(event)
    return options, retractions, EventTexts(agent_said)


def digest(view: SessionView) -> Later:
    """The session reduced to what ``reconcile`` asks (in memory, no I/O)."""
    files: dict[str, list[FileChange]] = {}
    for looks in surviving_looks(view).values():
        for look in looks:
            if look.cited:
                files.setdefault(_bare(look.cited), []).append(
                    FileChange(look.call.line, look.how, look.replaced, look))
    unseen = [*emptying_edits(view), *substituted(view, files)]
    for path, line, old, new in unseen:
        files.setdefault(path, []).append(FileChange(line, "edit", old, new))
    for path, line, kind, old, new in taken_back(view, files):
        files.setdefault(path, []).append(FileChange(line, kind, old, new))
        unseen.append((path, line, old, new))
    for path in {path for path, *_ in unseen}:  # once per file: a sed may change every line
        files[path].sort(key=lambda known: known.line)
    done = [(action.line, action.command) for action in of_kind(view, SHELL)
            if action.outcome == OK and action.command]
    done += [(change.line, change.new) for changes in files.values() for change in changes
             if change.kind != "read"]
    options, retractions, agent_said = _agent_messages(view)
    user_said = [(event.line, text) for event, text in user_texts(view)]
    return Later(files, sorted(done), options, view.project, retractions, user_said,
                 agent_said, plan_verdicts(view),
                 frozenset(line for action in of_kind(view, ASK)
                           for line in (action.line, action.result.line if action.result else 0)),
                 answered_questions(view),
                 Record(with_observed(view, written_text(files), _changed_at(files)), user_said,
                        [(event.line, event.text) for event in view.transcript.events
                         if event.is_human_prompt and not event.subagent_id],
                        [view.results[call.call_id] for call in view.calls()
                         if call.call_id and call.call_id in view.results
                         and view.outcome(call) == OK],
                        files),
                 deletions(view), failures(view), plan_texts(view),
                 [(action.line, action.command) for action in of_kind(view, SHELL)
                  if action.outcome == UNKNOWN and action.command and not (
                      action.result is not None and view.refused(action.result))],
                 reverts(view), snapshots(view),
                 package_changes((action.line, action.command) for action in of_kind(view, SHELL)
                                 if action.outcome == OK and action.command))


def _changed_at(files: Mapping[str, list[FileChange]]) -> dict[str, list[int]]:
    """Path -> the lines where the session's own writes and edits changed it."""
    return {path: [change.line for change in changes if change.kind != "read"]
            for path, changes in files.items()}


def written_text(files: Mapping[str, list[FileChange]]) -> dict[str, str]:
    """Path -> what the session's own writes and edits left in it, in order: a write sets
    the text, an edit swaps its old text for its new one (or adds the new text when the old
    was never seen written). Files it only read are absent."""
    written: dict[str, str] = {}
    for path, changes in files.items():
        text: str | None = None
        for change in changes:
            if change.kind == "write":
                text = change.new
            elif change.kind == "edit":
                if text is not None and change.old and change.old in text:
                    text = text.replace(change.old, change.new, 1)
                else:
                    text = (text or "") + "\n" + change.new
        if text is not None:
            written[path] = text
    return written


def answered_questions(view: SessionView) -> list[tuple[int, str]]:
    """(line, the question's words) of each harness question the person answered."""
    return [(action.line, " ".join(str(q.get("question") or "") for q in questions(action.call)))
            for action in of_kind(view, ASK)
            if action.result is not None and answers(action.call, action.result)]


def plan_verdicts(view: SessionView) -> list[tuple[int, bool]]:
    """(line, approved) of each plan the agent put to the user that got a verdict."""
    found: list[tuple[int, bool]] = []
    for action in of_kind(view, PLAN):
        said = action.result.text.lstrip() if action.result is not None else ""
        if said.startswith(_PLAN_APPROVED):
            found.append((action.line, True))
        elif said.startswith(_PLAN_REFUSED):
            found.append((action.line, False))
    return found


def options_in(text: str) -> dict[str, str]:
    """{label: what the option says} for "Option 1: …" / "**Option B** — …" lines; an option
    whose line holds only its label takes the next non-empty line. Bare letters count too
    ("- **A — Extract (17):** …", "- **B — …**") in a run from A (``approvals``' reading of
    labelled lines): a letter alone is an option only among its siblings."""
    found: dict[str, str] = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = _OPTION_LINE.match(line)
        if not match:
            continue
        said = _clean(match["text"])
        if not said:
            said = next((_clean(rest) for rest in lines[index + 1:] if rest.strip()), "")
        if said:
            found.setdefault(match["label"].upper(), said)
    for option in lettered_options(text):
        found.setdefault(option.label, option.text)
    return found


def reconcile(candidates: Iterable[Candidate], later: Later) -> list[Candidate]:
    """The candidates the session's end still supports, some rewritten (module docstring)."""
    kept: list[Candidate] = []
    retiring = _retiring(later)
    candidates = list(candidates)
    later = replace(later, record=read_outputs(later.record, candidates))
    history = edit_history(candidates, later, asserted_terms)
    for found in candidates:
        settled = _settle(found, later, retiring, history)
        if settled is not None:
            kept.append(settled)
    return revised_away(overtake(kept, later), later.user_said)


@dataclass(frozen=True)
class _Retiring:
    """The later words that could retire anything, each lowered once per session: a message
    without a retiring verb is never searched again (reconciling stays linear in practice)."""

    user: list[tuple[int, str, str]]
    agent: list[tuple[int, str, str]]


def _retiring(later: Later) -> _Retiring:
    def kept(said: Sequence[tuple[int, str]],
             verbs: re.Pattern[str]) -> list[tuple[int, str, str]]:
        return [(at, text, text.lower()) for at, text in said if verbs.search(text)]
    return _Retiring(kept(later.user_said, _ANY_USER_RETIRING),
                     kept(later.agent_said, _ANY_RETIRING))


def _settle(found: Candidate, later: Later, retiring: _Retiring | None = None,
            history: History | None = None) -> Candidate | None:
    if _file_quote_removed(found, later):
        return None
    line = taught_at(found)
    if found.get("source_type") == "agent-note" and _agent_guess(found, line, later):
        return None
    if unsupported(found, line, later.record):
        return None
    if _changed_again(found, line, later):
        return None
    command = command_of(found)
    if command is not None and stopped_running(command, later.failed, later.done):
        return None  # the session's last run of it said the command is not there
    if removed_later(found, line, later.packages):
        return None  # the session took the package out again
    if found.get("predicate") in DECISIONS and superseded(str(found.get("object") or ""),
                                                          line, [*later.done, *later.ran]):
        return None  # the work went on with another version of what it names
    retiring = retiring or _retiring(later)
    if _retired(found, line, retiring):
        return None
    if found.get("stance") and _retired({**found, "stance": None}, line, retiring):
        # later words overtook a detail beyond what was decided: keep only the decision
        found = {**found, "object": found["stance"]}
    if line in later.asked and _fed_a_turned_down_plan(line, later):
        return None
    if line in later.asked and found.get("rule") in _CHANGEABLE_RULES \
            and _corrected_next(line, later):
        return None
    if found.get("source_type") == "agent-note" and found.get("predicate") in _STANCES \
            and _user_denies(found, line, later):
        return None
    if found.get("rule") == "statements" and _asked_back(found, line, later):
        return None
    if undone_by_edits(found, line, later, history or edit_history(
            [found], later, asserted_terms), asserted_terms) is not None:
        return None
    if found.get("rule") == "statements" and (
            _OPTION_REF.search(str(found["object"]))
            or position_pick(str(found["object"])) is not None):
        return None if sets_terms(str(found["object"])) else _chosen_option(found, line, later)
    return found


def _file_quote_removed(found: Candidate, later: Later) -> bool:
    """The quoted line is gone from the file as the session left it: the last change that
    touched it took it out (a whole write without it, an edit that replaced it), or the file
    was deleted after the session last saw it. A read that shows it again puts it back; a
    read without it says nothing (it may be partial)."""
    evidence = found.get("evidence") or [""]
    match = _FILE_QUOTE.match(str(evidence[0]))
    if not match or match["path"].startswith("transcript#"):
        return False
    quote, present, path = match["quote"].strip(), None, _bare(match["path"])
    if not quote:
        return False
    last = -1
    for change in later.files.get(path, []):
        last = change.line
        if change.kind == "write":
            present = quote in change.new
        elif change.kind == "edit" and quote in change.old and quote not in change.new:
            present = False
        elif quote in change.new:
            present = True
    if any(at > last and _bare(gone) == path for at, gone in later.deleted):
        return True  # the file itself was deleted after the session last saw it
    return present is False


def _changed_again(found: Candidate, line: int | None, later: Later) -> bool:
    """A "no X" the session then did anyway: X written into a file or run successfully
    after the line that said no. The user's own words are never overruled this way."""
    if line is None or found.get("predicate") not in _STANCES or (
            found.get("source_type") == "user-assertion"
            and found.get("rule") not in _CHANGEABLE_RULES):
        return False
    terms = _negated_terms(found)
    return bool(terms) and any(_does(term, text) for at, text in later.done if at > line
                               for term in terms)


def _fed_a_turned_down_plan(line: int | None, later: Later) -> bool:
    """An answer given before a plan the user turned down, with no plan approved after it:
    the answer was an input to a design the session never carried out. An answer with no
    plan after it at all (a plain question) stands."""
    if line is None:
        return False
    verdicts = [approved for at, approved in later.plan_verdicts if at > line]
    return bool(verdicts) and not any(verdicts)


def _corrected_next(line: int | None, later: Later) -> bool:
    """The person's next words after an answer to the agent's question take it back
    ("actually make it …", "no, …", "wait, …"): the answer was replaced before anything was
    built on it, so the option picked is not the decision."""
    if line is None:
        return False
    following = next((text for at, text in later.user_said if at > line), None)
    return following is not None and bool(_CORRECTION.match(following))


def _user_denies(found: Candidate, line: int | None, later: Later) -> bool:
    """The person later says no to a word the agent's note rests on ("I'm not headless"
    after the agent's "ensure you are in a desktop session, not headless"): the agent's
    diagnosis met the user's own account of their situation, which outranks it."""
    if line is None:
        return False
    words = {w for w in _content_words(str(found.get("object") or ""))
             if len(w) >= _MIN_DENIED and w.isalpha()}
    if not words:
        return False
    for at, text in later.user_said:
        if at <= line:
            continue
        for match in _DENIAL.finditer(text):
            if match["word"].lower() in words:
                return True
    return False


def _does(term: str, text: str) -> bool:
    """``text`` has ``term`` on a line that does not itself say no to it (a plan reading "no
    custom checks" is not doing them)."""
    return any(term in row.lower() and not _NEGATIVE_WORD.search(row)
               for row in text.splitlines() if term in row.lower())


def _retired(found: Candidate, line: int | None, retiring: _Retiring) -> bool:
    """Later words retire a thing this stance names (module docstring): the user's later
    refusal or replacement of it, or -- for anything but the user's own words -- the agent's
    report that it was replaced or removed. Only what the stance says yes to can be retired:
    "do not add `X`" agrees with a later "removed `X`"."""
    if line is None or found.get("predicate") not in _STANCES:
        return False
    # a candidate whose stored text says more than was decided names its stance apart
    terms = asserted_terms(str(found.get("stance") or found.get("object") or ""))
    if not terms:
        return False
    said = [(text, lowered, _USER_RETIRES) for at, text, lowered in retiring.user if at > line]
    if found.get("source_type") != "user-assertion" or found.get("rule") in _CHANGEABLE_RULES:
        said += [(text, lowered, None) for at, text, lowered in retiring.agent if at > line]
    return any(term.lower() in lowered and retires(text, term, imperative)
               for text, lowered, imperative in said for term in terms)


def asserted_terms(text: str) -> list[str]:
    """The named things a stance says yes to: code spans and identifier-shaped words not
    under a negation in the few words before them."""
    found: list[str] = []
    for match in [*_CODE_SPAN.finditer(text), *_IDENTIFIER.finditer(text)]:
        term = match.group(1) if match.re is _CODE_SPAN else match.group(0)
        before = text[max(0, match.start() - 40):match.start()].split()[-4:]
        if _NEGATIVE_WORD.search(" ".join(before)) or len(term) < 4 or retires(text, term):
            continue  # said no to, or itself the thing replaced ("Replaced `X` with `Y`")
        if term.lower() not in (known.lower() for known in found):
            found.append(term)
    return found


def retires(text: str, term: str, imperative: str | None = None) -> bool:
    """``text`` says ``term`` was replaced, removed or rejected (or, with ``imperative``,
    asks for it: the user's own "replace X with Y", "don't add X")."""
    if term.lower() not in text.lower():
        return False
    return any(pattern.search(text) for pattern in _retiring_patterns(term, imperative))


#: Terms whose retiring patterns are kept compiled (``re``'s own cache of 512 was overrun:
#: ~270 compiles at 50 MB, issue 29); each term's few patterns are a few KB.
_PATTERN_MEMO = 256


@functools.lru_cache(maxsize=_PATTERN_MEMO)
def _retiring_patterns(term: str, imperative: str | None) -> tuple[re.Pattern[str], ...]:
    named = r"`?" + re.escape(term) + r"`?(?![\w-])"
    verbs = [_RETIRED_BEFORE, _INSTEAD_OF] + ([imperative] if imperative else [])
    patterns = [verb + _GAP + r"(?<![\w-])" + named for verb in verbs]
    patterns.append(r"(?<![\w-])" + named + _GAP + _RETIRED_AFTER)
    return tuple(re.compile(pattern, re.IGNORECASE) for pattern in patterns)


def _negated_terms(found: Candidate) -> list[str]:
    """What a negative stance says no to: its code spans, else the short phrase after "no"."""
    text = str(found.get("object") or "")
    phrase = _NEGATION.match(text)
    if found.get("predicate") != "core/decided-against" and not phrase:
        return []
    spans = [s.lower() for s in _CODE_SPAN.findall(text)]
    if spans:
        return spans
    if phrase and len(phrase["what"].split()) <= 3:
        return [phrase["what"].strip().lower()]
    if found.get("predicate") == "core/decided-against" and len(text.split()) <= 3:
        return [text.strip().lower()]
    return []


def _agent_guess(found: Candidate, line: int | None, later: Later) -> bool:
    """The agent's note is a hedge, a piece of a list of options it laid out, or something
    it later took back ("I was wrong: …") in words that name the same things."""
    text = str(found.get("object") or "")
    if _HEDGE.search(text) or _LOST_REFERENT.match(text):
        return True
    if line is None:
        return False
    if any(at == line for at, _ in later.options):
        return True
    spans = {s.lower() for s in _CODE_SPAN.findall(text)}
    words = _content_words(text)
    return any(at > line and ({s for s in spans if s in said.lower()}
                              or len(words & _content_words(said)) >= _MIN_SHARED)
               for at, said in later.retractions)


#: The agent putting the person's own ask back to them ("You asked for …", "you wanted …").
_ASK_RESTATED = lazy_regex(r"\byou(?:'ve)?\s+(?:asked|wanted|said|requested|suggested|mentioned)\b"
                           r"|\byour\s+(?:request|ask|suggestion)\b", re.IGNORECASE)
#: How many content words the question must share with what the person said.
_MIN_RESTATED = 3


def _asked_back(found: Candidate, line: int | None, later: Later) -> bool:
    """The person's statement was put back to them as a question they then answered: the
    agent restates their ask ("You asked for QMD's index to live in app.db itself. …") and the
    question shares its content words; the answer (a decision of its own) is their latest
    word, so the earlier wording is not kept beside it."""
    if line is None:
        return False
    words = _content_words(str(found.get("object") or ""))
    return any(at > line and _ASK_RESTATED.search(question)
               and len(words & _content_words(question)) >= _MIN_RESTATED
               for at, question in later.questions)


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _COMMON


def _chosen_option(found: Candidate, line: int | None, later: Later) -> Candidate | None:
    """"let's go with option 2" -> what option 2 said, decided by the user, in the project;
    "let's go with the second one" -> what the second option of the last list said;
    "not option 1, option 2" -> what option 2 said (``picked_label``)."""
    said = str(found["object"])
    before = [(at, options) for at, options in later.options if line is not None and at < line]
    if _OPTION_REF.search(said):
        label = picked_label(said, {name for _, options in before for name in options}) or ""
        offered = [(at, options) for at, options in before if label in options]
    else:
        offered, label = before[-1:], ""
        position = position_pick(said)
        if offered and position is not None and -1 <= position < len(offered[0][1]):
            label = sorted(offered[0][1])[position]
    if not offered or not label or not later.project:
        return None
    at, options = offered[-1]
    return {**found, "object": options[label], "predicate": "x/decided",
            "epistemic": "commitment", "scope": "project", "subject": later.project,
            "subject_type": "project",
            "evidence": [*found["evidence"][:1], transcript_evidence(at, options[label])]}


#: Words before a label that turn it down ("not option 1", "option B rather than A", "over A").
_TURNS_DOWN = lazy_regex(r"\b(?:not|no|never|rather\s+than|instead\s+of|over|except|without|"
                         r"avoid|skip|drop|reject|against)\b|n['’]t\b", re.IGNORECASE)
#: Words after a label, in its clause, that turn it down ("option 1 won't work").
_DENIED_AFTER = lazy_regex(r"\b(?:not|no|never)\b|n['’]t\b", re.IGNORECASE)
#: A comparison whose direction a list of words cannot read ("2 is better than 1", "1 vs 2",
#: "either works").
_UNREADABLE = lazy_regex(r"(?<!rather )\bthan\b|\bvs\.?(?!\w)|\bversus\b|\bcompared\b|"
                         r"\beither\b|\bneither\b|\bboth\b", re.IGNORECASE)
#: Where a sentence ends, and where a clause of one ends (a comma, "but", "though").
_SENTENCE_BREAK = lazy_regex(r"[.;!?\n]+")
_CLAUSE_BREAK = lazy_regex(r",|\b(?:but|though|however)\b", re.IGNORECASE)
#: A label said without its "option" word, after a word that joins it to another:
#: "option B rather than A", "option 2, not 1", "not option A but C".
_BARE_LABEL = lazy_regex(r"(?:\b(?:rather\s+than|instead\s+of|over|not|but|or|and)\b|,)\s+"
                         r"(?:the\s+)?#?\s*(?P<label>\d+|[A-Z])(?![\w-])")


def picked_label(said: str, offered: set[str]) -> str | None:
    """The label of the option a reply picks: the one label it names and does not turn down;
    None when it turns down its only one, names two it keeps, or cannot be read safely.
    Labels named without their "option" word count only among ``offered``."""
    if _UNREADABLE.search(said):
        return None
    kept: set[str] = set()
    turned_down: set[str] = set()
    for sentence in _SENTENCE_BREAK.split(said):
        verdicts = _sentence_verdicts(sentence, offered)
        if verdicts is None:
            return None
        for label, down in verdicts:
            (turned_down if down else kept).add(label)
    chosen = kept - turned_down
    if len(chosen) != 1 or kept & turned_down:
        return None
    return chosen.pop()


def _sentence_verdicts(sentence: str, offered: set[str]) -> list[tuple[str, bool]] | None:
    """(label, turned down) for each label one sentence names, clause by clause; None when a
    clause's turning down cannot be tied to one label (a clause without a label that says
    "not" after a label was named: "option 1, not what I want")."""
    mentions = _mentions(sentence, offered)
    verdicts: list[tuple[str, bool]] = []
    start = 0
    for end in [*(found.start() for found in _CLAUSE_BREAK.finditer(sentence)), len(sentence)]:
        inside = [(at, until, label) for at, until, label in mentions if start <= at < end]
        if not inside:
            if verdicts and _DENIED_AFTER.search(sentence[start:end]):
                return None
        else:
            last = start
            for at, until, label in inside:
                verdicts.append((label, bool(_TURNS_DOWN.search(sentence[last:at]))))
                last = until
            if _DENIED_AFTER.search(sentence[last:end]):
                if len(inside) > 1:
                    return None
                verdicts[-1] = (verdicts[-1][0], True)
        start = end
    return verdicts


def _mentions(sentence: str, offered: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, label) of each label a sentence names: "option 2", or an offered label
    joined to another without its word ("rather than A")."""
    found = [(match.start(), match.end(), match["label"].upper())
             for match in _OPTION_REF.finditer(sentence)]
    for match in _BARE_LABEL.finditer(sentence):
        at = match.start("label")
        if match["label"] in offered and not any(start <= at < end for start, end, _ in found):
            found.append((at, match.end("label"), match["label"]))
    return sorted(found)


def _clean(text: str) -> str:
    return " ".join(re.sub(r"\*\*|__", "", text).split()).strip(" -–—:")


def _bare(path: str) -> str:
    return path[2:] if path.startswith("./") else path
