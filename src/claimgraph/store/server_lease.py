"""The write and curation leases of a server store: PostgreSQL session advisory locks.

A file lease (``lease.py``) only serializes processes on one machine; a team's store is shared
by many. Here a lease is ``pg_try_advisory_lock`` on a connection of its own, held for as long
as that connection lives: the server releases it the moment its holder's process dies or its
network goes, so there is no expiry to wait out and nothing to break. Who holds it is written
to the store's ``leases`` table, so a refusal can name the holder as the file lease does.

The same surface as ``lease.Lease`` (acquire, still_held, release, a context manager), so the
CLI, capture and curator use either without knowing which. psycopg is imported lazily: only a
server store ever gets here.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import time
from pathlib import Path
from typing import Any

from claimgraph.errors import ClaimgraphError

RETRY_MS = 100


class ServerLease:
    """One process's claim on a named advisory lock of a server store."""

    def __init__(self, url: str, base: Path, name: str, owner: str,
                 busy_hint: str = "another claimgraph process is writing; retry, or raise "
                                  "--lease-wait") -> None:
        self.url, self.name, self.owner, self.busy_hint = url, name, owner, busy_hint
        self.path = Path(f"{base}.{name}.lock")  # names the lease in messages, as files do
        self.token = secrets.token_hex(16)
        self.held = self.lost = False
        self.broken: dict[str, Any] | None = None
        self._conn: Any = None
        self._key = 0

    def acquire(self, wait_ms: int = 0) -> ServerLease:
        if self.held:
            return self
        self._connect()
        deadline = time.monotonic() + max(0, wait_ms) / 1000
        while not self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self._key,)).fetchone()[0]:
            if time.monotonic() >= deadline:
                holder = self._holder()
                self._disconnect()
                raise ClaimgraphError(
                    "store-locked", f"the {self.name} lease of the server store is held by "
                    f"{_describe(holder)}", hint=self.busy_hint, holder=holder, lock=self.name)
            time.sleep(RETRY_MS / 1000)
        self.held, self.lost = True, False
        self._record()
        return self

    def _connect(self) -> None:
        import psycopg
        try:
            self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.Error as error:
            from claimgraph.store.postgres_db import unreachable
            raise unreachable(self.url, error) from None
        schema = self._conn.execute("SELECT current_schema()").fetchone()[0]
        digest = hashlib.sha256(f"claimgraph:{schema}:{self.name}".encode()).digest()
        self._key = int.from_bytes(digest[:8], "big", signed=True)

    def _record(self) -> None:
        holder = {"token": self.token, "owner": self.owner, "pid": os.getpid(),
                  "host": socket.gethostname(), "acquired_at": time.time_ns() // 1_000_000}
        try:
            self._conn.execute("INSERT INTO leases (name, holder) VALUES (%s, %s) ON CONFLICT"
                               " (name) DO UPDATE SET holder = excluded.holder",
                               (self.name, json.dumps(holder)))
        except _driver_error():  # a store not migrated yet has no table: the lock still holds
            pass

    def _holder(self) -> dict[str, Any] | None:
        try:
            row = self._conn.execute("SELECT holder FROM leases WHERE name = %s",
                                     (self.name,)).fetchone()
        except _driver_error():
            return None
        return json.loads(row[0]) if row else None

    def still_held(self) -> bool:
        """Held while our connection lives (the server drops the lock with it)."""
        if not self.held or self.lost or self._conn is None:
            return False
        try:
            self._conn.execute("SELECT 1")
        except _driver_error():
            self.lost = True
            return False
        return True

    def release(self) -> None:
        if self._conn is None:
            return
        if self.held and not self._conn.closed:
            try:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
            except _driver_error():
                pass
        self.held = False
        self._disconnect()

    def _disconnect(self) -> None:
        try:
            self._conn.close()
        except _driver_error():
            pass
        self._conn = None

    def __enter__(self) -> ServerLease:
        return self.acquire(0)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        was_lost = self.lost
        self.release()
        if was_lost and exc_type is None:
            raise ClaimgraphError("lease-lost", f"lost the {self.name} lease while holding it",
                                  hint="the connection to the server broke; check and retry",
                                  lock=self.name)


def _driver_error() -> type[Exception]:
    """psycopg's base error: what a query or a close on a live or broken connection raises.
    Anything else is a bug and propagates. (Evaluated only when something was raised; psycopg
    is loaded by then, as the lease connected first.)"""
    import psycopg
    return psycopg.Error


def _describe(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "another process"
    return f"{holder.get('owner')!r} (pid {holder.get('pid')} on host {holder.get('host')})"
