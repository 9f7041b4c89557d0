"""Running the configured model command (``claude -p`` by default) without letting it run away.

INTEGRATIONS.md records what an unguarded model observer costs: tokens by the million, leaked
children at full CPU. So every call here is held to these rules (REFERENCE §11, DESIGN §6.3):
- It is paid for up front from a ``Budget`` (calls and input characters per pass). A call the
  budget cannot cover is refused before anything is spawned.
- It runs from a fresh temp directory, so a child Claude Code loads no project hooks and cannot
  recurse into our capture, and with ``CLAIMGRAPH_INTERNAL=1`` so our hooks skip its session.
  ``CLAUDECODE`` is removed: Claude Code ≥ 2.1.39 refuses to start when it is set, taking it for
  a session nested in another, and a capture pass spawned from a hook inherits it.
- It runs in a new session under a deadline. On timeout the whole tree is killed: every
  descendant psutil can see (even one that left the group) and the group itself, SIGTERM, a
  grace, SIGKILL, then a bounded reap. When the command exits on its own, whatever it left
  running in its group is killed too: nothing it started outlives the call.
- stdout and stderr are read in one select loop with fixed bounds (the head of stdout, the tail
  of stderr), so a flood costs no memory and no reader thread can be left behind.
- Its usage (characters in and out, duration, outcome, budget left) goes to a callback, failed
  calls included: they cost tokens too. Callers pass their structlog logger's ``info``.
Expected failures raise ClaimgraphError: llm-budget-exhausted, llm-command-invalid,
llm-command-missing, llm-command-timeout, llm-command-failed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import psutil

from claimgraph import private
from claimgraph.errors import ClaimgraphError

STDOUT_LIMIT = 4 * 1024 * 1024
STDERR_LIMIT = 64 * 1024
STDERR_TAIL_CHARS = 2000
TERM_GRACE_S = 0.5
REAP_S = 2.0
POLL_S = 0.05
CHUNK = 64 * 1024
INTERNAL_FLAG = "CLAIMGRAPH_INTERNAL"
#: The child's cwd starts with this: its harness files the session under that directory, so
#: a sweep for uncaptured transcripts can recognise (and skip) our own model calls.
TEMP_PREFIX = "claimgraph-llm-"
#: A pass's input characters across all its model calls (the budget's default: capture's
#: model extractor and the curator's judge each get one per pass).
DEFAULT_PASS_INPUT_CHARS = 200_000
NESTING_GUARD = "CLAUDECODE"
LLM_CMD_HINT = ("set llm_cmd (CLAIMGRAPH_LLM_CMD, or llm_cmd in config.toml) to a command that "
                "reads a prompt on stdin and prints the answer on stdout")

UsageLog = Callable[..., None]


class Budget:
    """What one pass may still spend on model calls, shared by every call it makes.

    Locked because a pass may fan calls out to threads; ``spend`` is all-or-nothing, so a
    refused call leaves the budget as it was.
    """

    def __init__(self, calls: int, input_chars: int) -> None:
        self.calls, self.input_chars = calls, input_chars
        self.spent_calls = self.spent_chars = 0
        self._lock = threading.Lock()

    @property
    def remaining_calls(self) -> int:
        return max(0, self.calls - self.spent_calls)

    @property
    def remaining_chars(self) -> int:
        return max(0, self.input_chars - self.spent_chars)

    def spend(self, chars: int) -> bool:
        """Pay for one call sending ``chars`` characters; False (and no change) if it can't."""
        with self._lock:
            if self.remaining_calls < 1 or chars > self.remaining_chars:
                return False
            self.spent_calls += 1
            self.spent_chars += chars
            return True


@dataclass(frozen=True)
class Completion:
    text: str
    duration_ms: int
    input_chars: int
    output_chars: int
    exit_code: int
    truncated: bool = False  # stdout went past STDOUT_LIMIT; ``text`` is its head


@dataclass(frozen=True)
class _Raw:
    stdout: bytes
    stderr: bytes
    exit_code: int
    truncated: bool


def enabled_in(extractor_setting: str) -> bool:
    """True when the ``extractor`` setting ("builtin", "builtin,model", "model") names the
    model command: capture's model extractor and the curator's judge run only then."""
    return "model" in re.split(r"[\s,+;]+", extractor_setting.strip().lower())


def log_to_stdlib(event: str, **fields: Any) -> None:
    """The fallback usage log, for callers that did not hand in their structlog logger."""
    logging.getLogger("claimgraph.llm").info("%s %s", event, fields)  # its name in old logs


def command_argv(cmd: str | Sequence[str]) -> list[str]:
    """The argv of a configured command: a string is split the way a shell would."""
    try:
        argv = shlex.split(cmd) if isinstance(cmd, str) else [str(part) for part in cmd]
    except ValueError as exc:
        raise ClaimgraphError("llm-command-invalid", f"cannot parse the model command: {exc}",
                              hint=LLM_CMD_HINT, command=cmd) from None
    if not argv or not argv[0].strip():
        raise ClaimgraphError("llm-command-missing", "no model command is configured",
                              hint=LLM_CMD_HINT)
    return argv


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    env = {key: value for key, value in environ.items() if key != NESTING_GUARD}
    env[INTERNAL_FLAG] = "1"
    return env


