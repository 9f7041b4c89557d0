"""structlog configuration: readable lines on stderr for the CLI, JSON lines for background runs.

Background processes (capture, curator, daemon) append one JSON object per line to a sidecar log
(``<db>.capture.log`` ...), which ``claimgraph logs`` reads back, so the keys are fixed: ts
(ISO-8601, milliseconds, UTC), level, event, pid, then run_id / session when bound (via
``structlog.contextvars.bind_contextvars`` or ``logger.bind``). Nothing is ever written to stdout:
stdout belongs to the command's own output (JSON reports, hook replies).

The processors are pure functions over event dicts, so they are tested on plain dicts.

structlog is imported on first use, not with this module: it brings asyncio along (some 25 ms),
and most CLI commands never log. ``configure_console_on_first_use`` lets a command ask for its
console logging up front while paying for structlog only if something imports it.
"""

from __future__ import annotations

import os
import sys
import time

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import to_iso

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import IO, Any, Callable, MutableMapping, Protocol

    EventDict = MutableMapping[str, Any]
    Processor = Callable[[Any, str, EventDict], EventDict]
    #: A chain's last step renders the event dict into the line itself.
    Step = Callable[[Any, str, EventDict], "EventDict | str | bytes"]

    class Stream(Protocol):
        """What a log line is written to: a file, stderr as it is now, several of them."""

        def write(self, text: str, /) -> Any: ...

        def flush(self) -> Any: ...
LEADING_KEYS = ("ts", "level", "event", "pid", "run_id", "session", "episode")
#: The standard library's numeric levels (``logging.DEBUG`` ...), spelled out so that reading
#: a level does not import ``logging``.
LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}
_METHOD_LEVELS = {"warn": "warning", "exception": "error", "fatal": "critical", "msg": "info"}

_open_log: Any = None


def add_level(_logger: Any, method_name: str, event_dict: EventDict) -> EventDict:
    """``level`` from the logging method, with aliases (warn, exception) folded to real levels."""
    event_dict.setdefault("level", _METHOD_LEVELS.get(method_name, method_name))
    return event_dict


def timestamper(clock: Callable[[], float] = time.time) -> Processor:
    """A processor stamping ``ts`` as ISO-8601 UTC with milliseconds, from ``clock`` (seconds)."""
    def add_ts(_logger: Any, _method: str, event_dict: EventDict) -> EventDict:
        event_dict.setdefault("ts", to_iso(int(clock() * 1000)))
        return event_dict
    return add_ts


def pid_stamper(pid: Callable[[], int] = os.getpid) -> Processor:
    """A processor stamping ``pid``; a function, not a value, so a forked child stamps its own."""
    def add_pid(_logger: Any, _method: str, event_dict: EventDict) -> EventDict:
        event_dict.setdefault("pid", pid())
        return event_dict
    return add_pid


def redact_secrets(_logger: Any, _method: str, event_dict: EventDict) -> EventDict:
    """No secret reaches a log: every string value is redacted, and a field whose name says it
    holds a secret (``token=…``, ``access_token=…``, ``password=…``) loses its value as a tool
    input's would. A field named only weakly so (``key=`` a ledger key, ``passes=``) is ours
    and holds ids: judged by its value alone. Keys name things and stay. Imported on first
    use, so a process that never logs never loads the redactor."""
    from claimgraph.logic.redact import redact_value
    from claimgraph.logic.redact.names import name_strength
    redacted: EventDict = {}
    for key, value in event_dict.items():
        strong = isinstance(key, str) and name_strength(key) == 2
        redacted[key] = redact_value({key: value})[key] if strong else redact_value(value)
    return redacted


def leading_keys_first(_logger: Any, _method: str, event_dict: EventDict) -> EventDict:
    """Put ts, level, event, pid, run_id, session first so raw log lines read left to right."""
    ordered = {key: event_dict[key] for key in LEADING_KEYS if key in event_dict}
    ordered.update((key, value) for key, value in event_dict.items() if key not in ordered)
    return ordered


def level_number(level: str) -> int:
    """The numeric level for a setting like "info", or an invalid-setting refusal."""
    try:
        return LEVELS[level.strip().lower()]
    except (KeyError, AttributeError):
        raise ClaimgraphError("invalid-setting", f"invalid log_level {level!r}",
                              hint="use one of " + ", ".join(LEVELS), setting="log_level",
                              value=str(level)) from None


def json_processors() -> list[Step]:
    import structlog
    return [structlog.contextvars.merge_contextvars, add_level, timestamper(), pid_stamper(),
            structlog.processors.format_exc_info, redact_secrets, leading_keys_first,
            structlog.processors.JSONRenderer(ensure_ascii=False)]


