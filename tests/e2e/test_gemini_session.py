"""The real Gemini CLI, a scripted fake Gemini API, and our hooks end to end.

Our installer registers user-level hooks in a temp HOME; a headless first session (`gemini
-p`) writes a module and runs a command, and its capture lands with evidence; a second one
gets the first one's memory inside ``<hook_context>`` and learns nothing from it. Then the
interactive TUI on a pty: `/quit` fires SessionEnd two or three times, and one capture comes of it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents_harness import AgentsWorld
from fake_gemini_api import say, shell, write_file
from harness import json_lines, quoted_in, transcript_cites, wait_for
from test_claude_code_session import assert_defined_in
from test_codex_session import assert_cites_resolve

from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN

pytestmark = pytest.mark.timeout(300)

DIRECTIVE = "Always use pytest for tests."
FIRST = f"E2E-GEMINI-LEARN: add a greeting module with a `hello` function. {DIRECTIVE}"
SECOND = "E2E-GEMINI-RECALL: add a farewell module with a `bye` function."
TUI = "E2E-GEMINI-TUI: add a constants module with an `answer` function."
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'
BYE = 'def bye(name):\n    """A farewell."""\n    return f"bye {name}"\n'
CONSTANTS = 'def answer():\n    """The answer."""\n    return 42\n'


def scripts(world: AgentsWorld) -> dict[str, list[Any]]:
    root = world.project
    return {"E2E-GEMINI-LEARN": [write_file(f"{root}/hello.py", HELLO),
                                 shell("python3 -c 'import hello; print(hello.hello(1))'"),
                                 say("Added hello.py with hello().")],
            "E2E-GEMINI-RECALL": [write_file(f"{root}/bye.py", BYE), say("Added bye.py.")],
            "E2E-GEMINI-TUI": [write_file(f"{root}/constants.py", CONSTANTS),
                               say("Added constants.py with answer(), all done.")]}


def install(world: AgentsWorld) -> None:
    done = world.install_agent("gemini")
    assert done.returncode == 0, "claimgraph install --agent gemini failed"


def gemini_session(world: AgentsWorld, prompt: str) -> str:
    result = world.run_gemini(prompt)
    assert result.returncode == 0, f"gemini exited {result.returncode}"
    return world.gemini_session(result)


def session_facts(world: AgentsWorld, session: str) -> tuple[list[dict], list[dict]]:
    episodes, facts = world.store_state()
    mine = [e for e in episodes if (e["ref"] or "").startswith(f"gemini:{session}@")]
    ids = {e["id"] for e in mine}
    return mine, [f for f in facts if f["episode"] in ids]


def settle(world: AgentsWorld, session: str) -> list[dict]:
    reports = world.wait_for_reports(session, 1)
    wait_for(lambda: not world.leftover_processes(), 60,
             "hook, capture and curator processes to exit")
    return reports


def escaped(text: str) -> str:
    """What Gemini 0.61 makes of a hook's context: ``<`` and ``>`` escaped, nothing else."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def unescaped(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">")


def prompt_texts(body: dict[str, Any]) -> list[str]:
    return [p.get("text", "") for c in body.get("contents") or ()
            if isinstance(c, dict) and c.get("role") == "user"
            for p in c.get("parts") or () if isinstance(p, dict)]


def test_a_gemini_session_is_captured_and_the_next_one_remembers_without_echo(
        gemini_world: AgentsWorld) -> None:
    world = gemini_world
    with world.explained(), world.serving_gemini(scripts(world)) as api:
        install(world)
        first = gemini_session(world, FIRST)
        settle(world, first)
        episodes, learned = session_facts(world, first)
        assert len(episodes) == 1, episodes
        assert_defined_in(world, learned, "def hello(name)", "hello.py")
        lines = world.gemini_transcript(first).read_text().splitlines()
        cites = assert_cites_resolve(learned, lines)
        assert any("pytest" in quote for _, quote in cites), cites

        second = gemini_session(world, SECOND)
        bodies = [e["body"] for e in api.requests.snapshot()
                  if isinstance(e.get("body"), dict) and SECOND in json.dumps(e["body"])]
        texts = [unescaped(t) for t in prompt_texts(bodies[0]) if "<hook_context>" in t]
        assert texts and CONTEXT_OPEN in texts[0], "our context did not reach the model"
        block = texts[0][texts[0].index(CONTEXT_OPEN):texts[0].index(CONTEXT_CLOSE)]
        assert "pytest" in block and "hello" in block, block
        assert escaped(CONTEXT_OPEN) in world.gemini_transcript(second).read_text(), \
            "the transcript does not hold the injection, so this test proves nothing about echo"

        settle(world, second)
        _, new = session_facts(world, second)
        assert_defined_in(world, new, "def bye(name)", "bye.py")
        echoes = [q for f in new for _, q in transcript_cites(f) if quoted_in(q, block)]
        assert echoes == [], f"session 2 learned from the injected block: {echoes}"
        old = {f["id"]: f for f in learned}
        _, everything = world.store_state()
        assert [f["id"] for f in everything if f["id"] in old and f != old[f["id"]]] == [], \
            "a fact of session 1 changed after session 2 (re-learned from the injection?)"


def test_an_interactive_exit_fires_session_end_more_than_once_and_one_capture_comes_of_it(
        gemini_world: AgentsWorld) -> None:
    """Gemini 0.61 fires SessionEnd up to three times ~0.1 s apart on an interactive exit.

    How many of those run before the TUI process is gone depends on the machine's load (three
    on a quiet box, two on a loaded CI runner), so the test waits for two: enough to prove the
    repeats are folded into a single capture.
    """
    world = gemini_world
    with world.explained(), world.serving_gemini(scripts(world)):
        install(world)
        run = world.run_gemini_interactive(TUI, "all done")
        assert run.returncode == 0, f"the TUI exited {run.returncode}: {run.stderr}"
        hooks = wait_for(lambda: _session_end_hooks(world, 2), 30,
                         "repeated SessionEnd hook runs in the capture log")
        sessions = {line["session"] for line in hooks}
        assert len(sessions) == 1, hooks
        session = sessions.pop()
        settle(world, session)
        captured = [r for r in world.reports(session) if r["status"] == "captured"]
        assert len(captured) == 1, world.reports(session)
        episodes, facts = session_facts(world, session)
        assert len(episodes) == 1, episodes
        assert_defined_in(world, facts, "def answer()", "constants.py")


def _session_end_hooks(world: AgentsWorld, count: int) -> list[dict] | None:
    """The hook's own log lines for SessionEnd runs: one spawned capture or a duplicate each."""
    lines = [line for line in json_lines(world.capture_log) if line.get("hook") == "session-end"
             and line.get("event") in ("hook.spawned", "hook.duplicate")]
    return lines if len(lines) >= count else None
