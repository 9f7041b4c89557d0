"""The hook as the agent runs it: a fresh interpreter, a real payload, a real detached child."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import HOOK, PYTHON, Hooks

#: What the hook must never import: third-party packages and the CLI that pulls them in.
HEAVY = {"structlog", "psutil", "filelock", "apscheduler", "tomli", "tomllib", "sqlite3",
         "subprocess", "argparse", "logging", "claimgraph.cli", "claimgraph.sidecar",
         "claimgraph.config", "claimgraph.store", "claimgraph.capture", "claimgraph.logsetup"}
#: ``claimgraph.private`` (os and stat only) checks the store's directory and session ids;
#: ``claimgraph.configured`` (os only) says where the config file is.
FAST_PATH_MODULES = {"claimgraph", "claimgraph.hooks", "claimgraph.hooks.entry",
                     "claimgraph.hooks.spool", "claimgraph.hooks.spawn", "claimgraph.private",
                     "claimgraph.configured"}


def test_a_good_payload_is_spooled_and_handed_to_a_detached_capture(hooks: Hooks):
    run = hooks.run(hooks.payload(), env={**hooks.env, "STAND_IN_SLEEP": "60"})
    assert (run.code, run.out) == (0, b"")
    hooks.returned_before_capture_finished(run)
    [spooled] = hooks.spooled()
    assert spooled.name == "claude-code-sess-1.json"
    record = json.loads(spooled.read_text())
    assert {k: record[k] for k in ("agent", "session_id", "transcript_path", "cwd",
                                   "hook_event_name", "reason")} == {
        "agent": "claude-code", "session_id": "sess-1", "transcript_path": str(hooks.transcript),
        "cwd": str(hooks.home), "hook_event_name": "SessionEnd", "reason": "other"}
    assert record["received_at"].endswith("Z")
    [child] = hooks.children()
    assert child["argv"] == ["--spool", str(spooled)]
    assert hooks.events() == ["hook.spawned"]


def test_the_spool_file_keeps_only_the_fields_capture_needs(hooks: Hooks):
    hooks.run(hooks.payload(last_assistant_message="sk-ant-secret-in-free-text", extra={"x": 1}))
    [spooled] = hooks.spooled()
    assert "secret" not in spooled.read_text()
    assert oct(spooled.stat().st_mode & 0o777) == "0o600"


def test_the_child_writes_into_the_capture_log_not_into_the_agent(hooks: Hooks):
    run = hooks.run(hooks.payload())
    hooks.children("finished")
    assert run.out == b"" and run.err == b""
    assert "stand-in capture ran" in hooks.capture_log.read_text()


def test_a_stop_hook_for_codex_spools_under_the_agent_it_names(hooks: Hooks):
    run = hooks.run(hooks.payload(hook_event_name="Stop"), "stop", "--agent", "codex")
    assert (run.code, run.out) == (0, b"")
    assert [p.name for p in hooks.spooled()] == ["codex-sess-1.json"]
    assert hooks.children()


def test_session_start_prints_nothing_spools_nothing_and_starts_nothing(hooks: Hooks):
    run = hooks.run(hooks.payload(hook_event_name="SessionStart", source="startup"),
                    "session-start")
    assert (run.code, run.out) == (0, b"")
    assert hooks.spooled() == [] and not hooks.capture_log.exists()
    assert hooks.no_child_started()


def test_our_own_extractor_sessions_are_ignored(hooks: Hooks):
    env = dict(hooks.env, CLAIMGRAPH_INTERNAL="1")
    run = hooks.run(hooks.payload(), env=env)
    assert (run.code, run.out) == (0, b"")
    assert hooks.spooled() == [] and not hooks.capture_log.exists()
    assert hooks.no_child_started()


def test_a_second_hook_for_the_same_session_replaces_the_spool_file(hooks: Hooks):
    hooks.run(hooks.payload(reason="clear"))
    hooks.run(hooks.payload(reason="logout"))
    [spooled] = hooks.spooled()
    assert json.loads(spooled.read_text())["reason"] == "logout"


def test_two_hooks_for_one_session_at_once_leave_one_whole_spool_file(hooks: Hooks):
    payloads = [json.dumps(hooks.payload(reason=f"r{i}")).encode() for i in range(6)]
    running = [subprocess.Popen([*HOOK, "session-end"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=hooks.env) for _ in payloads]
    for child, payload in zip(running, payloads, strict=True):
        child.stdin.write(payload)
        child.stdin.close()
    results = [(child.wait(timeout=30), child.stdout.read()) for child in running]
    assert results == [(0, b"")] * len(payloads)
    assert [p.name for p in hooks.spool_dir.iterdir()] == ["claude-code-sess-1.json"]
    assert json.loads(hooks.spooled()[0].read_text())["reason"] in {f"r{i}" for i in range(6)}
    assert len(hooks.children(count=len(payloads))) == len(payloads)


def claimgraph_hook(hooks: Hooks, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "claimgraph", "hook", *argv], env=hooks.env,
                          input=json.dumps(hooks.payload()).encode(), capture_output=True,
                          timeout=60)


def test_the_cli_form_is_the_same_hook(hooks: Hooks):
    done = claimgraph_hook(hooks, "session-end")
    assert (done.returncode, done.stdout) == (0, b"")
    assert [p.name for p in hooks.spooled()] == ["claude-code-sess-1.json"]
    assert hooks.children()


def test_the_cli_form_honours_db_and_exits_zero_on_a_wrong_event(hooks: Hooks, tmp_path):
    done = claimgraph_hook(hooks, "session-end", "--db", str(tmp_path / "other.db"))
    assert (done.returncode, done.stdout) == (0, b"")
    assert (tmp_path / "other.db.spool" / "claude-code-sess-1.json").exists()
    wrong = claimgraph_hook(hooks, "session-ended")
    assert (wrong.returncode, wrong.stdout) == (0, b"")
    assert wrong.stderr.startswith(b"usage:")


def imported_modules(argv: list[str], hooks: Hooks, stdin: bytes) -> set[str]:
    done = subprocess.run([PYTHON, "-X", "importtime", *argv], input=stdin, env=hooks.env,
                          capture_output=True, timeout=30)
    assert done.returncode == 0
    return {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()
            if line.startswith("import time:") and "[us]" not in line}


def test_the_hook_imports_the_standard_library_and_its_own_modules_only(hooks: Hooks):
    payload = json.dumps(hooks.payload()).encode()
    before = imported_modules(["-c", "import runpy"], hooks, b"")  # interpreter + site + -m
    during = imported_modules(["-m", "claimgraph.hooks", "session-end"], hooks, payload) - before
    ours = {name for name in during if name.split(".")[0] == "claimgraph"}
    assert ours == FAST_PATH_MODULES
    foreign = {name for name in during - ours if name.split(".")[0] not in sys.stdlib_module_names}
    assert foreign == set()
    assert not {name for name in during if name in HEAVY or name.split(".")[0] in HEAVY
                or any(name.startswith(h + ".") for h in HEAVY)}


def test_session_start_without_a_store_loads_no_store_code(hooks: Hooks):
    before = imported_modules(["-c", "import runpy"], hooks, b"")
    during = imported_modules(["-m", "claimgraph.hooks", "session-start"], hooks, b"{}") - before
    assert not {name for name in during
                if name.split(".")[0] == "sqlite3" or name.startswith("claimgraph.store")}
