"""Opening a store: the one path from a ``<db>`` location to a ready, current backend.

Order matters. The version stamp is a plain file, so it is checked first: a store written by
a newer claimgraph is refused before SQLite touches it (no WAL created, no migration tried).
Only then is the database opened (which checks its own schema version and migrates an older
one forward in a transaction), and the stamp is written last, once the file is known good.

What comes back is the bare backend: commands open stores through ``claimgraph.opening``,
which records a writable file store's writes in its oplog (a layer above this one).
"""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph import location
from claimgraph.errors import (
    ClaimgraphError, disk_full, is_disk_full, is_write_refusal, write_refused)
from claimgraph.private import private_dir, refuse_unsafe_directory, tighten_store
from claimgraph.sidecar import Sidecars
from claimgraph.store.sqlite import SqliteStore

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from claimgraph.store.base import Store
    from claimgraph.store.memory import MemoryStore

MEMORY = ":memory:"


def open_backend(db_path: Path | str, *, create: bool = True,
                 read_only: bool = False) -> Store:
    """Open (creating when allowed) the store at ``db_path``, or a private ":memory:" one.

    ``read_only`` is how reads open a store: nothing is created, stamped or migrated, so a
    read works on a store the user may not write (a read-only directory, another user's
    backup) and never changes a file behind the user's back.
    """
    if str(db_path) == MEMORY:
        return SqliteStore(MEMORY)
    resolved = location.resolve(db_path)
    url = location.server_url(resolved)
    if url is not None:
        return _open_server(url, Path(resolved), read_only=read_only)
    path = Path(db_path).expanduser()
    _check_file_location(path, create=create, read_only=read_only)
    sidecars = Sidecars(path)
    sidecars.check_version_stamp()
    if read_only:
        return _open_for_reading(path)
    return _open_for_writing(path, sidecars, create=create)


def local_file(db_path: Path | str) -> Path | None:
    """The file a store at ``db_path`` lives in; None for a ":memory:" or a server store."""
    if str(db_path) == MEMORY or location.server_url(location.resolve(db_path)) is not None:
        return None
    return Path(db_path).expanduser()


def is_snapshot(store: Store) -> bool:
    """True when the store was opened for reading only (asked to, or by a full disk)."""
    return isinstance(store, SqliteStore) and store._db.read_only


def _check_file_location(path: Path, *, create: bool, read_only: bool) -> None:
    """Refuse an unsafe directory, a missing store that may not be created, a directory."""
    refuse_unsafe_directory(path, reading=read_only)
    if not path.exists() and (read_only or not create):
        raise ClaimgraphError(
            "store-missing", f"there is no claimgraph store at {path}",
            hint="run `claimgraph init`, or pass --db (or set CLAIMGRAPH_DB) to an existing store",
            path=str(path))
    if path.is_dir():
        raise ClaimgraphError(
            "store-is-directory", f"{path} is a directory, not a store file",
            hint="point --db (or CLAIMGRAPH_DB) at a file such as claims.db", path=str(path))


def _open_for_reading(path: Path) -> SqliteStore:
    store = SqliteStore(path, read_only=True, snapshot_when_full=True)  # refuses a foreign file first
    _tighten(path)  # permissions only (never content): what others could read is theirs no more
    return store


def _open_for_writing(path: Path, sidecars: Sidecars, *, create: bool) -> SqliteStore:
    """Refuses a store a check found damaged, and another program's database before touching
    it; a reader (``create`` False) survives a full disk as a snapshot."""
    if create and sidecars.damaged.exists():
        raise damaged_store(path, sidecars.damaged)
    try:
        private_dir(path.parent)
    except OSError as error:
        raise _unwritable(path, error) from None
    store = SqliteStore(path, snapshot_when_full=not create)
    _tighten(path)
    try:
        sidecars.write_version_stamp()
    except OSError as error:
        store.close()
        raise _unwritable(path, error) from None
    return store


def _open_server(url: str, base: Path, read_only: bool) -> Store:
    """A PostgreSQL store (docs/postgres.md). psycopg loads here, only for a server store; its
    sidecars (spool, logs, lease records) live in a private local directory (``location``)."""
    try:
        from claimgraph.store.postgres import PostgresStore
    except ImportError:
        raise ClaimgraphError(
            "postgres-driver-missing", "this store is on a PostgreSQL server, and psycopg is "
            "not installed", hint="run ./install.sh --postgres in your claimgraph checkout (or "
            "there: uv tool install '.[mcp,viewer,postgres]')", url=location.redact_password(url)) from None
    if not read_only:
        private_dir(base.parent)
    return PostgresStore(url, read_only=read_only)


def damaged_store(path: Path, flag: Path) -> ClaimgraphError:
    """Writes stop once a check found damage: writing on could spread it."""
    try:
        found = json.loads(flag.read_text(encoding="utf-8")).get("problems") or ["?"]
    except (OSError, ValueError, AttributeError):
        found = ["see the flag file"]
    return ClaimgraphError(
        "store-damaged", f"{path} failed its integrity check ({found[0]}); writes are stopped "
        "so the damage does not spread", hint="run `claimgraph doctor`: it says what to do "
        "(`claimgraph doctor --fix` rebuilds the store from its tables)", path=str(path),
        flag=str(flag))


def _tighten(path: Path) -> None:
    """Files an older claimgraph (or a loose umask) left readable by others are made private,
    and each change is logged (``claimgraph.private``)."""
    changes = tighten_store(path)
    if changes:  # rare: structlog is imported only then (the SessionStart hook opens stores)
        import structlog
        for change in changes:
            structlog.get_logger("claimgraph.store").warning(
                "store.permissions-tightened", **change,
                reason="the store holds transcript excerpts: private to its owner")


def _unwritable(path: Path, error: OSError) -> ClaimgraphError:
    if is_disk_full(error):
        return disk_full(error.filename or path.parent)
    if is_write_refusal(error):
        return write_refused(Path(error.filename or path), error)
    return ClaimgraphError(
        "store-unopenable", f"cannot set up the store {path}: {error.strerror or error}",
        hint="check that the directory is writable, or choose another --db", path=str(path))


def open_memory_store() -> MemoryStore:
    """A throwaway store for tests and dry runs; nothing touches the disk (imported here:
    every command opens a store through this module, none of them this one)."""
    from claimgraph.store.memory import MemoryStore
    return MemoryStore()
