"""Codex rollouts: session metadata, tool calls and their exit codes, deduplicated messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimgraph.capture.readers import codex, read_transcript

from .reader_helpers import CODEX, tally

SMALL = CODEX / "rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"
LARGE = CODEX / "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl"

# Counted independently with jq over the raw rollouts:
#   tool_calls:  [.[] | select(.type=="response_item" and .payload.type=="function_call")]
#                (each call_id has exactly one function_call_output)
#   tool_errors: outputs whose JSON metadata.exit_code != 0 (3 in each), plus, in LARGE, the
#                one plain-text output "execution error: No such file or directory" (the
#                command never ran)
#   prompts:     response_item user messages not starting with <environment_context>
#   assistant:   response_item assistant messages; every one of them, and every user prompt,
#                is echoed once by an event_msg (4 echoes in SMALL, 2 in LARGE)
EXPECTED = {
    SMALL.name: dict(prompts=2, tool_calls=16, tool_errors=3, assistant=2),
    LARGE.name: dict(prompts=1, tool_calls=84, tool_errors=4, assistant=1),
}
ECHOES = {SMALL.name: 4, LARGE.name: 2}


@pytest.mark.parametrize("path", [SMALL, LARGE], ids=["small", "large"])
def test_each_rollout_yields_the_independently_counted_events(path: Path):
    transcript = read_transcript(path)
    assert tally(list(transcript.events)) == EXPECTED[path.name]
    assert transcript.counts["duplicates"] == ECHOES[path.name]


def test_the_large_rollout_pairs_all_84_calls_with_their_outputs():
    events = read_transcript(LARGE).events
    calls = [e.call_id for e in events if e.kind == "tool_call"]
    results = [e.call_id for e in events if e.kind == "tool_result"]
    assert len(calls) == 84 and sorted(calls) == sorted(results)


@pytest.mark.parametrize("path", [SMALL, LARGE], ids=["small", "large"])
def test_visible_messages_appear_once_and_from_the_response_item(path: Path):
    events = read_transcript(path).events
    visible = [(e.kind, e.text) for e in events if e.kind in ("prompt", "assistant")]
    assert len(visible) == len(set(visible))
    raw = path.read_bytes().splitlines()
    for event in events:
        if event.kind in ("prompt", "assistant"):
            assert json.loads(raw[event.line - 1])["type"] == "response_item"


def test_session_meta_fills_the_session_and_every_event():
    transcript = read_transcript(SMALL)
    assert transcript.session.session_id == "01997ea4-a70d-7da3-8c20-c736db82a7c5"
    assert transcript.session.git_branch == "feat/dashboard-refactor"
    assert transcript.session.agent_version == "0.40.0"
    assert transcript.session.repository_url.endswith("spectora-labs-monorepo-v2.git")
    assert {e.session_id for e in transcript.events} == {transcript.session.session_id}


def test_a_function_call_has_parsed_arguments_and_its_output_an_exit_code():
    events = read_transcript(SMALL).events
    call = next(e for e in events if e.kind == "tool_call")
    assert call.tool_name == "shell" and call.tool_input["command"][0] == "bash"
    result = next(e for e in events if e.kind == "tool_result" and e.call_id == call.call_id)
    assert result.is_error and result.extras["exit_code"] == 2
    assert "syntax error" in result.text


def test_the_environment_block_is_derived_meta_not_a_prompt():
    meta = [e for e in read_transcript(SMALL).events if e.kind == "meta"]
    assert len(meta) == 1 and meta[0].derived and meta[0].line == 2


def _line(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2025-09-25T02:12:23.966Z", "type": kind, "payload": payload})


def test_an_echo_without_its_response_item_is_kept(tmp_path: Path):
    path = tmp_path / "rollout.jsonl"
    path.write_text(_line("session_meta", {"id": "s1", "cwd": "/p"}) + "\n"
                    + _line("event_msg", {"type": "user_message", "message": "use uv"}) + "\n")
    events = codex.read(str(path)).events
    assert [(e.kind, e.text, e.line) for e in events] == [("prompt", "use uv", 2)]


def test_a_message_really_sent_twice_is_kept_twice(tmp_path: Path):
    item = _line("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": "again"}]})
    echo = _line("event_msg", {"type": "user_message", "message": "again"})
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([item, echo, item, echo]) + "\n")
    assert [e.line for e in codex.read(str(path)).events] == [1, 3]


# --- Codex CLI 0.171.0 rollouts (real, `codex exec` against a fake model; SOURCES.md) --------

EXEC = CODEX / "rollout-2026-12-02T18-07-40-01a237f0-d880-7b31-b2ae-bfc68198b19b.jsonl"
PATCH = CODEX / "rollout-2026-12-02T18-24-35-01a23800-5504-7d01-b935-a3d7c9b1de33.jsonl"
# Read by eye from the 19 lines of each: one prompt (response_item line 8, echoed by an
# item_completed UserMessage on line 9), one call (exec_command, or apply_patch as a
# custom_tool_call), its output, one assistant message (line 16, echoed on line 15 BEFORE
# it), two developer messages and the <environment_context> block (meta). world_state,
# token_usage_record, token_count, task_started/complete, thread_settings_applied: noise.


@pytest.mark.parametrize("path", [EXEC, PATCH], ids=["exec", "apply_patch"])
def test_a_0_171_rollout_yields_each_visible_message_once(path: Path):
    transcript = read_transcript(path)
    assert transcript.agent == "codex"
    assert tally(list(transcript.events)) == dict(prompts=1, tool_calls=1, tool_errors=0,
                                                  assistant=1)
    assert transcript.counts["duplicates"] == 2 and transcript.counts.get("skipped_unknown", 0) == 0
    assert [(e.kind, e.line) for e in transcript.events if not e.derived] == [
        ("prompt", 8), ("tool_call", 10), ("tool_result", 13), ("assistant", 16)]
    assert transcript.session.agent_version == "0.171.0"
    assert transcript.session.cwd == "/tmp/agents/proj-codex"


def test_the_exec_command_output_gives_its_exit_code_from_the_process_line():
    events = read_transcript(EXEC).events
    call = next(e for e in events if e.kind == "tool_call")
    assert call.tool_name == "exec_command" and "notes.txt" in call.tool_input["cmd"]
    result = next(e for e in events if e.kind == "tool_result")
    assert result.extras["exit_code"] == 0 and not result.is_error


def test_apply_patch_arrives_as_the_custom_tool_s_raw_patch_text():
    call = next(e for e in read_transcript(PATCH).events if e.kind == "tool_call")
    assert call.tool_name == "apply_patch"
    assert call.tool_input["raw"].startswith("*** Begin Patch\n*** Add File: notes.txt")


def _v171(kind: str, payload: dict, ordinal: int) -> str:
    return json.dumps({"timestamp": "2026-12-02T18:07:40.8Z", "ordinal": ordinal, "type": kind,
                       "payload": payload, "metadata": {"history_sequence": ordinal}})


def _exec_lines(output: str, exit_code: int) -> tuple[str, str]:
    done = _v171("event_msg", {"type": "item_completed", "item": {
        "type": "CommandExecution", "id": "call_9", "exit_code": exit_code,
        "status": "completed"}}, 3)
    out = _v171("response_item", {"type": "function_call_output", "call_id": "call_9",
                                  "output": output}, 4)
    return done, out


@pytest.mark.parametrize("completed_first", [True, False], ids=["event-first", "output-first"])
def test_a_command_s_failure_is_known_from_its_completed_event_in_either_order(
        tmp_path: Path, completed_first: bool):
    call = _v171("response_item", {"type": "function_call", "name": "exec_command",
                                   "call_id": "call_9", "arguments": '{"cmd": "make"}'}, 2)
    done, out = _exec_lines("Chunk ID: 1\nOutput:\nmake: *** no rule\n", 2)
    path = tmp_path / "rollout.jsonl"
    ordered = [done, out] if completed_first else [out, done]
    path.write_text("\n".join([_v171("session_meta", {"id": "s", "cwd": "/p"}, 0), call,
                               *ordered]) + "\n")
    [result] = [e for e in codex.read(str(path)).events if e.kind == "tool_result"]
    assert result.is_error and result.extras["exit_code"] == 2


def test_an_exit_line_in_the_command_s_own_output_is_not_the_exit_code(tmp_path: Path):
    output = "Chunk ID: 1\nWall time: 0\nOriginal token count: 9\nOutput:\n" + "\n" * 3 \
             + "Exit code: 7\n"
    path = tmp_path / "rollout.jsonl"
    path.write_text(_v171("response_item", {"type": "function_call_output", "call_id": "c",
                                            "output": output}, 1) + "\n")
    [result] = codex.read(str(path)).events
    assert "exit_code" not in result.extras and not result.is_error


def test_our_context_as_a_developer_message_is_harness_meta(tmp_path: Path):
    block = "<claimgraph-context>\n- uses make\n</claimgraph-context>"
    path = tmp_path / "rollout.jsonl"
    path.write_text(_v171("response_item", {"type": "message", "role": "developer", "content": [
        {"type": "input_text", "text": block}]}, 1) + "\n")
    [event] = codex.read(str(path)).events
    assert event.kind == "meta" and event.derived


def test_a_skill_the_harness_expands_into_a_user_message_is_meta_not_the_users_words(
        tmp_path: Path):
    skill = ("<skill>\n<name>coordinator</name>\n---\nname: coordinator\n---\n"
             "You do NOT implement tasks yourself. Never edit source files directly.\n</skill>")
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(_line("response_item", {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
        for text in (skill, "use the coordinator to fix the flaky test")) + "\n")
    assert [(e.kind, e.derived) for e in codex.read(str(path)).events] == [
        ("meta", True), ("prompt", False)]


def _user_item(text: str) -> str:
    return _line("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]})


def _user_echo(text: str) -> str:
    return _line("event_msg", {"type": "user_message", "message": text})


def test_a_user_item_no_echo_matches_is_the_harness_once_the_rollout_echoes(tmp_path: Path):
    """Codex echoes what the person sends; a warning it injects in the person's role ("Use the
    apply_patch tool …") is an item alone. An item wrapping the typed text (an attached file
    or image around it) contains its echo and stays the person's, in either order."""
    warning = "Warning: a tool was requested via shell. Use the other tool instead."
    wrapped = "# Files mentioned by the user:\n\n## shot.png\n\n## My request:\nalign the text"
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([
        _user_item("use uv, never pip"), _user_echo("use uv, never pip"),
        _user_echo("ship it"), _user_item("ship it"),
        _user_item(warning),
        _user_item(wrapped), _user_echo("align the text"),
    ]) + "\n")
    events = read_transcript(path, agent="codex").events
    prompts = [e.text for e in events if e.kind == "prompt"]
    assert "use uv, never pip" in prompts and "ship it" in prompts and wrapped in prompts
    assert warning not in prompts
    [meta] = [e for e in events if e.kind == "meta"]
    assert meta.text == warning and meta.derived


