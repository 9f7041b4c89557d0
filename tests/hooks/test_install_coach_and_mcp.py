"""``install --coach`` (the UserPromptSubmit hook) and ``install --mcp`` (Claude Code's user MCP
config), with the installer's rules: ours by what it runs, foreign entries untouched, one
backup, atomic writes, refusals of files that do not parse, uninstall removes exactly ours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.hooks import install as installer
from claimgraph.hooks import mcp_config

from .test_install import cli, claude_dir, settings, write  # noqa: F401 - fixtures

PY = sys.executable
FOREIGN_SERVER = {"type": "stdio", "command": "npx", "args": ["-y", "some-server"], "env": {}}
CLAUDE_STATE = {"numStartups": 12, "projects": {"/home/u/p": {"allowedTools": []}},
                "mcpServers": {"other": FOREIGN_SERVER}}


@pytest.fixture
def config(isolated_home: Path) -> Path:
    return isolated_home / ".claude.json"


def handlers(path: Path, event: str) -> list[dict]:
    data = json.loads(path.read_text())
    return [h for g in data.get("hooks", {}).get(event, []) for h in g["hooks"]
            if installer.is_ours(h)]


# --- the coach hook ------------------------------------------------------------------------------

def test_install_coach_adds_a_user_prompt_submit_hook_beside_the_others(cli, settings):
    code, out, _ = cli("install", "--coach")
    assert code == 0 and "UserPromptSubmit" in out
    [coach] = handlers(settings, "UserPromptSubmit")
    assert coach["command"] == installer.hook_command(PY, "user-prompt-submit")
    assert coach["timeout"] == installer.COACH_TIMEOUT_S
    assert handlers(settings, "SessionEnd") and handlers(settings, "SessionStart")


def test_install_without_coach_keeps_a_coach_installed_before(cli, settings):
    cli("install", "--coach")
    code, out, _ = cli("install")
    assert code == 0 and out.startswith("already installed")
    assert handlers(settings, "UserPromptSubmit")


def test_uninstall_coach_removes_only_the_coach(cli, settings):
    write(settings, {"hooks": {"UserPromptSubmit": [{"matcher": "", "hooks": [
        {"type": "command", "command": "other-tool prompt"}]}]}})
    cli("install", "--coach")
    code, _, _ = cli("uninstall", "--coach")
    assert code == 0
    data = json.loads(settings.read_text())
    assert handlers(settings, "UserPromptSubmit") == [] and handlers(settings, "SessionEnd")
    assert data["hooks"]["UserPromptSubmit"] == [{"matcher": "", "hooks": [
        {"type": "command", "command": "other-tool prompt"}]}]


def test_plain_uninstall_removes_the_coach_too(cli, settings):
    cli("install", "--coach")
    cli("uninstall")
    assert not settings.exists()


# --- the MCP server ------------------------------------------------------------------------------

def test_install_mcp_writes_the_entry_claude_mcp_add_would(cli, config, claude_dir):
    code, out, _ = cli("install", "--mcp")
    assert code == 0 and "registered the claimgraph MCP server" in out
    assert json.loads(config.read_text()) == {"mcpServers": {"claimgraph": {
        "type": "stdio", "command": PY, "args": ["-m", "claimgraph.mcp"], "env": {}}}}
    assert oct(config.stat().st_mode & 0o777) == "0o600"


def test_claude_codes_own_state_and_other_servers_are_left_exactly_as_they_were(cli, config,
                                                                                claude_dir):
    write(config, CLAUDE_STATE)
    os.chmod(config, 0o640)
    cli("install", "--mcp")
    after = json.loads(config.read_text())
    assert {k: v for k, v in after.items() if k != "mcpServers"} == {
        k: v for k, v in CLAUDE_STATE.items() if k != "mcpServers"}
    assert after["mcpServers"]["other"] == FOREIGN_SERVER
    assert oct(config.stat().st_mode & 0o777) == "0o640"
    backup = config.with_name(".claude.json.claimgraph-backup")
    assert json.loads(backup.read_text()) == CLAUDE_STATE
    cli("uninstall", "--mcp")
    assert json.loads(config.read_text()) == CLAUDE_STATE
    assert not backup.exists()  # it held exactly what the file holds again: nothing left


def test_an_emptied_server_list_we_filled_goes_with_our_entry(cli, config, claude_dir):
    write(config, {"numStartups": 3})
    cli("install", "--mcp")
    cli("uninstall", "--mcp")
    assert json.loads(config.read_text()) == {"numStartups": 3}
    assert not config.with_name(".claude.json.claimgraph-backup").exists()


def test_reinstalling_the_server_is_a_no_op(cli, config, claude_dir):
    cli("install", "--mcp")
    before = config.stat().st_mtime_ns
    code, out, _ = cli("install", "--mcp")
    assert code == 0 and "already registered" in out
    assert config.stat().st_mtime_ns == before


def test_an_upgrade_keeps_what_the_user_added_to_our_entry(cli, config, claude_dir):
    write(config, {"mcpServers": {"claimgraph": {"type": "stdio", "command": "/old/python",
                                                 "args": ["-m", "claimgraph.mcp"],
                                                 "env": {"CLAIMGRAPH_DB": "/data/m.db"}}}})
    code, out, _ = cli("install", "--mcp")
    assert code == 0 and "updated the claimgraph MCP server" in out
    entry = json.loads(config.read_text())["mcpServers"]["claimgraph"]
    assert entry["command"] == PY and entry["env"] == {"CLAIMGRAPH_DB": "/data/m.db"}


def test_a_foreign_server_named_claimgraph_is_refused_not_replaced(cli, config, claude_dir):
    text = write(config, {"mcpServers": {"claimgraph": FOREIGN_SERVER}})
    code, _, err = cli("install", "--mcp")
    assert code == 1 and "does not run claimgraph" in err and "claude mcp remove" in err
    assert config.read_text() == text
    assert cli("uninstall", "--mcp")[0] == 0 and config.read_text() == text


def test_a_config_that_is_not_json_is_refused_and_left_byte_for_byte(cli, config, claude_dir):
    config.write_text('{"mcpServers": ')
    code, _, err = cli("install", "--mcp")
    assert code == 1 and "is not valid JSON" in err
    assert config.read_text() == '{"mcpServers": '


def test_dry_run_shows_the_change_and_writes_nothing(cli, config, claude_dir):
    write(config, CLAUDE_STATE)
    text = config.read_text()
    code, out, _ = cli("install", "--mcp", "--dry-run")
    assert code == 0 and '+    "claimgraph": {' in out
    assert "dry run, nothing written: would have registered" in out
    assert config.read_text() == text
    assert not config.with_name(".claude.json.claimgraph-backup").exists()


def test_uninstall_removes_exactly_our_entry_and_a_file_only_we_made(cli, config, claude_dir):
    cli("install", "--mcp")
    code, out, _ = cli("uninstall")
    assert code == 0 and "removed the claimgraph MCP server" in out
    assert not config.exists()


def test_the_config_follows_claude_config_dir(cli, tmp_path, monkeypatch, claude_dir):
    moved = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    assert cli("install", "--mcp")[0] == 0
    assert "claimgraph" in json.loads((moved / ".claude.json").read_text())["mcpServers"]


def test_the_json_report_carries_the_server_part(cli, config, claude_dir):
    report = json.loads(cli("install", "--mcp", "--json")[1])
    assert report["status"] == "installed" and report["mcp"]["status"] == "installed"
    assert report["mcp"]["config_file"] == str(config)


def test_ownership_is_what_the_entry_runs():
    assert mcp_config.is_ours({"command": "/x/python3", "args": ["-m", "claimgraph.mcp"]})
    assert mcp_config.is_ours({"command": "/x/bin/claimgraph", "args": ["mcp", "--cwd", "."]})
    assert not mcp_config.is_ours(FOREIGN_SERVER)
    assert not mcp_config.is_ours({"command": "claimgraph", "args": ["search"]})
    assert not mcp_config.is_ours("claimgraph")


def test_the_registered_command_starts_a_server_outside_this_shell(cli, config, claude_dir):
    """The baked-in interpreter finds the server module with a clean environment."""
    cli("install", "--mcp")
    entry = json.loads(config.read_text())["mcpServers"]["claimgraph"]
    done = subprocess.run([entry["command"], *entry["args"], "--help"], cwd="/",
                          env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "MCP server" in done.stdout
