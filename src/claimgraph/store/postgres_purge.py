"""PostgresStore's deletions (``claimgraph purge``), matching ``store.sqlite_purge``.

A server keeps deleted tuples in its pages until VACUUM reclaims them, so ``compact`` runs
``VACUUM FULL`` on the tables that held the purged text: it rewrites each table and its
indexes, so no page of the store still carries a deleted row. (The server's write-ahead log
and backups are the database administrator's to age out; docs/postgres.md says so.)
"""

from __future__ import annotations

from typing import Any, Iterable

from claimgraph.store.postgres_db import PostgresDb

PURGE_TABLES = {"entities": ("entities", "entity_aliases"),
                "facts": ("facts", "conflict_links", "audit_verdicts"),
                "episodes": ("episodes",)}


class PostgresPurge:
    """Mixed into PostgresStore (``SqlStore`` deletes the rows)."""

    _db: PostgresDb

    def compact(self, tables: Iterable[str] = tuple(PURGE_TABLES)) -> dict[str, Any]:
        """VACUUM FULL the tables that held purged rows (outside any transaction)."""
        for table in sorted({t for name in set(tables) for t in PURGE_TABLES[name]}):
            self._db.run(f"VACUUM FULL {table}")
        return {"vacuumed": True, "wal_truncated": True}

    def truncate_wal(self) -> bool:
        """The server's WAL is the server's: nothing a client can cut."""
        return True
