"""``claimgraph doctor``: a full check of the store and what is around it, each finding with
the command that deals with it.

Checks, each independent (one that cannot run says why and the others still do):
- permissions: store files and directories others can read (looked at BEFORE the store is
  opened, since opening tightens them);
- integrity: SQLite's full ``integrity_check`` (every page and every index against its
  table) and FTS5's own check of the three search indexes; the ``<db>.damaged`` flag a
  curator's ``quick_check`` left;
- evidence: episodes citing evidence files that are gone; evidence files no episode cites;
- spools: payloads older than a day that nothing captured;
- poisoned sessions (``capture.failures``).
``--fix`` makes loose files private, rebuilds the store from its tables when an index or the
search index is damaged (``VACUUM INTO`` a fresh file, checked, then swapped in under the
write lease; the damaged file is kept beside it), and clears the damaged flag once the store
is sound. Evidence and spools are reported, never deleted: they may be all that is left.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Mapping

from claimgraph import lease
from claimgraph.capture.failures import FailureLedger
from claimgraph.errors import ClaimgraphError
from claimgraph.opening import open_store
from claimgraph.private import create_private_file, tighten_store
from claimgraph.sidecar import Sidecars
from claimgraph.store import leases
from claimgraph.store import sqlite_schema as schema

STUCK_SPOOL_S = 24 * 3600
MAX_LISTED = 10


def finding(name: str, problems: list[str], what_to_do: str, **more: Any) -> dict[str, Any]:
    return {"check": name, "ok": not problems, "problems": problems[:MAX_LISTED],
            "count": len(problems), "what_to_do": what_to_do if problems else "", **more}


def examine(db: Path, environ: Mapping[str, str], fix: bool = False,
            now: float | None = None) -> dict[str, Any]:
    now = time.time() if now is None else now
    checks = [permissions(db, fix)]
    if not db.exists():
        checks.append(finding("store", [f"there is no store at {db}"], "run `claimgraph init`"))
        return _report(db, checks)
    checks.append(integrity(db, fix))
    checks += [evidence(db), spools(db, now), poisoned(db)]
    return _report(db, checks)


def _report(db: Path, checks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"store": str(db), "checks": checks,
            "problems": sum(1 for check in checks if not check["ok"])}


def permissions(db: Path, fix: bool) -> dict[str, Any]:
    from claimgraph.private import is_open_to_others, store_paths
    loose = [str(p) for p in store_paths(db) if p.exists() and is_open_to_others(p.stat().st_mode)]
    fixed = tighten_store(db) if fix and loose else []
    return finding("permissions", [] if fixed else [f"{p} is readable by others" for p in loose],
                   "run `claimgraph doctor --fix` (or any command: opening the store makes "
                   "them private)", fixed=len(fixed))


def integrity(db: Path, fix: bool) -> dict[str, Any]:
    """The full check; with ``fix``, a rebuild when something is damaged."""
    problems = _integrity_problems(db)
    rebuilt = None
    if problems and fix:
        rebuilt = rebuild(db)
        problems = _integrity_problems(db)
    flag = Sidecars(db).damaged
    if not problems and flag.exists() and (fix or rebuilt):
        flag.unlink()
    if not problems and flag.exists():
        problems = [f"a curator found damage earlier ({flag}); this full check finds none"]
        advice = "run `claimgraph doctor --fix` to clear the flag and let writes resume"
    else:
        advice = ("run `claimgraph doctor --fix`: it rebuilds the store from its tables (the "
                  "damaged file is kept); if that fails, restore a backup or `claimgraph dump` "
                  "what still reads into a new store")
    return finding("integrity", problems, advice, rebuilt=rebuilt)


def _integrity_problems(db: Path) -> list[str]:
    try:
        store = open_store(db, create=False)
    except ClaimgraphError as error:
        return [error.message]
    try:
        return store.check_integrity(quick=False)
    finally:
        store.close()


def rebuild(db: Path) -> str:
    """A fresh store holding the old one's table rows (read by full scans, so a damaged index
    is never read), every index and search index built anew, swapped in under the lease."""
    fresh = db.with_name(db.name + ".rebuild")
    fresh.unlink(missing_ok=True)
    with leases.write_lease(db, "claimgraph-doctor", lease.DEFAULT_WAIT_MS):
        try:
            _copy_tables(db, fresh)
        except sqlite3.DatabaseError as error:
            fresh.unlink(missing_ok=True)
            return f"rebuild failed: {error}"
        kept = db.with_name(f"{db.name}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(db, kept)
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        os.replace(fresh, db)
    return f"rebuilt from its tables; the damaged file is kept as {kept.name}"


def _copy_tables(db: Path, fresh: Path) -> None:
    create_private_file(fresh)
    connection = sqlite3.connect(fresh, isolation_level=None)
    try:
        version = schema.migrate(connection, str(fresh))
        connection.execute("ATTACH DATABASE ? AS old", (f"{db.absolute().as_uri()}?mode=ro",))
        if connection.execute("PRAGMA old.user_version").fetchone()[0] != version:
            raise sqlite3.DatabaseError("the damaged store has another schema version")
        connection.execute("BEGIN")
        for (table,) in connection.execute(_PLAIN_TABLES).fetchall():
            # "WHERE 1" turns off SQLite's copy of whole b-trees, which would read the
            # damaged index too: every row is read from the table and indexed anew
            connection.execute(f'INSERT INTO main."{table}" SELECT * FROM old."{table}" '
                               "NOT INDEXED WHERE 1")
        connection.execute("INSERT INTO fact_fts(fact_fts) VALUES ('rebuild')")
        connection.execute("INSERT INTO episode_fts(episode_fts) VALUES ('rebuild')")
        connection.execute("INSERT INTO fact_words(fact_words) VALUES ('rebuild')")
        connection.execute(INDEX_ALL_ENTITIES)
        connection.execute("COMMIT")
        connection.execute("DETACH DATABASE old")
    finally:
        connection.close()


#: The store's own tables (not SQLite's, not the search indexes or their shadow tables).
_PLAIN_TABLES = ("SELECT name FROM old.sqlite_master WHERE type = 'table' AND name NOT LIKE "
                 "'sqlite_%' AND name NOT LIKE '%_fts' AND name NOT LIKE '%_fts_%' "
                 "AND name NOT LIKE 'fact_words' AND name NOT LIKE 'fact_words_%'")
INDEX_ALL_ENTITIES = ("INSERT INTO entity_fts (rowid, text) SELECT pk, name || char(31) || "
                      "(SELECT coalesce(group_concat(value, char(31)), '') FROM "
                      "json_each(aliases)) FROM entities")


def evidence(db: Path) -> dict[str, Any]:
    sidecars = Sidecars(db)
    try:
        store = open_store(db, create=False)
    except ClaimgraphError as error:
        return finding("evidence", [f"cannot read the episodes: {error.message}"],
                       "run `claimgraph doctor` again once the store opens")
    try:
        cited = {e["evidence"] for e in store.list_episodes() if e.get("evidence")}
    finally:
        store.close()
    stored = set(sidecars.list_evidence())
    missing = [f"episodes cite {name}, which is gone" for name in sorted(cited - stored)]
    orphans = sorted(stored - cited)
    return finding("evidence", missing, f"restore {sidecars.evidence_dir} from a backup; the "
                   "facts stay, only their transcript lines are lost", orphaned=len(orphans))


def spools(db: Path, now: float) -> dict[str, Any]:
    directory = Sidecars(db).spool_dir
    stuck = []
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:
            continue
        if age >= STUCK_SPOOL_S:
            stuck.append(f"{path} waits since {int(age // 3600)} h")
    return finding("spools", stuck, "run `claimgraph capture --spool FILE` on one to see why; "
                   "`claimgraph logs capture --level error` shows earlier failures")


def poisoned(db: Path) -> dict[str, Any]:
    found = FailureLedger(db).poisoned()
    return finding("poisoned", [f"session {e.get('session')} ({e.get('failures')} failures, "
                                f"last: {e.get('last_error')})" for e in found],
                   "fix the cause, then `claimgraph capture --retry SESSION`")
