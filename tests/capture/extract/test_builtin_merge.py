"""Merging one capture's candidates: one claim said twice, or once cut short, is one fact."""

from __future__ import annotations

from claimgraph.capture.extract.builtin import merge
from claimgraph.capture.extract.session import candidate

RULE = ("`JavaVersion`: `.majorVersion` returns `\"17\"`; `.toString()` returns `\"1.8\"` "
        "for Java 8. Must use `.majorVersion`")


def _said(text: str, line: int, rule: str = "summaries") -> dict:
    return candidate(rule, "app", "x/convention", text, evidence=[f"transcript#L{line}: x"],
                     object_kind="literal", subject_type="project")


def test_a_fact_that_another_of_the_same_capture_says_whole_is_left_out():
    longer = RULE + ". It is default-imported in the Kotlin DSL"
    kept = merge(iter([_said(RULE, 3), _said(longer, 9)]))
    assert [c["object"] for c in kept] == [longer]
    assert kept[0]["evidence"] == ["transcript#L9: x", "transcript#L3: x"]


def test_short_or_differently_sourced_claims_stay_apart():
    kept = merge(iter([_said("Use pnpm", 1), _said("Use pnpm for every package", 2)]))
    assert len(kept) == 2  # too short to be the same claim cut short
    kept = merge(iter([_said(RULE, 3, rule="statements"), _said(RULE + ". More", 9)]))
    assert len(kept) == 2  # the user's words are not folded into the agent's


def test_a_command_that_begins_another_is_a_different_command():
    def ran(command: str, line: int) -> dict:
        return candidate("tooling", "app", "core/tested-by", command,
                         evidence=[f"transcript#L{line}: x"], object_kind="entity",
                         subject_type="project", object_type="tool")

    kept = merge(iter([ran("uv run tox -e lint", 1), ran("uv run tox -e lint,type", 2)]))
    assert sorted(c["object"] for c in kept) == ["uv run tox -e lint", "uv run tox -e lint,type"]
