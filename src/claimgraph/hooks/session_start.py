"""SessionStart: print memory's compiled context for the agent to start with (docs/context.md).

The one hook whose stdout matters: Claude Code reads ``{"hookSpecificOutput": {"hookEventName":
"SessionStart", "additionalContext": …}}`` from it and shows the text to the model. So stdout
carries that JSON object or nothing at all — never a warning, never a partial line — and any
failure is one line in ``<db>.capture.log`` (stderr when that cannot be written) and silence: a
session without memory is fine, a session that cannot start is not. The store is opened
read-only, so a store the user may not write still gives its memory.

The agent waits for this hook at every start, so the path stays light: it renders the
curator's stored shortlist when that still holds and compiles live otherwise (docs/hooks.md,
"The stored shortlist"), unless that would read more than ``core.briefing.LIVE_LIMIT`` facts:
then it says the block is not ready and starts the curator's shortlists stage instead; no
store means nothing is imported beyond the standard library;
otherwise SQLite, our store and ``logic``, and git (through ``claimgraph.project``) to name
the project — no config file parser (unless the file names ``db``: ``hooks.spool.db_path``),
no structlog, no ``typing`` (the modules on this path
import it for type checkers only), and ``urllib.parse``, ``ipaddress``, ``ntpath`` and the
Python half of ``datetime`` deferred (``defer_unused``); the "no fact" answer loads no
``pathlib`` either.
The settings that shape the block (the decay half-life, the character budget) are read as
``claimgraph.configured`` says, without parsing the config file: from the environment, or from
what the curator stamped in the store while the file is unchanged; when only parsing could tell
(the file changed since), the block uses the values the curator read last and its shortlists
stage is started to read the new ones. A file the curator stamped as refused (every command
refuses it) keeps the values read last and starts nothing, with a warning in the log; a file
the hook parsed anyway, for ``db``, gives them from that parse.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

EVENT_NAME = "SessionStart"
#: Naming the project asks git; a wedged repository must not hold the session up for long.
GIT_TIMEOUT_S = 2.0
#: How many facts the hook may read to compile live when no stored shortlist holds
#: (default ``core.briefing.LIVE_LIMIT``; docs/hooks.md).
LIVE_LIMIT_ENV = "CLAIMGRAPH_CONTEXT_LIVE_LIMIT"
#: ``core.briefing.USER_SCOPE``, named here so a store with no fact in either scope is
#: answered without loading the briefing (``store.sqlite_peek``).
USER_SCOPE = "user"


def inject(raw: bytes, agent: str, environ: Mapping[str, str], own_process: bool = False,
           parsed: Mapping[str, object] | None = None) -> None:
    """Print the context block for the payload's project, or nothing. ``parsed``: what the
    config file says of the block's settings when the hook parsed it to find the store
    (``spool.locate``), taken over the curator's stamp. In the hook's own
    process the garbage collector stays off while the block is compiled and what that loaded
    is frozen afterwards (docs/internals.md, "Start-up"): a few hundred milliseconds of life
    make no garbage cycles worth collecting, and the collections cost it ~5 ms."""
    from claimgraph.hooks import spool

    from claimgraph.private import is_id, unsafe_directory

    db = spool.db_path(environ)
    if not os.path.isfile(db):
        return
    started = time.monotonic()
    payload, _ = spool.parse_payload(raw)
    session = payload.get("session_id") if isinstance(payload, dict) else None
    log = spool.HookLog(spool.open_log(db), hook="session-start", agent=agent,
                        session=session if is_id(session) else None)
    unsafe = unsafe_directory(os.path.dirname(db))
    if unsafe:  # whoever may write there could write our context: show none
        log.write("error", "hook.store-dir-unsafe", reason=f"refusing the store {db}: {unsafe}",
                  hint="move the store to a private directory (chmod 700 its directory)")
        return
    if own_process:
        import gc

        defer_unused()
        gc.disable()
    try:
        result = compile_block(db, payload_cwd(payload), environ, agent, parsed)
    except Exception as error:  # noqa: BLE001 - memory is optional, starting the session is not
        log.write("error", "hook.context-failed", reason=f"{type(error).__name__}: {error}")
        return
    finally:
        if own_process:
            gc.freeze()
            gc.enable()
    if result["text"]:
        emit(result["text"])
    if result.get("config_refused"):
        log.write("warning", "hook.config-refused", reason=result["config_refused"],
                  settings=result["settings"], hint="fix the config file; until then the "
                  "block uses the values read from it last (the defaults if none)")
    elif result["shortlist"] == "over-limit" or result.get("setting_changed"):
        refresh_shortlists(db, environ, log)
    log.write("info", "hook.context-injected" if result["text"] else "hook.context-empty",
              project=result["project"], chars=result["chars"], shortlist=result["shortlist"],
              read_anyway=result["read_anyway"],
              setting_changed=result.get("setting_changed", False),
              ms=round((time.monotonic() - started) * 1000, 1))


def defer_unused() -> None:
    """In the hook's own process, before the store's modules load: stand-ins for the standard
    modules they import and the block never uses, as a read command's entry point has them
    (``cli.main``, ``claimgraph.deferred``): ``urllib.parse`` (``pathlib``'s, for file URIs;
    the store's are built without it), the Python half of ``datetime`` (``sqlite3``'s, for the
    C module's classes alone), ``ntpath`` (``pathlib``'s, for Windows paths) and ``ipaddress``
    (``urllib.parse``'s, for bracketed URL hosts). Each loads for real at the first use of a
    name it does not carry, so nothing behaves otherwise; ~2-3 ms of every session's start."""
    from claimgraph.deferred import defer, defer_datetime, defer_urllib_parse

    defer_urllib_parse()
    defer_datetime()
    defer("ntpath")
    defer("ipaddress")


def payload_cwd(payload: Mapping[str, object]) -> str:
    """The session's directory as the agent reports it, else where the hook runs."""
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd()


def compile_block(db: str, cwd: str, environ: Mapping[str, str],
                  agent: str = "claude-code",
                  parsed: Mapping[str, object] | None = None) -> dict[str, Any]:
    """The compiled context for ``cwd``'s project from the store at ``db``, as of now, and
    whether it came from the curator's stored shortlist ("stored"), a live read ("live"), or
    neither: no fact in the project's or the user's scope ("no-facts"), or a live read too
    large to wait for ("over-limit"); ``setting_changed`` when the config file changed since the
    curator read the block's settings from it (the block then uses the values read last);
    ``config_refused``, why, when every command refuses the config file (the block then uses
    the values read from it last, and no curator is worth starting: it would refuse it too),
    with the ``settings`` used. ``parsed``: the hook's own parse of the file (``inject``).
    What ``agent`` loads on its own from its instruction files is left out
    (``hooks.own_files``, docs/context.md)."""
    from claimgraph.project import resolve_project
    from claimgraph.store.sqlite_peek import has_facts

    project = resolve_project(cwd, environ, timeout=GIT_TIMEOUT_S)
    now = time.time_ns() // 1_000_000
    if has_facts(db, sorted({project.id, USER_SCOPE})) is False:  # nothing the block could say
        return {"project": project.id, "as_of": now, "text": "", "chars": 0, "sections": {},
                "read_anyway": 0, "shortlist": "no-facts"}
    from claimgraph.configured import BUDGET_SETTING, HALF_LIFE_SETTING, block_settings, refusal
    from claimgraph.core.briefing import LIVE_LIMIT, compile_gathered, gather, not_ready
    from claimgraph.hooks.own_files import files_loaded
    from claimgraph.store.sqlite import SqliteStore

    store = SqliteStore(db, read_only=True)  # reading memory never changes the store
    try:
        # changed: the config file changed since the curator read it; the settings are then
        # the user's previous ones, until the curator reads the new ones
        # refused: every command refuses the config file; the settings are then the ones
        # read from it last, and a curator would refuse it too
        settings, changed, refused = block_settings(environ, store.get_mark, parsed)
        half_life = settings[HALF_LIFE_SETTING]
        limit = live_limit(environ, LIVE_LIMIT)
        found = gather(store, project.id, now, half_life, live_limit=limit)
        notes = {"setting_changed": changed, "config_refused": refused, "settings": settings}
        if found["over_limit"]:  # no stored shortlist holds, and a live compile takes seconds
            # the curator to be started must not be one that refuses the file (its stamp
            # is read only now: a file that names neither setting was not looked up above)
            refused = refused or refusal(environ, store.get_mark, parsed)
            return {**not_ready(project.id, now, limit, refused), "shortlist": "over-limit",
                    **notes, "config_refused": refused}
        loaded = files_loaded(agent, project.root, cwd)
        return {**compile_gathered(found, project.id, now,
                                   budget_chars=settings[BUDGET_SETTING],
                                   half_life_days=half_life, loaded=loaded),
                "shortlist": "stored" if found["stored"] else "live", **notes}
    finally:
        store.close()


def live_limit(environ: Mapping[str, str], default: int) -> int:
    """``$CLAIMGRAPH_CONTEXT_LIVE_LIMIT`` when it is a whole number, else ``default``."""
    value = environ.get(LIVE_LIMIT_ENV, "").strip()
    return int(value) if value.isdigit() else default


def refresh_shortlists(db: str, environ: Mapping[str, str], log: Any) -> None:
    """Start the curator's shortlists stage, detached, so the next session in this project
    gets its block from a stored shortlist; never wait for it. Not for a store we may not
    write (the curator could not store one), and a curator already running turns this one
    away (the lease) and leaves its own pass to do it."""
    if not os.access(db, os.W_OK):
        return
    from claimgraph.hooks.spawn import spawn_detached
    from claimgraph.private import open_private

    argv = [sys.executable, "-m", "claimgraph", "curate", "--db", db, "--json",
            "--stage", "shortlists"]
    try:
        with open_private(db + ".curate.log", "ab") as out:
            pid = spawn_detached(argv, out.fileno(), environ)
    except OSError as error:
        log.write("error", "hook.spawn-failed", reason=f"cannot start the curator: "
                  f"{error.strerror or error}", command=argv)
        return
    log.write("info", "hook.curator-spawned", child_pid=pid, stage="shortlists")


def emit(text: str) -> None:
    """One JSON object and a newline; ASCII-escaped, because a hook's stdout may be opened
    with the C locale's encoding, and an encoding error there would lose the whole block."""
    import json

    sys.stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": EVENT_NAME,
                                                        "additionalContext": text}}) + "\n")
    sys.stdout.flush()
