"""The named record types say the same as the field tables every backend shapes records by."""

from __future__ import annotations

from claimgraph.logic import facts
from claimgraph.logic.admission import admission_ctx, screen_candidates
from claimgraph.logic.model import ENTITY_FIELDS, EPISODE_FIELDS, FACT_FIELDS
from claimgraph.logic.record_types import (
    AdmissionSignals, Candidate, EntityRecord, EpisodeRecord, FactRecord)

ENTITY: EntityRecord = {"id": "e-1", "name": "api", "type": None, "scope": "project",
                        "aliases": []}


def test_each_record_type_names_its_table_fields_in_order() -> None:
    assert tuple(FactRecord.__annotations__) == FACT_FIELDS
    assert tuple(EntityRecord.__annotations__) == ENTITY_FIELDS
    assert tuple(EpisodeRecord.__annotations__) == EPISODE_FIELDS


def test_a_built_fact_has_exactly_the_record_types_keys_in_order() -> None:
    fact = facts.build_fact(id="f-1", now=1_000, subject=ENTITY, predicate="core/prefers",
                            object_kind="literal", object="REST", source_type="session-log")
    assert tuple(fact) == tuple(FactRecord.__annotations__)
    assert fact["subject"] == ENTITY and fact["subject"] is not ENTITY  # a copy
    assert (fact["object_ref"], fact["object_lit"]) == (None, "REST")
    assert fact["conflicts"] == [] and fact["dormant_since"] is None


def test_the_screen_reports_every_signal_the_type_names() -> None:
    candidate: Candidate = {"subject": "api", "predicate": "core/prefers", "object": "REST",
                            "confidence": 0.1}
    screened = screen_candidates([candidate], admission_ctx([], []))
    assert screened["admitted"] == []
    [rejected] = screened["inadmissible"]
    assert set(rejected["admission_signals"]) == set(AdmissionSignals.__annotations__)
    assert rejected["admission_signals"]["above_floor"] is False
