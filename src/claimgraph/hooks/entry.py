"""The hook itself: stdin -> spool file -> detached capture pass -> exit 0, in milliseconds.

The store is the one every command uses without ``--db`` (``$CLAIMGRAPH_DB``, else the config
file's ``db``, else the default; ``spool.db_path``), found once by ``find_store`` and handed
to whatever the hook starts. Contract with the agent (docs/hooks.md): nothing on stdout but
SessionStart's context (anything else there would become context too), exit 0 always — our
failures go to ``<db>.capture.log`` as JSON lines with a ``reason``, or to stderr when even
that log cannot be written or no store can be named (never stdout) — and no waiting on
anything we start. Standard library only (session-start with a store also reads it; a config
file naming the store is parsed); see ``claimgraph.hooks``.

Events: ``session-end`` (all three agents) and ``stop`` (Codex CLI: its default TUI fires
SessionEnd only when its daemon unloads the session, so every turn's end captures too) spool
and capture; a payload repeating one whose capture is still pending -- the same payload, the
transcript unchanged since, the spool file younger than ``PENDING_S`` (Gemini CLI fires
SessionEnd three times on an interactive exit) -- starts nothing; ``session-start`` prints memory's
compiled context as the agent's JSON (``hooks.session_start``), or nothing; ``user-prompt-submit``
prints the coach's briefing for the prompt (``hooks.coach``), or nothing. Sessions run by our own
model extractor carry ``CLAIMGRAPH_INTERNAL=1`` and are ignored, so memory never captures its own
prompts.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import sys
import time
from collections.abc import Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from claimgraph.hooks.spool import HookLog

STDIN_LIMIT = 1 << 20  # bytes kept; the rest is read and dropped so the agent's write succeeds
STDIN_DEADLINE_S = 0.5  # an agent that never closes stdin costs us this much, not the budget
CAPTURING_EVENTS = ("session-end", "stop")
#: A pending capture older than this is presumed dead, and a repeated payload starts another.
PENDING_S = 30.0
EVENTS = (*CAPTURING_EVENTS, "session-start", "user-prompt-submit")
DEFAULT_AGENT = "claude-code"
USAGE = ("usage: python -m claimgraph.hooks {session-end|session-start|stop|user-prompt-submit}"
         " [--agent NAME]")


def main(argv: list[str], environ: Mapping[str, str] | None = None, stdin_fd: int = 0,
         own_process: bool = False) -> int:
    """Run one hook; return 0, whatever happened. ``own_process``: this is the hook's own
    process (``__main__``), which may tune its garbage collector (``session_start``)."""
    environ = os.environ if environ is None else environ
    os.umask(os.umask(0o077) | 0o077)  # the spool and log are private (see claimgraph.private)
    try:
        run(argv, environ, stdin_fd, own_process)
    except BaseException as error:  # noqa: BLE001 - the agent must never see our failure
        _last_words(environ, error)
    return 0


def run(argv: list[str], environ: Mapping[str, str], stdin_fd: int = 0,
        own_process: bool = False) -> None:
    parsed = parse_argv(argv)
    if parsed is None:
        print(USAGE, file=sys.stderr)
        return
    event, agent = parsed
    if is_internal(environ):
        return
    _ensure_std_fds()
    raw, total, timed_out = read_stdin(stdin_fd)
    located = find_store(environ, event, agent)
    if located is None:
        return
    environ, judged = located  # judged: the config file's block settings, when it was parsed
    if event in CAPTURING_EVENTS:
        capture(event, agent, raw, total, timed_out, environ)
    elif event == "user-prompt-submit":
        from claimgraph.hooks import coach

        coach.push(raw, agent, environ, judged)
    else:
        from claimgraph.hooks import session_start

        session_start.inject(raw, agent, environ, own_process, judged)


def find_store(environ: Mapping[str, str], event: str, agent: str
               ) -> tuple[Mapping[str, str], dict[str, object] | None] | None:
    """``environ`` naming the store every command would use (``spool.locate``: the config
    file's ``db`` becomes ``$CLAIMGRAPH_DB`` for the hook and its children) and, when the
    file was parsed for it, what it says of the SessionStart block's settings; or None when
    the config file cannot tell (every command refuses that file too) or the store named is
    ``:memory:`` (nothing a hook keeps would outlast its process): no store is touched and
    the problem goes to stderr (no store, no store log)."""
    from claimgraph.hooks import spool  # every event imports it next; json and re with it

    try:
        return spool.locate(environ)
    except spool.ConfigProblem as problem:
        spool.HookLog(None, hook=event, agent=agent).write(
            "error", problem.event, reason=problem.reason, hint=problem.hint)
        return None


def parse_argv(argv: list[str]) -> tuple[str, str] | None:
    """``(event, agent)`` from ``EVENT [--agent NAME]``, or None when that is not what we got."""
    if not argv or argv[0] not in EVENTS:
        return None
    rest = argv[1:]
    if not rest:
        return argv[0], DEFAULT_AGENT
    if len(rest) == 2 and rest[0] == "--agent" and rest[1]:
        return argv[0], rest[1]
    return None


def is_internal(environ: Mapping[str, str]) -> bool:
    return environ.get("CLAIMGRAPH_INTERNAL", "").strip() not in ("", "0")


def read_stdin(fd: int, limit: int = STDIN_LIMIT,
               deadline_s: float = STDIN_DEADLINE_S) -> tuple[bytes, int, bool]:
    """``(first limit bytes, total bytes seen, gave up waiting)``: bounded in size and time."""
    chunks: list[bytes] = []
    kept = total = 0
    end = time.monotonic() + deadline_s
    while True:
        left = end - time.monotonic()
        try:
            ready = left > 0 and select.select([fd], [], [], left)[0]
            chunk = os.read(fd, 65536) if ready else None
        except (OSError, ValueError):  # stdin closed, or not something select can watch
            chunk = b""
        if chunk is None:
            return b"".join(chunks), total, True
        if not chunk:
            return b"".join(chunks), total, False
        total += len(chunk)
        if kept < limit:
            chunks.append(chunk[:limit - kept])
            kept += len(chunks[-1])


def capture(event: str, agent: str, raw: bytes, total: int, timed_out: bool,
            environ: Mapping[str, str]) -> None:
    # Imported here, not above: json (and the re it imports) is most of the hook's cost, and
    # session-start without a store, which the agent waits for at every start, never needs it.
    from claimgraph.hooks import spawn, spool
    from claimgraph.private import unsafe_directory

    payload, problem = spool.parse_payload(raw)
    record = spool.make_record(payload, agent, event, time.time())
    db = spool.db_path(environ)
    unsafe = unsafe_directory(os.path.dirname(db))
    if unsafe:  # another user could plant links or spool files there: touch nothing
        spool.HookLog(None, hook=event, agent=agent).write(
            "error", "hook.store-dir-unsafe", reason=f"refusing the store {db}: {unsafe}",
            hint="move the store to a private directory (chmod 700 its directory)")
        return
    log = spool.HookLog(spool.open_log(db), session=record["session_id"], hook=event, agent=agent)
    report_stdin(log, problem, total, timed_out, sorted(payload))
    if record.pop("bad_session_id", False):
        log.write("warning", "hook.bad-session-id",
                  reason="the payload's session_id is not an id; it is not used")
    if not record["session_id"]:
        log.write("warning", "hook.skipped",
                  reason="the payload names neither a session_id nor a transcript_path")
        return
    transcript = spool.text_field(record, "transcript_path")
    trouble, permanent = transcript_problem(transcript)
    if trouble:
        never_written = not permanent and not os.path.lexists(transcript or "")
        log.write("debug" if never_written else "warning",
                  "hook.skipped" if permanent else "hook.transcript-suspect",
                  reason=trouble, transcript=record["transcript_path"])
        if permanent:
            return
    record["transcript_stat"] = _stat_of(record["transcript_path"])
    if record["transcript_stat"] and spool.pending_duplicate(db, record, PENDING_S):
        log.write("info", "hook.duplicate", reason="a capture of this session is pending and "
                  "the transcript has not changed since its payload: nothing to start")
        return
    try:
        spool_path: str | None = spool.write_spool(db, record)
    except OSError as error:
        spool_path = None
        log.write("error", "hook.spool-failed", reason=f"cannot write the spool file under "
                  f"{db}.spool: {error.strerror or error}; capturing without one")
    spawn.start_capture(log, environ, spool_path, record)


def report_stdin(log: HookLog, problem: str | None, total: int, timed_out: bool,
                 fields_found: list[str]) -> None:
    if total > STDIN_LIMIT:
        problem = f"stdin of {total} bytes was cut to the first {STDIN_LIMIT}"
    elif timed_out:
        problem = f"stdin was not closed within {STDIN_DEADLINE_S} s; used what had arrived"
    if problem:
        log.write("warning", "hook.stdin-problem", reason=problem, fields_found=fields_found)


def transcript_problem(path: str | None) -> tuple[str | None, bool]:
    """What is wrong with the transcript path, if anything, and whether it is for good.

    Only ``stat`` and one small read: the capture pass does the real reading. A missing or
    unreadable file may still be fixed (or written late — Claude Code writes it asynchronously),
    so it is spooled anyway for a later run; a directory, a device or a symlink loop is not.
    """
    if not path:
        return "the payload has no transcript_path; the capture pass has to find it", False
    try:
        info = os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return f"transcript_path is a symlink loop: {error.strerror}", True
        return f"transcript_path cannot be read: {error.strerror}", False
    if stat.S_ISDIR(info.st_mode):
        return "transcript_path is a directory, not a transcript file", True
    if not stat.S_ISREG(info.st_mode):
        return "transcript_path is not a regular file (a device, pipe or socket)", True
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            head = os.read(handle, 4096)
        finally:
            os.close(handle)
    except OSError as error:
        return f"transcript_path cannot be read: {error.strerror}", False
    if b"\0" in head:
        return "transcript_path looks binary (NUL bytes in its first 4 KiB)", False
    return None, False


def _stat_of(path: object) -> list[int] | None:
    """[size, mtime_ns] of the transcript: a payload's identity beside its session."""
    try:
        info = os.stat(str(path))
    except (OSError, ValueError):
        return None
    return [info.st_size, info.st_mtime_ns]


def _ensure_std_fds() -> None:
    """Give closed 0/1/2 a /dev/null, so no file we open later lands on them."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one


def _last_words(environ: Mapping[str, str], error: BaseException) -> None:
    """A bug in the hook: one line in the log if possible, then silence."""
    try:
        from claimgraph.hooks import spool

        log = spool.HookLog(spool.open_log(spool.db_path(environ)))
        log.write("error", "hook.crashed", reason=f"{type(error).__name__}: {error}")
    except BaseException:  # noqa: BLE001
        pass
