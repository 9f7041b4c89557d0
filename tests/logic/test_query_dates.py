"""The time a query names (logic.query_dates): which facts' valid times it covers."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic.query_dates import DAY_SPAN_DAYS, asked_time
from claimgraph.logic.timeutil import DAY_MS, from_iso


def covers(query: str, *instants: str) -> list[str]:
    test = asked_time(query)
    assert test is not None, query
    return [at for at in instants if test(from_iso(at))]


def test_a_named_day_covers_it_and_the_week_after_when_a_session_would_mention_it():
    days = ("2023-05-02T23:59:59Z", "2023-05-03T00:00:00Z", "2023-05-04T18:00:00Z",
            "2023-05-10T23:59:59Z", "2023-05-11T00:00:00Z")
    expected = ["2023-05-03T00:00:00Z", "2023-05-04T18:00:00Z", "2023-05-10T23:59:59Z"]
    assert DAY_SPAN_DAYS == 8
    for query in ("Who did Priya meet for lunch on May 3, 2023?",
                  "What did she see on 3 May, 2023?", "What happened on 3rd May 2023",
                  "the outage of 3 of May 2023", "what broke on 2023-05-03"):
        assert covers(query, *days) == expected, query


def test_a_named_month_covers_that_month_and_without_a_year_every_years():
    at = ("2022-06-15T12:00:00Z", "2023-06-01T00:00:00Z", "2023-06-30T23:59:59Z",
          "2023-07-01T00:00:00Z", "2023-05-31T23:59:59Z")
    assert covers("Where did Tomas fly to in June 2023?", *at) == [
        "2023-06-01T00:00:00Z", "2023-06-30T23:59:59Z"]
    assert covers("When did Ines repaint the fence in June?", *at) == [
        "2022-06-15T12:00:00Z", "2023-06-01T00:00:00Z", "2023-06-30T23:59:59Z"]
    assert covers("what did we change in 2023-06", *at) == [
        "2023-06-01T00:00:00Z", "2023-06-30T23:59:59Z"]
    # a day without its year: the month, in any year
    assert covers("the release on June 3rd", *at) == covers("in June", *at)


@pytest.mark.parametrize("query", [
    "May I ask which package manager we use?", "it may break the build", "we march on",
    "How many times has Ines seen the dentist in 2023?", "what did we do last week",
    "release numpy-1.2.3", "bump to 2023-13-01", "on June 31, 2023", "", "v2023-05-03x1",
])
def test_no_time_is_named_by_a_verb_a_bare_year_relative_words_or_an_impossible_day(query):
    assert asked_time(query) is None


def test_may_is_a_month_with_a_day_or_a_year_beside_it():
    assert covers("What did Oskar fix in May 2023?", "2023-05-20T00:00:00Z", "2022-05-20T00:00:00Z"
                  ) == ["2023-05-20T00:00:00Z"]
    assert covers("on May 3", "2021-05-09T00:00:00Z") == ["2021-05-09T00:00:00Z"]


def test_a_fact_without_a_valid_time_is_never_covered():
    assert asked_time("in June")(None) is False
    assert asked_time("on June 3, 2023")(None) is False


@given(st.integers(min_value=0, max_value=4_000_000_000_000))
def test_a_named_day_covers_exactly_its_span_of_days(at):
    test = asked_time("on 2023-05-03")
    start = from_iso("2023-05-03T00:00:00Z")
    assert test(at) == (start <= at < start + DAY_SPAN_DAYS * DAY_MS)


def test_an_iso_date_counts_at_a_sentences_end_or_with_a_time_never_inside_a_name():
    assert covers("what broke on 2023-05-03.", "2023-05-04T00:00:00Z") == ["2023-05-04T00:00:00Z"]
    assert covers("deploy at 2023-05-03T10:00Z", "2023-05-04T00:00:00Z") != []
    assert asked_time("pin release-2023-05-03 and build_2023-05") is None


@given(st.lists(st.sampled_from(
    ["-", " ", "1", "2", "0", "3", "T", "May", "June", "june", "Jun", "e", "of", "th", ",",
     "2023", "12", "05", "é", "٣"]), max_size=12).map("".join))
def test_a_text_the_pre_check_passes_over_matches_no_pattern(text):
    """``may_name_a_time`` is only a shortcut: a text it turns away matches none of the three
    patterns, so the answer is the one the patterns alone would give."""
    import re

    from claimgraph.logic import query_dates as QD
    if not QD.may_name_a_time(text):
        assert not any(re.search(p, text) for p in (QD._ISO_DAY, QD._ISO_MONTH, QD._NAMED))
