"""One error type for every expected failure, so the CLI can print a one-line message and a hint.

Pure code raises it too (a refusal is a decision, not I/O). ``type`` is a stable kebab-case
tag that tests and JSON consumers match on; ``data`` carries the details worth showing.
"""

from __future__ import annotations

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
