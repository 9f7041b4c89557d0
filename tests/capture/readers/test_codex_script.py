"""Codex code mode: a script that only makes one tool call is read as that call; any other
script stays a script, and its output's status decides its error and verdict."""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph.capture.extract.session import OK, UNKNOWN, FAILED, SessionView
from claimgraph.capture.extract.shell import command_text
from claimgraph.capture.readers import codex
from claimgraph.capture.readers.codex_script import script_output, script_status, unwrap

RUN = ('const r = await tools.exec_command({"cmd":"make test","workdir":"/src/app",'
       '"yield_time_ms":10000});\ntext(r.output); if (r.session_id) text(`ID=${r.session_id}`);\n')
PATCH = ('const patch = "*** Begin Patch\\n*** Update File: a.py\\n@@\\n-x\\n+y\\n*** End Patch";\n'
         'text(await tools.apply_patch(patch));')


def test_a_script_that_runs_one_command_is_that_command():
    assert unwrap(RUN) == ("exec_command", {"cmd": "make test", "workdir": "/src/app",
                                            "yield_time_ms": 10000})


def test_a_patch_bound_to_a_constant_is_that_patch():
    name, arguments = unwrap(PATCH)
    assert name == "apply_patch" and arguments["raw"].startswith("*** Begin Patch\n")


def test_scripts_that_are_more_than_one_literal_call_stay_scripts():
    for script in (
            RUN + RUN,  # two calls
            'for (const c of ["a", "b"]) await tools.exec_command({"cmd": c});',
            'if (ok) { const r = await tools.exec_command({"cmd":"rm -rf out"}); }',
            'const cmd = "ls"; await tools.exec_command({"cmd": cmd});',  # not JSON
            PATCH.replace("text(await tools.apply_patch(patch));",
                          'const p2 = patch.replace("x", "z");\n'
                          'text(await tools.apply_patch(p2));'),
            'const r = await tools.web__run({"open": [{"ref_id": "https://x"}]}); text(r);',
            'text(`${await tools.exec_command({"cmd":"ls"})}`);',
            'const r = await tools.exec_command({"cmd": "ls"}, extra);',
            "const s = 'unclosed; await tools.exec_command({\"cmd\": \"ls\"});",
            None, 42):
        assert unwrap(script) is None, script


def test_a_tool_named_inside_a_string_is_not_a_call():
    script = ('const note = "tools.exec_command({})";\n'
              'const r = await tools.exec_command({"cmd":"ls"}); text(r.output);')
    assert unwrap(script) == ("exec_command", {"cmd": "ls"})


def test_the_status_header_is_read_and_taken_off():
    assert script_status("Script completed\nWall time 0.1 seconds\nOutput:\n") == (
        "completed", None)
    assert script_status("Script running with cell ID 7\nWall time 10 seconds\n") == (
        "running", "7")
    assert script_status("ok") == (None, None)
    assert script_output("Script failed\nWall time 0.1 seconds\nOutput:\nboom") == "boom"


def _rollout(tmp_path: Path, *items: dict) -> Path:
    lines = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
              "payload": {"id": "s1", "cwd": "/src/app", "cli_version": "0.144.1"}}]
    lines += [{"timestamp": "2026-01-01T00:00:01Z", "type": "response_item", "payload": item}
              for item in items]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _script(call_id: str, script: str) -> dict:
    return {"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": script}


def _output(call_id: str, *texts: str) -> dict:
    return {"type": "custom_tool_call_output", "call_id": call_id,
            "output": [{"type": "input_text", "text": text} for text in texts]}


def test_a_command_run_from_a_script_is_a_shell_call_with_no_verdict(tmp_path: Path):
    path = _rollout(tmp_path, _script("c1", RUN),
                    _output("c1", "Script completed\nWall time 1 seconds\nOutput:\n", "FAILED 2"))
    transcript = codex.read(str(path))
    call, result = [e for e in transcript.events if e.kind in ("tool_call", "tool_result")]
    assert call.tool_name == "exec_command" and command_text(call) == "make test"
    assert result.text == "FAILED 2" and not result.is_error
    assert SessionView.of(transcript, "/src/app").outcome(call) == UNKNOWN


def test_a_failed_script_is_an_error_and_a_completed_patch_applied(tmp_path: Path):
    path = _rollout(tmp_path, _script("c1", PATCH),
                    _output("c1", "Script failed\nWall time 0 seconds\nOutput:\n",
                            "Script error:\napply_patch verification failed"),
                    _script("c2", PATCH),
                    _output("c2", "Script completed\nWall time 0 seconds\nOutput:\n", "{}"))
    transcript = codex.read(str(path))
    view = SessionView.of(transcript, "/src/app")
    first, second = [e for e in transcript.events if e.kind == "tool_call"]
    assert first.tool_name == second.tool_name == "apply_patch"
    assert (view.outcome(first), view.outcome(second)) == (FAILED, OK)