def test_a_rollout_that_writes_no_echoes_keeps_every_user_item(tmp_path: Path):
    """Older rollouts echo nothing: there an item alone is no sign of the harness."""
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([_user_item("use uv, never pip"),
                               _user_item("Warning: something the harness says")]) + "\n")
    prompts = [e.text for e in read_transcript(path, agent="codex").events
               if e.kind == "prompt"]
    assert prompts == ["use uv, never pip", "Warning: something the harness says"]


def _call_and_output(tool: str, output: str) -> str:
    """A 0.4x-style call of ``tool`` and its plain-text output (made-up records)."""
    return "\n".join([
        _line("session_meta", {"id": "s", "cwd": "/p"}),
        _line("response_item", {"type": "function_call", "name": tool, "call_id": "c1",
                                "arguments": '{"command": ["make"]}'}),
        _line("response_item", {"type": "function_call_output", "call_id": "c1",
                                "output": output})]) + "\n"


def _result_of(tmp_path: Path, tool: str, output: str):
    path = tmp_path / "rollout.jsonl"
    path.write_text(_call_and_output(tool, output))
    [result] = [e for e in codex.read(str(path)).events if e.kind == "tool_result"]
    return result


@pytest.mark.parametrize("tool, output", [
    ("shell", "failed in sandbox: main.go:3:1: undefined: x\n"),
    ("shell", "failed in sandbox: "),
    ("shell", "error: Failed to find expected lines in /p/a.py:\nold line"),
    ("apply_patch", "apply_patch verification failed: invalid hunk at line 2"),
    ("exec_command", "exec_command failed for `/bin/zsh -lc 'make'`: SandboxDenied {}"),
    ("write_stdin", "write_stdin failed: stdin is closed for this session"),
], ids=["sandbox-stderr", "sandbox-empty", "old-apply-patch", "verification", "exec-failed",
        "poll-failed"])
