"""Registering the hooks in an agent's settings (Claude Code, Codex CLI, Gemini CLI), and
removing them again; what differs between the agents is in ``agents``.

Our entries are recognised by a marker inside their command (``# claimgraph-hook:v1``, a shell
comment), never by their path or position: the current marker and every prior one, so an old
install is upgraded in place. Everything else in the file is foreign and left exactly as it
was. The planning functions (``with_our_hooks``, ``without_our_hooks``) are pure — settings in,
new settings out — so each rule is tested on plain dicts; ``install`` and ``uninstall`` read,
plan, back up once and write atomically (``settings_file``).

The interpreter running this command is baked into the hook command as an absolute path:
hooks run with the agent's environment, whose PATH may not find our virtual environment.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from claimgraph.errors import ClaimgraphError
from claimgraph.hooks import settings_file
from claimgraph.hooks.agents import (  # noqa: F401 - claude_config_dir is part of this API
    AGENTS, BY_NAME, CLAUDE_CODE, MARKER, claude_config_dir)
from claimgraph.hooks.settings_file import SettingsFile

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator, Mapping

#: Markers of earlier releases' entries; ours too, replaced in place on the next install.
PRIOR_MARKERS: tuple[str, ...] = ()
#: Claude Code's hook event -> our hook's event argument.
EVENTS = dict(CLAUDE_CODE.events)
#: The coach (``install --coach``, Claude Code only): runs before each prompt reaches the model.
COACH_EVENTS = {"UserPromptSubmit": "user-prompt-submit"}
TIMEOUT_S = 10  # Claude Code reads hook timeouts in seconds
#: The prompt waits for the coach; it answers in well under a second or says nothing.
COACH_TIMEOUT_S = 5
SCOPES = ("user", "project")


def hook_command(python: str, event: str, agent: str = "claude-code") -> str:
    return BY_NAME[agent].command(python, event)


def our_handlers(python: str, coach: bool = False,
                 agent: str = "claude-code") -> dict[str, dict[str, Any]]:
    """The handler we want under each of the agent's events (and the coach's, if asked)."""
    spec = BY_NAME[agent]
    wanted = {name: spec.handler(python, name, event) for name, event in spec.events.items()}
    if coach:
        wanted.update({name: spec.handler(python, name, event, COACH_TIMEOUT_S)
                       for name, event in COACH_EVENTS.items()})
    return wanted


def is_ours(handler: Any) -> bool:
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and any(m in command for m in (MARKER, *PRIOR_MARKERS))


def with_our_hooks(settings: Mapping[str, Any], wanted: Mapping[str, dict[str, Any]],
                   path: Path, group: Callable[[dict[str, Any]], dict[str, Any]] | None = None
                   ) -> dict[str, Any]:
    """``settings`` with exactly one handler of ours per event: an existing one is replaced in
    place (an upgrade keeps its position), extra ones are dropped, a missing one is appended in
    a group of its own (``group`` makes it: the agent's shape). Refuses a ``hooks`` that is not
    an object, or an event not a list."""
    import copy

    group = group or CLAUDE_CODE.group
    new = copy.deepcopy(dict(settings))
    hooks = new.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise settings_file.refusal(path, '"hooks" is not an object')
    for event, handler in wanted.items():
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise settings_file.refusal(path, f'"hooks.{event}" is not a list')
        groups, placed = _strip_ours(groups, handler)
        hooks[event] = groups if placed else [*groups, group(handler)]
    return new


def without_our_hooks(settings: Mapping[str, Any],
                      events: Iterable[str] | None = None) -> dict[str, Any]:
    """``settings`` without any handler of ours (under ``events`` only, when given). A group,
    event list or ``hooks`` object left empty by that removal goes too; one that was empty
    before stays, as does anything of a shape we do not know (it cannot hold our handlers)."""
    import copy
    new = copy.deepcopy(dict(settings))
    hooks = new.get("hooks")
    if not isinstance(hooks, dict):
        return new
    only = None if events is None else set(events)
    for event, groups in list(hooks.items()):
        if only is not None and event not in only:
            continue
        if isinstance(groups, list) and any(is_ours(h) for h in _handlers(groups)):
            remaining, _ = _strip_ours(groups, None)
            if remaining:
                hooks[event] = remaining
            else:
                del hooks[event]
    if not hooks and settings.get("hooks"):
        del new["hooks"]
    return new


def _strip_ours(groups: list[Any], replacement: dict[str, Any] | None) -> tuple[list[Any], bool]:
    """``groups`` without our handlers — the first one swapped for ``replacement`` if given —
    dropping the groups that only ours filled; and whether the replacement was placed."""
    out: list[Any] = []
    placed = False
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(is_ours(h) for h in handlers):
            out.append(group)
            continue
        kept = []
        for handler in handlers:
            if not is_ours(handler):
                kept.append(handler)
            elif replacement is not None and not placed:
                kept.append(replacement)
                placed = True
        if kept:
            out.append({**group, "hooks": kept})
    return out, placed


def _handlers(groups: list[Any]) -> Iterator[Any]:
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(handlers, list):
            yield from handlers


# --- the shell: find the file, plan, back up once, write ------------------------------------

def settings_path(environ: Mapping[str, str], scope: str, project_dir: str | None = None,
                  explicit: str | None = None) -> Path:
    """The settings file a scope means: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` for the user,
    ``<project>/.claude`` for a project (which must exist), or the file named."""
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(explicit)))
    if scope == "project":
        base = Path(os.path.abspath(project_dir or os.getcwd()))
        if not base.is_dir():
            raise ClaimgraphError("no-project-dir", f"project directory {base} does not exist",
                                  hint="pass --project-dir DIR naming an existing directory")
        return base / ".claude" / "settings.json"
    return claude_config_dir(environ) / "settings.json"


def install(path: Path, python: str | None = None, dry_run: bool = False,
            coach: bool = False, agent: str = "claude-code") -> dict[str, Any]:
    """Register the agent's hooks in ``path`` (the coach's too with ``coach``; one installed
    before is kept either way); ``status`` is installed, updated or already-installed."""
    python = python or sys.executable
    check_interpreter(python)
    current = settings_file.read(path)
    had_ours = any(is_ours(h) for h in _all_handlers(current.data))
    wanted = our_handlers(python, coach, agent)
    planned = with_our_hooks(current.data, wanted, path, BY_NAME[agent].group)
    if planned == current.data:
        status = "already-installed"
    else:
        status = "updated" if had_ours else "installed"
    return _apply(current, planned, status, dry_run, list(wanted))


#: Asks the interpreter whether it could import each module named, without importing it
#: (the MCP SDK alone takes a second to import): the missing ones, one a line.
_FIND = ("import importlib.util, sys\n"
         "def found(name):\n"
         "    try:\n"
         "        return importlib.util.find_spec(name) is not None\n"
         "    except (ImportError, ValueError):\n"
         "        return False\n"
         "missing = [m for m in sys.argv[1:] if not found(m)]\n"
         "print('\\n'.join(f'No module named {m!r}' for m in missing))\n"
         "sys.exit(1 if missing else 0)\n")


def check_interpreter(python: str, module: str = "claimgraph.hooks.entry",
                      what: str = "the hook", needs: tuple[str, ...] = ()) -> None:
    """Refuse an interpreter the agent could not run ``module`` (and the packages it
    ``needs``) with: not an absolute path, or one that finds it only thanks to this shell
    (PYTHONPATH, the current directory)."""
    if not python or not os.path.isabs(python):
        raise ClaimgraphError("no-interpreter", f"cannot bake this Python's path ({python!r}) "
                              "into the hook command: it is not absolute",
                              hint="run claimgraph through an absolute interpreter path")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    import subprocess  # only when installing: `claimgraph status` reads this module's tables
    probe = subprocess.run([python, "-c", _FIND, module, *needs], cwd="/", env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        why = ((probe.stdout + probe.stderr).strip().splitlines() or ["no error output"])[-1]
        raise ClaimgraphError(
            "interpreter-cannot-run-hook", f"{python} cannot import {module} outside this "
            f"shell ({why}), so the agent could not run {what}", hint="install claimgraph into "
            "that interpreter (./install.sh in your claimgraph checkout), then run "
            "install with it", python=python)


def uninstall(path: Path, dry_run: bool = False, coach_only: bool = False,
              agent: str = "claude-code") -> dict[str, Any]:
    """Remove our hooks from ``path`` (only the coach's with ``coach_only``); ``status`` is
    removed or not-installed."""
    current = settings_file.read(path)
    events = list(COACH_EVENTS) if coach_only else None
    planned = without_our_hooks(current.data, events)
    status = "not-installed" if planned == current.data else "removed"
    named = [*BY_NAME[agent].events, *(COACH_EVENTS if agent == "claude-code" else ())]
    return _apply(current, planned, status, dry_run, events or named)


def _apply(current: SettingsFile, planned: dict[str, Any], status: str, dry_run: bool,
           events: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {"status": status, "settings_file": str(current.path),
                              "events": events, "dry_run": dry_run, "backup": None}
    if status in ("already-installed", "not-installed"):
        return result
    delete = status == "removed" and not planned and not current.backup_path.exists()
    text = "" if delete else settings_file.render(planned, current.text)
    if dry_run:
        result["diff"] = settings_file.diff(current, text)
        return result
    try:
        if delete:  # no backup: the file did not exist before we created it; now it holds nothing
            Path(os.path.realpath(current.path)).unlink()
            result["deleted"] = True
            return result
        backup = settings_file.back_up_once(current)
        settings_file.write(current.path, text, current.mode)
    except OSError as error:
        raise ClaimgraphError("settings-write-failed", f"cannot write {current.path}: {error}",
                              hint="check free space and the directory's permissions; the file "
                                   "was left as it was", path=str(current.path)) from None
    result["backup"] = str(backup) if backup else None
    if status == "removed":
        dropped = settings_file.drop_redundant_backup(current, planned)
        result["backup_removed"] = str(dropped) if dropped else None
    return result


def _all_handlers(settings: Mapping[str, Any]) -> Iterator[Any]:
    hooks = settings.get("hooks")
    if isinstance(hooks, dict):
        for groups in hooks.values():
            if isinstance(groups, list):
                yield from _handlers(groups)