def test_a_running_script_is_completed_by_its_wait(tmp_path: Path):
    path = _rollout(tmp_path, _script("c1", RUN),
                    {"type": "custom_tool_call_output", "call_id": "c1",
                     "output": "Script running with cell ID 4\nWall time 10 seconds\nOutput:\n"},
                    {"type": "function_call", "call_id": "w1", "name": "wait",
                     "arguments": json.dumps({"cell_id": "4"})},
                    {"type": "function_call_output", "call_id": "w1",
                     "output": [{"type": "input_text",
                                 "text": "Script failed\nWall time 3 seconds\nOutput:\n"},
                                {"type": "input_text", "text": "exec_command refused"}]})
    transcript = codex.read(str(path))
    view = SessionView.of(transcript, "/src/app")
    call = next(e for e in transcript.events if e.kind == "tool_call")
    result = view.results["c1"]
    assert result.text == "exec_command refused" and result.is_error
    assert view.outcome(call) == FAILED


def test_a_script_that_is_more_is_never_a_shell_call(tmp_path: Path):
    script = 'for (const f of ["a", "b"]) await tools.exec_command({"cmd": "rm " + f});'
    path = _rollout(tmp_path, _script("c1", script),
                    _output("c1", "Script completed\nWall time 1 seconds\nOutput:\n", ""))
    call = next(e for e in codex.read(str(path)).events if e.kind == "tool_call")
    assert call.tool_name == "exec" and command_text(call) is None


def _command(call_id: str, cmd: str) -> dict:
    return {"type": "function_call", "call_id": call_id, "name": "exec_command",
            "arguments": json.dumps({"cmd": cmd, "workdir": "/src/app"})}


def _said(call_id: str, text: str) -> dict:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


RUNNING = ("Chunk ID: a1\nWall time: 10.0 seconds\nProcess running with session ID 77\n"
           "Output:\nstarting\n")


def test_a_command_still_running_has_no_verdict_until_its_process_exits(tmp_path: Path):
    path = _rollout(tmp_path, _command("c1", "make test"), _said("c1", RUNNING),
                    {"type": "function_call", "call_id": "p1", "name": "write_stdin",
                     "arguments": json.dumps({"session_id": 77, "chars": ""})},
                    _said("p1", "Chunk ID: a2\nWall time: 5 seconds\nProcess exited with code 2"
                                "\nOutput:\n1 failed\n"),
                    _command("c2", "make serve"), _said("c2", RUNNING.replace("77", "78")))
    transcript = codex.read(str(path))
    view = SessionView.of(transcript, "/src/app")
    first, second = [e for e in transcript.events
                     if e.kind == "tool_call" and e.tool_name == "exec_command"]
    assert view.outcome(first) == FAILED and view.results["c1"].extras["exit_code"] == 2
    assert view.outcome(second) == UNKNOWN  # never polled to its end


def test_an_object_spelled_as_javascript_is_read_as_its_json():
    """Models write scripts with bare keys and single quotes: the call is the same call."""
    bare = 'const r = await tools.exec_command({cmd: "git push origin main", workdir: "/w"});'
    quoted = "text(await tools.exec_command({ cmd: 'npm test', yield_time_ms: 5000, }));"
    assert unwrap(bare) == ("exec_command", {"cmd": "git push origin main", "workdir": "/w"})
    assert unwrap(quoted) is None  # a trailing comma is not JSON: left unread
    assert unwrap(quoted.replace(", }", " }")) == (
        "exec_command", {"cmd": "npm test", "yield_time_ms": 5000})


def test_only_the_spelling_of_a_javascript_object_is_changed():
    for script in (
            'await tools.exec_command({cmd: command});',  # a variable
            'await tools.exec_command({cmd: run("ls")});',  # a call
            "await tools.exec_command({cmd: 'echo \\'hi\\''});",  # an escape
            "await tools.exec_command({cmd: 'say \"x\"'});",  # a double quote inside
            'await tools.exec_command({cmd: `ls ${dir}`});'):  # a template
        assert unwrap(script) is None, script
    # a key-like word inside a string is text, not a key
    assert unwrap('await tools.exec_command({cmd: "a, b: c"});') == (
        "exec_command", {"cmd": "a, b: c"})
