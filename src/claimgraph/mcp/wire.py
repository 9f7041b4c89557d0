"""The protocol's stdio wire, kept on private descriptors while the server runs.

As the SDK's own stdio transport does: the protocol's stdin and stdout move to close-on-exec
duplicates above the standard range, fd 0 points at the null device and fd 1 at stderr, so a
stray print (ours, a library's, a child process's) can never corrupt the protocol. The front
reads and writes the wire first; the SDK, when it takes over, is handed the same streams
(``server.run``), with whatever the front has buffered still in them.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any, BinaryIO, Mapping


class Wire:
    """The protocol's stdin and stdout on private descriptors (fd 0 and 1 diverted)."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._saved = (os.dup(0), os.dup(1))
        self.reader: BinaryIO = os.fdopen(_private(0), "rb", closefd=False)
        self.writer: BinaryIO = os.fdopen(_private(1), "wb", closefd=False)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        self.lock = threading.Lock()

    def send(self, message: Mapping[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        with self.lock:
            self.writer.write(line)
            self.writer.flush()

    def restore(self) -> None:
        """Point fd 0 and 1 back at the wire (for a caller that runs us in-process)."""
        for fd, saved in zip((0, 1), self._saved):
            os.dup2(saved, fd)
            os.close(saved)


def _private(fd: int) -> int:
    """A close-on-exec duplicate of ``fd`` above the standard range."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
