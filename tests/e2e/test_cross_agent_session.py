"""One project across agents: the real Claude Code CLI and the real Codex CLI in one repository.

Both agents' hooks are installed by our installer in one temp HOME, with one store. A Claude
Code session writes a module; a Codex session in the same repository starts with what Claude
Code learned (our developer message) and writes another; a second Claude Code session starts
with what Codex learned. Every fact of the three sessions lands in ONE project (the same
scope: the repository, whoever worked in it), and no session learns from the memory injected
into it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents_harness import AgentsWorld
from fake_messages_api import say as claude_says
from fake_messages_api import write
from fake_responses_api import patch
from fake_responses_api import say as codex_says
from harness import quoted_in, transcript_cites
from test_claude_code_session import assert_defined_in, run_session
from test_codex_session import codex_session, developer_texts, install_trusted, settle
from test_context_roundtrip import injected_block

from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN

pytestmark = pytest.mark.timeout(400)

CALC = 'def add(a, b):\n    """The sum."""\n    return a + b\n'
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'
BYE = 'def bye(name):\n    """A farewell."""\n    return f"bye {name}"\n'
CLAUDE_FIRST = ("E2E-CROSS-CLAUDE: add a calculator module with an `add` function. "
                "Always use pytest for tests.")
CODEX = "E2E-CROSS-CODEX: add a greeting module with a `hello` function."
CLAUDE_AGAIN = "E2E-RECALL: add a farewell module with a `bye` function."


def claude_scripts(world: AgentsWorld) -> dict[str, list[Any]]:
    root = world.project
    return {"E2E-CROSS-CLAUDE": [write(f"{root}/calc.py", CALC),
                                 claude_says("Added calc.py with add().")],
            "E2E-RECALL": [write(f"{root}/bye.py", BYE), claude_says("Added bye.py with bye().")]}


def codex_scripts() -> dict[str, list[Any]]:
    return {"E2E-CROSS-CODEX": [patch("hello.py", HELLO),
                                codex_says("Added hello.py with hello().")]}


def facts_of(world: AgentsWorld, session: str) -> list[dict]:
    episodes, facts = world.store_state()
    ids = {e["id"] for e in episodes if f":{session}@" in (e["ref"] or "")}
    return [f for f in facts if f["episode"] in ids]


def settled_facts(world: AgentsWorld, session: str) -> list[dict]:
    settle(world, session)
    return facts_of(world, session)


def codex_context(api: Any) -> str:
    """Our block as Codex sent it to the model in the CODEX session's first request."""
    body = next(e["body"] for e in api.requests.snapshot()
                if isinstance(e.get("body"), dict) and CODEX in json.dumps(e["body"]))
    blocks = [t for t in developer_texts(body) if CONTEXT_OPEN in t]
    assert blocks, "Codex's model got no claimgraph developer message"
    return blocks[0][blocks[0].index(CONTEXT_OPEN):blocks[0].index(CONTEXT_CLOSE)]


def assert_no_echo(learned: list[dict], block: str) -> None:
    echoes = [q for f in learned for _, q in transcript_cites(f) if quoted_in(q, block)]
    assert echoes == [], f"a session learned from the memory injected into it: {echoes}"


def test_claude_code_and_codex_in_one_repository_share_one_project(
        cross_world: AgentsWorld) -> None:
    world = cross_world
    with world.explained(), world.serving(claude_scripts(world)), \
            world.serving_codex(codex_scripts()) as codex_api:
        assert world.install_hooks().returncode == 0, "install --agent claude-code failed"
        install_trusted(world)

        by_claude = settled_facts(world, run_session(world, CLAUDE_FIRST))
        assert_defined_in(world, by_claude, "def add(a, b)", "calc.py")

        codex = codex_session(world, CODEX)
        given_to_codex = codex_context(codex_api)
        assert "calc.py" in given_to_codex and "pytest" in given_to_codex, given_to_codex
        by_codex = settled_facts(world, codex)
        assert_defined_in(world, by_codex, "def hello(name)", "hello.py")
        assert_no_echo(by_codex, given_to_codex)

        claude_again = run_session(world, CLAUDE_AGAIN)
        given_to_claude = injected_block(world)
        assert "hello.py" in given_to_claude, given_to_claude
        by_claude_again = settled_facts(world, claude_again)
        assert_defined_in(world, by_claude_again, "def bye(name)", "bye.py")
        assert_no_echo(by_claude_again, given_to_claude)

        scopes = {f["scope"] for f in by_claude + by_codex + by_claude_again
                  if f["scope"] != "global"}
        assert len(scopes) == 1, f"one repository, several projects: {scopes}"
