"""Where a capture or curate run leaves its trace: the sidecar log, whoever started it.

A detached run (the hook's capture, the curator that capture starts, the daemon's children)
has stdout and stderr appended to ``<db>.capture.log`` / ``<db>.curate.log``, so its JSON
events and its result line land there by themselves. A run started by hand, by cron or by a
script must leave the same trace, or ``status`` reports "capture never" after a capture and
misses every failure that happened at a terminal. So such a run writes its events to the
sidecar log directly and appends its result (or failure) line there too, while the person
still sees everything on the console as before (result on stdout, events on stderr). When the log
cannot be written (a read-only store directory), events stay on stderr: the run itself must not fail
over its diary.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import Any

from claimgraph.logsetup import configure_logging

MEMORY = ":memory:"


class RunLog:
    """One run's log: the sidecar file, and whether our stderr already is that file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.detached = path is not None and _stderr_is(path)

    @classmethod
    def beside(cls, db: Path, suffix: str) -> RunLog:
        """``<db><suffix>``; a ``:memory:`` store has no place for sidecars."""
        return cls(None if str(db) == MEMORY else Path(f"{db}{suffix}"))

    @cached_property
    def writes_file(self) -> bool:
        """True when this process must write the sidecar itself (not detached into it)."""
        return self.path is not None and not self.detached and _appendable(self.path)

    def configure(self, level: str, echo: bool = True) -> None:
        """JSON events on stderr as always (detached, stderr IS the sidecar); run by hand,
        into the sidecar too, and echoed on stderr unless ``echo`` is off (a person at a
        terminal reads the summary, not the events)."""
        configure_logging("json", self.path if self.writes_file else None, level,
                          echo=self.writes_file and echo)

    def record(self, line: dict[str, Any]) -> None:
        """Append a result or failure line, as the detached run's stdout/stderr would have."""
        if not self.writes_file or self.path is None:
            return
        text = json.dumps(line, ensure_ascii=False, default=str) + "\n"
        try:
            handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                             0o600)
        except OSError:
            return
        try:
            os.write(handle, text.encode("utf-8", "replace"))
        except OSError:
            pass
        finally:
            os.close(handle)


def _stderr_is(path: Path) -> bool:
    """Our stderr is that very file (a detached run whose output is appended to it)."""
    try:
        here, there = os.fstat(2), os.stat(path)
    except (OSError, ValueError):
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _appendable(path: Path) -> bool:
    """The log can be appended to (creating it and its directory if need be)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600))
    except OSError:
        return False
    return True