def run_model_command(cmd: str | Sequence[str], prompt: str, *, timeout_ms: int,
                      environ: Mapping[str, str] | None = None, budget: Budget,
                      on_usage: UsageLog = log_to_stdlib) -> Completion:
    """Send ``prompt`` to the command on stdin and return what it printed on stdout."""
    argv = command_argv(cmd)
    env = child_environment(os.environ if environ is None else environ)
    argv[0] = _locate(argv[0], env)
    if not budget.spend(len(prompt)):
        raise _exhausted(budget, len(prompt))
    started = time.monotonic()
    usage = _UsageReport(on_usage, argv[0], budget, len(prompt), started)
    try:
        raw = _run(argv, prompt.encode("utf-8", "replace"), env, timeout_ms)
    except ClaimgraphError as exc:
        usage.send(exc.type)
        raise
    text = raw.stdout.decode("utf-8", "replace")
    usage.send("ok" if raw.exit_code == 0 else "llm-command-failed", text, raw)
    if raw.exit_code != 0:
        raise _failed(argv[0], raw)
    return Completion(text, usage.duration_ms, len(prompt), len(text), 0, raw.truncated)


@dataclass
class _UsageReport:
    log: UsageLog
    command: str
    budget: Budget
    input_chars: int
    started: float
    duration_ms: int = 0

    def send(self, outcome: str, text: str = "", raw: _Raw | None = None) -> None:
        self.duration_ms = int((time.monotonic() - self.started) * 1000)
        self.log("llm.call", command=os.path.basename(self.command), outcome=outcome,
                 input_chars=self.input_chars, output_chars=len(text),
                 duration_ms=self.duration_ms, exit_code=raw.exit_code if raw else None,
                 truncated=bool(raw and raw.truncated), calls=self.budget.spent_calls,
                 calls_left=self.budget.remaining_calls, chars_left=self.budget.remaining_chars)


def _locate(program: str, env: Mapping[str, str]) -> str:
    """The absolute path, found before the budget is charged (a missing command costs nothing)
    and resolved here because the child starts elsewhere, where "./bin/x" means nothing."""
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        raise ClaimgraphError("llm-command-missing",
                              f"the model command {program!r} was not found or is not executable",
                              hint=LLM_CMD_HINT, command=program)
    return os.path.abspath(found)


def _exhausted(budget: Budget, chars: int) -> ClaimgraphError:
    return ClaimgraphError(
        "llm-budget-exhausted",
        f"the model budget of this pass is spent ({budget.spent_calls}/{budget.calls} calls, "
        f"{budget.spent_chars}/{budget.input_chars} input characters; this call needs {chars})",
        hint="raise budget, or let the next pass pick it up", calls=budget.spent_calls,
        input_chars=budget.spent_chars)


def _failed(program: str, raw: _Raw) -> ClaimgraphError:
    tail = raw.stderr.decode("utf-8", "replace").strip()[-STDERR_TAIL_CHARS:]
    return ClaimgraphError(
        "llm-command-failed", f"the model command {os.path.basename(program)!r} exited with "
        f"status {raw.exit_code}" + (f": {tail.splitlines()[-1]}" if tail else ""),
        hint="run the command by hand with a short prompt on stdin to see why; " + LLM_CMD_HINT,
        exit_code=raw.exit_code, stderr_tail=tail)


def _timed_out(program: str, timeout_ms: int) -> ClaimgraphError:
    return ClaimgraphError(
        "llm-command-timeout", f"the model command {os.path.basename(program)!r} did not finish "
        f"within {timeout_ms} ms; it and every process it started were killed",
        hint="raise llm_timeout_ms (CLAIMGRAPH_LLM_TIMEOUT_MS), or check the command by hand",
        timeout_ms=timeout_ms)


def _run(argv: list[str], prompt: bytes, env: dict[str, str], timeout_ms: int) -> _Raw:
    workdir = tempfile.mkdtemp(prefix=TEMP_PREFIX)
    try:
        proc = _spawn(argv, env, workdir)
        exchange = _Exchange(proc, prompt)
        try:
            _converse(proc, exchange, time.monotonic() + timeout_ms / 1000)
        except subprocess.TimeoutExpired:
            kill_tree(proc)
            raise _timed_out(argv[0], timeout_ms) from None
        except BaseException:  # Ctrl-C, a daemon stopping: the child must not outlive us
            kill_tree(proc)
            raise
        finally:
            exchange.close()
        return _Raw(bytes(exchange.stdout.data), bytes(exchange.stderr.data), proc.returncode,
                    exchange.stdout.overflowed)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _spawn(argv: list[str], env: dict[str, str], workdir: str) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=workdir, env=env,
                                start_new_session=True, close_fds=True,
                                umask=-1 if private.ORIGINAL_UMASK is None
                                else private.ORIGINAL_UMASK)  # what the agent writes is its own
    except (FileNotFoundError, PermissionError) as exc:  # vanished since _locate
        raise ClaimgraphError("llm-command-missing", f"cannot start the model command "
                              f"{argv[0]!r}: {exc.strerror or exc}", hint=LLM_CMD_HINT,
                              command=argv[0]) from None
    except OSError as exc:  # e.g. a script without a valid interpreter line
        raise ClaimgraphError("llm-command-failed", f"cannot start the model command "
                              f"{argv[0]!r}: {exc.strerror or exc}", hint=LLM_CMD_HINT,
                              command=argv[0]) from None


