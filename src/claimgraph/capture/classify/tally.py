"""What the sentence model said of each user sentence this pass, told to the capture report.

The statements rule reads every sentence a person typed and keeps few; without a tally the
user is never told a sentence was dropped, or why. A context variable (as in
``capture.problems``), because extractors sit behind one plain ``extract(...)`` interface.
Outside a ``collecting`` block (a test, a library caller) nothing is recorded.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import Counter
from typing import Any, Iterator

from claimgraph.logic.language import NAMES

_heard: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "claimgraph_capture_heard", default=None)


@contextlib.contextmanager
def collecting() -> Iterator[list[dict[str, Any]]]:
    """Collect one entry per classified sentence inside the block into the list it yields."""
    found: list[dict[str, Any]] = []
    token = _heard.set(found)
    try:
        yield found
    finally:
        _heard.reset(token)


def record(line: int, sentence: str, label: str, score: float, kept: bool,
           why: str | None = None, via: str | None = None,
           typed_in: str | None = None, language: str | None = None) -> None:
    """``kept``: the sentence became a candidate fact; ``why`` says why a durable one did not;
    ``via``: what in the session, beyond the model's score, made it durable (a correction
    carried out, a list of rules); ``typed_in``: where the person typed it (the prompt, a
    template's slot, a turned-down call, an answer to the agent's question); ``language``:
    the language of its message when the sentence model does not read it (``logic.language``):
    such a sentence not kept was read, not judged."""
    found = _heard.get()
    if found is not None:
        entry = {"line": line, "sentence": sentence, "class": label, "score": round(score, 3),
                 "kept": kept}
        if why:
            entry["why"] = why
        if via:
            entry["via"] = via
        if typed_in:
            entry["typed_in"] = typed_in
        if language:
            entry["language"] = language
            if not kept:
                entry["not_judged"] = f"read, not judged: {NAMES.get(language, language)}"
        found.append(entry)


def summary(found: list[dict[str, Any]]) -> dict[str, int]:
    """How many user sentences were read, and how many became facts."""
    return {"read": len(found), "kept": sum(1 for entry in found if entry["kept"])}


def not_judged(found: list[dict[str, Any]]) -> dict[str, int]:
    """How many sentences were read but not judged, per language: in a language the sentence
    model does not read, and not kept (empty when there are none)."""
    counts = Counter(entry["language"] for entry in found if "not_judged" in entry)
    return dict(sorted(counts.items()))
