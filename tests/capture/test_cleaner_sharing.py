"""The cleaner keeps names once per transcript and gives a result its call's id string:
equal values (the stored form does not change), held once in memory."""

from __future__ import annotations

import json

from claimgraph.capture.segment import read_cleaned, segment_header, segment_lines


def _line(record: dict) -> str:
    return json.dumps({"sessionId": "s1", "cwd": "/p", "timestamp": "2026-12-01T10:00:00Z",
                       **record})


def _transcript(tmp_path):
    lines = []
    for n in (1, 2):
        call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash",
                "input": {"command": f"echo {n}", "description": "x"}}
        lines.append(_line({"type": "assistant", "uuid": f"a{n}",
                            "message": {"id": f"msg_{n}", "content": [call]}}))
        lines.append(_line({"type": "user", "uuid": f"u{n}", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"{n}"}]},
            "toolUseResult": {"stdout": f"{n}", "stderr": "", "interrupted": False}}))
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_names_are_held_once_and_a_result_shares_its_calls_id(tmp_path):
    cleaned, _ = read_cleaned(_transcript(tmp_path), "claude-code")
    calls = [e for e in cleaned.events if e.kind == "tool_call"]
    results = [e for e in cleaned.events if e.kind == "tool_result"]
    assert [c.tool_name for c in calls] == ["Bash", "Bash"]
    assert calls[0].tool_name is calls[1].tool_name
    first, second = (list(c.tool_input) for c in calls)
    assert first == second == ["command", "description"]
    assert all(a is b for a, b in zip(first, second))
    for call, result in zip(calls, results):
        assert result.call_id == call.call_id and result.call_id is call.call_id


def test_the_stored_form_is_the_plain_values(tmp_path):
    cleaned, _ = read_cleaned(_transcript(tmp_path), "claude-code")
    stored = [json.loads(line) for line in segment_lines(
        cleaned, segment_header(cleaned, "s1", 0, {}))][1:]
    assert [(e["kind"], e.get("tool_name"), e.get("call_id")) for e in stored] == [
        ("tool_call", "Bash", "toolu_1"), ("tool_result", None, "toolu_1"),
        ("tool_call", "Bash", "toolu_2"), ("tool_result", None, "toolu_2")]
    assert stored[0]["tool_input"] == {"command": "echo 1", "description": "x"}


def _repeated(tmp_path, command: str, big: str) -> str:
    """Three exchanges running the same command line and writing the same long text."""
    lines = []
    for n in (1, 2, 3):
        call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash",
                "input": {"command": command, "description": "list the files", "note": big}}
        lines.append(_line({"type": "assistant", "uuid": f"a{n}",
                            "message": {"id": f"msg_{n}", "content": [call]}}))
        lines.append(_line({"type": "user", "uuid": f"u{n}", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "ok"}]},
            "toolUseResult": {"stdout": "ok", "stderr": "", "interrupted": False}}))
    path = tmp_path / "s2.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_plain_value_that_repeats_across_exchanges_is_held_once_and_redacted_each_time(
        tmp_path):
    secret = "ghp_" + "Z9" * 18
    command = f"curl -H 'Authorization: token {secret}' https://example.invalid/api"
    big = "a long note that is packed, " * 40
    cleaned, counts = read_cleaned(_repeated(tmp_path, command, big), "claude-code")
    inputs = [e.tool_input for e in cleaned.events if e.kind == "tool_call"]
    commands = [i["command"] for i in inputs]
    assert secret not in commands[0] and commands[0] == commands[1] == commands[2]
    assert commands[0] is commands[1] is commands[2]  # one string held, not three copies
    assert inputs[0]["description"] is inputs[2]["description"]
    assert sum(counts.values()) == 3  # still counted where each copy was
    assert [i["note"] for i in inputs] == [big] * 3  # a packed one is its own (a handle)