def console_processors() -> list[Step]:
    """Like the JSON chain minus the pid: a person at a terminal knows which process it is."""
    import structlog
    renderer = structlog.dev.ConsoleRenderer(colors=False, timestamp_key="ts", sort_keys=False)
    return [structlog.contextvars.merge_contextvars, add_level, timestamper(),
            redact_secrets, leading_keys_first, renderer]


def configure_logging(mode: str, log_path: str | os.PathLike[str] | None = None,
                      level: str = "info", echo: bool = False) -> None:
    """Route structlog to stderr ("console") or to JSON lines appended to ``log_path`` ("json");
    ``echo`` copies each line to stderr as well (a run by hand: the log keeps the trace, the
    person still sees it happen).

    Safe to call again: the previous log file is closed and loggers pick up the new setup,
    because loggers are not cached.
    """
    import structlog  # first: importing it may apply a pending console setup, which this replaces

    global _open_log
    threshold = level_number(level)
    if mode not in ("console", "json"):
        raise ValueError(f"unknown logging mode {mode!r}; use 'console' or 'json'")
    previous, _open_log = _open_log, _open_target(mode, log_path)
    processors = json_processors() if mode == "json" else console_processors()
    target: Any = _open_log or _CURRENT_STDERR
    if echo and _open_log is not None:
        target = _Tee(_open_log, _CURRENT_STDERR)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(threshold),
        logger_factory=structlog.WriteLoggerFactory(file=target),
        cache_logger_on_first_use=False)
    if previous is not None:
        previous.close()


def configure_console_on_first_use(level: str = "info") -> None:
    """Console logging at ``level``, applied when structlog is first imported (at once if it
    is loaded already). Whatever imports it later (a module's ``log = structlog.get_logger()``,
    a rare warning's lazy import) finds it configured before its first line, so nothing ever
    reaches stdout through structlog's default printer."""
    level_number(level)  # a bad setting fails now, inside the command's error boundary
    if "structlog" in sys.modules:
        configure_logging("console", level=level)
        return
    for finder in [f for f in sys.meta_path if isinstance(f, _ConfigureOnImport)]:
        sys.meta_path.remove(finder)
    sys.meta_path.insert(0, _ConfigureOnImport(level))


class _ConfigureOnImport:
    """A finder that answers for structlog only: it lets the normal import machinery find
    the module, and runs the console setup right after the module has executed."""

    def __init__(self, level: str) -> None:
        self.level = level

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "structlog":
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            # _ThenConfigure is a Loader by duck typing (create_module, exec_module):
            # subclassing importlib.abc.Loader would import it with every CLI command.
            wrapped: Any = _ThenConfigure(spec.loader, self.level)
            spec.loader = wrapped
        return spec


class _ThenConfigure:
    """structlog's own loader, then ``configure_logging("console")``."""

    def __init__(self, loader: Any, level: str) -> None:
        self.loader, self.level = loader, level

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        configure_logging("console", level=self.level)


class _CurrentStderr:
    """Whatever ``sys.stderr`` is when a line is written, not when logging was set up: a caller
    that swaps the stream (a test harness capturing output, a daemon redirecting it) and closes
    the old one must not leave every later log line failing on a closed file."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


_CURRENT_STDERR = _CurrentStderr()


class _Tee:
    """A file-like that writes every line to several streams (the log first)."""

    def __init__(self, *streams: Stream) -> None:
        self.streams = streams

    def write(self, text: str) -> None:
        for stream in self.streams:
            try:
                stream.write(text)
            except (OSError, ValueError):
                pass

    def flush(self) -> None:
        for stream in self.streams:
            try:
                stream.flush()
            except (OSError, ValueError):
                pass


def _open_target(mode: str, log_path: str | os.PathLike[str] | None) -> Any:
    """Append mode, so concurrent processes never clobber each other's lines."""
    if mode != "json" or log_path is None:
        return None
    from claimgraph.private import open_private, private_dir
    private_dir(os.path.dirname(os.path.abspath(log_path)))
    return LossyFile(open_private(os.fspath(log_path)))


class LossyFile:
    """A log file whose writes never raise: on a full disk the command goes on and loses
    log lines (counted in ``lost``), rather than dying of its own logging."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle, self.lost = handle, 0

    def write(self, text: str) -> int:
        try:
            return self.handle.write(text)
        except (OSError, ValueError):
            self.lost += 1
            return 0

    def flush(self) -> None:
        try:
            self.handle.flush()
        except (OSError, ValueError):
            self.lost += 1

    def close(self) -> None:
        try:
            self.handle.close()
        except OSError:
            pass


def reset_logging() -> None:
    """Close our log file and restore structlog's pristine defaults (for tests: those defaults
    print to stdout, so production code calls ``configure_logging`` instead)."""
    import structlog

    global _open_log
    structlog.reset_defaults()
    if _open_log is not None:
        _open_log.close()
        _open_log = None