def _converse(proc: subprocess.Popen[bytes], exchange: _Exchange, deadline: float) -> None:
    """Pump until the child exits, reap it, end what it left in its group, drain the rest.

    Each drain after the exit is bounded: a leftover may ignore SIGTERM, and a descendant that
    left the group may hold a pipe open forever. With no leftovers both return at once.
    """
    exchange.pump(deadline, stop=lambda: proc.poll() is not None)
    proc.wait(max(0.0, deadline - time.monotonic()))
    _signal_group(proc.pid, signal.SIGTERM)
    exchange.pump(time.monotonic() + TERM_GRACE_S)
    _signal_group(proc.pid, signal.SIGKILL)
    exchange.pump(time.monotonic() + REAP_S)


class _Sink:
    """The head (stdout: the answer) or the tail (stderr: the error) of a stream, bounded."""

    def __init__(self, limit: int, keep_tail: bool = False) -> None:
        self.limit, self.keep_tail = limit, keep_tail
        self.data = bytearray()
        self.seen = 0

    @property
    def overflowed(self) -> bool:
        return self.seen > self.limit

    def add(self, chunk: bytes) -> None:
        self.seen += len(chunk)
        if self.keep_tail:
            self.data += chunk
            del self.data[:-self.limit]
        elif len(self.data) < self.limit:
            self.data += chunk[: self.limit - len(self.data)]


class _Exchange:
    """The child's three pipes, pumped by one loop: the prompt goes in while the answer comes
    out (done in turn, a large prompt and a chatty child deadlock), and one owner closes them."""

    def __init__(self, proc: subprocess.Popen[bytes], prompt: bytes) -> None:
        self.selector = selectors.DefaultSelector()
        self.pending = memoryview(prompt)
        self.stdout, self.stderr = _Sink(STDOUT_LIMIT), _Sink(STDERR_LIMIT, keep_tail=True)
        self.files = {f.fileno(): f for f in (proc.stdin, proc.stdout, proc.stderr) if f}
        self.selector.register(proc.stdout.fileno(), selectors.EVENT_READ, self.stdout)
        self.selector.register(proc.stderr.fileno(), selectors.EVENT_READ, self.stderr)
        os.set_blocking(proc.stdin.fileno(), False)
        self.selector.register(proc.stdin.fileno(), selectors.EVENT_WRITE, None)

    def pump(self, deadline: float, stop: Callable[[], bool] = lambda: False) -> None:
        """Move data until every pipe is closed, ``stop()`` holds, or the deadline passes."""
        while self.selector.get_map() and not stop():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            for key, _ in self.selector.select(min(remaining, POLL_S)):
                if key.data is None:
                    self._write(key.fd)
                else:
                    self._read(key.fd, key.data)

    def _write(self, fd: int) -> None:
        try:
            self.pending = self.pending[os.write(fd, self.pending[:CHUNK]):]
        except BlockingIOError:
            return
        except OSError:  # the child closed stdin early; what it did read is its business
            self.pending = self.pending[:0]
        if not self.pending:
            self._close(fd)

    def _read(self, fd: int, sink: _Sink) -> None:
        chunk = os.read(fd, CHUNK)
        if chunk:
            sink.add(chunk)
        else:
            self._close(fd)

    def _close(self, fd: int) -> None:
        self.selector.unregister(fd)
        with contextlib.suppress(OSError):
            self.files.pop(fd).close()

    def close(self) -> None:
        for fd in list(self.selector.get_map()):
            self._close(fd)
        self.selector.close()


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the child, its descendants and its group; SIGKILL survivors; reap, all bounded."""
    tree = _tree(proc.pid)
    _signal_all(tree, proc.pid, signal.SIGTERM)
    survivors = _wait_gone(tree, TERM_GRACE_S)
    _signal_all(survivors, proc.pid, signal.SIGKILL)
    _wait_gone(survivors, REAP_S)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(REAP_S)


def _tree(pid: int) -> list[psutil.Process]:
    """Snapshot before signalling: once the child dies its children are reparented away."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def _signal_all(procs: list[psutil.Process], group: int, sig: int) -> None:
    for process in procs:
        with contextlib.suppress(psutil.Error):
            process.send_signal(sig)  # psutil refuses if the pid was reused meanwhile
    _signal_group(group, sig)


def _signal_group(group: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(group, sig)


def _wait_gone(procs: list[psutil.Process], timeout_s: float) -> list[psutil.Process]:
    """The processes still alive after up to ``timeout_s``; a zombie is dead, just unreaped."""
    deadline = time.monotonic() + timeout_s
    alive = list(procs)
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [p for p in alive if _alive(p)]
    return alive


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
