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
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence

LESSON = "core/failure-mode"
MAX_CHARS = 300
_CORRECTION = re.compile(
    r"\b(?:i was wrong|i was mistaken|i stand corrected|(?:my|the|that) (?:earlier |previous |"
    r"original |initial )?(?:claim|assumption|statement|theory|hypothesis|explanation) "
    r"(?:was|is) (?:wrong|incorrect|mistaken|false)|contrary to what i (?:said|claimed|"
    r"assumed|thought)|that disproves|this disproves|that refutes|this refutes)\b",
    re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|i think|"
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
        if _HEDGE.search(lesson) or len(lesson) > MAX_CHARS:
            return None
        return lesson.rstrip(".")
    return None
