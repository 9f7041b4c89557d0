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
