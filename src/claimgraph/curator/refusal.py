"""A curator that refuses the config file still tells the SessionStart hook it read it.

Every command refuses a config file that does not parse or sets a bad value (``config``), the
curator too: it exits 1 before any stage runs. The hook starts the curator's shortlists stage
whenever the file changed since the curator last stamped it (``claimgraph.configured``), so a
file that was never stamped because it was refused started a curator at every session start,
each refusing it again. Before it exits, a refusing curator therefore leaves the stamp of the
refused file (its state, why it is refused, the values its previous stamp held) under the
file's mark, the way its shortlists stage leaves an accepted file's: while the file stays as
it is, the hook ranks with the values read from it last, logs the refusal and starts nothing;
the next edit changes the file's state, and the hook starts the curator again
(docs/hooks.md, "The configured half-life and budget").

Only the store named by ``--db`` or ``$CLAIMGRAPH_DB`` (the hook passes ``--db``), and only
an existing local store file: with the config refused, nothing else can name one. The mark is
written under the write lease: a detached curator waits the lease's default (the configured
wait is in the refused file), a ``claimgraph curate`` a person runs does not wait at all
(``lease_wait_ms``); it is a mark, so it moves no write counter and no stored shortlist goes
stale.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from claimgraph import configured, lease
from claimgraph.config import from_config_file
from claimgraph.errors import ClaimgraphError


def record_refusal(error: ClaimgraphError, db_flag: str | None,
                   environ: Mapping[str, str],
                   wait_ms: int = lease.DEFAULT_WAIT_MS) -> dict[str, Any] | None:
    """Leave the refused config file's stamp in the store (module docstring) when ``error``
    refuses the file; return the stamp, or None when nothing was left (another refusal, no
    store named or found, a file written just now, one that changed meanwhile, the write
    lease still held by another writer after ``wait_ms``). Any failure to do so is ignored:
    the refusal itself is what the caller reports."""
    if not from_config_file(error) or refused_file(error) != Path(configured.config_file(environ)):
        return None  # a flag's or a variable's value, or a file given by --config: not the
        # file the hook checks
    db = store_file(db_flag, environ)
    if db is None:
        return None
    try:
        return _leave(db, environ, wait_ms)
    except (ClaimgraphError, OSError):
        return None


def lease_wait_ms() -> int:
    """How long a refusing ``claimgraph curate`` waits for the write lease to leave its stamp.
    A detached one (the leader of its own session, as the hook and capture start it) waits
    the default, as any writer does: without its stamp the next session start would start
    another curator to refuse the file again. One a person runs waits not at all: the
    refusal is what they are waiting for, and a lease another writer holds only means the
    stamp is left by the next curator (docs/configuration.md)."""
    getsid = getattr(os, "getsid", None)
    return lease.DEFAULT_WAIT_MS if getsid is not None and getsid(0) == os.getpid() else 0


def refused_file(error: ClaimgraphError) -> Path:
    """The config file ``error`` refuses, as the error names it."""
    if error.type == "invalid-config":
        return Path(str(error.data.get("path", "")))
    return Path(str(error.data.get("source", "")).removeprefix("file:"))


def store_file(db_flag: str | None, environ: Mapping[str, str]) -> Path | None:
    """The existing local store file ``--db`` or ``$CLAIMGRAPH_DB`` names, or None (for
    ``:memory:`` too: no file, whatever the directory holds under that name)."""
    value = (db_flag or environ.get("CLAIMGRAPH_DB", "")).strip()
    if not value or value == ":memory:" or value.startswith(("postgresql://", "postgres://")):
        return None
    if value == "~" or value.startswith("~/"):
        value = os.path.join(environ.get("HOME") or os.path.expanduser("~"), value[2:])
    return Path(value) if os.path.isfile(value) else None


def _leave(db: Path, environ: Mapping[str, str], wait_ms: int) -> dict[str, Any] | None:
    from claimgraph.curator.shortlists import leave_stamp, settings_stamp
    from claimgraph.opening import open_store
    from claimgraph.store import leases

    store = open_store(db, create=False)
    try:
        setting = settings_stamp(environ, time.time_ns(), store.get_mark)
        if setting is None or store.get_mark(configured.settings_mark(setting["file"])) == setting:
            return setting
        with leases.write_lease(db, lease.CURATOR_OWNER, wait_ms,
                                ttl_ms=lease.DEFAULT_TTL_MS):
            with store.transaction():
                leave_stamp(store, setting)
        return setting
    finally:
        store.close()
