"""Memory asked mid-session through the real Claude Code CLI and our MCP server.

The hooks, the coach and the MCP server are registered by our own installer (``install --coach
--mcp``) in a temp HOME. Session 1 carries a user directive; the SessionEnd hook captures it.
Session 2 is driven by the fake Messages API: the scripted model calls
``mcp__claimgraph__memory_search`` for what session 1 taught, then
``mcp__claimgraph__memory_assert`` for a new decision. The request log shows the coach's
briefing and the search's tool result reaching the model with the captured fact; the store holds
the asserted fact afterwards, in the episode of session 2 (``mcp:claude-code:<session>``), and
session 2's capture learned nothing from the briefing it was shown.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_messages_api import say, tool, write
from harness import World, wait_for
from test_claude_code_session import run_session, session_facts

from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN

pytestmark = pytest.mark.timeout(300)

SEARCH, ASSERT = "mcp__claimgraph__memory_search", "mcp__claimgraph__memory_assert"
LEARN = "E2E-LEARN: add a greeting module with a `hello` function. Always use pytest for tests."
ASK = "E2E-ASK: which test runner do we use? Also, we decided against nose."
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'


def scripts(world: World) -> dict[str, list[Any]]:
    return {"E2E-LEARN": [write(f"{world.project}/hello.py", HELLO), say("Added hello.py.")],
            "E2E-ASK": [tool(SEARCH, query="pytest"),
                        tool(ASSERT, subject="tests", predicate="decided-against",
                             object="nose", **{"class": "commitment"}),
                        say("We use pytest; recorded that nose is out.")]}


def coach_briefing(world: World) -> str:
    """Our coach block as the model received it with the ASK prompt (hook context is sent as
    text in the conversation; measured with 2.1.332 as a system-role message)."""
    for entry in world.api.requests.snapshot():
        body = entry.get("body")
        if not isinstance(body, dict) or "E2E-ASK" not in json.dumps(body):
            continue
        for message in body.get("messages") or ():
            content = message.get("content")
            blocks = [{"text": content}] if isinstance(content, str) else content or ()
            for block in blocks:
                text = block.get("text") or ""
                if CONTEXT_OPEN in text and "memory relevant to this prompt" in text:
                    return text[text.index(CONTEXT_OPEN):text.index(CONTEXT_CLOSE)]
    raise AssertionError("no request of the ASK session carries the coach's briefing")


def tool_results(world: World, name: str) -> list[dict[str, Any]]:
    """The decoded results of ``name``'s calls, as the model received them."""
    bodies = [e["body"] for e in world.api.requests.snapshot() if isinstance(e.get("body"), dict)]
    calls = {block["id"] for body in bodies for message in body.get("messages") or ()
             if message.get("role") == "assistant" and isinstance(message.get("content"), list)
             for block in message["content"]
             if block.get("type") == "tool_use" and block.get("name") == name}
    found = {}
    for body in bodies:
        for message in body.get("messages") or ():
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                    text = "".join(part.get("text", "") for part in block["content"])
                    found[block["tool_use_id"]] = {"is_error": block.get("is_error", False),
                                                   "text": text}
    return list(found.values())


def test_the_agent_asks_memory_mid_session_and_records_a_decision(world: World) -> None:
    with world.explained(), world.serving(scripts(world)):
        done = world.install_hooks("--coach", "--mcp")
        assert done.returncode == 0, "claimgraph install --coach --mcp failed"
        first = run_session(world, LEARN)
        world.wait_for_reports(first, 1)
        world.wait_until_settled(curators=1)
        _, learned = session_facts(world, first)
        captured = [f for f in learned if f["predicate"] in ("core/prefers", "x/convention")
                    and "pytest" in (f["object_lit"] or (f["object_ref"] or {}).get("name"))]
        assert captured, "session 1 did not teach memory that we use pytest"

        run = world.run_claude(ASK, allowed=f"{SEARCH} {ASSERT}")
        assert run.returncode == 0 and run.result.get("is_error") is False, run.brief()
        second = run.result["session_id"]

        briefing = coach_briefing(world)
        assert "pytest" in briefing, briefing
        [searched] = tool_results(world, SEARCH)
        assert not searched["is_error"], searched
        answer = json.loads(searched["text"])
        assert {f["id"] for f in answer["facts"]} & {f["id"] for f in captured}, answer
        [asserted] = tool_results(world, ASSERT)
        assert not asserted["is_error"], asserted
        recorded = json.loads(asserted["text"])
        assert recorded["status"] == "created"
        assert recorded["episode"]["ref"] == f"mcp:claude-code:{second}"

        def stored() -> tuple[dict, dict] | None:
            episodes, facts = world.store_state()
            fact = next((f for f in facts if f["id"] == recorded["fact"]["id"]), None)
            episode = next((e for e in episodes if fact and e["id"] == fact["episode"]), None)
            return (fact, episode) if fact and episode else None
        fact, episode = wait_for(stored, 10, "the asserted fact and its episode in the store")
        assert fact["object_lit"] == "nose" and fact["epistemic"] == "commitment"
        assert fact["source_type"] == "agent-note"  # the agent's word, never the user's
        assert episode["ref"] == f"mcp:claude-code:{second}"
        log = world.db.with_name(world.db.name + ".mcp.log").read_text()
        assert '"tool": "memory_search"' in log and '"tool": "memory_assert"' in log
        world.wait_for_reports(second, 1)  # the transcript with MCP calls captures cleanly
        world.wait_until_settled(curators=2)
        assert "memory relevant to this prompt" in world.transcript(second).read_text(), \
            "the transcript does not hold the briefing, so the next check proves nothing"
        episodes, after = session_facts(world, second)
        relearned = [f for f in after if f["episode"] in {e["id"] for e in episodes}
                     and any("pytest" in cite for cite in f["evidence"])]
        assert relearned == [], f"session 2 learned the coach's briefing back: {relearned}"
