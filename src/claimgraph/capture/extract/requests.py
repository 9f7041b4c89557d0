"""A request the session carried out and that stood to the end: the user's decision.

The sentence model reads "write a lockfile by default when running `setup` (with a flag to
skip)" as a request for today, and it is one; but the session then built it, and the
project now behaves that way because the user asked. Such a sentence is kept, in the user's
own words, as a decision of the project (``x/decided``) when all of these hold
(docs/capture.md, "Requests the session carried out"):

- the sentence model calls it a request (or a request asked as a question, "can we …") and
  does not keep it as durable itself (then ``statements`` stores it as it always has);
- its form asks for a change to the project (``logic.requested.asks_for_a_change``), not a
  git or CI operation, a run, a review, an explanation or going on;
- the for-today checks (``standing.task_scoped``) find nothing, and it says how the project
  behaves from now on (``logic.requested.specifies_behaviour``) -- or they find only that it is
  one act done once (a rename, a removal: ``standing.one_off``), which is kept as such and
  shown with its date, never as a standing decision;
- before the person's next prompt the agent wrote, edited or deleted the project's own files
  and that change names the request: most of the sentence's own words (``corrections.stems``)
  are in the paths and texts it wrote or removed;
- none of the files it wrote for it was deleted later in the session (a design taken out);
- it does not end in a colon that introduces a list or a paste ("… should also support:");
- the user did not hedge it or hand the choice over ("maybe …", "… if needed", "an
  appropriate type": ``logic.requested.left_to_the_agent``), and a request that is one act
  whatever its form (a rename, a relabel, a docs update: ``logic.requested.one_act``) is kept
  as done once (one that would not be kept at all stays out: this never adds a fact);
- an act done once that opens by saying yes to the agent's question or offer ("yes please
  add the exporter and rename the flag", ``logic.standalone.accepts_an_offer``) is the
  agent's proposed step, accepted: the end state shows it, and it is not kept.

A path the shell never expanded (``cat > "$out"``) names no file of the project: a turn that
wrote only such paths changed nothing the request could have asked for.

What the user said later still decides afterwards (``reconcile``: a later word of theirs that
turns the request around or retracts it drops it, as for any stance of theirs).
"""

from __future__ import annotations

import bisect
import posixpath
from dataclasses import dataclass
from typing import Any

from claimgraph.capture.classify.features import cue_names
from claimgraph.capture.extract.corrections import stems, word_stems
from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.standing import DONE_ONCE, one_off, task_scoped
from claimgraph.capture.extract.writes import removes, session_ops
from claimgraph.logic.standalone import accepts_an_offer
from claimgraph.logic.requested import (
    LASTING,
    ONCE,
    asks_for_a_change,
    creates_a_thing,
    left_to_the_agent,
    named_things,
    one_act,
    prose_path,
    specifies_behaviour,
)

#: The share of the sentence's own words the change must name, and the fewest words.
MIN_NAMED_PART = 0.4
MIN_NAMED = 2
#: The classes of the sentence model a carried-out request may have.
ASKING = frozenset({"request", "question"})


@dataclass(frozen=True)
class Turn:
    """What the agent changed in the project between a prompt and the person's next one."""

    first_change: int
    paths: tuple[str, ...]  # as cited, relative to the project
    words: frozenset[str]  # stems of every path and text written or removed
    taken_out: bool  # a file written for it was deleted later in the session
    #: The lines it put into the project's files that are still there at the session's end,
    #: with the file (as cited) each went into (``_Ledger``).
    left: tuple[tuple[str, str], ...] = ()
    #: It put lines into files and a later change took every one of them out (``reverted``).
    gone: bool = False
    #: stems of the lines it put in, less those of the text its edits replaced: the words
    #: it brought (``def init():`` edited into ``def init(skip=False):`` brings ``skip``)
    put_words: frozenset[str] = frozenset()
    end_words: frozenset[str] = frozenset()  # stems of every line the files hold at the end
    #: The lines it put in and the lines the files hold at the end, lower-cased and joined:
    #: where a named thing of the request is looked for (``reworked``).
    put_text: str = ""
    end_text: str = ""

    def reverted(self, sentence: str) -> bool:
        """A later change took out every line the turn put in, and no line left anywhere
        holds the request's words that were in them: a revert by editing (or by writing the
        file over), not only by deleting."""
        return self.gone and not stems(sentence) & self.put_words & self.end_words

    def reworked(self, sentence: str) -> bool:
        """A thing the request named that the lines the turn put in held (``wget`` in "make
        the healthchecks use `wget`") is in no line the files hold at the session's end: the
        form the person asked for was built, then replaced -- it failed, or they asked for
        another -- so the end state is not what they asked for, though the request's other
        words may still stand (the healthchecks are there, in another form). A path names
        where, not what: it is not looked for."""
        return any(name in self.put_text and name not in self.end_text
                   for name in (n.lower() for n in named_things(sentence)) if "/" not in name)


