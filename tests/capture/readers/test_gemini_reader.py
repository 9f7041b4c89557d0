"""Gemini session documents: messages, tool calls with statuses, byte offsets per message."""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph.capture.readers import gemini, gemini_document, read_transcript

from .reader_helpers import GEMINI, tally

SESSION = GEMINI / "session-2025-10-27T19-55-981c87cb.json"

# Counted independently with jq on the document:
#   .messages | length == 18; 3 of type user, 15 of type gemini, 14 of those with non-blank
#   content (one holds only a tool call); [.messages[].toolCalls[]?] | length == 13, with
#   statuses success 11, error 1, cancelled 1 (a tool that did not do its job is an error).
EXPECTED = dict(prompts=3, tool_calls=13, tool_errors=2, assistant=14)


def test_the_session_yields_the_independently_counted_events():
    transcript = read_transcript(SESSION)
    assert tally(list(transcript.events)) == EXPECTED
    assert transcript.session.session_id == "981c87cb-90ef-4c7f-948d-23173ff43e4e"


def test_every_message_event_cites_the_line_where_its_message_starts():
    lines = SESSION.read_text().splitlines()
    for event in read_transcript(SESSION).events:
        assert lines[event.line - 1].strip() == "{"
        assert f'"id": "{event.record_id}"' in lines[event.line]


def test_a_cancelled_call_is_an_error_with_its_reason():
    results = [e for e in read_transcript(SESSION).events if e.kind == "tool_result"]
    cancelled = next(e for e in results if e.extras.get("status") == "cancelled")
    assert cancelled.is_error and "User cancelled" in cancelled.text
    written = [e.extras["filePath"] for e in results if "filePath" in e.extras]
    assert written == ["/Users/jnarowski/Dev/playground/src/test-project/main.py"] * 2


def _write(path: Path, document: dict, messages: int) -> None:
    path.write_text(json.dumps({**document, "messages": document["messages"][:messages]},
                               indent=2))


def test_reading_from_end_offset_after_the_session_grew_yields_only_new_messages(tmp_path: Path):
    document = json.loads(SESSION.read_text())
    path = tmp_path / SESSION.name
    _write(path, document, 10)
    before = read_transcript(path)
    _write(path, document, 18)
    after = read_transcript(path, start_offset=before.end_offset)
    full = read_transcript(path).events
    assert before.events + after.events == full
    assert {e.record_id for e in after.events} == {m["id"] for m in document["messages"][10:]}


def test_a_document_cut_off_mid_write_keeps_every_complete_message(tmp_path: Path):
    text = SESSION.read_text()
    path = tmp_path / SESSION.name
    path.write_text(text[: len(text) // 2])
    transcript = gemini_document.read(str(path))
    assert transcript.events
    assert transcript.counts["incomplete"] == 1
    assert transcript.end_offset < path.stat().st_size
    again = gemini_document.read(str(path), start_offset=transcript.end_offset)
    assert again.events == ()


REFERENCING = GEMINI / "session-2026-04-14T00-15-970c70a7.json"  # a real @README.md prompt


def test_files_a_prompt_references_are_the_files_not_the_person_s_words():
    """Gemini CLI inlines each ``@path``'s content after a marker line; a real session, where
    one prompt's referenced README follows it and another's reference matched no file."""
    events = read_transcript(REFERENCING).events
    prompts = [e.text for e in events if e.kind == "prompt"]
    # What the person typed is each user message's first part; the marker and the files follow
    # as parts of their own (read straight from the document, not through the reader).
    document = json.loads(REFERENCING.read_text(encoding="utf-8"))
    typed = [m["content"][0]["text"] for m in document["messages"] if m["type"] == "user"]
    assert len(typed) == 3 and typed[0].endswith("@media/demo/** with ffmpeg")
    assert prompts == typed
    files = [e for e in events if e.kind == "meta"]
    assert [e.derived for e in files] == [True, True]
    assert all(e.text.startswith("--- Content from referenced files ---") for e in files)
    assert "Content from @README.md:" in files[1].text and "# Session Bridge" in files[1].text
    assert not any("Session Bridge is an unofficial" in text for text in prompts)


def test_the_referenced_files_marker_splits_only_on_its_own_line():
    typed = "Explain the '--- Content from referenced files ---' marker"
    assert gemini.split_referenced_files(typed) == (typed, "")
    text = "Fix @a.py\n--- Content from referenced files ---\nContent from @a.py:\nx = 1"
    assert gemini.split_referenced_files(text) == (
        "Fix @a.py", "--- Content from referenced files ---\nContent from @a.py:\nx = 1")
