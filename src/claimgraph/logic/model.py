"""The shapes every layer shares, and the small tables of trust they are judged by.

All records are plain dicts (pure functions take plain values), with
snake_case keys. Times are integer milliseconds since the epoch, UTC. Enumerations are
kebab-case strings ("session-log", "decision-record"); predicate ids are "ns/name".

Entity   {id, name, type, scope, aliases}
Episode  {id, source_type, ref, summary, opened_at, closed_at, evidence}
Predicate row  {id, label, category, object_kind, object_shape, cardinality, inverse_of,
                status, replaced_by, definition, maps_to, default_epistemic,
                exclusion_group, value_exclusivity}
Fact     see FACT_FIELDS; ``subject`` and ``object_ref`` are embedded entity dicts.
"""

from __future__ import annotations

from claimgraph.errors import ClaimgraphError

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

#: Fact fields in canonical order (docs/data-model.md) plus ``evidence``: a list of
#: "path: quote" strings citing a file or a line of the episode's transcript, and
#: ``dormant_since``: when the curator's decay stage found the fact's effective confidence below
#: the dormancy threshold (None = active; reinforcement revives it). See ``fact_state``.
FACT_FIELDS = (
    "id", "subject", "predicate", "object_kind", "object_ref", "object_lit",
    "t_valid", "t_invalid", "recorded_at", "last_reinforced_at", "confidence",
    "epistemic", "scope", "source_type", "episode", "conflicts",
    "invalidation_reason", "invalidation_kind", "successor", "evidence", "dormant_since",
)
#: What ranking a fact needs (validity, scope, effective confidence, its two ends), with the
#: entities as bare ids: search ranks thousands of candidates on these and hydrates the few
#: it shows (``Store.get_fact_heads_for``).
FACT_HEAD_FIELDS = (
    "id", "subject", "object_ref", "scope", "confidence", "epistemic", "source_type",
    "recorded_at", "last_reinforced_at", "t_valid", "t_invalid", "invalidation_kind",
    "dormant_since",
)
#: What the SessionStart context's shortlist ranks on (``logic.briefing_shortlist``): ranking,
#: validity, the supersession window, and for the ranking's tie-break what the fact says: the
#: subject's NAME, the predicate and the object's text (``object_name``: an entity's name or
#: the literal; ``logic.briefing_lines.said_key``).
CONTEXT_HEAD_FIELDS = (
    "id", "predicate", "subject_name", "object_name", "confidence", "epistemic", "source_type",
    "recorded_at", "last_reinforced_at", "t_valid", "t_invalid", "invalidation_kind",
    "invalidation_reason", "successor", "dormant_since",
)
#: A head without its ends, for facts ranked but never followed (search's hop route).
FACT_HEAD_FIELDS_NO_ENDS = tuple(f for f in FACT_HEAD_FIELDS if f not in ("subject", "object_ref"))
REQUIRED_FACT_FIELDS = (
    "id", "subject", "predicate", "object_kind", "t_valid", "recorded_at",
    "confidence", "epistemic", "scope", "source_type",
)
ENTITY_FIELDS = ("id", "name", "type", "scope", "aliases")
EPISODE_FIELDS = ("id", "source_type", "ref", "summary", "opened_at", "closed_at", "evidence")
PREDICATE_FIELDS = (
    "id", "label", "category", "object_kind", "object_shape", "cardinality", "inverse_of",
    "status", "replaced_by", "definition", "maps_to", "default_epistemic",
    "exclusion_group", "value_exclusivity",
)

DEFAULT_SCOPE = "project"

#: A fact's curation state as readers see it (``dormant_since`` set or not).
FACT_STATES = ("active", "dormant")
#: The latest audit verdict of one (fact, citation) pair, as every backend returns it.
AUDIT_FIELDS = ("fact_id", "evidence", "file", "verdict", "reason", "content_hash",
                "checked_at", "details")
#: Verdicts that make a claim suspect: its evidence no longer backs it (docs/claims-audit.md).
SUSPECT_VERDICTS = ("unsupported", "file-missing")


def fact_state(fact: Mapping[str, Any]) -> str:
    """"dormant" once decay has marked the fact, else "active" (invalidation is separate)."""
    return "dormant" if fact.get("dormant_since") is not None else "active"

# --- epistemic classes (docs/conflicts.md) ------------------------------------------------
EPISTEMIC_STRENGTH = {"observation": 1, "preference": 2, "commitment": 3}


def epistemic_strength(cls: str | None) -> int | None:
    """Strength of a class, or None when the class is unknown or absent."""
    return EPISTEMIC_STRENGTH.get(cls) if cls else None


def resolve_epistemic(stated: str | None, pred_row: Mapping[str, Any] | None) -> str:
    """Caller's class beats the predicate's default, which beats "observation"."""
    if stated:
        if stated not in EPISTEMIC_STRENGTH:
            raise ClaimgraphError(
                "invalid-epistemic", f"unknown epistemic class {stated!r}",
                hint="use one of: " + ", ".join(EPISTEMIC_STRENGTH), epistemic=stated)
        return stated
    default = (pred_row or {}).get("default_epistemic")
    return default or "observation"


# --- source types: trust rank and confidence ceiling (docs/conflicts.md) -------------------
SOURCE_TYPES = {
    "decision-record": (3, 1.0),
    "user-assertion": (3, 0.9),
    "code": (3, 0.95),
    "session-log": (2, 0.7),
    "failure-report": (2, 0.7),
    "agent-note": (1, 0.65),
    "inferred": (1, 0.6),
}
UNKNOWN_SOURCE_RANK = 2
UNKNOWN_SOURCE_CEILING = 0.9
DEFAULT_SOURCE_TYPE = "user-assertion"
#: Episodes may also carry these source types (verdict and enrichment records).
EPISODE_ONLY_SOURCE_TYPES = ("curation",)


def trust_rank(source_type: str | None) -> int:
    """Higher outranks lower in conflicts; unknown (or missing) sources rank 2."""
    return SOURCE_TYPES.get(source_type or "", (UNKNOWN_SOURCE_RANK, None))[0]


def confidence_ceiling(source_type: str | None) -> float:
    """The most a source of this type may claim; unknown sources are capped at 0.9."""
    return SOURCE_TYPES.get(source_type or "", (None, UNKNOWN_SOURCE_CEILING))[1]


# --- invalidation kinds (docs/data-model.md) -------------------------------------------------
INVALIDATION_KINDS = {
    "superseded": "assert",
    "judged-superseded": "judge",
    "judged-duplicate": "judge",
    "merge-duplicate": "entity merge",
    "reconcile-duplicate": "oplog reconcile",
    "code-absent": "code ingest",
    "manual": "claimgraph invalidate",
    "forgotten": "claimgraph forget",
}
#: A fact forgotten by request (``claimgraph forget``, memory_forget): kept for its history,
#: but read as never believed: no read shows it as valid at any instant (``fact_valid_at``).
FORGOTTEN = "forgotten"
#: Kinds that count as a change of belief; duplicate collapses do not.
SUPERSESSION_KINDS = frozenset({"superseded", "judged-superseded"})


def blank_fact() -> dict[str, Any]:
    """A fact with every field present and unset, so records always have the same keys."""
    fact: dict[str, Any] = dict.fromkeys(FACT_FIELDS)
    fact["conflicts"] = []
    fact["evidence"] = []
    return fact
