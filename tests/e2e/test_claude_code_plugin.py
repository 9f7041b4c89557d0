"""claimgraph as a Claude Code plugin, installed and run by the real Claude Code CLI.

The checkout is added as a marketplace (`claude plugin marketplace add <checkout>`) and the
plugin installed from it (`claude plugin install claimgraph@claimgraph`) into a temp HOME, with
no `claimgraph install`: every hook and the MCP server the sessions use come from the plugin.
The plugin finds claimgraph the way a user's install leaves it: a `claimgraph` link in
~/.local/bin, which is NOT on the session's PATH.

Session 1 is captured through the plugin's SessionEnd hook. Session 2 starts with that memory,
injected by the plugin's SessionStart hook (the fake API's first request carries the block),
and the scripted model asks the plugin's MCP server (`mcp__plugin_claimgraph_claimgraph__…`),
whose answer holds what session 1 taught. Without claimgraph anywhere, a session still
succeeds, its first request says once how to install claimgraph, the next session's does not,
and SessionEnd leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from fake_messages_api import say, tool, write
from harness import PYTHON, World, json_lines, wait_for
from test_claude_code_session import run_session, session_facts
from test_context_roundtrip import context_texts, injected_block
from test_mcp_session import tool_results

pytestmark = pytest.mark.timeout(300)

REPO = Path(__file__).resolve().parents[2]
PLUGIN_ID = "claimgraph@claimgraph"
SEARCH = "mcp__plugin_claimgraph_claimgraph__memory_search"
LEARN = "E2E-LEARN: add a greeting module with a `hello` function. Always use pytest for tests."
RECALL = "E2E-RECALL: add a farewell module with a `bye` function; which test runner do we use?"
HELLO = 'def hello(name):\n    """A greeting."""\n    return f"hello {name}"\n'
BYE = 'def bye(name):\n    """A farewell."""\n    return f"bye {name}"\n'
MISSING = "is not installed"


def scripts(world: World) -> dict[str, list[Any]]:
    root = world.project
    return {"E2E-LEARN": [write(f"{root}/hello.py", HELLO), say("Added hello.py.")],
            "E2E-RECALL": [tool(SEARCH, query="pytest"), write(f"{root}/bye.py", BYE),
                           say("Added bye.py; we use pytest.")]}


def claude_plugin(world: World, *args: str) -> subprocess.CompletedProcess[str]:
    """`claude plugin ARGS…` in the world's HOME; a failure is recorded for the diagnostics."""
    argv = [str(world.claude), "plugin", *args]
    started = time.monotonic()
    done = subprocess.run(argv, cwd=world.project, env=world.env(), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    world.notes.append(f"{' '.join(argv[1:])}: exit {done.returncode} in "
                       f"{time.monotonic() - started:.1f} s\nstdout: {done.stdout}\n"
                       f"stderr: {done.stderr}")
    assert done.returncode == 0, f"claude {' '.join(args)} failed: {done.stdout}{done.stderr}"
    return done


def install_plugin(world: World) -> Path:
    """The marketplace added from the checkout and the plugin installed; its installed root."""
    claude_plugin(world, "marketplace", "add", str(REPO))
    claude_plugin(world, "install", PLUGIN_ID)
    listed = json.loads(claude_plugin(world, "list", "--json").stdout)
    [entry] = [p for p in listed if p.get("id") == PLUGIN_ID]
    assert entry.get("enabled") is True, entry
    root = Path(entry["installPath"])
    assert (root / "scripts" / "claimgraph-launch").is_file(), sorted(root.rglob("*"))
    hooks = json.loads((world.home / ".claude" / "settings.json").read_text()).get("hooks")
    assert not hooks, f"settings.json has hooks of its own, so the test proves nothing: {hooks}"
    return root


def link_claimgraph_off_path(world: World) -> Path:
    """~/.local/bin/claimgraph -> this venv's command, as install.sh links it (not on PATH)."""
    command = PYTHON.parent / "claimgraph"
    assert command.is_file(), f"no claimgraph command beside {PYTHON}"
    link = world.home / ".local" / "bin" / "claimgraph"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(command)
    assert str(link.parent) not in world.env()["PATH"].split(os.pathsep)
    return link


def first_request(world: World, marker: str) -> dict[str, Any]:
    return next(e["body"] for e in world.api.requests.snapshot()
                if isinstance(e.get("body"), dict) and marker in json.dumps(e["body"]))


def test_the_plugin_captures_a_session_and_the_next_one_starts_with_it(world: World) -> None:
    started = time.monotonic()
    with world.explained(), world.serving(scripts(world)):
        install_plugin(world)
        link_claimgraph_off_path(world)
        print(f"[e2e] marketplace added and plugin installed in {time.monotonic() - started:.1f} s")

        first = run_session(world, LEARN)
        world.wait_for_reports(first, 1)
        world.wait_until_settled(curators=1)
        _, learned = session_facts(world, first)
        taught = [f for f in learned if "pytest" in json.dumps(f)]
        assert taught, "session 1 did not teach memory that we use pytest"
        request = json.dumps(first_request(world, "E2E-LEARN"))
        assert "claimgraph:remember" in request and "claimgraph:recall" in request, \
            "the plugin's skills are not offered to the model"

        run = world.run_claude(RECALL, allowed=f"Write {SEARCH}")
        assert run.returncode == 0 and run.result.get("is_error") is False, run.brief()
        second = run.result["session_id"]
        assert second != first
        wait_for(lambda: any(line.get("event") == "hook.context-injected"
                             for line in json_lines(world.capture_log)), 10,
                 "the plugin's SessionStart hook to log its injection")
        block = injected_block(world)
        assert "pytest" in block and "hello" in block, block

        [searched] = tool_results(world, SEARCH)
        assert not searched["is_error"], searched
        found = {f["id"] for f in json.loads(searched["text"])["facts"]}
        assert found & {f["id"] for f in taught}, searched
        assert '"tool": "memory_search"' in Path(f"{world.db}.mcp.log").read_text()
        world.wait_for_reports(second, 1)
        world.wait_until_settled(curators=2)

        shown = subprocess.run([str(PYTHON), "-m", "claimgraph", "status"], env=world.env(),
                               cwd=world.project, capture_output=True, text=True, timeout=60)
        assert "installed by the plugin claimgraph@claimgraph" in shown.stdout, shown.stdout
    print(f"[e2e] plugin scenario took {time.monotonic() - started:.1f} s")


def test_without_claimgraph_the_plugin_says_once_how_to_install_it(world: World) -> None:
    started = time.monotonic()
    with world.explained(), world.serving(scripts(world)):
        root = install_plugin(world)
        env = world.env()
        assert not any((Path(d) / "claimgraph").exists() for d in env["PATH"].split(os.pathsep))

        first = run_session(world, LEARN)
        told = [t for t in context_texts(first_request(world, "E2E-LEARN")) if MISSING in t]
        assert len(told) == 1, told
        assert "install" in told[0] and "claimgraph" in told[0], told[0]
        assert not [r for r in world.runs if "hook" in r.stderr.lower() and "fail" in
                    r.stderr.lower()], world.runs[-1].stderr

        second = run_session(world, "E2E-RECALL: add a farewell module with a `bye` function.")
        assert second != first
        again = [t for t in context_texts(first_request(world, "E2E-RECALL")) if MISSING in t]
        assert again == [], "the install notice was repeated in the next session"

        time.sleep(2)  # a SessionEnd that did start something would have written by now
        assert not world.db.parent.exists() or not any(world.db.parent.iterdir()), \
            f"SessionEnd without claimgraph left files: {sorted(world.db.parent.iterdir())}"
        assert (root / "scripts" / "claimgraph-launch").is_file()
    print(f"[e2e] missing-claimgraph scenario took {time.monotonic() - started:.1f} s")