def test_the_harness_saying_a_command_failed_is_an_error_without_an_exit_code(
        tmp_path: Path, tool: str, output: str):
    result = _result_of(tmp_path, tool, output)
    assert result.is_error and "no_verdict" not in result.extras


def test_the_older_sandbox_s_exit_code_is_the_command_s(tmp_path: Path):
    result = _result_of(tmp_path, "shell", "failed in sandbox Seatbelt with execution error: "
                                           "denied, exit code: 3, stdout: x")
    assert result.is_error and result.extras["exit_code"] == 3


@pytest.mark.parametrize("tool, output", [
    ("shell", "failed in sandbox None with execution error: command timed out"),
    ("shell", "exec command rejected by user"),
    ("exec_command", "aborted by user after 12.5s"),
    ("shell_command", "approval policy is Never; reject command — do not ask"),
    ("exec_command", 'exec_command failed: CreateProcess { message: "x rejected: blocked" }'),
    ("write_stdin", "Chunk ID: 1\nWall time: 30.0 seconds\nProcess running with session ID 7\n"
                    "Output:\n"),
    ("shell", "something the harness never wrote before"),
], ids=["timeout", "rejected", "aborted", "policy", "blocked", "still-running", "unseen"])
def test_a_command_cut_short_turned_down_or_unexplained_has_no_verdict(
        tmp_path: Path, tool: str, output: str):
    result = _result_of(tmp_path, tool, output)
    assert not result.is_error and result.extras.get("no_verdict") is True


