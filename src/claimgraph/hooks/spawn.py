"""Start the capture pass fully detached from the hook, and never wait for it.

Claude Code kills a SessionEnd hook's whole process tree when its 1.5 s budget runs out, but
leaves alone the children of a hook that has already exited. So the child gets a new session
(out of the hook's process group), stdin from /dev/null, stdout and stderr appended to
``<db>.capture.log`` (no pipe back to the agent, which would otherwise wait for EOF), no other
inherited descriptor, and ``/`` as its working directory (the project directory may vanish,
and ``-m`` would put it first on ``sys.path``); the hook then exits at once.

``os.posix_spawn`` does this without importing ``subprocess`` (which costs the fast path more
than the rest of the hook) and still reports a failed exec to the caller. ``subprocess`` is
the fallback where ``posix_spawn`` or its ``setsid`` is missing.

``CLAIMGRAPH_CAPTURE_CMD`` (for tests only) replaces ``<python> -m claimgraph capture`` with
another command line, split like a shell would; the capture arguments are appended to it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from claimgraph.hooks.spool import HookLog

CAPTURE_CMD_ENV = "CLAIMGRAPH_CAPTURE_CMD"


def start_capture(log: HookLog, environ: Mapping[str, str], spool_path: str | None,
                  record: Mapping[str, object]) -> None:
    """Start the capture pass for a spool file (or the record) and log what happened."""
    argv = capture_argv(environ, spool_path, record)
    if argv is None:
        log.write("error", "hook.skipped", reason="no spool file and no transcript_path: "
                  "nothing the capture pass could be given")
        return
    try:
        pid = spawn_detached(argv, log.fd, environ)
    except OSError as error:
        log.write("error", "hook.spawn-failed", reason=f"cannot start the capture pass: "
                  f"{error.strerror or error}", command=argv, spool=spool_path)
        return
    log.write("info", "hook.spawned", child_pid=pid, spool=spool_path)


def capture_argv(environ: Mapping[str, str], spool_path: str | None,
                 record: Mapping[str, object]) -> list[str] | None:
    """The capture command for a spool file, or, when spooling failed, for the record itself
    (None when the record names no transcript to capture)."""
    override = environ.get(CAPTURE_CMD_ENV, "").strip()
    if override:
        import shlex  # only tests set the override; the hook's own path never pays for shlex
        command = shlex.split(override)
    else:
        command = [sys.executable, "-m", "claimgraph", "capture"]
    if spool_path:
        return [*command, "--spool", spool_path]
    if not record.get("transcript_path"):
        return None
    for flag, field in (("--agent", "agent"), ("--session", "session_id"), ("--cwd", "cwd")):
        if record.get(field):
            command += [flag, str(record[field])]
    return [*command, "--", str(record["transcript_path"])]


def spawn_detached(argv: list[str], output_fd: int | None,
                   environ: Mapping[str, str] | None = None) -> int:
    """Start ``argv`` in a new session with stdout/stderr on ``output_fd`` (None: /dev/null);
    return its pid. Raises OSError when it cannot be started."""
    env = dict(os.environ if environ is None else environ)
    if hasattr(os, "posix_spawnp"):
        try:
            return _posix_spawn(argv, output_fd, env)
        except NotImplementedError:  # a libc without POSIX_SPAWN_SETSID
            pass
    return _popen(argv, output_fd, env)


def _posix_spawn(argv: list[str], output_fd: int | None, env: dict[str, str]) -> int:
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]]
    if output_fd is None:
        actions = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    else:  # dup2 clears close-on-exec on the copies; the original stays close-on-exec
        actions = [(os.POSIX_SPAWN_DUP2, output_fd, fd) for fd in (1, 2)]
    actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in inherited_fds()]
    here = _open_cwd()
    try:
        os.chdir("/")
        return os.posix_spawnp(argv[0], argv, env, file_actions=actions, setsid=True)
    finally:
        _restore_cwd(here)


def inherited_fds() -> list[int]:
    """Open descriptors above 2 that a child would inherit (our own are close-on-exec, but an
    agent may hand the hook pipes of its own that are not)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(listing)
        except OSError:
            continue
        return [fd for fd in (int(name) for name in names if name.isdigit())
                if fd > 2 and _inheritable(fd)]
    return []


def _inheritable(fd: int) -> bool:
    try:
        return os.get_inheritable(fd)
    except OSError:  # the listing's own descriptor, already closed
        return False


def _open_cwd() -> int | None:
    """The current directory as a descriptor, so the caller's cwd survives (in-process use)."""
    try:
        return os.open(".", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # deleted or unreadable: nothing to go back to
        return None


def _restore_cwd(here: int | None) -> None:
    if here is None:
        return
    try:
        os.fchdir(here)
    except OSError:
        pass
    finally:
        os.close(here)


def _popen(argv: list[str], output_fd: int | None, env: dict[str, str]) -> int:
    import subprocess

    out = subprocess.DEVNULL if output_fd is None else output_fd
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                             close_fds=True, start_new_session=True, cwd="/", env=env)
    child.returncode = 0  # never waited for: keep Popen's finalizer from warning about it
    return child.pid
