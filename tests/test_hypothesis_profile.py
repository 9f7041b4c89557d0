"""The suite's hypothesis profile (tests/conftest.py): property tests carry no time limit."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def test_the_suite_profile_sets_no_deadline_and_tolerates_slow_generation():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_a_test_own_settings_start_from_the_profile():
    assert settings(max_examples=3).deadline is None
