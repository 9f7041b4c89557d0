"""Carrying out a purge plan so that a kill -9 anywhere leaves nothing half-done.

The caller holds the write lease throughout. Order of work, and why:
1. Rewritten segments (``--match``) are written first, under their new content-addressed
   names: until the commit nothing refers to them, and a re-run writes the same names.
2. ONE store transaction deletes the rows, points kept episodes at their rewritten (or no)
   segment, buries the facts and sessions (``core.tombstones``), records the purge, moves the
   purge epoch, and leaves ``purge:pending``: the file work the commit now owes.
3. The owed segments are deleted (only those no episode reads), the logs, spool and oplog
   are scrubbed, and the store is compacted (full-text rebuild, VACUUM, WAL truncated).
4. ``purge:pending`` is removed and the WAL truncated again; one ``purge`` event is logged.
A purge killed before 2 changed nothing a reader sees; after 2, the next purge (any) first
finishes what ``purge:pending`` lists, and the same command run again finds what is left of
its text in the files (it scans them) — so re-running converges.

Test-only: ``CLAIMGRAPH_TEST_CRASH_AT=<stage>`` (see ``STAGES``) ends the process with
``os._exit(137)`` on reaching that stage, as a kill -9 would.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from claimgraph.core import tombstones as T
from claimgraph.core.entities import names_changed
from claimgraph.core.shell import Shell
from claimgraph.logic import purge as P
from claimgraph.logic.timeutil import to_iso
from claimgraph.purge import files as F
from claimgraph.purge.plan import Plan
from claimgraph.sidecar import Sidecars

CRASH_ENV = "CLAIMGRAPH_TEST_CRASH_AT"
STAGES = ("purge-rewritten", "purge-committed", "purge-segments", "purge-files",
          "purge-compacted")
ALL_TABLES = ("entities", "facts", "episodes")


def finish_pending(sh: Shell, sidecars: Sidecars) -> dict[str, Any] | None:
    """Complete the file work of a purge that committed and then died; None if there is none."""
    pending = sh.store.get_mark(T.PENDING)
    if not pending:
        return None
    _delete_segments(sh, sidecars, pending.get("delete") or [])
    for path in F.oplog_files(sidecars.db):
        F.rewrite_lines(path, F.oplog_filter(pending.get("ids") or [], None))
    sh.store.compact(pending.get("tables") or ALL_TABLES)
    wal_truncated = _close(sh)
    record = sh.store.get_mark(T.RECORD_PREFIX + str(pending.get("id"))) or {}
    log_event(sidecars, {"purge": pending.get("id"), "at": pending.get("at") or sh.now(),
                         "filters": record.get("filters"), "counts": record.get("counts"),
                         "wal_truncated": wal_truncated, "finished_after_interruption": True})
    return pending


def apply(sh: Shell, sidecars: Sidecars, plan: Plan,
          environ: Mapping[str, str]) -> dict[str, Any]:
    """Carry out ``plan``; returns {purge, counts, wal_truncated, left} (left: files still
    holding the matched text, which only happens when other filters kept some of it)."""
    purge_id, now = sh.new_id("pg"), sh.now()
    renamed = _rewrite_segments(sidecars, plan)
    _reach("purge-rewritten", environ)
    with sh.store.transaction():
        _write_rows(sh, plan, renamed, purge_id, now)
    _reach("purge-committed", environ)
    _delete_segments(sh, sidecars, sorted(set(plan.delete_segments) | set(renamed)))
    _reach("purge-segments", environ)
    _scrub_files(sidecars, plan)
    _reach("purge-files", environ)
    sh.store.compact(_tables(plan))
    _reach("purge-compacted", environ)
    wal_truncated = _close(sh)
    record = {"purge": purge_id, "at": now, "filters": plan.filters.given(),
              "counts": plan.counts(), "wal_truncated": wal_truncated}
    log_event(sidecars, record)
    needle = plan.filters.match
    left = [str(p) for p in F.holding(F.owned_files(sidecars.db), needle)] if needle else []
    return {**record, "left": left}


def _rewrite_segments(sidecars: Sidecars, plan: Plan) -> dict[str, str]:
    """old name -> the name of its copy with the matched text replaced."""
    renamed = {}
    for name in plan.rewrite_segments:
        text = sidecars.get_evidence(name)
        renamed[name] = sidecars.put_evidence(P.scrub(text, plan.filters.match or "")[0])
    return renamed


def _write_rows(sh: Shell, plan: Plan, renamed: dict[str, str], purge_id: str, now: int) -> None:
    store = sh.store
    store.delete_facts([f["id"] for f in plan.facts])
    store.delete_episodes(plan.episodes)
    for episode_id, row in sorted(plan.rewritten_episodes.items()):
        store.update_episode(episode_id, summary=row["summary"],
                             evidence=renamed.get(row["evidence"], row["evidence"]))
    for entity_id in plan.entities:
        store.delete_entity(entity_id)
    if plan.entities:
        names_changed(sh)  # the curator's cluster keys may hold a deleted name
    for entity_id, aliases in sorted(plan.aliases.items()):
        store.update_entity(entity_id, remove_aliases=aliases)
    store.delete_marks(plan.delete_marks)
    for key, value in sorted(plan.rewrite_marks.items()):
        store.set_mark(key, value)
    _bury(sh, plan, purge_id, now)
    store.set_mark(T.PENDING, {
        "id": purge_id, "at": now, "tables": _tables(plan), "ids": plan.purged_ids(),
        "delete": sorted(set(plan.delete_segments) | set(renamed))})


def _bury(sh: Shell, plan: Plan, purge_id: str, now: int) -> None:
    """Tombstones, the purge's record (kinds and counts, never values) and the new epoch."""
    store = sh.store
    T.bury_facts(store, plan.facts, purge_id, now)
    for (agent, session), position in sorted(plan.sessions.items()):
        T.bury_session(store, agent, session, position, purge_id, now)
    store.set_mark(T.RECORD_PREFIX + purge_id, {"at": now, "filters": plan.filters.given(),
                                                "counts": plan.counts()})
    store.set_mark(T.EPOCH, purge_id)


