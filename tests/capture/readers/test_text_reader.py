"""Plain text: role markers start turns; text of unknown speaker is never a prompt."""

from __future__ import annotations

from pathlib import Path

from claimgraph.capture.readers import read_transcript


def _read(tmp_path: Path, text: str):
    path = tmp_path / "chat.txt"
    path.write_text(text)
    return read_transcript(path)


def test_role_markers_start_turns_that_run_until_the_next_marker(tmp_path: Path):
    transcript = _read(tmp_path, "User: always use uv\nnot pip\nAssistant: noted\nhuman: thanks\n")
    assert [(e.kind, e.line, e.text) for e in transcript.events] == [
        ("prompt", 1, "always use uv\nnot pip"), ("assistant", 3, "noted"), ("prompt", 4, "thanks")]
    assert transcript.agent == "text"


def test_text_without_markers_is_one_assistant_blob_never_a_prompt(tmp_path: Path):
    transcript = _read(tmp_path, "we decided to use postgres\nand never sqlite\n")
    [event] = transcript.events
    assert (event.kind, event.line) == ("assistant", 1)
    assert not event.is_human_prompt


def test_text_before_the_first_marker_has_no_speaker(tmp_path: Path):
    events = _read(tmp_path, "notes from a call\n\nuser: hi\n").events
    assert [(e.kind, e.line) for e in events] == [("assistant", 1), ("prompt", 3)]


def test_the_last_line_of_a_text_file_counts_even_without_a_newline(tmp_path: Path):
    transcript = _read(tmp_path, "user: one\nassistant: two")
    assert [e.text for e in transcript.events] == ["one", "two"]
    assert transcript.end_offset == len(b"user: one\nassistant: two")


def test_a_marker_needs_a_colon_at_the_start_of_the_line(tmp_path: Path):
    events = _read(tmp_path, "the user said hi\nusers: plural\n").events
    assert [e.kind for e in events] == ["assistant"]
