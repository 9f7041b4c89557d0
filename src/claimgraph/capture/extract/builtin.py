"""The built-in extractor: deterministic, offline rules that prefer fewer, correct facts.

Four rules, each in its own module: user directives (prefers / decided-against), project
structure (written-in / defined-in), tooling (tested-by / built-with / depends-on) and
failure-to-fix lessons (failure-mode). What they share is deliberate: none reads assistant
text, tool output is read only for an exit status or a failing run's first error line, and
every candidate cites the transcript line or the written code it came from.

Candidates saying the same thing (subject, predicate, object, scope) are merged, their
evidence pooled, so a runner used twenty times is one fact with a few citations.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from claimgraph.capture.events import Transcript
from claimgraph.capture.extract.directives import directive_candidates
from claimgraph.capture.extract.lessons import lesson_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.structure import structure_candidates
from claimgraph.capture.extract.tooling import tooling_candidates

RULES: tuple[Callable[[SessionView], Iterable[dict[str, Any]]], ...] = (
    directive_candidates, structure_candidates, tooling_candidates, lesson_candidates)
MAX_EVIDENCE = 3


def extract(transcript: Transcript, *, project_root: str | None = None) -> list[dict[str, Any]]:
    """Candidate facts for one transcript segment; ``project_root`` (else the session's
    starting directory) names the project and anchors relative file citations."""
    view = SessionView.of(transcript, project_root)
    return merge(candidate for rule in RULES for candidate in rule(view))


def merge(candidates: Iterator[dict[str, Any]]) -> list[dict[str, Any]]:
    """One candidate per claim, in first-seen order, with the strongest confidence."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for found in candidates:
        key = (found["subject"], found["predicate"], found["object"], found["scope"])
        known = merged.setdefault(key, found)
        if known is not found:
            pooled = [*known["evidence"], *found["evidence"]]
            known["evidence"] = list(dict.fromkeys(pooled))[:MAX_EVIDENCE]
            known["confidence"] = max(known["confidence"], found["confidence"])
    return list(merged.values())
