"""Which of our hooks each agent's user file registers, and whether the agent will run them.

For ``status``: read-only, and tolerant of whatever it finds. Registered is not enough for
two of the agents:
- Codex runs a hook only once its definition is trusted, and skips it silently otherwise.
  Codex itself is asked (``codex_trust.check``, about a quarter of a second), and only when
  our hooks are in its file. Without a ``codex`` to ask, its ``config.toml`` still tells
  whether a trust entry exists at each of our hooks' positions: one missing is surely
  untrusted; all present is "unverified" (the hash is Codex's to check).
- Gemini skips a hook named in ``hooksConfig.disabled``, and every hook when
  ``hooksConfig.enabled`` is false.

Claude Code's plugin and Gemini's extension (docs/plugin.md) bring the same hooks without any
entry in those files: an enabled ``claimgraph@…`` plugin in Claude Code's user settings, or
the ``claimgraph`` extension in Gemini's extensions folder, counts as installed too.
"""

from __future__ import annotations

import re
from pathlib import Path

from claimgraph.hooks.agents import AGENTS, BY_NAME, agent_dir, codex_home, user_hooks_file
from claimgraph.hooks.install import is_ours
from claimgraph.sidecar import read_json_object

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def hooks_section(environ: Mapping[str, str], ask_codex: bool = True) -> dict[str, Any]:
    """Per agent: its file, our events found there, installed, and (Codex, Gemini) whether
    the agent will run them."""
    return {agent: _agent_entry(agent, environ, ask_codex) for agent in AGENTS}


def _agent_entry(agent: str, environ: Mapping[str, str], ask_codex: bool) -> dict[str, Any]:
    path = user_hooks_file(agent, environ)
    data = read_json_object(path) or {}
    found = data.get("hooks")
    hooks: Mapping[str, Any] = found if isinstance(found, dict) else {}
    positions = our_positions(hooks)
    events = sorted({event for event, _, _ in positions})
    entry: dict[str, Any] = {"settings": str(path), "events": events,
                             "installed": set(BY_NAME[agent].events) <= set(events),
                             "agent_found": agent_dir(agent, environ).is_dir()}
    plugin = our_plugin(agent, data, environ)
    if plugin:
        entry.update(plugin=plugin, installed=True)
    if agent == "codex" and events:
        entry["trust"] = codex_trust_state(path, positions, environ, ask_codex)
    if agent == "gemini" and events:
        entry["disabled"] = gemini_disabled(data)
    return entry


def our_plugin(agent: str, settings: Mapping[str, Any],
               environ: Mapping[str, str]) -> str | None:
    """The plugin (Claude Code) or extension (Gemini) that brings our hooks, when enabled."""
    if agent == "claude-code":
        enabled = settings.get("enabledPlugins")
        found = [name for name, on in (enabled.items() if isinstance(enabled, dict) else ())
                 if isinstance(name, str) and name.startswith("claimgraph@") and on is True]
        return found[0] if found else None
    if agent == "gemini":
        manifest = agent_dir(agent, environ) / "extensions/claimgraph/gemini-extension.json"
        return "claimgraph (extension)" if manifest.is_file() else None
    return None


def our_positions(hooks: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(event, group index, handler index) of every handler of ours."""
    found = []
    for event, groups in hooks.items():
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if is_ours(handler):
                    found.append((event, g, h))
    return found


def codex_trust_state(path: Path, positions: list[tuple[str, int, int]],
                      environ: Mapping[str, str], ask_codex: bool) -> dict[str, Any]:
    if ask_codex:
        from claimgraph.hooks import codex_trust  # subprocess and threads: only for Codex

        asked = codex_trust.check(str(path), environ)
        if asked["status"] != "unknown":
            return {**asked, "source": "codex"}
    config = codex_home(environ) / "config.toml"
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    keys = [f"{path}:{_CAMEL.sub('_', event).lower()}:{g}:{h}" for event, g, h in positions]
    missing = [key for key in keys if f'"{key}"' not in text]
    reason = "codex could not be asked" if ask_codex else "codex was not asked"
    return {"status": "untrusted" if missing else "unverified", "source": str(config),
            "reason": reason, "missing": missing}


def gemini_disabled(settings: Mapping[str, Any]) -> bool:
    """Gemini's ``hooksConfig``: hooks off, or ours named in its disabled list."""
    config = settings.get("hooksConfig")
    if not isinstance(config, dict):
        return False
    if config.get("enabled") is False:
        return True
    listed = config.get("disabled")
    names: list[Any] = listed if isinstance(listed, list) else []
    return any(isinstance(n, str) and ("claimgraph" in n) for n in names)
