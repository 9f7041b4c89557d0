"""Claude Code JSONL: counts on real sessions, merging, meta text, compaction, subagents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimgraph.capture.readers import claude_code, declared_type, read_transcript

from .reader_helpers import CLAUDE, of_file, tally

SESSION_8463 = CLAUDE / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
SUBAGENTS_8463 = CLAUDE / "8463c716-a2ea-4c14-9efa-87158ebd9f20" / "subagents"
SESSION_AE4A = CLAUDE / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"

# Counted independently of the reader, with jq on the raw files (run per file):
#   prompts:     user records, not isMeta, not isCompactSummary, whose string content (or joined
#                text blocks) is non-blank and does not start with <command-name>,
#                <command-message>, <local-command-, <task-notification>, <bash-input|stdout|
#                stderr>, "Caveat: The messages below" or "[Request interrupted"
#   tool_calls:  [.[] | select(.type=="assistant") | .message.content[] | select(.type=="tool_use")]
#                (all ids unique)
#   tool_errors: [.. tool_result blocks in user records | select(.is_error==true)]
#   assistant:   [assistant records with a non-blank text block | .message.id] | unique | length
# The error counts agree with SOURCES.md (short 2, 8463c716 13, ae4a77f8 12, full-session-four 1,
# coverage-test-fix 1); the two subagent files are counted on their own.
EXPECTED = {
    "short.jsonl": dict(prompts=1, tool_calls=2, tool_errors=2, assistant=1),
    "tool_heavy.jsonl": dict(prompts=2, tool_calls=6, tool_errors=0, assistant=1),
    "subagent.jsonl": dict(prompts=1, tool_calls=16, tool_errors=0, assistant=7),
    SESSION_8463.name: dict(prompts=1, tool_calls=177, tool_errors=13, assistant=78),
    "coverage-test-fix.jsonl": dict(prompts=1, tool_calls=13, tool_errors=1, assistant=8),
    SESSION_AE4A.name: dict(prompts=2, tool_calls=242, tool_errors=12, assistant=158),
    "06381696-0074-49f8-863e-6ad4fac507f9.jsonl": dict(prompts=1, tool_calls=3, tool_errors=0,
                                                       assistant=3),
    "full-session-four.jsonl": dict(prompts=3, tool_calls=27, tool_errors=1, assistant=22),
    "python-to-rust-port.jsonl": dict(prompts=1, tool_calls=39, tool_errors=0, assistant=16),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_real_session_yields_the_independently_counted_events(name: str):
    path = CLAUDE / name
    assert tally(of_file(read_transcript(path), path)) == EXPECTED[name]


def test_subagent_files_are_read_with_their_parent_and_tagged_with_their_id():
    transcript = read_transcript(SESSION_8463)
    explorer = [e for e in transcript.events if e.subagent_id == "a7be2f0"]
    assert tally(explorer) == dict(prompts=1, tool_calls=19, tool_errors=2, assistant=13)
    assert all(e.is_sidechain and "agent-a7be2f0" in e.source_file for e in explorer)
    assert not any(e.is_human_prompt for e in explorer), "the parent model wrote that prompt"
    assert set(transcript.subagent_offsets) == {str(p) for p in SUBAGENTS_8463.glob("*.jsonl")}


def test_a_compaction_agent_transcript_is_entirely_derived():
    transcript = read_transcript(SESSION_8463)
    compactor = [e for e in transcript.events if e.subagent_id == "acompact-f46190"]
    assert len(compactor) == 7
    assert all(e.derived for e in compactor)


def test_a_finished_task_links_the_parent_call_to_the_subagent_transcript():
    links = [e for e in read_transcript(SESSION_8463).events if e.kind == "subagent"]
    assert len(links) == 1
    assert links[0].extras["agent_id"] == "a7be2f0"
    assert links[0].extras["transcript"] == str(SUBAGENTS_8463 / "agent-a7be2f0.jsonl")
    assert links[0].line == 988
    assert links[0].text.startswith("I need to understand:")


def test_the_manual_compaction_appears_as_one_derived_compaction_event():
    compactions = [e for e in read_transcript(SESSION_AE4A).events if e.kind == "compaction"]
    assert len(compactions) == 1
    event = compactions[0]
    assert event.derived
    assert event.text.startswith("This session is being continued from a previous conversation")
    assert event.extras == {"trigger": "manual", "boundary_line": 1481, "summary_line": 1482}


def test_assistant_lines_sharing_a_message_id_merge_into_one_event():
    events = read_transcript(CLAUDE / "short.jsonl").events
    [assistant] = [e for e in events if e.kind == "assistant"]
    assert assistant.line == 7
    assert assistant.text == "Let me check the project structure and try running the server " \
                             "to see the error."
    assert assistant.record_id == "msg_01MKH1ccEGrZGNPvu8pYiiQa"


def test_thinking_blocks_never_reach_the_events():
    events = read_transcript(CLAUDE / "short.jsonl").events
    assert not any("trouble starting their Phoenix server" in e.text for e in events)


def test_command_wrappers_hook_feedback_and_interruptions_are_derived_meta_not_prompts():
    events = read_transcript(CLAUDE / "tool_heavy.jsonl").events
    meta = [e.text for e in events if e.kind == "meta"]
    assert all(e.derived for e in events if e.kind == "meta")
    assert any(t.startswith("<command-name>/mcp") for t in meta)
    assert any(t.startswith("<local-command-stdout>") for t in meta)
    assert "[Request interrupted by user]" in meta
    prompts = [e.text for e in events if e.kind == "prompt"]
    assert prompts[0] == "start phoenix in background"


def test_tool_results_carry_the_structured_outcome():
    events = read_transcript(CLAUDE / "full-session-four.jsonl").events
    results = [e for e in events if e.kind == "tool_result"]
    assert any("filePath" in e.extras and "oldString" in e.extras for e in results)
    assert not any("originalFile" in e.extras for e in results), "whole files stay out"
    bash = read_transcript(CLAUDE / "tool_heavy.jsonl").events
    assert any("stdout" in e.extras and "stderr" in e.extras for e in bash)


def test_an_exit_code_error_string_becomes_an_exit_code(tmp_path: Path):
    use = {"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "false"}}]}}
    result = {"type": "user", "toolUseResult": "Error: Exit code 2\nboom", "message": {
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom",
                     "is_error": True}]}}
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (use, result)) + "\n")
    [outcome] = [e for e in claude_code.read(str(path)).events if e.kind == "tool_result"]
    assert outcome.is_error and outcome.extras == {"exit_code": 2}


@pytest.mark.parametrize("content, turned_down", [
    ("The user doesn't want to proceed with this tool use. The tool use was rejected.", True),
    ("grep: the user doesn't want to proceed (quoted in a log)", False),
])
def test_a_call_the_person_turned_down_is_marked_on_its_result(tmp_path: Path, content: str,
                                                               turned_down: bool):
    use = {"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "rm -r build"}}]}}
    result = {"type": "user", "toolUseResult": "User rejected tool use", "message": {
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": content,
                     "is_error": True}]}}
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (use, result)) + "\n")
    [outcome] = [e for e in claude_code.read(str(path)).events if e.kind == "tool_result"]
    assert outcome.turned_down is turned_down


def test_envelope_fields_and_timestamps_reach_every_event():
    transcript = read_transcript(CLAUDE / "short.jsonl")
    prompt = next(e for e in transcript.events if e.kind == "prompt")
    assert prompt.timestamp == 1770757916846  # 2026-02-10T21:11:56.846Z
    assert (prompt.session_id, prompt.cwd, prompt.git_branch, prompt.agent_version) == (
        "55604662-cf2a-4331-851a-ec234028f8ca", "/home/marco/projects/spotter", "master", "2.1.38")
    assert transcript.session.session_id == "55604662-cf2a-4331-851a-ec234028f8ca"


def test_noise_and_unknown_record_types_are_skipped_and_counted(tmp_path: Path):
    lines = [{"type": "progress", "data": {}}, {"type": "file-history-snapshot"},
             {"type": "a-type-from-the-future", "x": 1},
             {"type": "user", "message": {"role": "user", "content": "use uv, not pip"}}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    transcript = read_transcript(path)
    assert [e.text for e in transcript.events] == ["use uv, not pip"]
    assert transcript.counts["skipped_noise"] == 2
    assert transcript.counts["skipped_unknown"] == 1
    assert transcript.warnings == ()


def compact(record: dict) -> str:
    """A line as Claude Code writes it: no spaces after separators."""
    return json.dumps(record, separators=(",", ":"))


def test_noise_lines_whose_head_names_them_are_counted_without_being_decoded(tmp_path: Path):
    """A progress record is known by its head (``declared_type``): even one cut short is noise,
    not a warning. A nested ``"type":"progress"`` (a tool's input) is not a record's type."""
    head = '{"parentUuid":null,"isSidechain":false,"cwd":"/p","type":"progress","data":{"m":'
    nested = {"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "t1", "name": "Report", "input": {"type": "progress"}}]}}
    bracketed = {"cwd": "/p[1]", "type": "progress", "data": {}}
    lines = [head + '"cut here', compact(nested), compact(bracketed),
             '{"a":{"type":"progress"},"type":"user","message":{"content":"use uv"}}']
    path = tmp_path / "s.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    transcript = read_transcript(path)
    assert [(e.kind, e.tool_input or e.text) for e in transcript.events] == [
        ("tool_call", {"type": "progress"}), ("prompt", "use uv")]
    assert transcript.counts["skipped_noise"] == 2
    assert transcript.warnings == ()


@pytest.mark.parametrize("line, declared", [
    ('{"type":"progress","data":{}}', "progress"),
    ('{"uuid":"u","cwd":"/p","type":"file-history-snapshot"}', "file-history-snapshot"),
    ('{"a":{"type":"progress"}}', None),  # nested: not the record's type
    ('{"a":"x\\"type":"progress"}', None),  # inside a key's text
    ('{"cwd":"/p[1]","type":"progress"}', None),  # a bracket before it: decoded to be sure
    (' {"type":"progress"}', None),
    ('{"type": "progress"}', None),
    ('{"type":"pro\\u0067ress"}', None),
    ('{"type":"progress', None),
])
def test_a_lines_declared_type_is_read_only_when_its_head_is_unambiguous(line, declared):
    assert declared_type(line) == declared


def test_skipping_undecoded_noise_changes_nothing_read(monkeypatch):
    """Every real Claude Code fixture reads the same with and without the undecoded skip."""
    for path in sorted(CLAUDE.glob("*.jsonl")):
        fast = read_transcript(path)
        monkeypatch.setattr(claude_code, "UNREAD_TYPES", frozenset())
        slow = read_transcript(path)
        monkeypatch.undo()
        assert (fast.events, fast.counts, fast.warnings, fast.end_offset) == (
            slow.events, slow.counts, slow.warnings, slow.end_offset), path.name


def test_subagents_can_be_left_out():
    transcript = claude_code.read(str(SESSION_8463), include_subagents=False)
    assert {e.source_file for e in transcript.events} == {str(SESSION_8463)}
    assert transcript.subagent_offsets == {}


def queued(prompt, mode: str = "prompt", **extra) -> dict:
    return {"type": "attachment", "uuid": f"q-{mode}-{len(str(prompt))}", "attachment": {
        "type": "queued_command", "prompt": prompt, "commandMode": mode, **extra}}


def test_a_message_typed_while_the_agent_worked_is_the_persons_prompt(tmp_path: Path):
    """Claude Code keeps a message queued mid-turn only as a ``queued_command`` attachment (the
    agent reads it without a new ``user`` record); it is the person's words like any prompt.
    Task notifications, other origins and other attachments (hook context) stay out."""
    lines = [queued("and keep the old flag working", origin={"kind": "human"}),
             queued([{"type": "text", "text": "push a draft PR of this work so far"}]),
             queued("<task-notification>done</task-notification>", mode="task-notification"),
             queued("run the linter", origin={"kind": "coordinator"}),
             {"type": "attachment", "attachment": {"type": "hook_additional_context",
                                                   "content": ["<claimgraph-context>…"]}},
             {"type": "queue-operation", "operation": "enqueue", "content": "and keep the old"}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    transcript = read_transcript(path)
    assert [(e.kind, e.text) for e in transcript.events] == [
        ("prompt", "and keep the old flag working"),
        ("prompt", "push a draft PR of this work so far")]
    assert all(e.is_human_prompt for e in transcript.events)
    assert transcript.counts["skipped_noise"] == 4


def queue(operation: str, content: str | None = None) -> dict:
    record = {"type": "queue-operation", "operation": operation,
              "timestamp": "2026-02-13T02:26:35.055Z", "sessionId": "s"}
    return record if content is None else {**record, "content": content}


def test_an_older_version_keeps_a_message_read_mid_turn_only_in_its_queue(tmp_path: Path):
    """Before the attachment existed, a message the agent read mid-turn left only its
    ``enqueue`` line (then a ``remove`` without content); one taken as the next turn
    (``dequeue``) comes back as a user record and is read there, not twice."""
    task = json.dumps({"task_id": "b1", "description": "build"})
    lines = [queue("enqueue", "if the email is missing, show [anon] instead"),
             queue("enqueue", task), queue("enqueue", "/model"),
             queue("remove"), queue("remove"), queue("remove"),
             queue("enqueue", "now run the tests"), queue("dequeue"),
             {"type": "user", "message": {"role": "user", "content": "now run the tests"}},
             queue("enqueue", "typed as the session ended")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    transcript = read_transcript(path)
    assert [(e.kind, e.text) for e in transcript.events] == [
        ("prompt", "if the email is missing, show [anon] instead"),
        ("prompt", "now run the tests")]


def test_a_newer_version_traces_one_queued_message_twice_and_it_is_read_once(tmp_path: Path):
    said = "and there is our escape hatch: we can bend the process"
    lines = [queue("enqueue", said), queue("remove", said),
             queued(said, origin={"kind": "human"})]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [(e.kind, e.text) for e in read_transcript(path).events] == [("prompt", said)]


def test_messages_taken_back_to_edit_are_not_read_and_the_edited_one_is(tmp_path: Path):
    """``popAll`` pulls every queued message back into the input box; the person edits it and
    queues it again. Only the edited text was sent: the draft is never a prompt, and a later
    ``remove`` without content takes the edited message, not the stale draft."""
    draft, edited = "keep teh cache on disk", "keep the cache on disk, never in memory"
    lines = [queue("enqueue", draft), queue("popAll", draft),
             queue("enqueue", edited), queue("remove")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [(e.kind, e.text) for e in read_transcript(path).events] == [("prompt", edited)]


def test_a_notification_left_in_the_queue_does_not_take_the_place_of_the_persons_words(
        tmp_path: Path):
    """A task notification can reach the agent without its ``enqueue`` ever being removed;
    the person's message queued after it and read mid-turn (a content-less ``remove``) is
    still theirs."""
    notice = "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n" \
             "</task-notification>"
    said = "if the name is missing, show a dash instead"
    lines = [queue("enqueue", notice), queue("enqueue", said), queue("remove")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [(e.kind, e.text) for e in read_transcript(path).events] == [("prompt", said)]


def user(content, **extra) -> dict:
    return {"type": "user", "uuid": f"u{len(str(content))}", "message": {
        "role": "user", "content": content}, **extra}


def test_the_harness_envelope_around_a_prompt_is_not_the_persons_words(tmp_path: Path):
    """An IDE's note of the open file, a selection, a reminder: each a machine-named element of
    its own before or after what the person typed. Only the typed words are the prompt; a
    message that is all envelope (a teammate's message, a monitor's event) is derived meta."""
    opened = "<ide_opened_file>The user opened the file /r/CLAUDE.md in the IDE.</ide_opened_file>"
    lines = [user([{"type": "text", "text": opened}, {"type": "text", "text": "yes go"}]),
             user("<ide_selection>The user selected line 3 of a.py: x = 1</ide_selection>\n"
                  "rename x to count\n<system-reminder>\nBe brief.\n</system-reminder>"),
             user('<teammate-message teammate_id="tester">run the suite again</teammate-message>'),
             user([{"type": "text", "text": "<ci-monitor-event>build failed</ci-monitor-event>"}]),
             user("wrap it in <my-card>…</my-card> please")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    events = read_transcript(path).events
    assert [(e.kind, e.text) for e in events if e.kind == "prompt"] == [
        ("prompt", "yes go"), ("prompt", "rename x to count"),
        ("prompt", "wrap it in <my-card>…</my-card> please")]
    metas = [e for e in events if e.kind == "meta"]
    assert [e.text for e in metas] == [lines[2]["message"]["content"],
                                       lines[3]["message"]["content"][0]["text"]]
    assert all(e.derived for e in metas)


def test_a_queued_message_that_is_all_envelope_is_not_a_prompt(tmp_path: Path):
    note = '<teammate-message teammate_id="r">\nI pushed the branch\n</teammate-message>'
    lines = [queue("enqueue", note), queue("remove", note),
             queued("<ide_opened_file>The user opened a.py</ide_opened_file>\nand fix b.py too",
                    origin={"kind": "human"})]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [(e.kind, e.text) for e in read_transcript(path).events] == [
        ("meta", note), ("prompt", "and fix b.py too")]


def test_a_plan_accepted_with_the_context_cleared_is_the_harness_message(tmp_path: Path):
    """Accepting a plan with "clear context" starts the new context with a user record the
    harness wrote: "Implement the following plan:" and the agent's plan (``planContent``)."""
    plan = "# Plan: cache\n\n- keep the cache on disk"
    lines = [user(f"Implement the following plan:\n\n{plan}", planContent=plan),
             user("also bump the version")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [(e.kind, e.derived) for e in read_transcript(path).events] == [
        ("meta", True), ("prompt", False)]
