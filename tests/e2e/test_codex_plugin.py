"""Codex CLI installs claimgraph's plugin from this repository's Claude Code marketplace.

Codex 0.171 reads `.claude-plugin/marketplace.json` and `.claude-plugin/plugin.json`: `codex
plugin marketplace add <checkout>` and `codex plugin add claimgraph@claimgraph` install the
plugin, and its skills reach the model (its MCP server does not start there: Codex expands no
`${CLAUDE_PLUGIN_ROOT}` in its arguments; docs/plugin.md). Its hooks are not Codex's way in:
Codex runs a plugin's hooks only once trusted, and the plugin's launcher starts nothing outside
Claude Code (no CLAUDE_PROJECT_DIR), because a Codex payload read as Claude Code's would be
captured wrongly.
Codex's hooks are the ones `claimgraph install --agent codex` registers and trusts; with both in
place, the session is captured exactly once, as Codex's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from agents_harness import AgentsWorld
from test_claude_code_plugin import link_claimgraph_off_path
from test_codex_session import FIRST, codex_session, install_trusted, scripts, session_facts, settle

pytestmark = pytest.mark.timeout(300)

REPO = Path(__file__).resolve().parents[2]


def codex_plugin(world: AgentsWorld, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(world.codex), "plugin", *args], env=world.env(),
                          cwd=world.project, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    world.notes.append(f"codex plugin {' '.join(args)}: exit {done.returncode}\n"
                       f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}")
    assert done.returncode == 0, f"codex plugin {' '.join(args)} failed"
    return done


def test_codex_installs_the_plugin_and_its_sessions_are_captured_once_as_codex(
        codex_world: AgentsWorld) -> None:
    world = codex_world
    with world.explained(), world.serving_codex(scripts()) as api:
        codex_plugin(world, "marketplace", "add", str(REPO))
        codex_plugin(world, "add", "claimgraph@claimgraph")
        listed = codex_plugin(world, "list").stdout
        assert "claimgraph@claimgraph" in listed and "not installed" not in listed, listed
        install_trusted(world)
        link_claimgraph_off_path(world)

        session = codex_session(world, FIRST)
        reports = settle(world, session)
        assert len(reports) == 1, reports
        episodes, facts = session_facts(world, session)
        assert len(episodes) == 1 and facts, (episodes, facts)
        all_episodes, _ = world.store_state()
        assert [e["ref"] for e in all_episodes if not e["ref"].startswith("codex:")] == [], \
            "the session was also captured as another agent's"

        first = next(e["body"] for e in api.requests.snapshot()
                     if isinstance(e.get("body"), dict) and FIRST in json.dumps(e["body"]))
        offered = json.dumps(first)
        assert "claimgraph:remember" in offered and "claimgraph:forget" in offered, \
            "the plugin's skills did not reach the model"
