"""Tombstones: what a purge leaves so nothing brings the purged back (docs/store.md).

They are store marks, so they commit in the purge's own transaction and need no schema change:

``tombstone:fact:<sha256>``  ``{fact, purge, at}`` — a purged fact, keyed by
    ``logic.purge.statement_key`` (a hash of what it said, never the words). The write path
    (``core.writer``, hence every assert, capture and ingest) refuses a fact with that key, and
    ``load`` skips one; a future oplog sync must consult ``is_buried`` the same way.
``tombstone:session:<agent>:<session>``  ``{offset, line, subagents, purge, at}`` — how far
    into that session's transcript the purge reached. Capture never reads that range again
    (even when it would otherwise re-read the file from the start), so a purged segment is not
    stored again and its facts are not re-learned.
``purge:epoch``  the last purge's id. Writers that planned before a purge (a capture between
    extraction and commit, a curator pass) see it change and plan again.
``purge:pending``  the file work a committed purge still owes (segments to delete, a VACUUM);
    finished by the next purge, so a purge killed halfway converges when run again.
``purge:record:<id>``  {at, filters (kinds only), counts}: that a purge happened, never what
    it removed.

``--allow-relearn`` (capture, assert) lifts the tombstones it overrides.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from claimgraph.logic.purge import fact_key
from claimgraph.store.base import Store

FACT_PREFIX = "tombstone:fact:"
SESSION_PREFIX = "tombstone:session:"
TOMBSTONE_PREFIX = "tombstone:"
EPOCH = "purge:epoch"
PENDING = "purge:pending"
RECORD_PREFIX = "purge:record:"


def buried_facts(store: Store) -> dict[str, Any]:
    """{statement key: tombstone} of every purged fact."""
    return {key[len(FACT_PREFIX):]: value for key, value in store.list_marks(FACT_PREFIX).items()}


def is_buried(store: Store, fact: Mapping[str, Any]) -> bool:
    """Was a fact saying this purged? (For loaders and syncs handed whole facts.)"""
    return store.get_mark(FACT_PREFIX + fact_key(fact)) is not None


def bury_facts(store: Store, facts: Iterable[Mapping[str, Any]], purge_id: str, at: int) -> int:
    count = 0
    for fact in facts:
        store.set_mark(FACT_PREFIX + fact_key(fact), {"fact": fact["id"], "purge": purge_id,
                                                      "at": at})
        count += 1
    return count


def lift_fact(store: Store, key: str) -> None:
    store.delete_marks([FACT_PREFIX + key])


def session_key(agent: str, session: str) -> str:
    return f"{SESSION_PREFIX}{agent}:{session}"


def session_floor(store: Store, agent: str, session: str) -> dict[str, Any] | None:
    """Where capture of this session must start at the earliest, or None."""
    floor: dict[str, Any] | None = store.get_mark(session_key(agent, session))
    return floor


def bury_session(store: Store, agent: str, session: str, position: Mapping[str, Any],
                 purge_id: str, at: int) -> None:
    """Keep the furthest reach of any purge of this session."""
    old = session_floor(store, agent, session) or {}
    if int(old.get("offset") or 0) > int(position.get("offset") or 0):
        position = old
    store.set_mark(session_key(agent, session), {
        "offset": int(position.get("offset") or 0), "line": int(position.get("line") or 0),
        "subagents": dict(position.get("subagents") or {}), "purge": purge_id, "at": at})


def lift_session(store: Store, agent: str, session: str) -> None:
    store.delete_marks([session_key(agent, session)])


def epoch(store: Store) -> Any:
    """The last purge's id (None before any): compare before and after planning."""
    return store.get_mark(EPOCH)


def all_tombstones(store: Store) -> dict[str, Any]:
    """Every tombstone mark, for dumps."""
    return store.list_marks(TOMBSTONE_PREFIX)
