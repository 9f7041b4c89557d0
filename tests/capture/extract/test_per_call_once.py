"""What causes and ci_lessons now compute once per call or message (issue 29) answers as the
brute force did, on random inputs: the causes still open and the causes of a check
(``causes._Followed``), a name searched in a command and its output apart (``causes.spelled``),
a later log's failed steps read once for every fix waiting (``ci_lessons._got_past``), and a
fix's edited files kept with a set beside the list (``ci_lessons._Open.note_edit``), and a
remote change asked of a fix's calls only when a run proves it (``ci_lessons._Done``)."""

from __future__ import annotations

import random

import pytest

from claimgraph.capture.events import Event
from claimgraph.capture.extract.causes import _Cause, _Followed, spelled
from claimgraph.capture.extract.ci_lessons import (
    StepFailure, _Done, _got_past, _Open, failed_steps, got_past)
from claimgraph.capture.extract.held import remote_change

KEYS = [("pytest",), ("npm", "test"), ("make",), ("cargo", "test")]


def _event(line: int) -> Event:
    return Event(kind="tool_call", agent="claude-code", source_file="s.jsonl", line=line)


def _cause(rng: random.Random, line: int) -> _Cause:
    return _Cause(f"sentence {line}", line, None, rng.choice(KEYS), _event(line),
                  {"name"}, changes=[_event(line)] if rng.random() < 0.6 else [])


@pytest.mark.parametrize("seed", range(40))
def test_the_followed_causes_answer_as_a_walk_of_every_cause(seed: int) -> None:
    rng = random.Random(seed)
    followed = _Followed()
    for step in range(rng.randint(5, 80)):
        roll = rng.random()
        if roll < 0.45:
            followed.add([_cause(rng, step * 10 + i) for i in range(rng.randint(0, 3))])
        elif roll < 0.6:  # the person says it still fails: every cause is refuted
            followed.refute(list(followed.open.values()))
        else:  # the check failed again: its causes that led to a change are refuted
            key = rng.choice(KEYS)
            followed.refute([c for c in followed.of_check(key) if c.changes])
        every = followed.every
        assert list(followed.open.values()) == [c for c in every if not c.refuted]
        for key in KEYS:
            assert followed.of_check(key) == [c for c in every if c.key == key]


@pytest.mark.parametrize("seed", range(20))
def test_a_name_searched_apart_is_found_as_in_the_joined_text(seed: int) -> None:
    rng = random.Random(seed)
    letters = "ab\n"

    def text(most: int) -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(0, most)))
    joined_only = 0
    for _ in range(400):
        command, output = text(8), text(8)
        names = {text(4) or "a" for _ in range(rng.randint(1, 3))}
        brute = any(name in f"{command}\n{output}" for name in names)
        assert spelled(command, output, names) == brute
        joined_only += brute and not any(n in command or n in output for n in names)
    assert joined_only > 0  # the line break between the two was tried


LINES = ["build\tCompile\t2026-01-09T23:22:54.9Z error: linker `cc` not found",
         "build\tCompile\t2026-01-09T23:22:55.2Z ##[error]Process completed with exit code 1.",
         "build\tPackage\t2026-01-09T23:40:43.6Z Error: archive name is not valid",
         "build\tPackage\t2026-01-09T23:40:43.7Z ##[error]Process completed with exit code 1.",
         "test\tUnit\t2026-01-09T23:40:44.0Z FAILED tests/test_a.py::test_one - AssertionError",
         "test\tUnit\t2026-01-09T23:40:44.1Z ##[error]Process completed with exit code 2.",
         "lint\tRuff\t2026-01-09T23:40:45.0Z error: unused import",
         "lint\tRuff\t2026-01-09T23:40:45.1Z ##[error]Process completed with exit code 1."]


def _brute_got_past(failure: StepFailure, later_log: str | None, ticked: set[str]) -> bool:
    """The check as it was, the later log read again for each fix waiting."""
    if failure.step in ticked or failure.job in ticked:
        return True
    if later_log is None:
        return False
    later = [f for f in failed_steps(later_log) if f.job == failure.job]
    return bool(later) and not any(f.step == failure.step and f.error == failure.error
                                   for f in later)


@pytest.mark.parametrize("seed", range(20))
def test_a_later_log_read_once_proves_what_it_proved_read_per_fix(seed: int) -> None:
    rng = random.Random(seed)
    known = failed_steps("\n".join(LINES))
    assert len(known) == 4
    for _ in range(100):
        log = "\n".join(rng.sample(LINES, rng.randint(0, len(LINES)))) if rng.random() < 0.8 \
            else None
        ticked = set(rng.sample(["Compile", "Package", "test", "Ruff"], rng.randint(0, 2)))
        once = None if log is None else failed_steps(log)
        for failure in known:
            brute = _brute_got_past(failure, log, ticked)
            assert _got_past(failure, once, ticked) == brute
            assert got_past(failure, log, ticked) == brute


@pytest.mark.parametrize("seed", range(20))
def test_a_fix_keeps_each_edited_file_once_in_order(seed: int) -> None:
    rng = random.Random(seed)
    item = _Open(StepFailure("build", "Compile", "error"), None, _event(1))
    typed = [rng.choice("abcdefgh") + ".py" for _ in range(rng.randint(0, 60))]
    for cited in typed:
        item.note_edit(cited)
    assert item.edits == list(dict.fromkeys(typed))


COMMANDS = ["gh secret set API_TOKEN --body x", "docker push example/app:1", "ls -la", "pytest -q",
            "git status", "npm publish", "git commit -m 'fix: a thing'", "make build"]


def _bash(line: int, command: str) -> Event:
    return Event(kind="tool_call", agent="claude-code", source_file="s.jsonl", line=line,
                 tool_name="Bash", tool_input={"command": command}, cwd="/work/project")


@pytest.mark.parametrize("seed", range(20))
def test_a_remote_change_asked_late_is_the_one_asked_of_every_call(seed: int) -> None:
    rng = random.Random(seed)
    done = _Done(None)  # type: ignore[arg-type]  # remote_change reads the call alone
    changed = 0
    for line in range(rng.randint(1, 40)):
        done.calls.append(_bash(line, rng.choice(COMMANDS)))
        for since in rng.sample(range(len(done.calls) + 1), min(3, len(done.calls) + 1)):
            brute = any(remote_change(None, call)  # type: ignore[arg-type]
                        for call in done.calls[since:])
            assert done.outside(since) == brute
            changed += brute
    assert changed > 0
