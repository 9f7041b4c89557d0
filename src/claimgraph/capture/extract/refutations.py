"""Refutations: what a tool's outcome showed to be wrong, kept as the lesson.

When the agent claims something, tests it, and a tool's result proves the claim wrong, two
things follow (docs/capture.md, "Reconciling"): the claim is dropped (``reconcile`` drops an
agent's note that a later retraction names), and the correction is what the session learned
-- "both settings files' hooks run; the local one does not override". This rule keeps the
correction, and only where a tool's outcome grounds it: the agent's message must come right
after a tool result (nothing typed by the user in between, so the correction is the agent
reading the outcome, not being told), must say outright that an earlier claim was wrong ("I
was wrong", "my assumption was incorrect", "contrary to what I said") and must not hedge.
"It turns out …" alone is not enough: agents say it of every discovery.

The lesson is the correcting sentence (and the one after it when it ends with a colon), cited
with the tool result that proved it: ``core/failure-mode``, observed (``failure-report``).
An admission that says nothing of what is true instead ("I was wrong", "The reviewer was right
and I was wrong", "Two corrections to make, and I was wrong on one of them") teaches the next
session nothing and is not kept; nor is a sentence that restates the claim being taken back
("I was wrong last turn. I told you the commit had a human co-author"): that is the refuted
claim in the agent's words, the opposite of the lesson.
"""

from __future__ import annotations

import re
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence

LESSON = "core/failure-mode"
MAX_CHARS = 300
_CORRECTION = lazy_regex(
    r"\b(?:i was wrong|i was mistaken|i stand corrected|(?:my|the|that) (?:earlier |previous |"
    r"original |initial )?(?:claim|assumption|statement|theory|hypothesis|explanation) "
    r"(?:was|is) (?:wrong|incorrect|mistaken|false)|contrary to what i (?:said|claimed|"
    r"assumed|thought)|that disproves|this disproves|that refutes|this refutes)\b",
    re.IGNORECASE)
#: The agent restating what it said before (the claim being taken back, not the correction).
_RESTATES = lazy_regex(r"\bi (?:told you|said|claimed|stated|wrote|assumed)\b", re.IGNORECASE)
#: Words that carry no content of their own in an admission.
_FILLER = frozenset({"about", "also", "again", "both", "corrections", "correction", "earlier",
                     "last", "make", "made", "mistaken", "right", "reviewer", "some", "that",
                     "them", "then", "there", "these", "this", "those", "turn", "what", "when",
                     "which", "with", "wrong", "your", "before", "point", "here", "just"})
_WORD = lazy_regex(r"[A-Za-z][\w.'/-]{3,}")
#: A lesson names at least this many content words besides the admission itself.
_MIN_CONTENT = 3
_HEDGE = lazy_regex(r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|i think|"
                    r"i believe|seems?|appears? to|not sure)\b", re.IGNORECASE)


def refutation_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    last_result: Event | None = None
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.kind == "tool_result":
            last_result = event
        elif event.is_human_prompt:
            last_result = None
        elif event.kind == "assistant" and not event.derived and last_result is not None:
            lesson = correction(event.text)
            if lesson:
                yield candidate("refutations", view.project, LESSON, lesson,
                                evidence=[transcript_evidence(event.line, lesson),
                                          transcript_evidence(last_result.line,
                                                              last_result.text)],
                                object_kind="literal",
                                subject_type="project", at=event.timestamp)
            last_result = None


def correction(text: str) -> str | None:
    """The sentence that says an earlier claim was wrong (with the next one when it ends in
    a colon), or None when there is none or it hedges."""
    said = list(sentences(text))
    for index, sentence in enumerate(said):
        if not _CORRECTION.search(sentence):
            continue
        lesson = sentence
        if sentence.rstrip().endswith(":") and index + 1 < len(said):
            lesson = f"{sentence} {said[index + 1]}"
        if _HEDGE.search(lesson) or len(lesson) > MAX_CHARS or _RESTATES.search(lesson) \
                or not says_something(lesson):
            return None
        return lesson.rstrip(".")
    return None


def says_something(lesson: str) -> bool:
    """The sentence holds content beyond the admission: what is true instead."""
    rest = _CORRECTION.sub(" ", lesson.replace("*", ""))
    words = {w.lower() for w in _WORD.findall(rest)} - _FILLER
    return len(words) >= _MIN_CONTENT