def _tables(plan: Plan) -> list[str]:
    """The full-text indexes that held purged text."""
    tables = {"facts"} if plan.facts else set()
    if plan.entities or plan.aliases:
        tables.add("entities")
    if plan.episodes or plan.rewritten_episodes:
        tables.add("episodes")
    return sorted(tables)


def _delete_segments(sh: Shell, sidecars: Sidecars, names: list[str]) -> None:
    """Delete owed segments that no episode reads (a name is content: a capture may have
    stored the very same text again since)."""
    read = {e.get("evidence") for e in sh.store.list_episodes()}
    for name in names:
        if name not in read:
            (sidecars.evidence_dir / name).unlink(missing_ok=True)


def _scrub_files(sidecars: Sidecars, plan: Plan) -> None:
    needle, db = plan.filters.match, sidecars.db
    for path in plan.spool_delete:
        Path(path).unlink(missing_ok=True)
    for path in plan.spool_scrub:
        F.scrub_whole(Path(path), needle or "")
    if needle:
        for path in F.text_sidecars(db):
            F.rewrite_lines(path, F.scrubber(needle))
    for path in F.oplog_files(db):
        F.rewrite_lines(path, F.oplog_filter(plan.purged_ids(), needle))


def _close(sh: Shell) -> bool:
    """The owed work is done: drop ``purge:pending``, then cut the WAL to nothing."""
    with sh.store.transaction():
        sh.store.delete_marks([T.PENDING])
    return sh.store.truncate_wal()


def log_event(sidecars: Sidecars, record: Mapping[str, Any]) -> None:
    """One ``purge`` line in the capture log: what kinds were removed and how many, never what."""
    line = {"ts": to_iso(record["at"]), "level": "info", "event": "purge", "pid": os.getpid(),
            **{k: v for k, v in record.items() if k != "at"}}
    try:
        handle = os.open(sidecars.capture_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        os.write(handle, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8"))
    finally:
        os.close(handle)


def _reach(stage: str, environ: Mapping[str, str]) -> None:
    if environ.get(CRASH_ENV) == stage:
        os._exit(137)
