"""Conversions between integer milliseconds (how we store time) and ISO-8601 text.

Pure: no clock reads. ISO output always carries milliseconds, because a second-granularity
encoder would corrupt sub-second intervals in dumps (docs/store.md).
"""

from __future__ import annotations

from claimgraph.errors import ClaimgraphError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt

DAY_MS = 86_400_000


def to_iso(ms: int | None) -> str | None:
    """``1767225600000`` -> ``"2026-01-01T00:00:00.000Z"``; None stays None.

    Computed, not formatted by ``datetime``: every command prints times, and ``datetime`` (a
    Python module before its C half replaces it) is loaded only where text is parsed."""
    if ms is None:
        return None
    days, of_day = divmod(ms, DAY_MS)
    year, month, day = _civil(days)
    if not 1 <= year <= 9999:  # what datetime refuses too
        raise ValueError(f"year {year} is out of range")
    seconds, millis = divmod(of_day, 1000)
    return (f"{year:04d}-{month:02d}-{day:02d}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:"
            f"{seconds % 60:02d}.{millis:03d}Z")


def civil_date(ms: int) -> tuple[int, int, int]:
    """(year, month, day) of a millisecond instant, in UTC."""
    return _civil(ms // DAY_MS)


def _civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a count of days since 1970-01-01, proleptic Gregorian (Howard
    Hinnant's ``civil_from_days``: eras of 400 years, years starting in March)."""
    days += 719_468
    era, day_of_era = divmod(days, 146_097)
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524
                   - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def from_iso(text: str) -> int:
    """Parse an ISO-8601 date or date-time (naive means UTC) into milliseconds."""
    import datetime as _dt
    raw = text.strip()
    if raw.endswith("Z") or raw.endswith("z"):
        raw = raw[:-1] + "+00:00"
    try:
        stamp = _dt.datetime.fromisoformat(raw)
    except ValueError:
        raise ClaimgraphError(
            "invalid-time", f"cannot read {text!r} as a date or time",
            hint="use ISO-8601, e.g. 2026-01-31 or 2026-01-31T12:00:00Z") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=_dt.timezone.utc)
    return datetime_to_ms(stamp)


def datetime_to_ms(stamp: _dt.datetime) -> int:
    """An aware (or naive-as-UTC) datetime -> integer milliseconds, exactly."""
    import datetime as _dt
    utc = _dt.timezone.utc
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=utc)
    delta = stamp - _dt.datetime(1970, 1, 1, tzinfo=utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def to_date(ms: int) -> str:
    """``YYYY-MM-DD`` of a millisecond instant, in UTC."""
    return (to_iso(ms) or "")[:10]
