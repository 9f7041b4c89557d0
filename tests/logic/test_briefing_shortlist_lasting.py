"""A stored shortlist lasts: what ``lasting_shortlist`` keeps holds the block's facts at later
instants, where a shortlist picked for one instant does not (docs/hooks.md)."""

from __future__ import annotations

from claimgraph.logic.briefing import MAX_FACTS
from claimgraph.logic.briefing_shortlist import lasting_shortlist, shortlist
from claimgraph.logic.confidence import CONFIDENCE_FLOOR
from claimgraph.logic.timeutil import DAY_MS

AT = 1_800_000_000_000
HALF_LIFE = 90


def head(n: int, confidence: float = 0.6, recorded: int = AT - DAY_MS,
         source: str = "session-log", name: str | None = None) -> dict:
    return {"id": f"f-{n:04d}", "predicate": "core/depends-on",
            "subject_name": name or f"s{n:04d}", "confidence": confidence,
            "epistemic": "observation", "source_type": source, "recorded_at": recorded,
            "last_reinforced_at": None, "t_valid": recorded, "t_invalid": None,
            "invalidation_kind": None, "invalidation_reason": None, "successor": None,
            "dormant_since": None}


def test_a_fact_that_never_fades_is_kept_for_when_it_overtakes_fading_ones():
    heads = [head(n) for n in range(MAX_FACTS)] + [head(999, 0.5, source="decision-record")]
    assert "f-0999" not in shortlist(heads, [], [], AT, HALF_LIFE)
    assert "f-0999" in shortlist(heads, [], [], AT + 30 * DAY_MS, HALF_LIFE)  # it overtook
    ids, until = lasting_shortlist(heads, [], [], AT, HALF_LIFE)
    assert "f-0999" in ids and until is not None and until > AT + 300 * DAY_MS


def test_the_list_ends_when_its_weakest_fading_fact_reaches_the_floor():
    heads = [head(n, 0.6 if n < MAX_FACTS else 0.3) for n in range(MAX_FACTS + 10)]
    ids, until = lasting_shortlist(heads, [], [], AT, HALF_LIFE)
    assert ids == {f"f-{n:04d}" for n in range(MAX_FACTS)}
    weakest_at_until = 0.6 * 0.5 ** ((until - (AT - DAY_MS)) / (HALF_LIFE * DAY_MS))
    assert CONFIDENCE_FLOOR < weakest_at_until < CONFIDENCE_FLOOR * 1.001


def test_below_the_cap_above_the_floor_the_first_at_the_floor_by_name_are_kept():
    old = AT - 2000 * DAY_MS  # long at the floor
    heads = [head(n, recorded=old, name=f"z{n:04d}") for n in range(MAX_FACTS + 20)]
    heads += [head(1000 + n) for n in range(5)]  # fresh, above the floor
    ids, until = lasting_shortlist(heads, [], [], AT, HALF_LIFE)
    assert until is None
    assert ids == {f"f-{1000 + n:04d}" for n in range(5)} | {
        f"f-{n:04d}" for n in range(MAX_FACTS)}


def test_a_later_start_or_end_of_validity_ends_the_list():
    heads = [head(1), {**head(2), "t_valid": AT + 5 * DAY_MS},
             {**head(3), "t_invalid": AT + 3 * DAY_MS}]
    assert lasting_shortlist(heads, [], [], AT, HALF_LIFE)[1] == AT + 3 * DAY_MS
