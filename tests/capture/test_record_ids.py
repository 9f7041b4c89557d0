"""Record ids held apart from the events during a capture pass (capture/record_ids.py):
only the evidence segment reads them, and it stores the same ids as before."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture import record_ids, segment
from claimgraph.capture.events import Event, TranscriptBuilder, cleaning
from claimgraph.capture.packed import Spill, _Spilled, spilling
from claimgraph.capture.readers import read_transcript
from claimgraph.capture.record_ids import RecordIds
from claimgraph.capture.segment import (
    _Cleaner, clean_transcript, read_cleaned, segment_header, segment_lines)

FIXTURE = (Path(__file__).parents[1] / "fixtures" / "transcripts" / "claude-code" /
           "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
SRC = Path(__file__).parents[2] / "src"

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


# -- review (s23): the column against the old path, its edges, and a pass's files --

def _event(line: int, record_id: str | None, text: str = "hi") -> Event:
    return Event(kind="prompt", agent="claude-code", source_file="t.jsonl", line=line,
                 text=text, record_id=record_id)


def test_an_index_before_the_first_is_refused_as_a_list_refuses_it():
    column = RecordIds()
    for value in ["a", "b", "c"]:
        column.append(value)
    assert column[-1] == "c" and column[-3] == "a"
    for index in (-4, -6, 3):
        with pytest.raises(IndexError):
            column[index]  # pylint: disable=pointless-statement


def test_a_builder_amending_an_id_stores_it_redacted_beside_its_event(tmp_path):
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    with cleaning(_Cleaner()), spilling(str(tmp_path)):
        builder = TranscriptBuilder("t.jsonl", "claude-code")
        builder.add(_event(1, "u-1"))
        builder.add(_event(2, None))
        builder.amend(1, record_id="u-" + token, text="joined")
        built = builder.build(10, 2)
    lines = list(segment_lines(built, segment_header(built, "s", 0, {})))
    assert token not in "\n".join(lines)
    stored = [json.loads(line).get("record_id") for line in lines[1:]]
    assert stored[0] == "u-1" and stored[1].startswith("u-[REDACTED:")


def test_events_put_in_line_order_keep_their_own_ids(tmp_path, monkeypatch):
    """A reader that orders its events by line at the end (Codex's does) moves each id with
    its event: the stored segment pairs them as a transcript of events holding theirs."""
    monkeypatch.setattr(record_ids, "CHUNK_BYTES", 1)  # one chunk each: read back and forth
    events = [_event(3, "c"), _event(1, "a"), _event(2, None), _event(5, "e"), _event(4, "d")]
    with cleaning(_Cleaner()), spilling(str(tmp_path)):
        builder = TranscriptBuilder("t.jsonl", "claude-code")
        for event in events:
            builder.add(event)
        builder.amend(0, record_id="c2")
        builder.sort_by_line()
        built = builder.build(10, 5)
    lines = list(segment_lines(built, segment_header(built, "s", 0, {})))
    pairs = [(json.loads(line)["line"], json.loads(line).get("record_id")) for line in lines[1:]]
    assert pairs == [(1, "a"), (2, None), (3, "c2"), (4, "d"), (5, "e")]
    assert [built.record_id(i) for i in range(5)] == ["a", None, "c2", "d", "e"]


def test_a_full_disk_keeps_the_ids_in_memory_and_stores_the_same_segment(tmp_path, monkeypatch):
    monkeypatch.setattr(record_ids, "CHUNK_BYTES", 64)
    with spilling(str(tmp_path)):
        spilled, _ = read_cleaned(str(FIXTURE), "claude-code")
    monkeypatch.setattr(Spill, "RESERVE", 1 << 62)  # no room left beside the store
    monkeypatch.setattr(Spill, "BUFFER", 256)  # a write tried early, then memory
    with spilling(str(tmp_path)):
        full, _ = read_cleaned(str(FIXTURE), "claude-code")
    chunks = full.record_ids._chunks  # type: ignore[union-attr]
    # the first buffer's chunks stay readable in it; none after reaches the file
    assert len(chunks) > 2 and not isinstance(chunks[-1], _Spilled)
    assert all(c._spill._full and c._spill._flushed == 0 for c in chunks
               if isinstance(c, _Spilled))
    assert list(segment_lines(full, segment_header(full, "s", 0, {}))) == \
        list(segment_lines(spilled, segment_header(spilled, "s", 0, {})))


_KILLED = """
import sys, time
from claimgraph.capture import packed, record_ids
from claimgraph.capture.segment import read_cleaned
record_ids.CHUNK_BYTES = 64
if sys.argv[3] == "no-tmpfile":
    del packed.os.O_TMPFILE  # the fallback: a named file unlinked at once
held = read_cleaned(sys.argv[1], "claude-code", spill_dir=sys.argv[2])
print(len(held[0].record_ids._chunks), flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("kind", ["tmpfile", "no-tmpfile"])
def test_a_killed_pass_leaves_no_file_and_its_spill_was_private(tmp_path, kind):
    spill_dir = tmp_path / "store"
    spill_dir.mkdir(mode=0o700)
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED, str(FIXTURE), str(spill_dir), kind],
        stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(SRC)})
    try:
        assert child.stdout is not None and int(child.stdout.readline()) > 1
        spills = [os.readlink(f"/proc/{child.pid}/fd/{fd}")
                  for fd in os.listdir(f"/proc/{child.pid}/fd")
                  if str(spill_dir) in os.readlink(f"/proc/{child.pid}/fd/{fd}")]
        assert spills and all(s.endswith("(deleted)") for s in spills)
        for fd in os.listdir(f"/proc/{child.pid}/fd"):
            if str(spill_dir) in os.readlink(f"/proc/{child.pid}/fd/{fd}"):
                assert stat.S_IMODE(os.stat(f"/proc/{child.pid}/fd/{fd}").st_mode) == 0o600
        assert list(spill_dir.iterdir()) == []
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    assert list(spill_dir.iterdir()) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(_IDS, max_size=60), st.randoms(use_true_random=False))
def test_a_reordered_column_reads_back_in_the_new_order(values, rng):
    original = record_ids.CHUNK_BYTES
    record_ids.CHUNK_BYTES = 3  # chunks read out of order after the move
    try:
        column = RecordIds()
        for value in values:
            column.append(value)
    finally:
        record_ids.CHUNK_BYTES = original
    order = list(range(len(values)))
    rng.shuffle(order)
    column.reorder(order)
    assert list(column) == [values[at] for at in order]
    assert [column[i] for i in range(len(values))] == [values[at] for at in order]
    with pytest.raises(ValueError):
        column.reorder([0, 0] if len(values) == 2 else [-1])


def test_a_record_whose_cleaning_fails_is_skipped_without_moving_the_ids(tmp_path, monkeypatch):
    """A reader skips a record it cannot handle (``readers.guarded``) and goes on: the ids of
    the events after it stay theirs, and the segment is still written (a fault injected)."""
    real = segment.clean_text_with_counts

    def failing(text):
        if "BOOM" in text:
            raise ValueError("injected")
        return real(text)

    monkeypatch.setattr(segment, "clean_text_with_counts", failing)
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({
        "type": "user", "uuid": uuid, "sessionId": "s", "cwd": "/p",
        "timestamp": "2026-01-01T00:00:00Z", "message": {"content": text}}) + "\n"
        for uuid, text in [("u1", "hello"), ("u2", "BOOM here"), ("u3", "and again")]))
    cleaned, _ = read_cleaned(str(path), "claude-code", spill_dir=str(tmp_path))
    assert any("injected" in w.reason for w in cleaned.warnings)
    lines = list(segment_lines(cleaned, segment_header(cleaned, "s", 0, {})))
    assert [(json.loads(line)["line"], json.loads(line).get("record_id"))
            for line in lines[1:]] == [(1, "u1"), (3, "u3")]
