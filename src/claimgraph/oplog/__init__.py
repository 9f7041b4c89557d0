"""The operation log and its reconcile: one memory across machines that sync through files.

``LoggedStore`` records every committed write as effect lines in ``<db>.oplog/<writer>.jsonl``;
``reconcile`` folds the other writers' logs into the store; ``exchange`` moves logs and
evidence through a shared directory (``claimgraph sync --dir DIR``). See docs/sync.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def with_oplog(store: Any, db: Path | str, writer: str | None = None) -> Any:
    """``store`` (a writable store at ``db``) with its writes recorded in ``<db>.oplog/``
    (``writer``: the id a new log is written under; default the persisted or a fresh one)."""
    from claimgraph.oplog.files import oplog_dir
    from claimgraph.oplog.logged import LoggedStore
    from claimgraph.oplog.own_log import OwnLog
    return LoggedStore(store, OwnLog(oplog_dir(db), writer))
