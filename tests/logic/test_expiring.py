"""A state whose truth expires is not a rule (logic.expiring)."""

from __future__ import annotations

import pytest

from claimgraph.logic.expiring import expiring_state


@pytest.mark.parametrize("text", [
    "our latest release is v0.2.0",
    "The current version is 1.4.2",
    "Current branch: feat/importer",
    "we're now on 3.1.0",
    "the feature branch is 3 commits ahead of main",
    "PR #12 is merged",
    "the most recent tag was v7",
])
def test_how_things_stand_on_one_day_is_a_state(text):
    assert expiring_state(text)


@pytest.mark.parametrize("text", [
    "the latest release is always tagged from main",
    "Always bump the current version before a release",
    "The minimum supported version is 3.9",
    "Use the latest version of the SDK",
    "Python 3.10 or later",
    "main is protected: changes land through pull requests",
    "",
])
def test_a_rule_about_versions_or_branches_is_not_a_state(text):
    assert not expiring_state(text)
