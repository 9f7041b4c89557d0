"""The time a query names, purely: "What did Priya fix on May 3, 2023?", "Where did Tomas
fly to in July 2022?", "what broke on 2026-11-02".

A memory is recorded when it was learned: a fact's valid time starts at the session that
said it. A question that names a day or a month asks about what was said then, so search
counts the facts valid from that time a little more (docs/search.md). This module only reads
the query: which days a named time covers, as a test of a fact's ``t_valid``.

What counts as naming a time (kept narrow, a wrong window would push the right fact down):
an ISO date (``2026-11-02``) or month (``2026-11``); an English month name, capitalized as
written dates are ("in June", "June 2023", "3 June, 2023", "June 3rd"). "May" counts only
with a day or a year beside it ("May I ask..." names no time). A bare year, a weekday and
relative words ("last week", "yesterday") name none: a year is most of a store's life, and
"last week" is relative to a day the query does not give.
"""

from __future__ import annotations

import re

from claimgraph.logic.timeutil import DAY_MS, civil_date

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Callable

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
#: A named day covers itself and the week after it: a session mentions what happened on a
#: day that day or in the days that follow ("yesterday", "last weekend").
DAY_SPAN_DAYS = 8

#: An ISO date or month on its own, not inside a version or an identifier (``v2023-05-03x``);
#: a time may follow the day (``2023-05-03T10:00``).
_ISO_DAY = r"(?<![\w.-])(\d{4})-(\d{2})-(\d{2})(?=T\d|[^\w.-]|[.,;:!?]|$)"
_ISO_MONTH = r"(?<![\w.-])(\d{4})-(\d{2})(?=[^\w.-]|[.,;:!?]|$)"
_NAMED = (r"(?:\b(?P<before>\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+)?"
          r"\b(?P<month>" + "|".join(MONTHS) + r")\b"
          r"(?:\s+(?P<after>\d{1,2})(?:st|nd|rd|th)?\b(?!\s*[:.]\d))?"
          r"(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?")


def may_name_a_time(text: str) -> bool:
    """False when the text cannot name a time: both ISO patterns hold a hyphen and the named
    one a month's name, as written (case counts). Most queries have neither, and search then
    neither compiles nor runs the patterns (~0.8 ms of a search's process, issue 29)."""
    return "-" in text or any(month in text for month in MONTHS)


def asked_time(text: str | None) -> Callable[[int | None], bool] | None:
    """A test of a fact's ``t_valid`` (ms UTC) for the first time the text names, or None
    when it names none: a day (with its year) covers it and the ``DAY_SPAN_DAYS`` - 1 days
    after; a month with its year covers that month; a month alone (or a day without a year)
    covers that month in any year."""
    if not text or not may_name_a_time(text):
        return None
    found = _iso(text) or _named(text)
    if found is None:
        return None
    year, month, day = found
    if day is not None and year is not None:
        start = _day_number(year, month, day)
        if start is None:
            return None
        return lambda t_valid: (t_valid is not None
                                and start <= t_valid // DAY_MS < start + DAY_SPAN_DAYS)

    def in_month(t_valid: int | None) -> bool:
        if t_valid is None:
            return False
        at_year, at_month, _ = civil_date(t_valid)
        return at_month == month and (year is None or at_year == year)
    return in_month


def _iso(text: str) -> tuple[int, int, int | None] | None:
    match = re.search(_ISO_DAY, text)
    if match and 1 <= int(match.group(2)) <= 12:
        return int(match.group(1)), int(match.group(2)), int(match.group(3))
    match = re.search(_ISO_MONTH, text)
    if match and 1 <= int(match.group(2)) <= 12:
        return int(match.group(1)), int(match.group(2)), None
    return None


def _named(text: str) -> tuple[int | None, int, int | None] | None:
    for match in re.finditer(_NAMED, text):
        day_text = match.group("before") or match.group("after")
        year_text = match.group("year")
        if match.group("month") == "May" and not (day_text or year_text):
            continue  # "May I ...", "May be": the verb names no time
        day = int(day_text) if day_text and 1 <= int(day_text) <= 31 else None
        return (int(year_text) if year_text else None, MONTHS.index(match.group("month")) + 1,
                day)
    return None


def _day_number(year: int, month: int, day: int) -> int | None:
    """Days since 1970-01-01 of a calendar day; None for a day the month lacks (June 31)."""
    import datetime as _dt  # parsing text: the one place a named day needs the calendar
    try:
        return _dt.date(year, month, day).toordinal() - _dt.date(1970, 1, 1).toordinal()
    except ValueError:
        return None