def test_a_tool_that_runs_no_command_keeps_its_plain_output_as_a_pass(tmp_path: Path):
    result = _result_of(tmp_path, "update_plan", "Plan updated")
    assert not result.is_error and "no_verdict" not in result.extras


def test_a_script_with_no_status_header_is_read_by_the_harness_s_words(tmp_path: Path):
    program = 'const r = await tools.exec_command({cmd: "make"}); text(r);'
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([
        _line("session_meta", {"id": "s", "cwd": "/p"}),
        _line("response_item", {"type": "custom_tool_call", "name": "exec", "call_id": "c1",
                                "input": program}),
        _line("response_item", {"type": "custom_tool_call_output", "call_id": "c1",
                                "output": "aborted by user after 3.0s"})]) + "\n")
    [result] = [e for e in codex.read(str(path)).events if e.kind == "tool_result"]
    assert not result.is_error and result.extras.get("no_verdict") is True


@pytest.mark.parametrize("tool, output", [
    ("shell", "exec command rejected by user"),
    ("exec_command", "exec command rejected by user\n"),
    ("apply_patch", "patch rejected by user"),
])
def test_a_call_the_person_turned_down_is_marked_theirs_and_has_no_verdict(
        tmp_path: Path, tool: str, output: str):
    result = _result_of(tmp_path, tool, output)
    assert result.turned_down and result.extras.get("no_verdict") is True
    assert not result.is_error


@pytest.mark.parametrize("tool, output", [
    ("shell", "failed in sandbox None with execution error: command timed out"),
    ("exec_command", "aborted by user after 12.5s"),  # cut short, not turned down
    ("shell_command", "approval policy is Never; reject command — do not ask"),  # the policy's
    ("shell", '{"output": "exec command rejected by user", "metadata": {"exit_code": 0}}'),
])
def test_a_policy_a_timeout_or_output_that_ran_is_no_turned_down_call(
        tmp_path: Path, tool: str, output: str):
    assert not _result_of(tmp_path, tool, output).turned_down


def test_an_order_typed_after_a_turned_down_codex_call_is_read_as_a_claude_code_one(
        tmp_path: Path):
    """Through the shared mark, not Codex's words: the order typed next is a convention in the
    person's words, as after a Claude Code refusal (docs/capture.md, "Corrections")."""
    from claimgraph.capture.extract.builtin import extract

    path = tmp_path / "rollout.jsonl"
    path.write_text(_call_and_output("shell", "exec command rejected by user") + _line(
        "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "stop trying to run make targets in this repo"}]})
        + "\n")
    found = [c for c in extract(codex.read(str(path)), project_root="/p")
             if c["predicate"] == "x/convention"]
    assert [c["object"] for c in found] == ["stop trying to run make targets in this repo"]
    assert found[0]["source_type"] == "user-assertion"