def carried_turns(view: SessionView) -> dict[int, Turn]:
    """For each prompt's line, the project files its turn changed (prompts whose turn
    changed none are absent). Computed once per view."""
    found: dict[int, Turn] = view.remembered("requests.turns", _turns)
    return found


def _turns(view: SessionView) -> dict[int, Turn]:
    prompts = [event.line for event in view.transcript.events
               if event.is_human_prompt and not event.subagent_id and not event.is_sidechain]
    # a request typed while turning a call down is answered by the same turn, up to the next
    # prompt: its result's line starts a turn of its own
    prompts += [event.line for event, _ in view.typed_in_results()]
    prompts = sorted(set(prompts))
    ops = [(call.line, op) for call, outcome, ops in session_ops(view) if outcome == OK
           for op in ops if view.own(op.path) is not None and not _unexpanded(op.path)]
    deleted = [(line, op.path) for line, op in ops if op.kind == "delete"]
    ledger = _Ledger()
    by_turn: dict[int, list[tuple[int, Any]]] = {}  # the changes made between two prompts
    for line, op in ops:
        at = bisect.bisect_left(prompts, line) - 1  # the prompt the change came after
        ledger.apply(op, prompts[at] if at >= 0 else None)
        if at >= 0 and (at + 1 == len(prompts) or prompts[at + 1] != line):
            by_turn.setdefault(prompts[at], []).append((line, op))
    now = ledger.now()
    # a word never spans a line break: the joined text's words are each line's
    end_words = frozenset(word_stems("\n".join(now)))
    end_text = "\n".join(now).lower()
    turns: dict[int, Turn] = {}
    for start, end in zip(prompts, prompts[1:] + [1 << 62]):
        changed = by_turn.get(start)
        if not changed:
            continue
        texts = [part for _, op in changed
                 for part in (op.path, op.content, *(t for old, new, _ in op.edits
                                                     for t in (old, new)))]
        written = {op.path for _, op in changed if op.kind != "delete"}
        words = frozenset(word_stems("\n".join(texts)))
        left = ledger.left_by(start, now)
        put = [line for line in ledger.added.get(start, {}) if any(c.isalpha() for c in line)]
        olds = "\n".join(old for _, op in changed for old, _, _ in op.edits)
        turns[start] = Turn(
            first_change=changed[0][0],
            paths=tuple(dict.fromkeys(view.own(op.path) or op.path for _, op in changed)),
            words=words,
            taken_out=any(at > end and path in written for at, path in deleted),
            left=tuple((view.own(path) or path, text) for path, text in left),
            gone=bool(put) and not left,
            put_words=frozenset(word_stems("\n".join(put))) - word_stems(olds),
            end_words=end_words, put_text="\n".join(put).lower(), end_text=end_text)
    return turns


class _Ledger:
    """Which turn put each line of the project's files there, replayed over the session's
    successful writes, edits and deletions (only what their own input says: a file changed
    by a script is not followed). A line is compared with its spaces collapsed; an edit takes
    out the lines its old text held that its new text does not, and a longer fragment of a
    line (``= 5`` of ``timeout = 5``) takes out the line it is part of."""

    #: A fragment shorter than this takes out only a line it equals (a lone ``)`` would
    #: otherwise take out every line holding one).
    MIN_FRAGMENT = 8
    #: A fragment is looked for only in a file of at most this many lines the session put
    #: there: the search is linear in the file, and a long session edits long files often
    #: (a fragment not looked for leaves its line standing: the request is kept, as before).
    MAX_SCANNED = 2000

    def __init__(self) -> None:
        self.files: dict[str, dict[str, int | None]] = {}
        self.added: dict[int, dict[str, str]] = {}  # turn -> line -> the file it went into

    def apply(self, op: Any, turn: int | None) -> None:
        if op.kind == "delete":
            for path in [p for p in self.files if removes(op.path, p)]:
                del self.files[path]
            return
        lines = self.files.setdefault(op.path, {})
        if op.kind == "write":
            kept = {line: lines.get(line, turn) for line in _lines(op.content)}
            self._add(op.path, [line for line in kept if line not in lines], turn)
            self.files[op.path] = kept
            return
        pairs = [("", op.content)] if op.kind == "append" else [(o, n) for o, n, _ in op.edits]
        for old, new in pairs:
            before, after = _lines(old), _lines(new)
            for gone in [line for line in before if line not in after]:
                if gone in lines:
                    del lines[gone]
                elif len(gone) >= self.MIN_FRAGMENT and len(lines) <= self.MAX_SCANNED:
                    for line in [line for line in lines if gone in line and line not in after]:
                        del lines[line]
            fresh = [line for line in after if line not in before and line not in lines]
            for line in fresh:
                lines[line] = turn
            self._add(op.path, fresh, turn)

    def _add(self, path: str, lines: list[str], turn: int | None) -> None:
        if turn is not None:
            mine = self.added.setdefault(turn, {})
            for line in lines:
                mine.setdefault(line, path)

    def now(self) -> set[str]:
        return {line for lines in self.files.values() for line in lines}

    def left_by(self, turn: int, now: set[str]) -> list[tuple[str, str]]:
        """(file, line) for each line the turn put in that some file (``now``) still holds."""
        return [(path, line) for line, path in self.added.get(turn, {}).items()
                if line in now]


