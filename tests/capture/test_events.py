"""The normalized event model: immutable, serializable, and strict about what a prompt is."""

from __future__ import annotations

import dataclasses

import pytest

from claimgraph.capture.events import Event, TranscriptBuilder


def _prompt(**changes) -> Event:
    fields = {"kind": "prompt", "agent": "text", "source_file": "/t.txt", "line": 1, "text": "hi"}
    return Event(**{**fields, **changes})


def test_events_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _prompt().text = "changed"  # type: ignore[misc]


def test_only_typed_main_session_prompts_are_human_prompts():
    assert _prompt().is_human_prompt
    assert not _prompt(derived=True).is_human_prompt
    assert not _prompt(is_sidechain=True).is_human_prompt
    assert not dataclasses.replace(_prompt(), kind="meta").is_human_prompt


def test_an_event_serializes_to_a_plain_dict():
    data = _prompt(extras={"exit_code": 1}).to_dict()
    assert data["kind"] == "prompt" and data["line"] == 1 and data["extras"] == {"exit_code": 1}


def test_the_builder_counts_kinds_errors_and_derived_events():
    builder = TranscriptBuilder("/t.txt", "text")
    builder.add(_prompt())
    index = builder.add(_prompt(kind="tool_result", is_error=True))
    builder.amend(index, derived=True)
    builder.warn("/t.txt", 3, "not valid JSON")
    transcript = builder.build(end_offset=10, end_line=3)
    assert transcript.counts["prompt"] == 1
    assert transcript.counts["tool_error"] == 1
    assert transcript.counts["derived"] == 1
    assert transcript.counts["malformed"] == 1
    assert transcript.warnings[0].line == 3


def test_the_first_session_id_wins_and_the_latest_cwd_wins():
    builder = TranscriptBuilder("/t.txt", "text")
    builder.remember(session_id="a", cwd="/one")
    builder.remember(session_id="b", cwd="/two")
    session = builder.build(0, 0).session
    assert (session.session_id, session.cwd) == ("a", "/two")
