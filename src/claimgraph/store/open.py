"""Opening a store: the one path from a ``<db>`` location to a ready, current SqliteStore.

Order matters. The version stamp is a plain file, so it is checked first: a store written by
a newer claimgraph is refused before SQLite touches it (no WAL created, no migration tried).
Only then is the database opened (which checks its own schema version and migrates an older
one forward in a transaction), and the stamp is written last, once the file is known good.
"""

from __future__ import annotations

from pathlib import Path

from claimgraph.errors import ClaimgraphError, is_write_refusal, write_refused
from claimgraph.sidecar import Sidecars
from claimgraph.store.memory import MemoryStore
from claimgraph.store.sqlite import SqliteStore

MEMORY = ":memory:"


def open_store(db_path: Path | str, *, create: bool = True,
               read_only: bool = False) -> SqliteStore:
    """Open (creating when allowed) the store at ``db_path``, or a private ":memory:" one.

    ``read_only`` is how reads open a store: nothing is created, stamped or migrated, so a
    read works on a store the user may not write (a read-only directory, another user's
    backup) and never changes a file behind the user's back.
    """
    if str(db_path) == MEMORY:
        return SqliteStore(MEMORY)
    path = Path(db_path).expanduser()
    if not path.exists() and (read_only or not create):
        raise ClaimgraphError(
            "store-missing", f"there is no claimgraph store at {path}",
            hint="run `claimgraph init`, or pass --db (or set CLAIMGRAPH_DB) to an existing store",
            path=str(path))
    if path.is_dir():
        raise ClaimgraphError(
            "store-is-directory", f"{path} is a directory, not a store file",
            hint="point --db (or CLAIMGRAPH_DB) at a file such as claims.db", path=str(path))
    sidecars = Sidecars(path)
    sidecars.check_version_stamp()
    if read_only:
        return SqliteStore(path, read_only=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _unwritable(path, error) from None
    store = SqliteStore(path)
    try:
        sidecars.write_version_stamp()
    except OSError as error:
        store.close()
        raise _unwritable(path, error) from None
    return store


def _unwritable(path: Path, error: OSError) -> ClaimgraphError:
    if is_write_refusal(error):
        return write_refused(Path(error.filename or path), error)
    return ClaimgraphError(
        "store-unopenable", f"cannot set up the store {path}: {error.strerror or error}",
        hint="check that the directory is writable, or choose another --db", path=str(path))


def open_memory_store() -> MemoryStore:
    """A throwaway store for tests and dry runs; nothing touches the disk."""
    return MemoryStore()
