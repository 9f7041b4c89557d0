"""Opening a store for use: the composition root of the store and its operation log.

``store.open`` opens the bare backend; a writable file store comes back here wrapped in the
oplog's ``LoggedStore``, so every write is recorded for sync (docs/sync.md). The wrapping
lives above both layers because the oplog is built on the store (and on ``core``): the store
layer reaching up to it closed a circle. Every command, pass and server opens its store here.
"""

from __future__ import annotations

from pathlib import Path

from claimgraph.store.open import is_snapshot, local_file, open_backend

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from claimgraph.store.base import Store


def open_store(db_path: Path | str, *, create: bool = True, read_only: bool = False) -> Store:
    """The store at ``db_path`` (see ``store.open.open_backend`` for ``create`` and
    ``read_only``); its writes are logged unless it is read-only, in memory or on a server."""
    store = open_backend(db_path, create=create, read_only=read_only)
    path = local_file(db_path)
    if read_only or path is None or is_snapshot(store):
        return store
    return with_oplog(store, path)


def with_oplog(store: Store, db: Path | str, writer: str | None = None) -> Store:
    """``store`` (a writable store at ``db``) with its writes recorded in ``<db>.oplog/``
    (``writer``: the id a new log is written under; default the persisted or a fresh one)."""
    from claimgraph.oplog.files import oplog_dir
    from claimgraph.oplog.logged import LoggedStore
    from claimgraph.oplog.own_log import OwnLog
    return LoggedStore(store, OwnLog(oplog_dir(db), writer))
