"""Named shapes for the records that cross layers: entities, facts, episodes, candidates.

At run time every record is a plain dict with snake_case keys (JSON in and out, the same in
every backend); these ``TypedDict`` classes only tell a reader and the type checker which keys
a record carries and what each holds. ``logic.model`` keeps the field orders and the tables
the records are judged by; docs/internals.md describes each field.

A fact's two ends are embedded entity records; times are integer milliseconds since the
epoch, UTC; enumerations are kebab-case strings (``session-log``, ``decision-record``).
"""

from __future__ import annotations

from typing import Any, TypedDict


class EntityRecord(TypedDict):
    """A named thing facts are about: a project, a tool, a file, a person."""

    id: str
    name: str
    type: str | None
    scope: str
    aliases: list[str]


class FactRecord(TypedDict):
    """One claim, ``subject predicate object``, with its two times and where it came from.

    Keys in ``logic.model.FACT_FIELDS`` order; exactly one of ``object_ref`` (an entity) and
    ``object_lit`` (a literal) is set, as ``object_kind`` says.
    """

    id: str
    subject: EntityRecord
    predicate: str
    object_kind: str
    object_ref: EntityRecord | None
    object_lit: str | None
    #: valid time: when it became true, and when it stopped (None: still holds)
    t_valid: int
    t_invalid: int | None
    #: transaction time: when it was written, and when something last said it again
    recorded_at: int
    last_reinforced_at: int | None
    confidence: float
    epistemic: str
    scope: str
    source_type: str
    episode: str | None
    conflicts: list[str]
    invalidation_reason: str | None
    invalidation_kind: str | None
    successor: str | None
    #: "path: quote" citations of a file or of a transcript line
    evidence: list[str]
    #: when decay found it faded (None: active)
    dormant_since: int | None


class EpisodeRecord(TypedDict):
    """One source of facts: a captured session segment, an ingested document, a curation."""

    id: str
    source_type: str | None
    ref: str | None
    summary: str | None
    opened_at: int | None
    closed_at: int | None
    evidence: Any


class _CandidateClaim(TypedDict):
    subject: str
    predicate: str
    object: str


class AdmissionSignals(TypedDict):
    """What the admission screen looked at for one candidate (``logic.admission``)."""

    above_floor: bool
    subject_shaped: bool
    object_sane: bool
    predicate_known: bool
    subject_known: bool
    class_weight: float
    value_kept: bool


class Candidate(_CandidateClaim, total=False):
    """A fact an extractor proposes, before screening and before it has ids or entities.

    Extractors fill what they know; the capture pass adds the scope, the screen adds
    ``admission_score`` (and, for a rejection, ``admission_signals``). Extractors may add
    keys of their own (the rule that fired, the sentence it read); they travel along. The
    ingest format's ``class``, an alias of ``epistemic``, is one (a keyword cannot be named
    here): the screen reads it as a plain mapping's key.
    """

    epistemic: str | None
    confidence: float | None
    scope: str
    source_type: str
    evidence: list[str]
    #: when the line that taught it was written (None: when capture ran)
    valid_from: int | None
    object_kind: str | None
    subject_type: str | None
    object_type: str | None
    rule: str
    admission_score: float
    admission_signals: AdmissionSignals
    #: the object's length before the screen cut it to its whole sentences (``admission``)
    object_cut: int


class Screened(TypedDict):
    """The admission screen's split, each list in the candidates' order."""

    admitted: list[Candidate]
    inadmissible: list[Candidate]
