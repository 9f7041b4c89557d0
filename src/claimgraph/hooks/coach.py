"""UserPromptSubmit: tell the agent what memory holds about the prompt at hand, or nothing.

Registered by ``claimgraph install --coach``. For each prompt the coach (``core.coach``)
searches the project's and the user's facts and pushes at most 3 standing decisions or
preferences, 3 hazards and 3 open conflicts touching it, as
``{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": …}}``.
When nothing is relevant it prints nothing, so an ordinary prompt costs no context.

It runs before every prompt reaches the model, so it keeps the hooks' rules: standard library
and our own store code only (no structlog; the config file's parser only when the file names
``db``, ``hooks.spool.db_path``), no store means nothing is imported beyond the standard
library, exit 0 always, and any failure is one line in ``<db>.capture.log`` and silence. The
briefing is wrapped in the SessionStart block's markers, which capture strips: memory never
learns its own advice back. The hook does not log to ``<db>.retrievals`` (``claimgraph coach``
and memory_coach do; docs/mcp.md).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

EVENT_NAME = "UserPromptSubmit"
#: Naming the project asks git; a wedged repository must not hold the prompt up for long.
GIT_TIMEOUT_S = 1.0


def push(raw: bytes, agent: str, environ: Mapping[str, str],
         parsed: Mapping[str, object] | None = None) -> None:
    """Print the briefing for the payload's prompt, or nothing. ``parsed``: what the config
    file says of the block's settings when the hook parsed it (``spool.locate``)."""
    from claimgraph.hooks import spool

    db = spool.db_path(environ)
    if not os.path.isfile(db):
        return
    started = time.monotonic()
    payload, _ = spool.parse_payload(raw)
    task = prompt_of(payload)
    if not task.strip():
        return
    log = spool.HookLog(spool.open_log(db), hook="user-prompt-submit", agent=agent,
                        session=payload.get("session_id"))
    try:
        result = briefing_for(db, payload_cwd(payload), task, environ, parsed)
    except Exception as error:  # noqa: BLE001 - memory is optional, the prompt is not
        log.write("error", "hook.coach-failed", reason=f"{type(error).__name__}: {error}")
        return
    if result["briefing"]:
        emit(result["briefing"])
        log.write("info", "hook.coach-pushed", commitments=len(result["commitments"]),
                  hazards=len(result["hazards"]), conflicts=len(result["conflicts"]),
                  chars=len(result["briefing"]), ms=round((time.monotonic() - started) * 1000, 1))


def prompt_of(payload: Mapping[str, object]) -> str:
    """The prompt; else the string values of ``tool_input`` (the hook's mode, docs/mcp.md)."""
    prompt = payload.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        return prompt
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, dict):
        return " ".join(v for v in tool_input.values() if isinstance(v, str))
    return ""


def payload_cwd(payload: Mapping[str, object]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd()


def briefing_for(db: str, cwd: str, task: str, environ: Mapping[str, str],
                 parsed: Mapping[str, object] | None = None) -> dict[str, Any]:
    """The coach's answer for ``task`` in ``cwd``'s project, from the store at ``db``, ranked
    with the configured half-life as ``claimgraph coach`` ranks it (read as the SessionStart
    hook reads it, without parsing the config file: ``claimgraph.configured``; a changed file
    is the session start's to have the curator read again; what the hook parsed of the file
    wins over the curator's stamp of it)."""
    from claimgraph.configured import HALF_LIFE_SETTING, block_settings
    from claimgraph.core.briefing import USER_SCOPE
    from claimgraph.core.coach import coach
    from claimgraph.core.shell import Shell
    from claimgraph.project import resolve_project
    from claimgraph.store.sqlite import SqliteStore

    project = resolve_project(cwd, environ, timeout=GIT_TIMEOUT_S)
    store = SqliteStore(db)
    try:
        half_life = block_settings(environ, store.get_mark, parsed)[0][HALF_LIFE_SETTING]
        return coach(Shell(store, half_life_days=half_life), task, (project.id, USER_SCOPE))
    finally:
        store.close()


def emit(text: str) -> None:
    """One JSON object and a newline, ASCII-escaped (a hook's stdout may be C-locale)."""
    import json

    sys.stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": EVENT_NAME,
                                                        "additionalContext": text}}) + "\n")
    sys.stdout.flush()
