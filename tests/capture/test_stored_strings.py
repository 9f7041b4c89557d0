"""Every string the evidence stores is redacted (issue 29: redaction where it protects
something), and a call's big input is held packed, its result's copy sharing those bytes."""

from __future__ import annotations

import hashlib
import json

from claimgraph.capture import packed
from claimgraph.capture.segment import read_cleaned, segment_header, segment_lines

def _token(name: str) -> str:
    """Secret-shaped (a GitHub token's form), made here from a hash: never a real token."""
    digest = hashlib.sha256(name.encode()).hexdigest()
    return "ghp_" + "".join(c.upper() if i % 3 else c for i, c in enumerate(digest))[:36]


#: One per place it is planted.
TOKENS = {name: _token(name) for name in (
    "branch", "version", "cwd", "tool", "callid", "recordid")}


def _line(record: dict, **envelope: str) -> str:
    return json.dumps({"sessionId": "s1", "cwd": "/p", "gitBranch": "main", "version": "2.1",
                       "timestamp": "2026-12-01T10:00:00Z", **envelope, **record})


def _planted(tmp_path) -> str:
    """A prompt with a token in each envelope string, then a call whose tool name and id hold
    one, its result (same id), and a message whose record id holds one."""
    call_id = "toolu_" + TOKENS["callid"]
    call = {"type": "tool_use", "id": call_id, "name": "mcp " + TOKENS["tool"],
            "input": {"command": "ls"}}
    lines = [
        _line({"type": "user", "uuid": "u0", "message": {"content": "hello"}}),
        _line({"type": "user", "uuid": "u1", "message": {"content": "go on"}},
              gitBranch="fix/" + TOKENS["branch"], version=TOKENS["version"],
              cwd="/p/" + TOKENS["cwd"]),
        _line({"type": "assistant", "uuid": "a1", "message": {"id": "msg_1",
                                                              "content": [call]}}),
        _line({"type": "user", "uuid": "u2", "message": {"content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}]},
            "toolUseResult": {"stdout": "ok", "stderr": "", "interrupted": False}}),
        _line({"type": "assistant", "uuid": "a2", "message": {
            "id": "msg_" + TOKENS["recordid"], "content": [{"type": "text", "text": "done"}]}}),
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_no_envelope_string_reaches_the_stored_segment(tmp_path):
    path = _planted(tmp_path)
    assert all(token in open(path).read() for token in TOKENS.values())
    cleaned, counts = read_cleaned(path, "claude-code")
    stored = "\n".join(segment_lines(cleaned, segment_header(cleaned, "s1", 0, {})))
    leaked = [name for name, token in TOKENS.items() if token in stored]
    assert leaked == []
    assert "fix/[REDACTED:" in stored and '"cwd":"/p/[REDACTED:' in stored
    assert sum(counts.values()) >= 6  # each place counted, as a text's copies are


def test_the_session_metadata_a_reader_remembers_is_redacted(tmp_path):
    """The first cwd is where the session started (its project), the last branch and version
    are the session's: each is remembered redacted."""
    path = tmp_path / "m.jsonl"
    path.write_text(_line({"type": "user", "uuid": "u0", "message": {"content": "hi"}},
                          gitBranch="fix/" + TOKENS["branch"], version=TOKENS["version"],
                          cwd="/p/" + TOKENS["cwd"]) + "\n")
    cleaned, _ = read_cleaned(str(path), "claude-code")
    remembered = json.dumps([getattr(cleaned.session, f) for f in (
        "cwd", "start_cwd", "git_branch", "agent_version", "session_id")])
    assert [name for name, token in TOKENS.items() if token in remembered] == []
    assert cleaned.session.start_cwd.startswith("/p/[REDACTED:")
    assert cleaned.session.git_branch.startswith("fix/[REDACTED:")


def test_a_redacted_call_id_still_pairs_the_call_and_its_result(tmp_path):
    cleaned, _ = read_cleaned(_planted(tmp_path), "claude-code")
    call = next(e for e in cleaned.events if e.kind == "tool_call")
    result = next(e for e in cleaned.events if e.kind == "tool_result")
    assert call.call_id.startswith("toolu_[REDACTED:") and result.call_id is call.call_id


def test_plain_envelope_strings_are_kept_as_they_are_and_held_once(tmp_path):
    cleaned, counts = read_cleaned(_planted(tmp_path), "claude-code")
    plain = [e for e in cleaned.events if e.cwd == "/p"]
    assert len(plain) >= 3 and all(e.cwd is plain[0].cwd for e in plain)
    assert {e.git_branch for e in plain} == {"main"}


def _write_session(tmp_path, content: str) -> str:
    call = {"type": "tool_use", "id": "toolu_w", "name": "Write",
            "input": {"file_path": "/p/notes.md", "content": content}}
    lines = [
        _line({"type": "assistant", "uuid": "a1", "message": {"id": "msg_1",
                                                              "content": [call]}}),
        _line({"type": "user", "uuid": "u1", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "toolu_w",
             "content": "File created successfully"}]},
            "toolUseResult": {"type": "create", "filePath": "/p/notes.md",
                              "content": content}}),
    ]
    path = tmp_path / "w.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_big_input_is_held_packed_and_reads_back_the_same(tmp_path):
    content = "".join(f"line {n}: notes → more notes\n" for n in range(200))
    cleaned, _ = read_cleaned(_write_session(tmp_path, content), "claude-code")
    call, result = cleaned.events
    assert isinstance(call.tool_input, packed.PackedFields)
    assert call.tool_input["content"] == content and call.tool_input.get("content") == content
    assert dict(call.tool_input) == {"file_path": "/p/notes.md", "content": content}
    assert result.extras["content"] == content
    # the result's copy is the call's bytes, not a second copy
    assert result.extras._fields["content"] is call.tool_input._fields["content"]
    stored = [json.loads(line) for line in segment_lines(
        cleaned, segment_header(cleaned, "w", 0, {}))][1:]
    assert stored[0]["tool_input"] == {"file_path": "/p/notes.md", "content": content}
    assert stored[1]["extras"]["content"] == content


