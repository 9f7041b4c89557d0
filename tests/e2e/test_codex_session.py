"""The real Codex CLI (`codex exec`), a scripted fake Responses API, and our hooks end to end.

Our installer registers and TRUSTS the hooks in a temp HOME; a first session writes a module
with apply_patch and runs a command, and its capture lands with evidence that resolves to the
rollout's lines and the file; a second session in the same project starts with the first
one's memory (a developer message in every request) and learns nothing from it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents_harness import AgentsWorld
from fake_responses_api import patch, run, say
from harness import line_strings, quoted_in, transcript_cites, wait_for
from test_claude_code_session import assert_defined_in

from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN

pytestmark = pytest.mark.timeout(300)

DIRECTIVE = "Always use pytest for tests."
FIRST = f"E2E-CODEX-LEARN: add a greeting module with a `hello` function. {DIRECTIVE}"
SECOND = "E2E-CODEX-RECALL: add a farewell module with a `bye` function."
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'
BYE = 'def bye(name):\n    """A farewell."""\n    return f"bye {name}"\n'


def scripts() -> dict[str, list[Any]]:
    return {"E2E-CODEX-LEARN": [patch("hello.py", HELLO),
                                run("python3 -c 'import hello; print(hello.hello(1))'"),
                                say("Added hello.py with hello().")],
            "E2E-CODEX-RECALL": [patch("bye.py", BYE), say("Added bye.py.")]}


def install_trusted(world: AgentsWorld) -> None:
    done = world.install_agent("codex")
    assert done.returncode == 0, "claimgraph install --agent codex failed"
    assert "trusted in Codex" in done.stdout, done.stdout


def codex_session(world: AgentsWorld, prompt: str) -> str:
    result = world.run_codex(prompt)
    assert result.returncode == 0, f"codex exec exited {result.returncode}"
    return world.codex_session(result)


def session_facts(world: AgentsWorld, session: str) -> tuple[list[dict], list[dict]]:
    episodes, facts = world.store_state()
    mine = [e for e in episodes if (e["ref"] or "").startswith(f"codex:{session}@")]
    ids = {e["id"] for e in mine}
    return mine, [f for f in facts if f["episode"] in ids]


def settle(world: AgentsWorld, session: str) -> list[dict]:
    """The session's capture reports once every hook's capture (Stop, SessionEnd) is done."""
    reports = world.wait_for_reports(session, 1)
    wait_for(lambda: not world.leftover_processes(), 60, "hook, capture and curator processes "
                                                        "to exit")
    return reports


def assert_cites_resolve(facts: list[dict], lines: list[str]) -> list[tuple[int, str]]:
    """Every transcript citation points at a line that holds its quote; a file's origin
    ("<tool> <absolute path>", a description the extractor writes for every agent) at a line
    that names the tool and the file (Codex's apply_patch names it relative to the project)."""
    cites = [cite for f in facts for cite in transcript_cites(f)]
    for number, quote in cites:
        assert 0 < number <= len(lines), f"transcript#L{number} is outside the transcript"
        text = line_strings(lines[number - 1])
        tool, _, path = quote.partition(" /")
        described = path and tool in text and path.rsplit("/", 1)[-1] in text
        assert quoted_in(quote, text) or described, \
            f"transcript line {number} does not hold {quote!r}: {lines[number - 1][:400]}"
    return cites


def developer_texts(body: dict[str, Any]) -> list[str]:
    return [c.get("text", "") for item in body.get("input") or ()
            if isinstance(item, dict) and item.get("role") == "developer"
            for c in item.get("content") or () if isinstance(c, dict)]


def test_a_codex_session_is_captured_and_the_next_one_remembers_without_echo(
        codex_world: AgentsWorld) -> None:
    world = codex_world
    with world.explained(), world.serving_codex(scripts()) as api:
        install_trusted(world)
        first = codex_session(world, FIRST)
        settle(world, first)
        episodes, learned = session_facts(world, first)
        assert len(episodes) == 1, episodes
        assert_defined_in(world, learned, "def hello(name)", "hello.py")
        lines = world.codex_transcript(first).read_text().splitlines()
        cites = assert_cites_resolve(learned, lines)
        assert any("pytest" in quote for _, quote in cites), cites

        second = codex_session(world, SECOND)
        requests = [e["body"] for e in api.requests.snapshot()
                    if isinstance(e.get("body"), dict) and SECOND in json.dumps(e["body"])]
        assert requests, "the fake saw no request of the second session"
        blocks = [t for t in developer_texts(requests[0]) if CONTEXT_OPEN in t]
        assert blocks, "our SessionStart context did not reach the model as a developer message"
        block = blocks[0][blocks[0].index(CONTEXT_OPEN):blocks[0].index(CONTEXT_CLOSE)]
        assert "pytest" in block and "hello" in block, block
        assert CONTEXT_OPEN in world.codex_transcript(second).read_text()

        settle(world, second)
        _, new = session_facts(world, second)
        assert_defined_in(world, new, "def bye(name)", "bye.py")
        echoes = [q for f in new for _, q in transcript_cites(f) if quoted_in(q, block)]
        assert echoes == [], f"session 2 learned from the injected block: {echoes}"
        old = {f["id"]: f for f in learned}
        _, everything = world.store_state()
        assert [f["id"] for f in everything if f["id"] in old and f != old[f["id"]]] == [], \
            "a fact of session 1 changed after session 2 (re-learned from the injection?)"


def test_untrusted_hooks_are_reported_and_skipped_and_run_once_trusted(
        codex_world: AgentsWorld) -> None:
    world = codex_world
    with world.explained(), world.serving_codex(scripts()):
        done = world.install_agent("codex", codex_on_path=False)
        assert done.returncode == 0 and "NOT trusted yet" in done.stdout, done.stdout
        status = json.loads(world.claimgraph("--json", "status").stdout)
        trust = status["hooks"]["codex"]["trust"]
        assert (trust["status"], trust["source"]) == ("untrusted", "codex"), trust
        assert any("untrusted" in item["problem"] for item in status["needs_attention"])

        skipped = codex_session(world, FIRST)
        assert not world.reports(skipped) and skipped not in tail_of(world), \
            "an untrusted hook ran"

        install_trusted(world)
        status = json.loads(world.claimgraph("--json", "status").stdout)
        assert status["hooks"]["codex"]["trust"]["status"] == "trusted"
        ran = codex_session(world, FIRST)
        settle(world, ran)
        episodes, facts = session_facts(world, ran)
        assert len(episodes) == 1 and facts


def tail_of(world: AgentsWorld) -> str:
    return world.capture_log.read_text() if world.capture_log.exists() else ""
