"""Conversions between integer milliseconds (how we store time) and ISO-8601 text.

Pure: no clock reads. ISO output always carries milliseconds, because a second-granularity
encoder would corrupt sub-second intervals in dumps (REFERENCE §14).
"""

from __future__ import annotations

import time

from claimgraph.errors import ClaimgraphError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt

DAY_MS = 86_400_000


def to_iso(ms: int | None) -> str | None:
    """``1767225600000`` -> ``"2026-01-01T00:00:00.000Z"``; None stays None.

    Formatted from ``time.gmtime``: every command prints times, and ``datetime`` (a Python
    module before its C half replaces it) is loaded only where text is parsed."""
    if ms is None:
        return None
    year, month, day, hour, minute, second = time.gmtime(ms // 1000)[:6]
    if not 1 <= year <= 9999:  # what datetime refuses too
        raise ValueError(f"year {year} is out of range")
    return (f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}."
            f"{ms % 1000:03d}Z")


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
