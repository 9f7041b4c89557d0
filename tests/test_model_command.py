"""The model command runner, against a real stand-in: tests/fixtures_bin/fake_model.py."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import psutil
import pytest

from claimgraph.errors import ClaimgraphError
import claimgraph.model_command as model_command
from claimgraph.model_command import (
    STDOUT_LIMIT, TEMP_PREFIX, Budget, child_environment, command_argv, run_model_command)

pytestmark = pytest.mark.timeout(60)

FAKE = Path(__file__).parent / "fixtures_bin" / "fake_model.py"
#: Long enough for the stand-in to start its grandchild on a loaded machine.
HANG_TIMEOUT_MS = 3000


class Fake:
    """The stand-in's environment and the files it reports through."""

    def __init__(self, tmp_path: Path) -> None:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "python3").symlink_to(sys.executable)  # `env python3` finds this one
        self.report = tmp_path / "report.jsonl"
        self.pids = tmp_path / "pids.json"
        self.output = tmp_path / "output.txt"
        self.env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                        FAKE_MODEL_REPORT=str(self.report), FAKE_MODEL_PIDS=str(self.pids),
                        FAKE_MODEL_OUTPUT=str(self.output))
        self.usage: list[dict[str, Any]] = []

    def run(self, prompt: str = "hello", *, budget: Budget | None = None,
            timeout_ms: int = 20_000, cmd: Any = None, **env: str) -> Any:
        return run_model_command(
            cmd or str(FAKE), prompt, timeout_ms=timeout_ms, environ={**self.env, **env},
            budget=budget or Budget(10, 10_000_000), on_usage=self.log)

    def log(self, event: str, **fields: Any) -> None:
        self.usage.append({"event": event, **fields})

    def reports(self) -> list[dict[str, Any]]:
        if not self.report.exists():
            return []
        return [json.loads(line) for line in self.report.read_text().splitlines()]

    def spawned(self) -> list[int]:
        pids = json.loads(self.pids.read_text())
        return [pids["child"], pids["grandchild"]]


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[Fake]:
    """The stand-in, and a guarantee that nothing it spawned outlives the test, pass or fail."""
    stand_in = Fake(tmp_path)
    yield stand_in
    if stand_in.pids.exists():
        for pid in stand_in.spawned():
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                command = " ".join(process.cmdline())
                if str(tmp_path) in command or FAKE.name in command:  # ours, not a reused pid
                    process.kill()


