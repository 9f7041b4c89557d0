"""Registering the MCP server in Claude Code's user config, the way ``claude mcp add`` does.

``claude mcp add --scope user NAME -- CMD ARGS…`` (measured with Claude Code 2.1.332) writes
``{"mcpServers": {NAME: {"type": "stdio", "command": CMD, "args": [ARGS…], "env": {}}}}`` into
``~/.claude.json`` — ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set — a file Claude Code
also keeps its own state in. So, like the hooks installer: only our entry is ever touched; a
file that does not parse is refused; the original is backed up once; the write is atomic and
keeps the file's mode (0600 for a file we create, as Claude Code creates it).

Our entry is named ``claimgraph`` (the agent sees the tools as ``mcp__claimgraph__memory_*``)
and is recognised by what it runs — ``-m claimgraph.mcp`` after an absolute interpreter — never
by its name alone: a foreign server already called ``claimgraph`` is refused, not replaced.
The interpreter is baked in as an absolute path, because Claude Code starts MCP servers with
its own PATH. The store is not: the server finds it as the hooks do (``CLAIMGRAPH_DB`` from the
agent's environment, else the config file's ``db``, else the default), so hooks and server
always share one memory.

A running Claude Code rewrites this file from time to time; as with ``claude mcp add``, install
while no session is running, or restart the sessions that are.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Mapping

from claimgraph.errors import ClaimgraphError
from claimgraph.hooks import settings_file

SERVER_NAME = "claimgraph"
MODULE_ARGS = ["-m", "claimgraph.mcp"]
NEW_FILE_MODE = 0o600


def config_path(environ: Mapping[str, str]) -> Path:
    """``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json``."""
    explicit = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    if explicit:
        return Path(os.path.expanduser(explicit)) / ".claude.json"
    return Path(environ.get("HOME") or os.path.expanduser("~")) / ".claude.json"


def our_entry(python: str) -> dict[str, Any]:
    return {"type": "stdio", "command": python, "args": list(MODULE_ARGS), "env": {}}


def is_ours(entry: Any) -> bool:
    """An entry running our server module (or the ``claimgraph mcp`` console script)."""
    if not isinstance(entry, dict):
        return False
    listed = entry.get("args")
    args: list[Any] = listed if isinstance(listed, list) else []
    command = str(entry.get("command") or "")
    runs_module = any(args[i:i + 2] == MODULE_ARGS for i in range(len(args)))
    runs_script = os.path.basename(command) == "claimgraph" and args[:1] == ["mcp"]
    return runs_module or runs_script


def with_our_server(config: Mapping[str, Any], entry: dict[str, Any],
                    path: Path) -> dict[str, Any]:
    """``config`` with our entry under ``mcpServers.claimgraph``; refuses a foreign one there."""
    new = copy.deepcopy(dict(config))
    servers = new.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise settings_file.refusal(path, '"mcpServers" is not an object')
    present = servers.get(SERVER_NAME)
    if present is not None and not is_ours(present):
        raise ClaimgraphError(
            "mcp-name-taken", f"{path} already has an MCP server named {SERVER_NAME!r} that does "
            "not run claimgraph, so it is left alone", hint="remove or rename it (`claude mcp "
            f"remove {SERVER_NAME} -s user`), then install again", path=str(path))
    if present is not None:  # an upgrade keeps whatever the user added (env, timeouts)
        entry = {**present, **entry, "env": present.get("env", entry["env"])}
    servers[SERVER_NAME] = entry
    return new


def without_our_server(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` without our entry; everything else, an emptied ``mcpServers`` too, stays."""
    new = copy.deepcopy(dict(config))
    servers = new.get("mcpServers")
    if isinstance(servers, dict) and is_ours(servers.get(SERVER_NAME)):
        del servers[SERVER_NAME]
        if not servers:  # emptied by this removal (one that was empty before stays)
            del new["mcpServers"]
    return new


def register(path: Path, python: str, dry_run: bool = False) -> dict[str, Any]:
    """installed, updated or already-installed."""
    current = settings_file.read(path)
    had = (current.data.get("mcpServers") or {}).get(SERVER_NAME) if isinstance(
        current.data.get("mcpServers"), dict) else None
    planned = with_our_server(current.data, our_entry(python), path)
    status = ("already-installed" if planned == current.data
              else "updated" if had is not None else "installed")
    return apply(current, planned, status, dry_run)


def unregister(path: Path, dry_run: bool = False) -> dict[str, Any]:
    """removed or not-installed."""
    current = settings_file.read(path)
    planned = without_our_server(current.data)
    status = "not-installed" if planned == current.data else "removed"
    return apply(current, planned, status, dry_run)


def _holds_nothing(config: Mapping[str, Any]) -> bool:
    return not config or all(key == "mcpServers" and value == {} for key, value in config.items())


def apply(current: settings_file.SettingsFile, planned: dict[str, Any], status: str,
          dry_run: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"status": status, "config_file": str(current.path),
                              "server": SERVER_NAME, "dry_run": dry_run, "backup": None}
    if status in ("already-installed", "not-installed"):
        return result
    delete = status == "removed" and _holds_nothing(planned) and not current.backup_path.exists()
    text = "" if delete else settings_file.render(planned, current.text)
    if dry_run:
        result["diff"] = settings_file.diff(current, text)
        return result
    try:
        if delete:  # we created the file for our entry alone; without it, it holds nothing
            Path(os.path.realpath(current.path)).unlink()
            result["deleted"] = True
            return result
        backup = settings_file.back_up_once(current)
        settings_file.write(current.path, text,
                            NEW_FILE_MODE if current.mode is None else current.mode)
    except OSError as error:
        raise ClaimgraphError("settings-write-failed", f"cannot write {current.path}: {error}",
                              hint="check free space and the directory's permissions; the file "
                                   "was left as it was", path=str(current.path)) from None
    result["backup"] = str(backup) if backup else None
    if status == "removed":
        dropped = settings_file.drop_redundant_backup(current, planned)
        result["backup_removed"] = str(dropped) if dropped else None
    return result
