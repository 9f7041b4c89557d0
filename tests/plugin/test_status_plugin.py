"""`claimgraph status` counts the Claude Code plugin and the Gemini extension as installed
hooks: a plugin user is not told the hooks are missing, nor that nothing captures."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from claimgraph.cli.status import render
from claimgraph.health import status
from claimgraph.logic.timeutil import from_iso

REPO = Path(__file__).resolve().parents[2]
NOW = from_iso("2026-03-01T12:00:00Z")


def gather() -> dict:
    return status.gather(Path(os.environ["CLAIMGRAPH_DB"]), dict(os.environ), NOW)


def enable_plugin(home: Path, on: bool = True) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"enabledPlugins": {"claimgraph@claimgraph": on,
                                                       "other@elsewhere": True}}))


def test_an_enabled_claude_code_plugin_is_installed_hooks(isolated_home: Path) -> None:
    enable_plugin(isolated_home)
    report = gather()
    hooks = report["hooks"]["claude-code"]
    assert hooks["installed"] is True and hooks["plugin"] == "claimgraph@claimgraph"
    assert not any("nothing" in i["problem"] and "capture" in i["problem"]
                   for i in report["needs_attention"]), report["needs_attention"]
    assert "installed by the plugin claimgraph@claimgraph" in "\n".join(render(report, NOW))


def test_a_disabled_plugin_is_not(isolated_home: Path) -> None:
    enable_plugin(isolated_home, on=False)
    hooks = gather()["hooks"]["claude-code"]
    assert hooks["installed"] is False and "plugin" not in hooks


def test_the_gemini_extension_is_installed_hooks(isolated_home: Path) -> None:
    shutil.copytree(REPO / "gemini", isolated_home / ".gemini" / "extensions" / "claimgraph")
    hooks = gather()["hooks"]["gemini"]
    assert hooks["installed"] is True and hooks["plugin"] == "claimgraph (extension)"
    assert "installed by the plugin claimgraph (extension)" in "\n".join(render(gather(), NOW))
