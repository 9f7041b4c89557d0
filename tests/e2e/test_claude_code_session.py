"""The real Claude Code CLI, a scripted fake Messages API, and our hooks: capture end to end.

Each test registers the hooks with our installer in a temp HOME, lets `claude -p` write files and
run commands in a temp git project, and then reads what the detached capture pass stored. The
second test resumes the session and checks that only the new tail of the transcript is captured.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fake_messages_api import bash, say, write
from harness import (
    SUCCESS, World, episode_range, file_cites, line_strings, quoted_in, transcript_cites,
)

pytestmark = pytest.mark.timeout(300)

DIRECTIVE = "Always use pytest for tests."
FIRST_PROMPT = ("E2E-FIRST: add a calculator module with an `add` function and a test for it. "
                f"{DIRECTIVE}")
SECOND_PROMPT = "E2E-SECOND: now add a `multiply` helper."
CALC = 'def add(a, b):\n    """The sum of a and b."""\n    return a + b\n'
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
MUL = 'def multiply(a, b):\n    """The product of a and b."""\n    return a * b\n'


def scripts(world: World) -> dict[str, list[Any]]:
    root = world.project
    return {
        "E2E-FIRST": [write(f"{root}/calc.py", CALC), write(f"{root}/test_calc.py", TEST_CALC),
                      bash("python -m pytest -q -p no:cacheprovider", "Run the tests"),
                      say("Added calc.py with add() and a passing pytest test.")],
        "E2E-SECOND": [write(f"{root}/mul.py", MUL),
                       bash('python -c "from mul import multiply; print(multiply(6, 7))"'),
                       say("Added mul.py with multiply().")],
    }


def run_session(world: World, prompt: str, resume: str | None = None) -> str:
    """One claude run that must succeed with our SessionEnd hook intact; its session id."""
    run = world.run_claude(prompt, resume=resume)
    assert run.returncode == 0, f"claude exited {run.returncode}"
    assert "Hook cancelled" not in run.stderr, \
        "Claude Code cancelled a hook: it outlived its budget"
    result = run.result
    assert result.get("is_error") is False and result.get("subtype") == "success", result
    return result["session_id"]


def install(world: World) -> None:
    done = world.install_hooks()
    assert done.returncode == 0, "claimgraph install --agent claude-code --scope user failed"
    hooks = world.settings().get("hooks", {})
    assert hooks.get("SessionEnd") and hooks.get("SessionStart"), hooks


def session_facts(world: World, session: str) -> tuple[list[dict], list[dict]]:
    """(this session's episodes in capture order, all stored facts)."""
    episodes, facts = world.store_state()
    mine = [e for e in episodes if f":{session}@" in (e["ref"] or "")]
    return sorted(mine, key=episode_range), facts


def ident(ref: Any) -> Any:
    """Stored facts embed their entities; compare them by id."""
    return ref.get("id") if isinstance(ref, dict) else ref


def in_episode(facts: list[dict], episode: dict) -> list[dict]:
    return [f for f in facts if f["episode"] == episode["id"]]


def assert_defined_in(world: World, facts: list[dict], code: str, filename: str) -> None:
    """A defined-in fact citing ``code`` in ``filename``, and the file really holds the quote."""
    cites = [(path, quote) for f in facts if f["predicate"].rsplit("/", 1)[-1] == "defined-in"
             for path, quote in file_cites(f) if code in quote]
    assert cites, f"no defined-in fact cites `{code}`"
    for path, quote in cites:
        file = world.project / path
        assert file.name == filename and file.is_file(), f"evidence cites {path}: no such file"
        assert quoted_in(quote, file.read_text()), f"{path} does not contain {quote!r}"


def assert_transcript_evidence(facts: list[dict], transcript_lines: list[str],
                               after_line: int = 0) -> list[tuple[int, str]]:
    """Every transcript citation resolves to a line (1-based) that holds its quote."""
    cites = [cite for f in facts for cite in transcript_cites(f)]
    for line, quote in cites:
        assert after_line < line <= len(transcript_lines), (
            f"transcript#L{line} is outside lines {after_line + 1}..{len(transcript_lines)}")
        text = transcript_lines[line - 1]
        assert quoted_in(quote, line_strings(text)), (
            f"transcript line {line} does not contain {quote!r}: {text[:400]}")
    return cites


def test_a_real_claude_code_session_is_captured_through_our_hooks(world: World) -> None:
    started = time.monotonic()
    with world.explained(), world.serving(scripts(world)):
        install(world)
        session = run_session(world, FIRST_PROMPT)
        [report] = world.wait_for_reports(session, 1)
        assert report["status"] in SUCCESS and report["episode"], report
        episodes, facts = session_facts(world, session)
        assert [e["id"] for e in episodes] == [report["episode"]]
        mine = in_episode(facts, episodes[0])
        assert_defined_in(world, mine, "def add(a, b)", "calc.py")
        lines = world.transcript(session).read_text().splitlines()
        cites = assert_transcript_evidence(mine, lines)
        assert any("pytest" in quote for _, quote in cites), (
            f"no fact cites the user's directive {DIRECTIVE!r} in the transcript: {cites}")
        world.wait_until_settled(curators=1)
    print(f"[e2e] first scenario took {time.monotonic() - started:.1f} s")


def test_a_resumed_session_captures_only_the_new_tail(world: World) -> None:
    started = time.monotonic()
    with world.explained(), world.serving(scripts(world)):
        install(world)
        session = run_session(world, FIRST_PROMPT)
        [first] = world.wait_for_reports(session, 1)
        _, before = session_facts(world, session)

        assert run_session(world, SECOND_PROMPT, resume=session) == session
        reports = world.wait_for_reports(session, 2)
        second = reports[1]
        assert second["segment"]["from"] == first["segment"]["to"], (first, second)
        episodes, after = session_facts(world, session)
        assert len(episodes) == 2, episodes
        assert episode_range(episodes[1])[0] == episode_range(episodes[0])[1]

        old = {f["id"]: f for f in before}
        assert [f for f in after if f["id"] in old and f != old[f["id"]]] == [], \
            "facts of the first capture changed (re-read and reinforced?)"
        new = in_episode(after, episodes[1])
        assert new, "the resumed session's tail produced no facts"
        assert_defined_in(world, new, "def multiply(a, b)", "mul.py")
        assert not [f for f in new if any("calc.py" in ev or "def add" in ev
                                          for ev in f["evidence"])], "the old head was re-captured"
        lines = world.transcript(session).read_text().splitlines()
        assert_transcript_evidence(new, lines, after_line=first["segment"]["lines"][1])
        keys = [(ident(f["subject"]), f["predicate"], ident(f["object_ref"]), f["object_lit"],
                 f["scope"]) for f in after if f["t_invalid"] is None]
        assert len(keys) == len(set(keys)), "a fact is stored twice"
        world.wait_until_settled(curators=2)
    print(f"[e2e] resume scenario took {time.monotonic() - started:.1f} s")
