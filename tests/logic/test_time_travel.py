"""``logic.time_travel``: how many facts were believed at an instant, counted from the valid
times (what the viewer keeps per store state), is the count of the filter itself."""

from claimgraph.logic.time_travel import believed_at, believed_count, valid_times


def fact(fid: str, t_valid: int | None, t_invalid: int | None = None, **extra: object) -> dict:
    return {"id": fid, "t_valid": t_valid, "t_invalid": t_invalid, "confidence": 0.7,
            "epistemic": "observation", "source_type": "session-log", "recorded_at": 10,
            "last_reinforced_at": None, "invalidation_kind": None, "dormant_since": None,
            **extra}


FACTS = [
    fact("a", 10), fact("b", 10, 30), fact("c", 20, 30), fact("d", 30),
    fact("e", 40, 25),  # an end recorded before its begin: never believed
    fact("f", 15, 50, invalidation_kind="forgotten"),  # never valid
    fact("g", 12, dormant_since=45),  # dormant: left out at every instant
    fact("h", 60, 70),
]


def test_the_count_from_the_valid_times_is_the_filters_at_every_instant():
    times = valid_times(FACTS)
    assert times["held_from"] == [10, 10, 20, 30, 40, 60]
    assert times["held_until"] == [30, 30, 40, 70]
    counts = {at: believed_count(times, at) for at in range(0, 80)}
    assert counts == {at: believed_at(FACTS, at, None, 100, 30)["total"] for at in range(0, 80)}
    assert (counts[9], counts[10], counts[29], counts[30], counts[65], counts[70]) == (
        0, 2, 3, 2, 3, 2)
