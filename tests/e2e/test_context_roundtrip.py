"""Memory back into the next session, through the real Claude Code CLI, without echo.

Session 1 writes a file and carries a user directive; capture learns facts from it. Session 2
starts in the same project: our SessionStart hook injects the compiled block, and the fake API's
request log shows it reached the model with the first turn. Session 2 is then captured too,
and nothing it stores quotes the injected block, and no fact of session 1 is reinforced by it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_messages_api import say, write
from harness import World, json_lines, quoted_in, transcript_cites, wait_for
from test_claude_code_session import install, run_session, session_facts

from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN

pytestmark = pytest.mark.timeout(300)

DIRECTIVE = "Always use pytest for tests."
FIRST_PROMPT = f"E2E-LEARN: add a greeting module with a `hello` function. {DIRECTIVE}"
SECOND_PROMPT = "E2E-RECALL: add a farewell module with a `bye` function."
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'
BYE = 'def bye(name):\n    """A farewell."""\n    return f"bye {name}"\n'


def scripts(world: World) -> dict[str, list[Any]]:
    root = world.project
    return {"E2E-LEARN": [write(f"{root}/hello.py", HELLO), say("Added hello.py.")],
            "E2E-RECALL": [write(f"{root}/bye.py", BYE), say("Added bye.py.")]}


def context_texts(body: dict[str, Any]) -> list[str]:
    """Every text the client sent as context (user and system messages) in one request body.

    Measured with 2.1.332: the hook's text arrives as a ``role: "system"`` message right after
    the first user turn, prefixed "SessionStart hook additional context: ".
    """
    texts = []
    for message in body.get("messages") or ():
        if message.get("role") == "assistant":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts += [b.get("text") or json.dumps(b.get("content")) for b in blocks or ()]
    return texts


def injected_block(world: World) -> str:
    """Our block as the model received it in the first request of the RECALL session."""
    first = next(e["body"] for e in world.api.requests.snapshot()
                 if isinstance(e.get("body"), dict) and "E2E-RECALL" in json.dumps(e["body"]))
    for text in context_texts(first):
        if CONTEXT_OPEN in text:
            return text[text.index(CONTEXT_OPEN):text.index(CONTEXT_CLOSE) + len(CONTEXT_CLOSE)]
    raise AssertionError("the first RECALL request carries no claimgraph block")


def test_the_next_session_starts_with_memory_and_does_not_relearn_it(world: World) -> None:
    with world.explained(), world.serving(scripts(world)):
        install(world)
        first = run_session(world, FIRST_PROMPT)
        world.wait_for_reports(first, 1)
        world.wait_until_settled(curators=1)
        _, learned = session_facts(world, first)
        assert learned, "session 1 taught memory nothing"

        second = run_session(world, SECOND_PROMPT)
        assert second != first
        wait_for(lambda: any(line.get("event") == "hook.context-injected"
                             for line in json_lines(world.capture_log)), 10,
                 "the SessionStart hook to log its injection")
        block = injected_block(world)
        assert "pytest" in block and "hello" in block, block

        assert CONTEXT_OPEN in world.transcript(second).read_text(), \
            "the transcript does not hold the injection, so this test proves nothing about echo"
        world.wait_for_reports(second, 1)
        world.wait_until_settled(curators=2)
        episodes, after = session_facts(world, second)
        new = [f for f in after if f["episode"] in {e["id"] for e in episodes}]
        echoes = [(f["predicate"], quote) for f in new for _, quote in transcript_cites(f)
                  if quoted_in(quote, block)]
        assert echoes == [], f"session 2 stored facts quoting the injected block: {echoes}"
        old = {f["id"]: f for f in learned}
        assert [f["id"] for f in after if f["id"] in old and f != old[f["id"]]] == [], \
            "a fact of session 1 changed after session 2 (re-learned from the injection?)"
