"""Millisecond instants as ISO-8601 text, computed without datetime (issue 13: every command
prints times; datetime loads only where text is parsed), checked against datetime itself."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from claimgraph.logic.timeutil import from_iso, to_date, to_iso

FIRST, LAST = -62_135_596_800_000, 253_402_300_799_999  # 0001-01-01 .. 9999-12-31, UTC


def by_datetime(ms: int) -> str:
    at = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=ms)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.mark.parametrize("ms", [0, -1, -1500, 1, 999, 1_767_225_600_000, FIRST, LAST,
                                951_782_400_000, 951_868_799_999, 4_107_542_400_000])
def test_edges_and_leap_days_read_as_datetime_reads_them(ms):
    assert to_iso(ms) == by_datetime(ms)


def test_any_instant_reads_as_datetime_reads_it_and_back():
    rng = random.Random(13)
    for ms in (rng.randint(FIRST, LAST) for _ in range(20_000)):
        assert to_iso(ms) == by_datetime(ms)
        assert from_iso(to_iso(ms)) == ms
def test_years_datetime_cannot_hold_are_refused_and_none_stays_none():
    with pytest.raises(ValueError):
        to_iso(LAST + 1)
    with pytest.raises(ValueError):
        to_iso(FIRST - 1)
    assert to_iso(None) is None and to_date(1_767_225_600_000) == "2026-01-01"
