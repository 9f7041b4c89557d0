"""What the hook leaves on disk: the spool file for the capture pass, and its log lines.

Standard library only (this runs on the hook's fast path; see ``claimgraph.hooks``). The store
is the one every command uses when given no ``--db``: ``$CLAIMGRAPH_DB``, else the config
file's ``db``, else ``$XDG_DATA_HOME/claimgraph/claims.db`` (``db_path``). Parsing the config
file costs the hook more than all its own work (``tomllib``, about 35 ms), so it is parsed
only when its bytes could name ``db`` (``may_name_db``); otherwise the rule is re-stated here
with ``os.path``, and tests keep both in step with ``claimgraph.config``.

A spool file ``<db>.spool/<agent>-<session>.json`` holds only the fields the capture pass needs
(never the payload's free text, such as a Stop hook's last assistant message, which may hold
secrets), and the transcript's size and mtime as the hook saw it (``transcript_stat``: a
repeated payload with the transcript unchanged needs no second capture). Two hooks of one
session write the same name on purpose: the latest payload wins,
atomically, and the capture pass's high-water mark makes a second run capture nothing twice.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping

from claimgraph.configured import config_file, read_config  # standard library only
from claimgraph.private import MEMORY, NOFOLLOW, is_id

#: The payload fields a spool file carries, besides ``agent`` and ``received_at``.
FIELDS = ("session_id", "transcript_path", "cwd", "hook_event_name", "reason")
HOOK_EVENT_NAMES = {"session-end": "SessionEnd", "session-start": "SessionStart", "stop": "Stop"}
_SALVAGE = re.compile(r'"(%s)"\s*:\s*"((?:[^"\\]|\\.)*)"' % "|".join(FIELDS))
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")
MAX_NAME_PART = 100
STDERR = 2
#: What a secret in a path, an id or a reason would hold (a URL, ``=``, a secret word).
#: Shapes a secret may take (a URL, an assignment, a flag, a prompt, a secret word); a value
#: with none of them (a path, an id) and no long token mixing digits and both cases never
#: loads the redactor.
_MAYBE_SECRET = re.compile(r"://|=|@|::|\s-[A-Za-z]|(?i:pass|pwd|pw\b|secret|token|key|auth|cred|"
                           r"bearer|-----)")
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+_.-]{20,}")
CONFIG_HINT = "fix or remove the file, or point CLAIMGRAPH_CONFIG elsewhere"


class ConfigProblem(Exception):
    """The config file cannot say where the store is (unreadable, not TOML, a bad ``db``):
    every command refuses it too, so the hook touches no store and logs this to stderr."""

    event = "hook.config-invalid"

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(reason)
        self.reason, self.hint = reason, hint


class StoreInMemory(ConfigProblem):
    """The store named is ``:memory:``: one that lives in a single process and is gone when it
    exits. What a hook keeps (the spool, the capture it starts, the block it reads) is there to
    outlast it, so the hook refuses such a store rather than take ``:memory:`` for a file name
    in the agent's directory (the user's project) and write ``:memory:.spool`` there."""

    event = "hook.store-in-memory"

    def __init__(self, origin: str) -> None:
        super().__init__(
            f"the store named by {origin} is {MEMORY!r}, a store that lives in one process and "
            "is gone when it exits: nothing a hook keeps would outlast it, so nothing is kept",
            "point it at a store file (an absolute or ~/ path), or unset it for the default")


def db_path(environ: Mapping[str, str]) -> str:
    """Absolute ``<db>`` as every command finds it without ``--db`` (a server store's local
    stand-in, ``location.server_sidecar_base``, for a ``postgresql://`` URL). Raises
    ConfigProblem when the config file names ``db`` and cannot be read, StoreInMemory when
    the store is ``:memory:`` (never a file of that name in the current directory)."""
    home = environ.get("HOME") or os.path.expanduser("~")
    explicit = environ.get("CLAIMGRAPH_DB", "").strip()
    refuse_memory(explicit, "CLAIMGRAPH_DB")
    if not explicit:
        explicit = file_db(environ) or ""
        refuse_memory(explicit, f"db in config file {config_file(environ)}")
    if explicit and explicit.startswith(("postgresql://", "postgres://")):
        # a server store: the hook never connects; it spools beside the server's local stand-in
        from claimgraph.location import server_sidecar_base
        return str(server_sidecar_base(explicit, environ))
    if explicit:
        if explicit == "~" or explicit.startswith("~/"):
            explicit = os.path.join(home, explicit[2:])
        return os.path.abspath(explicit)
    data_home = environ.get("XDG_DATA_HOME")
    if not data_home or not os.path.isabs(data_home):
        data_home = os.path.join(home, ".local", "share")
    return os.path.join(data_home, "claimgraph", "claims.db")


def store_environ(environ: Mapping[str, str]) -> Mapping[str, str]:
    """``environ`` for the hook and the commands it starts: when the store comes from the
    config file, with ``$CLAIMGRAPH_DB`` naming it, so everything after this reads the file no
    more. A relative path (the file's ``db``, ``$CLAIMGRAPH_DB``, ``$CLAIMGRAPH_CONFIG``) is
    made absolute here, in the agent's directory, as the capture pass starts in ``/``: every
    child writes where the hook looked, and reads the file the hook read (the curator's stamp
    of it included). Raises ConfigProblem (StoreInMemory for ``:memory:``)."""
    return locate(environ)[0]


def locate(environ: Mapping[str, str]) -> tuple[Mapping[str, str], dict[str, object] | None]:
    """``store_environ``, and what the config file says of the SessionStart block's settings
    when it was parsed to find the store (``config.judge_block``; None when it was not: the
    block then reads them as ``claimgraph.configured`` says). Raises ConfigProblem."""
    environ = absolute_config(environ)
    given = environ.get("CLAIMGRAPH_DB", "").strip()
    if given:
        refuse_memory(given, "CLAIMGRAPH_DB")
        return absolute_db(environ, given), None
    configured, judged = file_config(environ)
    if configured is None:
        return environ, judged
    refuse_memory(configured, f"db in config file {config_file(environ)}")
    if not configured.startswith(("postgresql://", "postgres://")):
        configured = os.path.abspath(configured)  # the URL's password stays in the environment
    return {**environ, "CLAIMGRAPH_DB": configured}, judged


def refuse_memory(db: str, origin: str) -> None:
    """Raise StoreInMemory when ``db`` (from ``origin``) names an in-memory store."""
    if db == MEMORY:
        raise StoreInMemory(origin)


def absolute_db(environ: Mapping[str, str], given: str) -> Mapping[str, str]:
    """``environ`` with a relative ``$CLAIMGRAPH_DB`` (``given``, stripped) made absolute
    here, in the agent's directory, else ``environ`` itself. Left relative, the capture pass,
    which starts in ``/``, would take it from there: the store split in two, the hook's spool
    and log in the project and the facts under ``/`` (or nowhere, ``/`` not being the user's
    to write)."""
    if (given.startswith(("postgresql://", "postgres://", "~/")) or given == "~"
            or os.path.isabs(given)):
        return environ
    return {**environ, "CLAIMGRAPH_DB": os.path.abspath(given)}


def absolute_config(environ: Mapping[str, str]) -> Mapping[str, str]:
    """``environ`` with ``$CLAIMGRAPH_CONFIG`` absolute (resolved here, in the agent's
    directory), or ``environ`` itself when the config file's path is absolute already."""
    path = config_file(environ)
    if os.path.isabs(path):
        return environ
    return {**environ, "CLAIMGRAPH_CONFIG": os.path.abspath(path)}


def file_db(environ: Mapping[str, str]) -> str | None:
    """The config file's ``db`` as ``claimgraph.config`` reads it (``~`` expanded), or None when
    there is no file or it never names ``db``. Only a file whose bytes could name it is
    parsed. Raises ConfigProblem."""
    return file_config(environ)[0]


def file_config(environ: Mapping[str, str]) -> tuple[str | None, dict[str, object] | None]:
    """``file_db``, and what the file says of the SessionStart block's settings when it was
    parsed for it (``config.read_for_hook``), else None. Raises ConfigProblem."""
    path = config_file(environ)
    try:
        data = read_config(path)[1]  # never waits on a pipe at the config path
    except FileNotFoundError:
        return None, None
    except OSError as error:
        raise ConfigProblem(f"cannot read config file {path}: {error.strerror or error}",
                            CONFIG_HINT) from None
    if not may_name_db(data):
        return None, None
    from claimgraph.config import read_for_hook
    from claimgraph.errors import ClaimgraphError
    try:
        (value, source), judged = read_for_hook(environ)
    except ClaimgraphError as error:
        raise ConfigProblem(error.message, error.hint or CONFIG_HINT) from None
    return str(value) if source.startswith("file:") else None, judged


def may_name_db(data: bytes) -> bool:
    """Whether a TOML text could set the key ``db``: a bare or quoted key holds the two
    letters, unless a quoted key's escape spells them (``\\u``, ``\\U``; ``\\x`` in TOML 1.1,
    which a newer ``tomli`` reads). A mention anywhere else (a comment, a path, a table)
    counts too: a false yes only costs the parse."""
    return b"db" in data or any(escape in data for escape in (b"\\u", b"\\U", b"\\x"))


def parse_payload(raw: bytes) -> tuple[dict[str, object], str | None]:
    """The payload object, and what was wrong with it (None when nothing).

    Malformed or truncated JSON is not the end: the known string fields are salvaged from the
    text, so a payload cut at the size limit (a huge ``last_assistant_message``) still names
    its session and transcript.
    """
    text = raw.decode("utf-8", "replace")
    if not text.strip():
        return {}, "stdin was empty"
    try:
        data = json.loads(text)
    except ValueError as error:
        return salvage(text), f"stdin is not valid JSON ({error})"
    if not isinstance(data, dict):
        return {}, f"stdin JSON is a {type(data).__name__}, not an object"
    return data, None


def salvage(text: str) -> dict[str, object]:
    """Known ``"field": "string"`` pairs found anywhere in broken JSON text (first one wins)."""
    found: dict[str, object] = {}
    for match in _SALVAGE.finditer(text):
        try:
            found.setdefault(match.group(1), json.loads(f'"{match.group(2)}"'))
        except ValueError:
            continue
    return found


def make_record(payload: Mapping[str, object], agent: str, event: str,
                now: float) -> dict[str, object]:
    """The spool record: string fields only, a session id even when the payload lacks one."""
    record: dict[str, object] = {"agent": agent}
    for field in FIELDS:
        value = payload.get(field)
        record[field] = _redacted(value) if isinstance(value, str) and value else None
    record["hook_event_name"] = record["hook_event_name"] or HOOK_EVENT_NAMES.get(event)
    transcript, cwd = text_field(record, "transcript_path"), text_field(record, "cwd")
    if transcript and not os.path.isabs(transcript) and cwd and os.path.isabs(cwd):
        record["transcript_path"] = transcript = os.path.join(cwd, transcript)
    session_id = text_field(record, "session_id")
    if session_id and not is_id(session_id):
        record["bad_session_id"] = True  # not an id (a shell fragment, a path): never used
        record["session_id"] = session_id = None
    if not session_id and transcript:
        stem = os.path.splitext(os.path.basename(transcript))[0]
        record["session_id"] = stem if is_id(stem) else None
    if not is_id(agent):
        record["agent"] = "unknown-agent"
    record["received_at"] = iso_utc(now)
    return record


def _redacted(value: str) -> str:
    """No secret in a spool file either. The redactor is loaded only for a value that could
    hold one (a path or an id never does), so the hook's fast path stays stdlib-only."""
    if _MAYBE_SECRET.search(value) is None and not any(
            _mixed(token) for token in _LONG_TOKEN.findall(value)):
        return value
    from claimgraph.logic.redact import redact
    return redact(value)


def _mixed(token: str) -> bool:
    return (any(c.isdigit() for c in token) and any(c.islower() for c in token)
            and any(c.isupper() for c in token))


def text_field(record: Mapping[str, object], field: str) -> str | None:
    """A record's string field, None when absent or not a string (the record holds only
    strings, None and flags; this says so to the type checker)."""
    value = record.get(field)
    return value if isinstance(value, str) else None


def record_spool_name(record: Mapping[str, object]) -> str:
    """The spool file name of a record made by ``make_record``."""
    return spool_name(str(record["agent"]), str(record["session_id"]))


def spool_name(agent: str, session_id: str) -> str:
    """``<agent>-<session>.json`` with anything outside ``[A-Za-z0-9._-]`` made ``_``."""
    def safe(part: str) -> str:
        return _UNSAFE_NAME_CHARS.sub("_", part).lstrip(".")[:MAX_NAME_PART] or "_"
    return f"{safe(agent)}-{safe(session_id)}.json"


def write_spool(db: str, record: Mapping[str, object]) -> str:
    """Write ``record`` to its spool file via a temp file and ``os.replace``; return the path.

    Not fsynced: a spool file lost to a power cut costs one capture that the sweep repeats,
    and an fsync costs the hook milliseconds on every session.
    """
    directory = db + ".spool"
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, record_spool_name(record))
    temp = f"{path}.{os.getpid()}.tmp"
    data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    _remove_quietly(temp)  # a crashed run's leftover (or a planted link): created anew below
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    try:
        try:
            os.write(handle, data)
        finally:
            os.close(handle)
        os.replace(temp, path)
    except BaseException:
        _remove_quietly(temp)
        raise
    return path


def pending_duplicate(db: str, record: Mapping[str, object], max_age_s: float) -> bool:
    """Whether the session's spool file is younger than ``max_age_s`` and holds this very
    payload (every field but the time it arrived), the transcript in the same state: its
    capture, still to come, will read everything this payload could give it."""
    path = os.path.join(db + ".spool", record_spool_name(record))
    try:
        if time.time() - os.stat(path).st_mtime > max_age_s:
            return False
        with os.fdopen(os.open(path, os.O_RDONLY | NOFOLLOW), "rb") as handle:
            pending = json.loads(handle.read(65536))
    except (OSError, ValueError):
        return False
    return isinstance(pending, dict) and all(
        pending.get(key) == record.get(key) for key in (*FIELDS, "agent", "transcript_stat"))


def open_log(db: str) -> int | None:
    """``<db>.capture.log`` opened for appending (creating ``<db>``'s directory), or None."""
    from claimgraph.private import unsafe_directory
    if unsafe_directory(os.path.dirname(db)):
        return None  # another user may write there: the line goes to stderr instead
    try:
        os.makedirs(os.path.dirname(db), exist_ok=True)
        return os.open(db + ".capture.log",
                       os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | NOFOLLOW, 0o600)
    except OSError:
        return None


class HookLog:
    """JSON lines in the shape structlog writes (ts, level, event, pid, then context)."""

    def __init__(self, fd: int | None, **context: object) -> None:
        self.fd = fd
        self.context = context

    def write(self, level: str, event: str, **fields: object) -> None:
        """One ``O_APPEND`` write per line, so concurrent writers never interleave. When the
        log itself cannot be opened (a read-only store directory), the line goes to stderr,
        which agents keep for hook debugging, never to stdout (that would become context)."""
        line = {"ts": iso_utc(time.time()), "level": level, "event": event, "pid": os.getpid(),
                **self.context, **fields}
        try:
            os.write(STDERR if self.fd is None else self.fd,
                     (json.dumps(line, ensure_ascii=False, default=str) + "\n")
                     .encode("utf-8", "replace"))
        except (OSError, ValueError):
            pass


def iso_utc(seconds: float) -> str:
    """ISO-8601 UTC with milliseconds, as everywhere else in claimgraph."""
    whole = int(seconds)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + \
        f".{int((seconds - whole) * 1000):03d}Z"


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
