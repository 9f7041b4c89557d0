"""SqliteStore's deletions: the only statements that remove rows, used by ``claimgraph purge``.

Nothing else in claimgraph deletes a belief (a wrong one is invalidated, and its history is
kept). Purge is the supported exception: a secret that got into memory, or a project the user
wants gone. Deleting a row is not enough to make it unrecoverable, so these methods turn on
``secure_delete`` (freed cells and pages are zeroed) and ``compact`` finishes the job: it
rebuilds the full-text indexes that held the text (FTS5 keeps deleted terms in old segments
until they are merged), VACUUMs (no free page survives) and truncates the WAL (whose old
frames still hold the pages as they were before the delete).
"""

from __future__ import annotations

import time

from claimgraph.store.sqlite_db import SqliteDb

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable

#: Which full-text indexes hold the text of which table.
FTS_OF = {"entities": ("entity_fts",), "facts": ("fact_fts", "fact_words"),
          "episodes": ("episode_fts",)}
CHECKPOINT_TRIES = 20
CHECKPOINT_PAUSE_S = 0.1


class SqlitePurge:
    """Mixed into SqliteStore (``SqlStore`` deletes the rows, calling ``_secure`` first)."""

    _db: SqliteDb

    def _secure(self) -> None:
        """Zero deleted content in place; per connection, and only purges ever delete."""
        self._db.run("PRAGMA secure_delete = ON")

    def compact(self, tables: Iterable[str] = tuple(FTS_OF)) -> dict[str, Any]:
        """Rebuild the named tables' full-text indexes, VACUUM, truncate the WAL.

        Must run outside any transaction. ``wal_truncated`` is False when another process kept
        a read open through every try; its pages are then folded back at the last close."""
        if self._db.in_memory:
            return {"vacuumed": False, "wal_truncated": True}
        with self._db.transaction():
            self._secure()
            for table in sorted(set(tables)):
                for index in FTS_OF[table]:
                    self._db.run(f"INSERT INTO {index}({index}) VALUES ('rebuild')")
        self._db.run("VACUUM")
        return {"vacuumed": True, "wal_truncated": self.truncate_wal()}

    def truncate_wal(self) -> bool:
        """Copy the WAL into the file and cut it to zero bytes, waiting out short readers."""
        if self._db.in_memory:
            return True
        for _ in range(CHECKPOINT_TRIES):
            found = self._db.one("PRAGMA wal_checkpoint(TRUNCATE)")
            if found is None or not found[0]:
                return True
            time.sleep(CHECKPOINT_PAUSE_S)
        return False
