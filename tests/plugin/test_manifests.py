"""The marketplace, the plugin's manifest, hooks, MCP server and skills agree with each other
and with claimgraph itself (its version, its hook marker, its MCP tools), so none drifts.

Claude Code's own validation of these files is in the end-to-end test, which installs the
plugin with the real CLI (tests/e2e/test_claude_code_plugin.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claimgraph.hooks.agents import MARKER
from claimgraph.mcp.tools import BY_NAME

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
MARKETPLACE = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
[ENTRY] = MARKETPLACE["plugins"]
PLUGIN = (REPO / ENTRY["source"]).resolve()
MANIFEST = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
LAUNCHER = "${CLAUDE_PLUGIN_ROOT}/scripts/claimgraph-launch"
SKILLS = {"remember": "memory_assert", "recall": "memory_search", "forget": "memory_forget"}
FRONT = re.compile(r"\A---\n(?P<head>.*?)\n---\n(?P<body>.*)\Z", re.S)


def test_the_repository_is_a_marketplace_of_one_plugin_named_claimgraph() -> None:
    assert MARKETPLACE["name"] == ENTRY["name"] == MANIFEST["name"] == "claimgraph"
    assert ENTRY["source"].startswith("./") and PLUGIN.parent == REPO
    assert MARKETPLACE["owner"]["name"]


def test_the_plugin_version_is_claimgraphs() -> None:
    """Claude Code updates an installed plugin only when its version changes."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert MANIFEST["version"] == ENTRY["version"] == project["version"]


def test_the_hooks_run_the_launcher_at_session_start_and_end() -> None:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "SessionEnd"}
    for event, argument in (("SessionStart", "session-start"), ("SessionEnd", "session-end")):
        [group] = hooks[event]
        [handler] = group["hooks"]
        assert handler["type"] == "command"
        assert handler["command"] == f'sh "{LAUNCHER}" hook {argument}'
        assert 0 < handler["timeout"] <= 10


def test_the_mcp_server_runs_the_launcher() -> None:
    servers = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert servers == {"claimgraph": {"command": "sh", "args": [LAUNCHER, "mcp"]}}
    assert (PLUGIN / "scripts" / "claimgraph-launch").is_file()


def test_the_launcher_steps_aside_for_the_hooks_claimgraph_install_writes() -> None:
    launcher = (PLUGIN / "scripts" / "claimgraph-launch").read_text()
    [marker] = re.findall(r'^MARKER="([^"]+)"$', launcher, re.M)
    assert MARKER.startswith(marker)


@pytest.mark.parametrize("skill", sorted(SKILLS))
def test_each_skill_says_when_to_use_which_tool_and_names_only_real_ones(skill: str) -> None:
    text = (PLUGIN / "skills" / skill / "SKILL.md").read_text()
    match = FRONT.match(text)
    assert match, f"{skill}/SKILL.md has no front matter"
    head = dict(line.split(": ", 1) for line in match["head"].splitlines())
    assert head["name"] == skill and len(head["description"]) > 80
    assert SKILLS[skill] in head["description"] and SKILLS[skill] in match["body"]
    named = set(re.findall(r"\bmemory_[a-z]+", text))
    assert named <= set(BY_NAME), f"{skill} names tools the server lacks: {named - set(BY_NAME)}"


def test_the_remember_skill_says_what_not_to_record() -> None:
    body = (PLUGIN / "skills" / "remember" / "SKILL.md").read_text().lower()
    for must in ("today's task", "guesses", "secret", "password", "token"):
        assert must in body, must


# --- the Gemini CLI extension (gemini/): a copy of the launcher and skills, Gemini's shapes ----

GEMINI = REPO / "gemini"
EXTENSION = json.loads((GEMINI / "gemini-extension.json").read_text())


def test_the_gemini_extension_carries_the_same_launcher_and_skills() -> None:
    """`gemini extensions install` copies the extension's folder alone, so it holds copies."""
    for part in ("scripts/claimgraph-launch", *(f"skills/{s}/SKILL.md" for s in SKILLS)):
        assert (GEMINI / part).read_bytes() == (PLUGIN / part).read_bytes(), part
    assert sorted(p.name for p in (GEMINI / "skills").iterdir()) == sorted(SKILLS)


def test_the_gemini_extension_is_claimgraph_at_its_version() -> None:
    assert EXTENSION["name"] == "claimgraph" and EXTENSION["version"] == MANIFEST["version"]
    server = EXTENSION["mcpServers"]["claimgraph"]
    assert server["command"] == "sh" and server["args"][-1] == "mcp"
    assert server["args"][0].startswith("${extensionPath}")


def test_the_gemini_hooks_name_the_agent_and_count_in_milliseconds() -> None:
    hooks = json.loads((GEMINI / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "SessionEnd"}
    for event, argument in (("SessionStart", "session-start"), ("SessionEnd", "session-end")):
        [group] = hooks[event]
        [handler] = group["hooks"]
        assert group["matcher"] == "*" and handler["name"] == f"claimgraph-{argument}"
        assert handler["command"] == ('sh "${extensionPath}/scripts/claimgraph-launch" hook '
                                      f"{argument} --agent gemini")
        assert 1000 <= handler["timeout"] <= 10000
