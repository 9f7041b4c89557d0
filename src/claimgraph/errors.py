"""One error type for every expected failure, so the CLI can print a one-line message and a hint.

Pure code raises it too (a refusal is a decision, not I/O). ``type`` is a stable kebab-case
tag that tests and JSON consumers match on; ``data`` carries the details worth showing.
"""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any


class ClaimgraphError(Exception):
    """An expected, user-facing failure: what happened (message) and what to do (hint)."""

    def __init__(self, type: str, message: str, hint: str | None = None, **data: Any) -> None:
        super().__init__(message)
        self.type = type
        self.message = message
        self.hint = hint
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        """The JSON error shape: ``{error, type, hint, ...data}``."""
        out: dict[str, Any] = {"error": self.message, "type": self.type}
        if self.hint:
            out["hint"] = self.hint
        out.update(self.data)
        return out


def is_write_refusal(error: OSError) -> bool:
    """The file system said no to a write: missing permission or a read-only mount."""
    return isinstance(error, PermissionError) or error.errno in (errno.EROFS, errno.EACCES)


def write_refused(target: str | os.PathLike[str], error: OSError) -> ClaimgraphError:
    """A write the file system refused: one line naming the file and the permission it lacks,
    and the ways out (the store stays readable)."""
    path = os.fspath(target)
    why = "read-only file system" if error.errno == errno.EROFS else "permission denied"
    where = os.path.dirname(path) or "."
    return ClaimgraphError(
        "store-read-only", f"cannot write {path}: {why} (no write permission in {where})",
        hint=f"make {where} writable for this user, or point --db (or CLAIMGRAPH_DB) at a "
             "writable store; reads still work", path=path)
def is_disk_full(error: BaseException) -> bool:
    """An OSError that says the disk (or quota) is full."""
    import errno
    codes = {getattr(errno, "ENOSPC", 28), getattr(errno, "EDQUOT", 122)}
    return isinstance(error, OSError) and error.errno in codes


def disk_full(path: Any, detail: str | None = None) -> ClaimgraphError:
    """The one refusal for a full disk: where, and that nothing already stored was lost."""
    where = str(path) if path else "the store's directory"
    return ClaimgraphError(
        "disk-full", f"disk full at {where}" + (f" ({detail})" if detail else ""),
        hint="free some space there; nothing stored was lost, and a capture's spool file is "
             "kept so the next run (or the daemon's sweep) captures the session",
        path=where)
