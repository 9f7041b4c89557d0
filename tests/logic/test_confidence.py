"""Confidence as a view: decay by disuse, standing decisions that never fade, reinforcement."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic.confidence import (
    CONFIDENCE_FLOOR, effective_confidence, effective_confidences, reinforced_confidence,
    resourced_type,
)
from claimgraph.logic.timeutil import DAY_MS, from_iso

T0 = from_iso("2026-01-01")


def day(n):
    return T0 + n * DAY_MS


def fact(confidence=0.8, **fields):
    return {"confidence": confidence, "epistemic": "observation", "source_type": "session-log",
            "recorded_at": T0, "last_reinforced_at": T0, **fields}


@pytest.mark.parametrize("days, expected", [(0, 0.8), (90, 0.4), (3650, 0.05)])
def test_confidence_halves_every_ninety_days_down_to_the_floor(days, expected):
    assert effective_confidence(fact(), day(days)) == pytest.approx(expected)


def test_reinforcement_at_day_ninety_restores_the_base_at_day_ninety():
    assert effective_confidence(fact(last_reinforced_at=day(90)), day(90)) == 0.8


@pytest.mark.parametrize("standing",
                         [{"epistemic": "commitment"}, {"source_type": "decision-record"}])
def test_commitments_and_decision_records_do_not_fade(standing):
    assert effective_confidence(fact(**standing), day(365)) == 0.8


def test_a_missing_reinforcement_anchors_decay_on_recorded_at():
    assert effective_confidence(fact(last_reinforced_at=None), day(90)) == pytest.approx(0.4)


def test_an_instant_before_the_anchor_sees_the_base_value():
    assert effective_confidence(fact(), day(-30)) == 0.8


@pytest.mark.parametrize("base, source, incoming, expected", [
    (0.6, "session-log", 0.95, 0.7),
    (0.65, "session-log", 0.5, 0.65),
    (0.99, "session-log", 0.95, 0.99),
    (0.9, "code", 0.99, 0.95),
])
def test_reinforcement_never_lowers_and_never_passes_the_ceiling(base, source, incoming, expected):
    assert reinforced_confidence({"confidence": base, "source_type": source}, incoming) == expected


def test_a_source_is_replaced_only_by_one_with_a_strictly_higher_ceiling():
    assert resourced_type("session-log", "code") == "code"
    assert resourced_type("session-log", "failure-report") == "session-log"
    assert resourced_type("code", "agent-note") == "code"


confidences = st.floats(0.0, 1.0)
days_apart = st.integers(0, 20 * 365)


@given(confidences, days_apart, days_apart)
def test_effective_confidence_never_rises_with_time(base, earlier, later_by):
    subject = fact(base)
    before = effective_confidence(subject, day(earlier))
    assert effective_confidence(subject, day(earlier + later_by)) <= before


@given(confidences, days_apart)
def test_effective_confidence_never_drops_below_the_floor(base, days):
    assert effective_confidence(fact(base), day(days)) >= CONFIDENCE_FLOOR


@given(st.lists(st.fixed_dictionaries({
    "confidence": st.floats(0.0, 1.0),
    "epistemic": st.sampled_from(["observation", "commitment", "belief"]),
    "source_type": st.sampled_from(["session-log", "decision-record", "user-stated"]),
    "recorded_at": st.one_of(st.none(), st.integers(T0 - 400 * DAY_MS, T0 + 400 * DAY_MS)),
    "last_reinforced_at": st.one_of(st.none(), st.integers(T0 - 400 * DAY_MS, T0 + 400 * DAY_MS)),
}), max_size=20), st.integers(T0 - 500 * DAY_MS, T0 + 900 * DAY_MS), st.sampled_from([30, 90, 365]))
def test_batched_confidences_equal_one_by_one(facts, now, half_life):
    """Search ranks on the batched values: they must be the very floats, not close ones."""
    into = {"known": 0.123}
    effective_confidences([("known", facts[0] if facts else fact()),
                           *((str(i), f) for i, f in enumerate(facts))], now, into, half_life)
    assert into.pop("known") == 0.123
    assert into == {str(i): effective_confidence(f, now, half_life) for i, f in enumerate(facts)}
