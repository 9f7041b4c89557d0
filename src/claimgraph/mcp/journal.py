"""The server's log (``<db>.mcp.log``), kept in memory until the first answer is out.

Writing a log line loads structlog (which brings asyncio and the standard ``logging``) and the
secret redactor every line passes through: together more CPU than the rest of a session's
start. An agent waits for the server's first answer, not for its log, so until ``flush`` the
lines are held here, each stamped with the time and pid it happened at, and then written in
order through the usual JSON-lines setup (``logsetup``): the front flushes once it has sent its
first tool result or half a second after its first answer (whichever comes first), when it
hands the wire to the SDK, and when the session ends; the SDK path flushes at once
(docs/mcp.md, "Start-up").
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable

from claimgraph.logic.timeutil import to_iso


class Journal:
    def __init__(self) -> None:
        self.held: list[tuple[str, str, dict[str, Any]]] = []
        self.lock = threading.RLock()  # ``start`` may log (an unwritable log file)
        self.start: Callable[[], None] | None = None
        self.live = False

    def info(self, event: str, **fields: Any) -> None:
        self._log("info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._log("warning", event, fields)

    def exception(self, event: str, **fields: Any) -> None:
        """As ``logging``'s: the exception being handled goes with the line (captured now)."""
        fields.setdefault("exc_info", sys.exc_info())
        self._log("exception", event, fields)

    def _log(self, level: str, event: str, fields: dict[str, Any]) -> None:
        with self.lock:
            if not self.live:
                fields.setdefault("ts", to_iso(time.time_ns() // 1_000_000))
                fields.setdefault("pid", os.getpid())
                self.held.append((level, event, fields))
                return
        _write(level, event, fields)

    def flush(self) -> None:
        """Set the log up (``start``) and write what was held; later lines go straight out."""
        with self.lock:
            if self.live:
                return
            if self.start is not None:
                self.start()
            self.live = True
            held, self.held = self.held, []
            for level, event, fields in held:
                _write(level, event, fields)


def _write(level: str, event: str, fields: dict[str, Any]) -> None:
    import structlog

    getattr(structlog.get_logger("claimgraph.mcp"), level)(event, **fields)


log = Journal()
