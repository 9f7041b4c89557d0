"""A request the session carried out and that stood to the end: the user's decision.

The sentence model reads "create a single collection by default when running `init` (with a
flag to skip)" as a request for today, and it is one; but the session then built it, and the
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
  as done once (one that would not be kept at all stays out: this never adds a fact).

A path the shell never expanded (``cat > "$out"``) names no file of the project: a turn that
wrote only such paths changed nothing the request could have asked for.

What the user said later still decides afterwards (``reconcile``: a later word of theirs that
turns the request around or retracts it drops it, as for any stance of theirs).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from claimgraph.capture.classify.features import cue_names
from claimgraph.capture.extract.corrections import stems, word_stems
from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.standing import DONE_ONCE, one_off, task_scoped
from claimgraph.capture.extract.writes import session_ops
from claimgraph.logic.requested import (
    LASTING,
    ONCE,
    asks_for_a_change,
    left_to_the_agent,
    one_act,
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
    turns: dict[int, Turn] = {}
    for start, end in zip(prompts, prompts[1:] + [1 << 62]):
        changed = [(line, op) for line, op in ops if start < line < end]
        if not changed:
            continue
        texts = [part for _, op in changed
                 for part in (op.path, op.content, *(t for old, new, _ in op.edits
                                                     for t in (old, new)))]
        written = {op.path for _, op in changed if op.kind != "delete"}
        turns[start] = Turn(
            first_change=changed[0][0],
            paths=tuple(dict.fromkeys(view.own(op.path) or op.path for _, op in changed)),
            words=frozenset(stem for text in texts if text for stem in word_stems(text)),
            taken_out=any(at > end and path in written for at, path in deleted))
    return turns


def _unexpanded(path: str) -> bool:
    """A path as the shell was given it, never expanded (``"$out"``, ``${TMP}/x``)."""
    return "$" in path or path[:1] in ('"', "'")


def carried_request(verdict: Any, sentence: str, turn: Turn | None, position: int = 0,
                    count: int = 1, after_options: bool | None = None, said: str = ""
                    ) -> str | None:
    """``LASTING`` or ``ONCE`` when ``sentence`` is a request its turn carried out and kept
    (module docstring), else None. ``verdict``: the sentence model's; ``position``, ``count``
    and ``after_options`` place the sentence as the model placed it; ``said``: the whole
    message it was cut from."""
    if turn is None or turn.taken_out or verdict.kept or verdict.label not in ASKING:
        return None
    if introduces(sentence, said):
        return None
    if not names_the_change(sentence, turn):
        return None
    cues = cue_names(sentence, position, count, after_options)
    if not asks_for_a_change(sentence, cues) or left_to_the_agent(sentence):
        return None
    today = task_scoped(sentence)
    if today is None:
        if not specifies_behaviour(sentence):
            return None
        return ONCE if one_act(sentence) else LASTING
    if today == DONE_ONCE and one_off(sentence) == DONE_ONCE:
        return ONCE
    return None


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
