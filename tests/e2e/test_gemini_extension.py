"""claimgraph as a Gemini CLI extension, installed and run by the real Gemini CLI.

`gemini extensions install <checkout>/gemini` copies the extension into a temp HOME, with no
`claimgraph install`: the hooks come from the extension's hooks/hooks.json and find claimgraph
where a user's install leaves it, a link in ~/.local/bin that is NOT on the session's PATH.
Session 1 is captured through the extension's SessionEnd hook; session 2 gets that memory from
its SessionStart hook, inside Gemini's ``<hook_context>``, and the scripted model's
memory_search through the extension's MCP server answers with what session 1 taught. Without
claimgraph anywhere, a session still succeeds and is told how to install it.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from agents_harness import AgentsWorld
from fake_gemini_api import call, say, write_file
from test_claude_code_plugin import link_claimgraph_off_path
from test_gemini_session import gemini_session, prompt_texts, session_facts, settle, unescaped

from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN

pytestmark = pytest.mark.timeout(300)

REPO = Path(__file__).resolve().parents[2]
SEARCH = "mcp_claimgraph_memory_search"
LEARN = ("E2E-GEMINI-LEARN: add a greeting module with a `hello` function. "
         "Always use pytest for tests.")
RECALL = "E2E-GEMINI-RECALL: add a farewell module with a `bye` function."
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'
BYE = 'def bye(name):\n    """A farewell."""\n    return f"bye {name}"\n'


def scripts(world: AgentsWorld) -> dict[str, list]:
    root = world.project
    return {"E2E-GEMINI-LEARN": [write_file(f"{root}/hello.py", HELLO), say("Added hello.py.")],
            "E2E-GEMINI-RECALL": [call(SEARCH, query="pytest"),
                                  write_file(f"{root}/bye.py", BYE), say("Added bye.py.")]}


def install_extension(world: AgentsWorld) -> Path:
    """The extension installed from the checkout (the folder-trust question answered yes)."""
    argv = [str(world.gemini), "extensions", "install", str(REPO / "gemini"), "--consent",
            "--skip-settings"]
    started = time.monotonic()
    done = subprocess.run(argv, input="y\n", cwd=world.project, env=world.env(), text=True,
                          capture_output=True, timeout=120)
    world.notes.append(f"gemini extensions install: exit {done.returncode} in "
                       f"{time.monotonic() - started:.1f} s\nstdout: {done.stdout[-2000:]}\n"
                       f"stderr: {done.stderr[-2000:]}")
    assert done.returncode == 0 and "installed successfully" in done.stdout + done.stderr
    installed = world.home / ".gemini" / "extensions" / "claimgraph"
    assert (installed / "hooks" / "hooks.json").is_file(), sorted(installed.rglob("*"))
    settings = world.home / ".gemini" / "settings.json"
    assert "claimgraph-hook" not in (settings.read_text() if settings.exists() else ""), \
        "settings.json has claimgraph's hooks of its own, so the test proves nothing"
    return installed


def test_the_extension_captures_a_session_and_the_next_one_starts_with_it(
        gemini_world: AgentsWorld) -> None:
    world = gemini_world
    started = time.monotonic()
    with world.explained(), world.serving_gemini(scripts(world)) as api:
        install_extension(world)
        link_claimgraph_off_path(world)

        first = gemini_session(world, LEARN)
        settle(world, first)
        _, learned = session_facts(world, first)
        assert any("pytest" in json.dumps(f) for f in learned), "session 1 taught nothing"

        second = gemini_session(world, RECALL)
        bodies = [e["body"] for e in api.requests.snapshot()
                  if isinstance(e.get("body"), dict) and RECALL in json.dumps(e["body"])]
        declared = {d["name"]: d for t in bodies[0].get("tools") or ()
                    for d in t.get("functionDeclarations") or ()}
        assert SEARCH in declared, "the extension's MCP server offers no memory_search"
        skills = json.dumps(declared.get("activate_skill"))
        assert all(name in skills for name in ("remember", "recall", "forget")), skills
        texts = [unescaped(t) for t in prompt_texts(bodies[0]) if "<hook_context>" in t]
        assert texts and CONTEXT_OPEN in texts[0], "the extension's context did not reach the model"
        block = texts[0][texts[0].index(CONTEXT_OPEN):texts[0].index(CONTEXT_CLOSE)]
        assert "pytest" in block and "hello" in block, block

        answers = [p["functionResponse"] for body in bodies for c in body.get("contents") or ()
                   for p in c.get("parts") or ()
                   if isinstance(p, dict) and (p.get("functionResponse") or {}).get("name")
                   == SEARCH]
        assert answers, "the model never got memory_search's answer"
        taught = {f["id"] for f in learned if "pytest" in json.dumps(f)}
        assert any(fact in json.dumps(answers[-1]) for fact in taught), answers[-1]
        settle(world, second)
    print(f"[e2e] gemini extension scenario took {time.monotonic() - started:.1f} s")


def test_without_claimgraph_the_extension_says_how_to_install_it(
        gemini_world: AgentsWorld) -> None:
    world = gemini_world
    with world.explained(), world.serving_gemini(scripts(world)) as api:
        install_extension(world)
        gemini_session(world, "E2E-GEMINI-LEARN: add a greeting module with a `hello` function.")
        [body] = [e["body"] for e in api.requests.snapshot()[:1]]
        told = [unescaped(t) for t in prompt_texts(body) if "<hook_context>" in t]
        assert told and "is not installed" in told[0], prompt_texts(body)
        assert f"'{REPO}/install.sh' --no-hooks" in told[0] or "uv tool install" in told[0]
        assert not world.db.parent.exists() or not any(world.db.parent.iterdir())
