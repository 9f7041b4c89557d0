"""The dirty mark ``<db>.curate.dirty``: "a curator was turned away; run once more".

A sidecar file rather than a store mark, so a curator that finds the lease taken records its
visit without opening the store or waiting for the write lease (a skip must never wait). The
file is written atomically (temp file + rename) and holds who set it and when, for the log.
The lease holder clears it at the start of each pass, so a mark set during a pass survives
to the end of that pass and asks for another one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from claimgraph.private import private_dir
from claimgraph.sidecar import atomic_write_text


def dirty_path(db: Path | str) -> Path:
    db = Path(db)
    return db.with_name(db.name + ".curate.dirty")


class DirtyMark:
    """Set by a skipped curator, cleared and checked by the lease holder."""

    def __init__(self, db: Path | str) -> None:
        self.path = dirty_path(db)

    def set(self, run_id: str, at_ms: int) -> None:
        private_dir(self.path.parent)
        atomic_write_text(self.path, json.dumps({"run_id": run_id, "pid": os.getpid(),
                                                 "at": at_ms}) + "\n")

    def read(self) -> dict[str, Any] | None:
        """The mark's record; a garbled file still counts as set (it asks for a pass)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            record = json.loads(text)
        except ValueError:
            return {"unreadable": True}
        return record if isinstance(record, dict) else {"unreadable": True}

    def is_set(self) -> bool:
        return self.path.exists()

    def clear(self) -> dict[str, Any] | None:
        """Remove the mark, returning what it said (None when it was not set)."""
        record = self.read()
        self.path.unlink(missing_ok=True)
        return record
