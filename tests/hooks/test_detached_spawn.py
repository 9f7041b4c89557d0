"""The capture pass outlives the hook: as Claude Code does when the budget runs out, the hook's
whole process group is SIGKILLed right after the hook returns, and the child carries on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from .conftest import HOOK, Hooks, wait_for

#: A stand-in for the agent: it runs the hook with a pipe of its own left open (inheritable,
#: on fd 7), records the hook's exit code, and keeps a plain background child in its group.
WRAPPER = r'''
sleep 1 && touch "$CONTROL" &
"$@" 7<"$PAYLOAD" < "$PAYLOAD"
echo $? > "$HOOK_RC"
sleep 30
'''


def start_agent_like_group(hooks: Hooks, tmp_path: Path) -> tuple[subprocess.Popen, dict]:
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(hooks.payload()))
    files = {"PAYLOAD": payload, "CONTROL": tmp_path / "control-survived",
             "HOOK_RC": tmp_path / "hook.rc"}
    env = dict(hooks.env, STAND_IN_SLEEP="1.0", **{k: str(v) for k, v in files.items()})
    wrapper = subprocess.Popen(["sh", "-c", WRAPPER, "sh", *HOOK, "session-end"], env=env,
                               start_new_session=True, stdin=subprocess.DEVNULL)
    return wrapper, files


def test_the_capture_pass_survives_a_kill_of_the_hooks_process_group(hooks: Hooks, tmp_path):
    wrapper, files = start_agent_like_group(hooks, tmp_path)
    try:
        assert wait_for(lambda: files["HOOK_RC"].exists() and files["HOOK_RC"].read_text(), 30)
        os.killpg(wrapper.pid, signal.SIGKILL)
    finally:
        wrapper.kill()
        wrapper.wait(timeout=10)
    assert files["HOOK_RC"].read_text().strip() == "0"
    finished = hooks.children("finished", timeout=10)
    assert finished, "the capture pass died with the hook's process group"
    [child] = finished
    assert child["sid"] == child["pid"] != wrapper.pid  # a session of its own
    time.sleep(1.2)
    assert not files["CONTROL"].exists(), "the group kill did not reach the wrapper's own child"


def test_the_child_inherits_no_descriptor_but_devnull_and_the_log(hooks: Hooks, tmp_path):
    wrapper, files = start_agent_like_group(hooks, tmp_path)
    try:
        [child] = hooks.children("started", timeout=10)
        fds = sorted(os.listdir(f"/proc/{child['pid']}/fd"), key=int)
        stdin = os.readlink(f"/proc/{child['pid']}/fd/0")
    finally:
        os.killpg(wrapper.pid, signal.SIGKILL)
        wrapper.wait(timeout=10)
    assert fds == ["0", "1", "2"]  # the wrapper's fd 7 was open in the hook, not in the child
    assert stdin == os.devnull
    assert child["fds"]["1"] == child["fds"]["2"] == str(hooks.capture_log)
    assert child["cwd"] == "/"