def alive(pid: int) -> bool:
    """A zombie is dead, merely not yet reaped by whoever inherited it."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def all_gone(pids: list[int], within_s: float = 3.0) -> bool:
    deadline = time.monotonic() + within_s
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not any(alive(pid) for pid in pids)


def test_the_answer_is_what_the_command_printed_on_stdout(fake: Fake) -> None:
    fake.output.write_text('{"subject": "a"}\n')
    completion = fake.run("the prompt")
    assert completion.text == '{"subject": "a"}\n'
    assert (completion.input_chars, completion.output_chars) == (10, 17)
    assert completion.exit_code == 0 and not completion.truncated
    assert completion.duration_ms >= 0


def test_the_prompt_arrives_whole_on_stdin_even_when_larger_than_a_pipe(fake: Fake) -> None:
    prompt = "é€ line\n" * 60_000  # ~600 kB of UTF-8: the child must be read while fed
    fake.output.write_text("x" * 200_000)
    completion = fake.run(prompt)
    assert fake.reports()[0]["prompt"] == prompt
    assert len(completion.text) == 200_000


def test_the_child_runs_in_a_fresh_temp_dir_that_is_removed_afterwards(fake: Fake) -> None:
    fake.run()
    cwd = fake.reports()[0]["cwd"]
    assert Path(cwd).name.startswith(TEMP_PREFIX)
    assert cwd != os.getcwd()
    assert not Path(cwd).exists()


def test_the_child_is_marked_internal_and_not_taken_for_a_nested_claude_session(
        fake: Fake) -> None:
    fake.run(CLAUDECODE="1")
    report = fake.reports()[0]
    assert report["internal"] == "1"
    assert report["claudecode"] is None


def test_a_command_string_is_split_like_a_shell_would(fake: Fake) -> None:
    fake.run(cmd=f"{FAKE} -p --model 'a b'")
    assert fake.reports()[0]["argv"] == ["-p", "--model", "a b"]
    fake.run(cmd=[str(FAKE), "x y"])
    assert fake.reports()[1]["argv"] == ["x y"]


def test_a_relative_command_path_works_although_the_child_starts_elsewhere(
        fake: Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FAKE.parent.parent)
    fake.run(cmd=f"./fixtures_bin/{FAKE.name} -p")
    assert fake.reports()[0]["argv"] == ["-p"]


def test_a_timeout_kills_the_child_and_its_grandchild(fake: Fake) -> None:
    started = time.monotonic()
    with pytest.raises(ClaimgraphError) as raised:
        fake.run(timeout_ms=HANG_TIMEOUT_MS, FAKE_MODEL_MODE="hang")
    assert raised.value.type == "llm-command-timeout"
    assert "llm_timeout_ms" in raised.value.hint
    assert time.monotonic() - started < HANG_TIMEOUT_MS / 1000 + 3.0  # grace + reap bounds
    assert all_gone(fake.spawned())
    assert fake.usage[-1]["outcome"] == "llm-command-timeout"


def test_a_timeout_kills_a_grandchild_that_left_the_group_and_ignores_sigterm(
        fake: Fake) -> None:
    with pytest.raises(ClaimgraphError, match="did not finish"):
        fake.run(timeout_ms=HANG_TIMEOUT_MS, FAKE_MODEL_MODE="hang", FAKE_MODEL_ESCAPE="1",
                 FAKE_MODEL_STUBBORN="1")
    assert all_gone(fake.spawned())


def test_an_interrupted_call_still_kills_the_tree(fake: Fake,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pump = model_command._Exchange.pump

    def interrupted(self: Any, deadline: float, stop: Any = None) -> None:
        while not fake.pids.exists():  # feed the prompt until the grandchild is up
            pump(self, time.monotonic() + 0.05)
        raise KeyboardInterrupt

    monkeypatch.setattr(model_command._Exchange, "pump", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fake.run(FAKE_MODEL_MODE="hang")
    assert all_gone(fake.spawned())


def test_what_a_finished_command_left_running_is_ended_without_waiting_for_the_timeout(
        fake: Fake) -> None:
    fake.output.write_text("answer\n")
    started = time.monotonic()
    completion = fake.run(timeout_ms=20_000, FAKE_MODEL_MODE="orphan")
    assert completion.text == "answer\n"
    assert time.monotonic() - started < 5.0
    assert all_gone(fake.spawned())


def test_a_non_zero_exit_fails_with_the_tail_of_stderr(fake: Fake) -> None:
    noise = "".join(f"warning {i}\n" for i in range(5000)) + "fatal: no credentials\n"
    with pytest.raises(ClaimgraphError) as raised:
        fake.run(FAKE_MODEL_MODE="fail", FAKE_MODEL_STDERR=noise)
    error = raised.value
    assert error.type == "llm-command-failed"
    assert error.data["exit_code"] == 3
    assert error.message.endswith("fatal: no credentials")
    assert error.data["stderr_tail"].endswith("fatal: no credentials")
    assert len(error.data["stderr_tail"]) <= 2000
    assert fake.usage[-1]["outcome"] == "llm-command-failed"


def test_a_missing_command_says_how_to_configure_one_and_costs_nothing(fake: Fake) -> None:
    budget = Budget(1, 100)
    with pytest.raises(ClaimgraphError) as raised:
        fake.run(cmd="no-such-model-command -p", budget=budget)
    assert raised.value.type == "llm-command-missing"
    assert "llm_cmd" in raised.value.hint
    assert budget.spent_calls == 0
    assert fake.usage == []


@pytest.mark.parametrize("cmd, kind", [("", "llm-command-missing"), ("   ", "llm-command-missing"),
                                       ("claude 'unbalanced", "llm-command-invalid"),
                                       ([], "llm-command-missing")])
def test_an_unusable_command_setting_is_refused(cmd: Any, kind: str) -> None:
    with pytest.raises(ClaimgraphError) as raised:
        command_argv(cmd)
    assert raised.value.type == kind


def test_no_call_is_made_past_the_call_budget(fake: Fake) -> None:
    budget = Budget(2, 1_000_000)
    fake.run(budget=budget)
    fake.run(budget=budget)
    with pytest.raises(ClaimgraphError) as raised:
        fake.run(budget=budget)
    assert raised.value.type == "llm-budget-exhausted"
    assert len(fake.reports()) == 2
    assert (budget.spent_calls, budget.remaining_calls) == (2, 0)


def test_no_call_is_made_past_the_input_character_budget(fake: Fake) -> None:
    budget = Budget(10, 100)
    fake.run("x" * 60, budget=budget)
    with pytest.raises(ClaimgraphError, match="budget"):
        fake.run("x" * 41, budget=budget)
    fake.run("x" * 40, budget=budget)
    assert [r["prompt_chars"] for r in fake.reports()] == [60, 40]
    assert budget.remaining_chars == 0


def test_budget_spending_is_all_or_nothing_across_threads() -> None:
    budget = Budget(50, 10_000)
    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(budget.spend(100)))
               for _ in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 50
    assert (budget.spent_calls, budget.spent_chars) == (50, 5000)


def test_a_huge_stdout_is_bounded_and_flagged(fake: Fake) -> None:
    completion = fake.run(FAKE_MODEL_MODE="flood", FAKE_MODEL_MIB="12")
    assert len(completion.text) == STDOUT_LIMIT
    assert completion.truncated
    assert fake.usage[-1]["truncated"] is True


def test_a_child_that_never_reads_its_prompt_does_not_break_the_call(fake: Fake) -> None:
    fake.output.write_text("ok\n")
    assert fake.run("p" * 2_000_000, FAKE_MODEL_MODE="deaf").text == "ok\n"


def test_output_that_is_not_utf8_is_decoded_with_replacements(fake: Fake) -> None:
    text = fake.run(FAKE_MODEL_MODE="binary").text
    assert text.startswith('{"subject": "caf\ufffd"}')


def test_usage_is_logged_for_every_call(fake: Fake) -> None:
    fake.output.write_text("four")
    fake.run("twelve chars", budget=Budget(3, 1000))
    (usage,) = fake.usage
    assert usage["event"] == "llm.call"
    assert usage["outcome"] == "ok"
    assert (usage["input_chars"], usage["output_chars"]) == (12, 4)
    assert (usage["calls"], usage["calls_left"], usage["chars_left"]) == (1, 2, 988)
    assert usage["command"] == "fake_model.py"
    assert usage["duration_ms"] >= 0


def test_the_child_environment_is_the_given_one_plus_the_internal_flag() -> None:
    assert child_environment({"PATH": "/bin", "CLAUDECODE": "1"}) == {
        "PATH": "/bin", "CLAIMGRAPH_INTERNAL": "1"}
