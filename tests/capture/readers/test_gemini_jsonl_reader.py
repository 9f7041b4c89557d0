"""Gemini CLI 0.61 JSONL sessions: replace-by-id, ``$set``, ``$rewindTo``, hook context,
subagent sessions, and incremental reading that stays right under all of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimgraph.capture.readers import detect_format, gemini, read_transcript

from .reader_helpers import GEMINI, tally

SESSION = GEMINI / "session-2026-12-02T18-15-89c95452.jsonl"
LEGACY = GEMINI / "session-2025-10-27T19-55-981c87cb.json"
SESSION_ID = "89c95452-94f1-4ed5-8de5-856336a5cf95"
CALL = "write_file__write_file_1796235321495_0"

# Read by eye from the 11 lines of the real session (Gemini CLI 0.61.0, `gemini -p`):
#   line 2  $set messages: the <session_context> user message (the harness's, not a prompt)
#   line 3  the prompt; line 5 the model's message, bare; line 7 the SAME id again, now with
#   its write_file call and result; line 8 the functionResponse echoed as a user record (no
#   text); line 10 the final answer. $set lastUpdated lines in between.
EXPECTED = dict(prompts=1, tool_calls=1, tool_errors=0, assistant=1)


def record(**fields) -> str:
    return json.dumps(fields) + "\n"


HEADER = record(sessionId="s-1", projectHash="ab" * 32, startTime="2026-12-02T10:00:00Z",
                lastUpdated="2026-12-02T10:00:00Z", kind="main")


def user(mid: str, text: str) -> str:
    return record(id=mid, timestamp="2026-12-02T10:00:01Z", type="user", content=[{"text": text}])


def model(mid: str, text: str, *calls: dict) -> str:
    fields = dict(id=mid, timestamp="2026-12-02T10:00:02Z", type="gemini", content=text)
    return record(**fields, **({"toolCalls": list(calls)} if calls else {}))


def call(cid: str, path: str, done: bool = True) -> dict:
    found = {"id": cid, "name": "write_file", "args": {"file_path": path, "content": "x\n"}}
    if done:
        found.update(status="success", result=[{"functionResponse": {
            "id": cid, "name": "write_file", "response": {"output": f"wrote {path}"}}}])
    return found


def visible(events) -> list[tuple[str, str]]:
    return [(e.kind, e.text or e.call_id) for e in events]


def test_the_real_session_is_read_as_jsonl_with_its_metadata():
    assert detect_format(SESSION) == "gemini" and detect_format(LEGACY) == "gemini"
    transcript = read_transcript(SESSION)
    assert tally(list(transcript.events)) == EXPECTED
    assert transcript.session.session_id == SESSION_ID
    assert transcript.session.project_hash == ("f450efa8490f50a822c79bb566f7fcb2"
                                               "b942045830992cee9a1f12f37ca2e77d")


def test_the_replaced_message_yields_its_call_once_citing_the_line_that_holds_it():
    events = read_transcript(SESSION).events
    lines = SESSION.read_text().splitlines()
    assert [(e.kind, e.line) for e in events] == [
        ("meta", 2), ("prompt", 3), ("tool_call", 7), ("tool_result", 7), ("assistant", 10)]
    call_event, result = events[2], events[3]
    assert call_event.call_id == result.call_id == CALL
    assert call_event.tool_input["file_path"] == "notes.txt"
    assert "Successfully created" in result.text and not result.is_error
    for event in events:
        assert (event.text or event.call_id)[:30] in lines[event.line - 1].replace("\\n", "\n")


def test_the_session_context_block_is_the_harness_s_not_a_prompt():
    meta = read_transcript(SESSION).events[0]
    assert meta.derived and meta.text.startswith("<session_context>")


@pytest.mark.parametrize("cut", range(1, 11))
def test_a_read_split_at_any_line_yields_each_event_exactly_once(tmp_path: Path, cut: int):
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / SESSION.name
    path.write_bytes(b"".join(lines[:cut]))
    first = read_transcript(path)
    path.write_bytes(b"".join(lines))
    second = read_transcript(path, start_offset=first.end_offset)
    whole = read_transcript(SESSION).events
    assert sorted(visible(first.events + second.events)) == sorted(visible(whole))
    assert second.session.session_id == SESSION_ID


def test_a_later_line_with_the_same_id_replaces_the_message_in_its_place(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", "build it") + model("m1", "") + user("u2", "and test")
                    + model("m1", "Writing.", call("c1", "/p/a.py")))
    events = read_transcript(path).events
    assert visible(events) == [("prompt", "build it"), ("assistant", "Writing."),
                               ("tool_call", "c1"), ("tool_result", "wrote /p/a.py"),
                               ("prompt", "and test")]
    assert [e.line for e in events] == [2, 5, 5, 5, 4]


def test_a_call_still_running_has_no_result_until_its_line_with_one(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + model("m1", "", call("c1", "/p/a.py", done=False)))
    first = read_transcript(path)
    assert visible(first.events) == [("tool_call", "c1")]
    with path.open("a") as handle:
        handle.write(model("m1", "", call("c1", "/p/a.py")))
    second = read_transcript(path, start_offset=first.end_offset)
    assert visible(second.events) == [("tool_result", "wrote /p/a.py")]


def test_a_set_with_messages_replaces_the_whole_list(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    replacement = json.loads(user("u9", "only this"))
    path.write_text(HEADER + user("u1", "gone") + model("m1", "also gone")
                    + record(**{"$set": {"messages": [replacement], "lastUpdated": "x"}}))
    transcript = read_transcript(path)
    assert visible(transcript.events) == [("prompt", "only this")]
    assert transcript.events[0].line == 4


def test_a_rewind_drops_that_message_and_every_later_one(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", "keep") + model("m1", "kept") + user("u2", "drop")
                    + model("m2", "dropped") + record(**{"$rewindTo": "u2"})
                    + user("u3", "instead"))
    assert visible(read_transcript(path).events) == [
        ("prompt", "keep"), ("assistant", "kept"), ("prompt", "instead")]


def test_a_rewind_to_an_unknown_id_drops_everything_before_it(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", "a") + record(**{"$rewindTo": "nope"}) + user("u2", "b"))
    assert visible(read_transcript(path).events) == [("prompt", "b")]


def test_a_rewind_after_a_capture_takes_back_nothing_captured_and_emits_nothing_rewound(
        tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", "use uv") + model("m1", "ok"))
    first = read_transcript(path)
    assert visible(first.events) == [("prompt", "use uv"), ("assistant", "ok")]
    with path.open("a") as handle:
        handle.write(user("u2", "no, use pip") + model("m2", "fine") + record(**{"$rewindTo": "u1"})
                     + user("u3", "use poetry"))
    second = read_transcript(path, start_offset=first.end_offset)
    assert visible(second.events) == [("prompt", "use poetry")]
    assert second.start_offset == first.end_offset and second.end_offset == path.stat().st_size


def test_our_hook_context_is_split_from_the_prompt_it_was_prepended_to(tmp_path: Path):
    block = "<claimgraph-context>\n## Project memory\n- uses make\n</claimgraph-context>"
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", f"<hook_context>{block}</hook_context>\n\nAdd a test."))
    meta, prompt = read_transcript(path).events
    assert (meta.kind, meta.derived, meta.text) == ("meta", True, block)
    assert (prompt.kind, prompt.text) == ("prompt", "Add a test.")
    assert prompt.is_human_prompt


def test_the_context_gemini_escaped_is_read_back_with_our_markers(tmp_path: Path):
    """Gemini 0.61 replaces ``<`` and ``>`` (nothing else) in a hook's context before wrapping
    it."""
    block = "<claimgraph-context>\n- R&D uses <make>\n</claimgraph-context>"
    escaped = block.replace("<", "&lt;").replace(">", "&gt;")
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", f"<hook_context>{escaped}</hook_context>\n\nGo."))
    meta, prompt = read_transcript(path).events
    assert (meta.kind, meta.text) == ("meta", block)
    assert prompt.text == "Go."


def test_split_hook_context_keeps_text_without_a_block_whole():
    assert gemini.split_hook_context("plain <b>text</b>") == ("", "plain <b>text</b>")
    assert gemini.split_hook_context("<hook_context>cut off") == ("cut off", "")


def test_subagent_sessions_are_read_with_their_parent_as_sidechains(tmp_path: Path):
    chats = tmp_path / "chats"
    parent = chats / "session-2026-12-02T10-00-s-1.jsonl"
    chats.mkdir()
    parent.write_text(HEADER + user("u1", "investigate"))
    child = chats / "s-1" / "sub-7.jsonl"
    child.parent.mkdir()
    child.write_text(record(sessionId="sub-7", projectHash="ab" * 32, kind="subagent")
                     + user("x1", "look at a.py") + model("x2", "a.py is fine"))
    first = read_transcript(parent)
    assert visible(first.events) == [("prompt", "investigate"), ("prompt", "look at a.py"),
                                     ("assistant", "a.py is fine")]
    sub = [e for e in first.events if e.subagent_id]
    assert {(e.subagent_id, e.is_sidechain, e.session_id) for e in sub} == {("sub-7", True, "s-1")}
    assert not any(e.is_human_prompt for e in sub)
    assert first.subagent_offsets == {str(child): child.stat().st_size}
    with child.open("a") as handle:
        handle.write(model("x3", "done"))
    again = read_transcript(parent, start_offset=first.end_offset,
                            subagent_offsets=first.subagent_offsets)
    assert visible(again.events) == [("assistant", "done")]


def test_a_broken_line_costs_that_line_only(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + "{not json\n" + user("u1", "still read"))
    transcript = read_transcript(path)
    assert visible(transcript.events) == [("prompt", "still read")]
    assert transcript.counts["malformed"] == 1


def test_an_offset_inside_a_line_is_refused_so_capture_reads_again(tmp_path: Path):
    from claimgraph.errors import ClaimgraphError

    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + user("u1", "a"))
    with pytest.raises(ClaimgraphError) as refused:
        read_transcript(path, start_offset=5)
    assert refused.value.type in ("offset-misaligned", "offset-out-of-range")


def test_the_legacy_document_is_still_read():
    transcript = read_transcript(LEGACY)
    assert tally(list(transcript.events)) == dict(prompts=3, tool_calls=13, tool_errors=2,
                                                  assistant=14)


# --- resuming from the kept state instead of replaying the head ----------------------------------

def _blank_head(path: Path, offset: int) -> None:
    """Every byte before ``offset`` but the newlines becomes a space: a replay of that head
    finds no messages, so only a read that never parses it can still get the tail right."""
    data = path.read_bytes()
    head = bytes(b if b == 0x0A else 0x20 for b in data[:offset])
    path.write_bytes(head + data[offset:])


def _grown_session() -> tuple[str, list[str]]:
    """A head, then appended pieces that replace, finish, rewind and add messages."""
    head = (HEADER + user("u1", "build it") + model("m1", "", call("c1", "/p/a.py", done=False))
            + user("u2", "and the docs"))
    pieces = [model("m1", "Writing.", call("c1", "/p/a.py")),
              model("m2", "Docs next.", call("c2", "/p/README.md", done=False)),
              record(**{"$set": {"lastUpdated": "2026-12-02T10:05:00Z"}}),
              model("m2", "Docs next.", call("c2", "/p/README.md")),
              user("u3", "no, drop the docs") + record(**{"$rewindTo": "u3"}),
              user("u4", "ship it") + model("m3", "Shipped.")]
    return head, pieces


@pytest.mark.parametrize("cut", range(0, 6))
def test_a_read_resumed_from_the_kept_state_never_parses_the_head(tmp_path: Path, cut: int):
    head, pieces = _grown_session()
    path = tmp_path / "session.jsonl"
    path.write_text(head + "".join(pieces[:cut]))
    first = read_transcript(path)
    assert first.resume[str(path)]["offset"] == first.end_offset
    path.write_text(head + "".join(pieces))
    replayed = read_transcript(path, start_offset=first.end_offset)
    _blank_head(path, first.end_offset)
    resumed = read_transcript(path, "gemini", first.end_offset, resume=first.resume)
    assert visible(resumed.events) == visible(replayed.events)
    assert [e.line for e in resumed.events] == [e.line for e in replayed.events]
    assert resumed.session == replayed.session
    assert resumed.resume == replayed.resume
    json.dumps(resumed.resume)  # kept in the capture mark


def test_the_kept_state_holds_no_text_of_the_session(tmp_path: Path):
    path = tmp_path / "session.jsonl"
    path.write_text(HEADER + record(**{"$set": {"summary": "the key is sk-live-123"}})
                    + user("u1", "deploy with token sk-live-123"))
    kept = json.dumps(read_transcript(path).resume)
    assert "sk-live-123" not in kept and "deploy" not in kept
    assert json.loads(kept)[str(path)]["meta"] == {"sessionId": "s-1", "projectHash": "ab" * 32,
                                                   "kind": "main"}


def test_a_state_kept_at_another_offset_or_damaged_is_ignored(tmp_path: Path):
    head, pieces = _grown_session()
    path = tmp_path / "session.jsonl"
    path.write_text(head)
    first = read_transcript(path)
    path.write_text(head + "".join(pieces))
    replayed = visible(read_transcript(path, start_offset=first.end_offset).events)
    kept = first.resume[str(path)]
    for state in ({**kept, "offset": kept["offset"] - 1}, {**kept, "messages": [[1, 2]]},
                  {**kept, "messages": [["u1", "x", "not a list", []]]}, "nonsense", None):
        resumed = read_transcript(path, start_offset=first.end_offset, resume={str(path): state})
        assert visible(resumed.events) == replayed


def test_the_text_digest_is_the_same_in_another_process():
    import subprocess
    import sys

    from claimgraph.capture.readers.gemini_messages import text_digest
    code = ("from claimgraph.capture.readers.gemini_messages import text_digest as d;"
            " print(d('é x'))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": "random"})
    assert other.stdout.strip() == text_digest("é x")


def test_subagent_files_resume_from_their_own_kept_state(tmp_path: Path):
    chats = tmp_path / "chats"
    parent = chats / "session-2026-12-02T10-00-s-1.jsonl"
    chats.mkdir()
    parent.write_text(HEADER + user("u1", "investigate"))
    child = chats / "s-1" / "sub-7.jsonl"
    child.parent.mkdir()
    child.write_text(record(sessionId="sub-7", kind="subagent")
                     + model("x2", "", call("k1", "/p/b.py", done=False)))
    first = read_transcript(parent)
    assert set(first.resume) == {str(parent), str(child)}
    with child.open("a") as handle:
        handle.write(model("x2", "Looked.", call("k1", "/p/b.py")))
    _blank_head(child, first.subagent_offsets[str(child)])
    again = read_transcript(parent, "gemini", first.end_offset,
                            subagent_offsets=first.subagent_offsets, resume=first.resume)
    assert visible(again.events) == [("assistant", "Looked."), ("tool_result", "wrote /p/b.py")]
