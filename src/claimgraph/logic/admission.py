"""Admission control: the screen between extraction and the graph (docs/capture.md).

Only shape and floor are hard rules; knowing the subject or predicate merely raises the score,
so new vocabulary still gets in. Screening is safe because the evidence tier keeps the
extractor's full input: gate the graph, keep the log.

An object over its predicate's limit is never lost silently. Per predicate (``overlong``):
a registered value-shaped one (a name, a command, a version: ``core/tested-by``) is dropped,
since one cut short is another name; so is a prose one over its larger limit (its rule
writes to fit, so a longer text is a rule's fault, not a fact to trim). An ``x/*`` predicate
nobody registered (coined by a model extractor, a value row by default) holds sentences: its
object is cut after the last whole sentence that fits, and dropped when not even the first
one does. Either way the screen says so (``object_cut`` on what it kept, the signals on what
it dropped) and the capture pass logs it with the predicate.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping, Sequence, cast

from claimgraph.logic.names import normalize_entity_name
from claimgraph.logic.predicates import CORE_NAMESPACE, object_shape, split_id
from claimgraph.logic.record_types import AdmissionSignals, Candidate, Screened

ADMISSION_FLOOR_CONFIDENCE = 0.3
MAX_SUBJECT_CHARS = 80
MAX_LITERAL_CHARS = 250
PROSE_LITERAL_CHARS = 1000
#: A candidate without a confidence is screened as if it claimed this much.
ASSUMED_CONFIDENCE = 0.5
CLASS_WEIGHTS = {"commitment": 1.0, "preference": 0.8}
DEFAULT_CLASS_WEIGHT = 0.5
BASE_SCORE, KNOWN_PREDICATE_BONUS, KNOWN_SUBJECT_BONUS = 0.6, 0.25, 0.15
HARD_RULES = ("above_floor", "subject_shaped", "object_sane", "value_kept")


REDACTION_MARK = "[REDACTED:"


def admission_ctx(entities: Iterable[Mapping[str, Any]],
                  predicates: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """What the store already knows, gathered once so each candidate is judged cheaply."""
    rows = list(predicates)
    norms = set()
    for entity in entities:
        for name in [entity.get("name"), *(entity.get("aliases") or [])]:
            norms.add(normalize_entity_name(name))
    return {
        "known_norms": norms,
        "known_preds": {row["id"] for row in rows},
        "prose_preds": {row["id"] for row in rows if object_shape(row) == "prose"},
    }


def _text(value: Any) -> str:
    """A value as it would be stored; absent is empty, not the word "None"."""
    return "" if value is None else str(value)


def _predicate_ids(predicate: Any) -> tuple[str, str]:
    """The predicate as written (hyphenated) and its core/* reading, so bare names count as
    known."""
    written = _text(predicate).strip().lstrip(":").replace("_", "-")
    return written, f"{CORE_NAMESPACE}/{split_id(written)[1]}"


def _above_floor(confidence: Any) -> bool:
    """A missing confidence is assumed middling; a value that is not a number is junk."""
    value = ASSUMED_CONFIDENCE if confidence is None else confidence
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return False
    return value >= ADMISSION_FLOOR_CONFIDENCE


def _class_weight(candidate: Mapping[str, Any]) -> float:
    """Standing decisions weigh most; ``class`` is the ingest alias of ``epistemic``."""
    stated = _text(candidate.get("epistemic") or candidate.get("class")).lstrip(":")
    return CLASS_WEIGHTS.get(stated, DEFAULT_CLASS_WEIGHT)


def literal_limit(predicate: Any, ctx: Mapping[str, set[str]]) -> int:
    """How long the predicate's object may be: a prose row's, else a value's."""
    ids = _predicate_ids(predicate)
    return PROSE_LITERAL_CHARS if any(i in ctx["prose_preds"] for i in ids) \
        else MAX_LITERAL_CHARS


CUT, DROP = "cut", "drop"


def overlong(predicate: Any, ctx: Mapping[str, set[str]]) -> str:
    """What becomes of an object over the predicate's limit (module docstring): ``cut`` for
    an ``x/*`` predicate that is not registered, ``drop`` for every other."""
    written, core = _predicate_ids(predicate)
    registered = written in ctx["known_preds"] or core in ctx["known_preds"]
    return CUT if written.startswith("x/") and not registered else DROP


#: The end of a sentence: its stop, then space and a capital, a quote, a digit or the end.
_SENTENCE_END = re.compile(r"[.!?](?=\s+[\"'`(\[A-Z0-9]|\s*$)")


def cut_at_sentence(text: str, limit: int) -> str | None:
    """The whole sentences of ``text`` that fit in ``limit`` characters; None when not even
    the first does."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text) if m.end() <= limit]
    return text[:ends[-1]].rstrip() if ends else None


def fitted(candidate: Candidate, ctx: Mapping[str, set[str]]) -> Candidate:
    """The candidate with its object cut to its whole sentences when its predicate's
    policy is to cut (``overlong``) and it is too long; otherwise unchanged."""
    value = candidate.get("object")
    limit = literal_limit(candidate.get("predicate"), ctx)
    if not isinstance(value, str) or len(value) <= limit \
            or overlong(candidate.get("predicate"), ctx) != CUT:
        return candidate
    kept = cut_at_sentence(value, limit)
    if kept is None:
        return candidate
    return cast(Candidate, {**candidate, "object": kept, "object_cut": len(value)})


def admission_signals(candidate: Mapping[str, Any],
                      ctx: Mapping[str, set[str]]) -> AdmissionSignals:
    """Every signal the screen looks at, kept so a rejection can say exactly why."""
    ids = _predicate_ids(candidate.get("predicate"))
    limit = literal_limit(candidate.get("predicate"), ctx)
    return {
        "above_floor": _above_floor(candidate.get("confidence")),
        "subject_shaped": len(_text(candidate.get("subject"))) <= MAX_SUBJECT_CHARS,
        "object_sane": len(_text(candidate.get("object"))) <= limit,
        "predicate_known": any(i in ctx["known_preds"] for i in ids),
        "subject_known":
            normalize_entity_name(_text(candidate.get("subject"))) in ctx["known_norms"],
        "class_weight": _class_weight(candidate),
        # A fact whose subject or value was redacted has lost its point ("the deploy password
        # is [REDACTED:secret]"): it is dropped rather than stored (docs/capture.md).
        "value_kept": not any(REDACTION_MARK in _text(candidate.get(field))
                              for field in ("subject", "object")),
    }


def admit(signals: Mapping[str, Any]) -> bool:
    """Only the hard rules (floor and shape) decide; soft signals never keep a fact out."""
    return all(signals[rule] for rule in HARD_RULES)


def admission_score(signals: Mapping[str, Any]) -> float:
    """0.0 when inadmissible; else the class weight scaled by how familiar the claim is."""
    if not admit(signals):
        return 0.0
    familiarity = (BASE_SCORE + (KNOWN_PREDICATE_BONUS if signals["predicate_known"] else 0)
                   + (KNOWN_SUBJECT_BONUS if signals["subject_known"] else 0))
    weight: float = signals["class_weight"]
    return weight * familiarity


def screen_candidates(candidates: Sequence[Candidate], ctx: Mapping[str, set[str]]) -> Screened:
    """Split candidates, in order; rejections keep their signals so the report can explain them."""
    admitted: list[Candidate] = []
    inadmissible: list[Candidate] = []
    for original in candidates:
        candidate = fitted(original, ctx)
        signals = admission_signals(candidate, ctx)
        entry = cast(Candidate, {k: v for k, v in candidate.items()
                                 if k not in ("admit", "admission_signals")})
        entry["admission_score"] = admission_score(signals)
        if admit(signals):
            admitted.append(entry)
        else:
            inadmissible.append({**entry, "admission_signals": signals})
    return {"admitted": admitted, "inadmissible": inadmissible}
