"""Record ids held apart from the events during a capture pass (capture/record_ids.py):
only the evidence segment reads them, and it stores the same ids as before."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture import record_ids
from claimgraph.capture.packed import _Spilled, spilling
from claimgraph.capture.readers import read_transcript
from claimgraph.capture.record_ids import RecordIds
from claimgraph.capture.segment import (
    clean_transcript, read_cleaned, segment_header, segment_lines)

FIXTURE = (Path(__file__).parents[1] / "fixtures" / "transcripts" / "claude-code" /
           "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")

_IDS = st.one_of(st.none(), st.text(max_size=40), st.sampled_from(["msg_1", "u-2", ""]))


@settings(max_examples=60, deadline=None)
@given(st.lists(_IDS, max_size=300), st.integers(min_value=1, max_value=64))
def test_the_column_gives_back_every_id_in_order(values, chunk):
    original = record_ids.CHUNK_BYTES
    record_ids.CHUNK_BYTES = chunk  # many small chunks: ids on every side of a border
    try:
        column = RecordIds()
        for value in values:
            column.append(value)
    finally:
        record_ids.CHUNK_BYTES = original
    assert len(column) == len(values)
    assert list(column) == values
    assert [column[i] for i in range(len(values))] == values
    assert column[::-1] == values[::-1]


def test_an_id_equal_to_the_one_before_is_not_written_again():
    column = RecordIds()
    for value in ["msg_a", "msg_a", None, "msg_a", "u1"]:
        column.append(value)
    assert list(column) == ["msg_a", "msg_a", None, "msg_a", "u1"]
    assert len(column._ends) == 2  # "msg_a" once (a None between changes nothing), "u1"


def test_a_later_change_to_one_id_is_read_back():
    column = RecordIds()
    for value in ["a", "b", "c"]:
        column.append(value)
    column.set(1, "B")
    column.set(2, None)
    assert list(column) == ["a", "B", None] and column[1] == "B"


def test_in_a_pass_the_ids_sit_in_the_spill(tmp_path, monkeypatch):
    monkeypatch.setattr(record_ids, "CHUNK_BYTES", 256)
    with spilling(str(tmp_path)):
        cleaned, _ = read_cleaned(str(FIXTURE), "claude-code")
    column = cleaned.record_ids
    assert isinstance(column, RecordIds) and len(column) == len(cleaned.events)
    assert column._chunks and all(isinstance(c, _Spilled) for c in column._chunks)
    assert all(event.record_id is None for event in cleaned.events)


def test_the_stored_segment_is_the_one_built_from_events_holding_their_ids(tmp_path):
    """Streaming (ids apart) and cleaning a whole read transcript (ids on the events) store
    the same lines, ids included."""
    with spilling(str(tmp_path)):
        streamed, _ = read_cleaned(str(FIXTURE), "claude-code")
        whole, _ = clean_transcript(read_transcript(str(FIXTURE), "claude-code"))
        assert whole.record_ids is None
        lines = list(segment_lines(streamed, segment_header(streamed, "s", 0, {})))
        assert lines == list(segment_lines(whole, segment_header(whole, "s", 0, {})))
    stored = [json.loads(line).get("record_id") for line in lines[1:]]
    assert sum(value is not None for value in stored) > len(stored) // 2
    assert stored == [whole.events[i].record_id for i in range(len(whole.events))]
    assert stored == [streamed.record_id(i) for i in range(len(streamed.events))]


def test_a_record_id_holding_a_secret_is_stored_redacted(tmp_path):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({
        "type": "user", "uuid": "u-" + token, "sessionId": "s", "cwd": "/p",
        "timestamp": "2026-01-01T00:00:00Z", "message": {"content": "hello there"}}) + "\n")
    cleaned, counts = read_cleaned(str(path), "claude-code")
    stored = "\n".join(segment_lines(cleaned, segment_header(cleaned, "s", 0, {})))
    assert token not in stored and '"record_id":"u-[REDACTED:' in stored
    assert sum(counts.values()) >= 1
