"""The lease a store takes, by where it lives: a lock file beside a SQLite store
(``claimgraph.lease``), an advisory lock on the server for a PostgreSQL one
(``store.server_lease``).

Here, not in ``claimgraph.lease``: choosing needs the store's location and the server lease,
both of the store layer, and the plain lock file below it must not reach up to them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from claimgraph.lease import (
    CURATE_HINT, CURATOR_OWNER, DEFAULT_WAIT_MS, WRITE_HINT, Lease, curate_lock_path,
    write_lock_path)


def write_lease(db_path: str | os.PathLike[str], owner: str, wait_ms: int = DEFAULT_WAIT_MS,
                **options: Any) -> Lease:
    """Acquire ``<db>.lock``, waiting up to ``wait_ms`` for the current writer to finish.
    A server store's lease is an advisory lock on the server instead (``server_lease``)."""
    server = _server_lease(db_path, "write", owner, WRITE_HINT)
    if server is not None:
        held: Lease = server.acquire(wait_ms)
        return held
    return Lease(write_lock_path(db_path), owner, **options).acquire(wait_ms)


def curation_lease(db_path: str | os.PathLike[str], owner: str = CURATOR_OWNER,
                   **options: Any) -> Lease:
    """Try ``<db>.curate.lock`` once: a second curator never waits (docs/curator.md)."""
    server = _server_lease(db_path, "curate", owner, CURATE_HINT)
    if server is not None:
        tried: Lease = server.acquire(0)
        return tried
    options.setdefault("busy_hint", CURATE_HINT)
    return Lease(curate_lock_path(db_path), owner, **options).acquire(0)


def _server_lease(db_path: str | os.PathLike[str], name: str, owner: str, hint: str) -> Any:
    from claimgraph import location
    url = location.server_url(os.fspath(db_path))
    if url is None:
        return None
    from claimgraph.store.server_lease import ServerLease
    return ServerLease(url, Path(os.fspath(db_path)), name, owner, busy_hint=hint)