def _lines(text: str) -> list[str]:
    """A text's non-blank lines, spaces collapsed, in order, once each."""
    return list(dict.fromkeys(" ".join(line.split()) for line in text.splitlines()
                              if line.strip()))


def _unexpanded(path: str) -> bool:
    """A path as the shell was given it, never expanded (``"$out"``, ``${TMP}/x``)."""
    return "$" in path or path[:1] in ('"', "'")


def carried_request(verdict: Any, sentence: str, turn: Turn | None, position: int = 0,
                    count: int = 1, after_options: bool | None = None, said: str = "",
                    offered: bool | None = None) -> str | None:
    """``LASTING`` or ``ONCE`` when ``sentence`` is a request its turn carried out and kept
    (module docstring), else None. ``verdict``: the sentence model's; ``position``, ``count``
    and ``after_options`` place the sentence as the model placed it; ``said``: the whole
    message it was cut from; ``offered``: the agent's message before it asked or offered its
    next step (``logic.standalone.offers_a_step``; ``after_options`` when not given)."""
    if turn is None or turn.taken_out or verdict.kept or verdict.label not in ASKING:
        return None
    if turn.reverted(sentence) or turn.reworked(sentence):
        return None
    if introduces(sentence, said):
        return None
    if not names_the_change(sentence, turn):
        return None
    cues = cue_names(sentence, position, count, after_options)
    if not asks_for_a_change(sentence, cues) or left_to_the_agent(sentence):
        return None
    kind = _carried_kind(sentence, turn)
    if offered is None:
        offered = after_options
    if kind == ONCE and offered and accepts_an_offer(sentence):
        return None  # the agent's offered step, accepted and done: the end state shows it
    return kind


def _carried_kind(sentence: str, turn: Turn) -> str | None:
    today = task_scoped(sentence)
    if today is None:
        if specifies_behaviour(sentence):
            return ONCE if one_act(sentence) else LASTING
        return LASTING if not one_act(sentence) and not creates_a_thing(sentence) \
            and puts_a_named_thing(sentence, turn) else None
    if today == DONE_ONCE and one_off(sentence) == DONE_ONCE:
        return ONCE
    return None


def puts_a_named_thing(sentence: str, turn: Turn) -> bool:
    """The request names a thing of the project (``logic.requested.named_things``: a code
    span, a path, an identifier) and the turn put that name into a file that makes the
    project (not docs, ``prose_path``), where it still is at the session's end: what the user
    asked for became part of how the project is built, not one step described in its docs or
    undone later."""
    names = {name.lower() for name in named_things(sentence)}
    return any(name in line.lower() for name in names for path, line in turn.left
               if not prose_path(path))


def introduces(sentence: str, said: str) -> bool:
    """The sentence ends in a colon in its message ("A full slicer should also support:"):
    it introduces what follows, and alone it says nothing."""
    at = said.find(sentence)
    return at >= 0 and said[at + len(sentence):].lstrip(" \t").startswith(":")


def names_the_change(sentence: str, turn: Turn) -> bool:
    """Most of the sentence's own words are in what the turn wrote or removed."""
    wanted = stems(sentence)
    named = len(wanted & turn.words)
    return named >= MIN_NAMED and named >= MIN_NAMED_PART * len(wanted)


def done_evidence(kind: str, turn: Turn) -> str:
    """The second evidence of a carried-out request: the line of the change that did it and
    the first file it changed, in the transcript citation's shape (``logic.requested``)."""
    where = posixpath.basename(turn.paths[0]) if turn.paths else ""
    return f"transcript#L{turn.first_change}: {kind}: {where}"


__all__ = ["LASTING", "ONCE", "Turn", "carried_request", "carried_turns", "done_evidence",
           "names_the_change"]