def test_a_small_input_keeps_its_strings_plain_shared_with_its_result(tmp_path):
    content = "short notes\n" * 10
    assert len(content) < packed.INPUT_PACK_MIN_CHARS
    cleaned, _ = read_cleaned(_write_session(tmp_path, content), "claude-code")
    call, result = cleaned.events
    assert isinstance(call.tool_input, packed.PackedFields)  # no dict table of its own
    assert call.tool_input._fields["content"] is call.tool_input["content"] == content
    assert result.extras["content"] is call.tool_input["content"]
    assert call.tool_input.get("content") is call.tool_input["content"]
    assert "file_path" in call.tool_input and "nothing" not in call.tool_input
    assert call.tool_input.get("nothing", 7) == 7


def test_pack_input_packs_only_big_strings():
    big, small = "x" * packed.INPUT_PACK_MIN_CHARS, "y" * (packed.INPUT_PACK_MIN_CHARS - 1)
    fields = {"a": big, "b": small, "c": 3, "d": [big]}
    held, zipped = packed.pack_input(fields)
    assert list(zipped) == [id(big)] and dict(held) == fields
    assert held._fields["b"] is small and held._fields["d"] is fields["d"]
    same, none = packed.pack_input({"b": small})
    assert none == {} and same == {"b": small} and same._fields["b"] is small
    command, none = packed.pack_input({"command": big})  # read by nearly every rule
    assert none == {} and command._fields["command"] is big  # never packed
    empty, none = packed.pack_input({})
    assert empty == {} and none == {}


def test_a_writes_op_and_action_read_the_packed_input_and_keep_no_copy(tmp_path):
    from claimgraph.capture.extract.actions import actions
    from claimgraph.capture.extract.session import SessionView
    from claimgraph.capture.extract.writes import session_ops

    content = "".join(f"setting_{n} = {n}\n" for n in range(200))
    cleaned, _ = read_cleaned(_write_session(tmp_path, content), "claude-code")
    view = SessionView.of(cleaned, "/p")
    [action] = actions(view)
    assert action.given == content and action.content == content
    ops = [op for _, _, found in session_ops(view) for op in found]
    assert [(op.kind, op.path, op.content, op.edits) for op in ops] == [
        ("write", "/p/notes.md", content, ())]
    held = [value for record in (*ops, action) for value in _held_values(record)]
    assert not any(isinstance(value, str) and len(value) >= len(content) for value in held)


def _held_values(record):
    """What an object really holds: every slot of its classes that is set (a property of the
    same name is read through, not asked) and its ``__dict__``, if it has one."""
    found = list(getattr(record, "__dict__", {}).values())
    for cls in type(record).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            try:
                found.append(cls.__dict__[name].__get__(record, cls))
            except (AttributeError, KeyError):
                pass  # never set (a property in a subclass took the write), or not a slot
    return found


def test_an_edits_op_reads_its_strings_from_the_call(tmp_path):
    from claimgraph.capture.extract.session import SessionView
    from claimgraph.capture.extract.writes import FileOp, session_ops

    old, new = "a = 1\n" * 300, "a = 2\n" * 300
    call = {"type": "tool_use", "id": "toolu_e", "name": "Edit",
            "input": {"file_path": "/p/x.py", "old_string": old, "new_string": new}}
    lines = [_line({"type": "assistant", "uuid": "a1", "message": {"id": "m", "content": [call]}}),
             _line({"type": "user", "uuid": "u1", "message": {"content": [
                 {"type": "tool_result", "tool_use_id": "toolu_e", "content": "ok"}]}})]
    path = tmp_path / "e.jsonl"
    path.write_text("\n".join(lines) + "\n")
    cleaned, _ = read_cleaned(str(path), "claude-code")
    [(_, _, [op])] = list(session_ops(SessionView.of(cleaned, "/p")))
    assert op == FileOp("edit", "/p/x.py", op.line, edits=((old, new, False),))
    assert op.content == "" and op.edits == ((old, new, False),)


def test_a_packed_calls_plain_shape_is_a_dict_of_its_strings(tmp_path):
    content = "x = 1\n" * 400
    cleaned, _ = read_cleaned(_write_session(tmp_path, content), "claude-code")
    shape = cleaned.events[0].to_dict()
    assert shape["tool_input"] == {"file_path": "/p/notes.md", "content": content}
    assert type(shape["tool_input"]) is dict


def test_events_without_extras_share_one_empty_mapping(tmp_path):
    """Most events carry no extras: they hold one shared empty dict, not one each, and
    still read and store as an empty mapping."""
    from claimgraph.capture.events import NO_EXTRAS

    cleaned, _ = read_cleaned(_planted(tmp_path), "claude-code")
    empty = [event for event in cleaned.events if not event.extras]
    assert len(empty) >= 3 and all(event.extras is NO_EXTRAS for event in empty)
    assert NO_EXTRAS == {}
    assert all(event.to_dict()["extras"] == {} for event in empty)
    stored = [json.loads(line) for line in segment_lines(cleaned, segment_header(
        cleaned, "s1", 0, {}))][1:]
    assert all(record.get("extras", {}) == {} for record, event in zip(stored, cleaned.events)
               if not event.extras)
