"""The hook's pure pieces, called directly: paths, payload salvage, records, names, stdin."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimgraph.hooks import entry, spool
from claimgraph.sidecar import default_db_path

ENVIRONMENTS = [
    {"HOME": "/home/u"},
    {"HOME": "/home/u", "XDG_DATA_HOME": "/data"},
    {"HOME": "/home/u", "XDG_DATA_HOME": "relative/ignored"},
    {"HOME": "/home/u", "XDG_DATA_HOME": ""},
    {"HOME": "/home/u", "CLAIMGRAPH_DB": "/elsewhere/m.db", "XDG_DATA_HOME": "/data"},
    {"HOME": "/home/u", "CLAIMGRAPH_DB": "~/m.db"},
    {"HOME": "/home/u", "CLAIMGRAPH_DB": "~"},
]


@pytest.mark.parametrize("environ", ENVIRONMENTS)
def test_the_hook_finds_the_store_where_the_rest_of_claimgraph_looks(environ):
    assert spool.db_path(environ) == str(default_db_path(environ))


def test_a_relative_store_path_is_made_absolute_before_the_child_changes_directory():
    assert spool.db_path({"HOME": "/h", "CLAIMGRAPH_DB": "rel/m.db"}) == os.path.abspath("rel/m.db")


def test_salvage_recovers_known_string_fields_from_broken_json():
    text = '{"session_id": "s\\"1", "cwd": "/p", "junk": "x", "transcript_path": "/t.jso'
    assert spool.salvage(text) == {"session_id": 's"1', "cwd": "/p"}


def test_a_record_names_its_session_after_the_transcript_when_the_payload_does_not():
    record = spool.make_record({"transcript_path": "/x/abc-123.jsonl"}, "claude-code",
                               "session-end", 0.0)
    assert record["session_id"] == "abc-123"
    assert record["hook_event_name"] == "SessionEnd"
    assert record["received_at"] == "1970-01-01T00:00:00.000Z"


def test_a_relative_transcript_path_is_resolved_against_the_payloads_cwd():
    record = spool.make_record({"session_id": "s", "transcript_path": "t.jsonl", "cwd": "/p"},
                               "claude-code", "stop", 0.0)
    assert record["transcript_path"] == "/p/t.jsonl"


def test_non_string_fields_are_dropped_rather_than_trusted():
    record = spool.make_record({"session_id": 42, "cwd": ["/p"], "reason": None},
                               "claude-code", "session-end", 0.0)
    assert (record["session_id"], record["cwd"], record["reason"]) == (None, None, None)


@pytest.mark.parametrize("session, name", [
    ("f0b7-11", "claude-code-f0b7-11.json"),
    ("../../etc/passwd", "claude-code-_.._etc_passwd.json"),
    ("a/b c", "claude-code-a_b_c.json"),
    ("...", "claude-code-_.json"),
    ("x" * 300, "claude-code-" + "x" * spool.MAX_NAME_PART + ".json"),
])
def test_spool_names_cannot_leave_the_spool_directory(session, name):
    assert spool.spool_name("claude-code", session) == name
    assert "/" not in spool.spool_name("claude-code", session)


def test_an_unwritable_log_is_skipped_without_an_error():
    spool.HookLog(None).write("error", "hook.x", reason="nowhere to go")
    spool.HookLog(987654).write("error", "hook.x", reason="a closed descriptor")


def feed(tmp_path: Path, data: bytes) -> int:
    path = tmp_path / "stdin"
    path.write_bytes(data)
    return os.open(path, os.O_RDONLY)


def test_stdin_is_read_whole_when_it_is_small(tmp_path):
    fd = feed(tmp_path, b'{"a": 1}')
    assert entry.read_stdin(fd) == (b'{"a": 1}', 8, False)
    os.close(fd)


def test_stdin_beyond_the_limit_is_counted_but_not_kept(tmp_path):
    fd = feed(tmp_path, b"x" * 1000)
    kept, total, timed_out = entry.read_stdin(fd, limit=100)
    os.close(fd)
    assert (len(kept), total, timed_out) == (100, 1000, False)


def test_stdin_that_stays_open_is_given_up_on_at_the_deadline():
    reader, writer = os.pipe()
    os.write(writer, b"{")
    try:
        assert entry.read_stdin(reader, deadline_s=0.05) == (b"{", 1, True)
    finally:
        os.close(reader)
        os.close(writer)


def test_a_closed_stdin_reads_as_empty():
    reader, writer = os.pipe()
    os.close(reader)
    os.close(writer)
    assert entry.read_stdin(reader) == (b"", 0, False)


@pytest.mark.parametrize("argv, parsed", [
    (["session-end"], ("session-end", "claude-code")),
    (["stop", "--agent", "codex"], ("stop", "codex")),
    (["session-start", "--agent", ""], None),
    (["session-end", "extra"], None),
    (["sessionend"], None),
    ([], None),
])
def test_the_command_line_is_an_event_and_an_optional_agent(argv, parsed):
    assert entry.parse_argv(argv) == parsed


@pytest.mark.parametrize("value, internal", [("1", True), ("yes", True), ("0", False),
                                             ("", False), (None, False)])
def test_claimgraph_internal_marks_our_own_sessions(value, internal):
    environ = {} if value is None else {"CLAIMGRAPH_INTERNAL": value}
    assert entry.is_internal(environ) is internal
