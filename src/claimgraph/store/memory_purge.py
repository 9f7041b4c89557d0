"""MemoryStore's deletions, matching ``store.sqlite_purge`` (the contract suite runs both)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from claimgraph.store import records as rec


class MemoryPurge:
    """Mixed into MemoryStore; expects ``self._s`` (its dict of tables). A table is changed
    only through its own methods, never replaced, and a row's list never in place: the
    transaction's journal sees the change (``store.memory_journal``)."""

    _s: dict[str, dict[Any, Any]]

    if TYPE_CHECKING:
        def get_mark(self, key: str) -> Any: ...

    def delete_facts(self, ids: Iterable[str]) -> int:
        gone = set(rec.as_list(ids) or []) & set(self._s["facts"])
        for fact_id in gone:
            del self._s["facts"][fact_id]
        for fact in self._s["facts"].values():
            if not gone.isdisjoint(fact["conflicts"]):  # only rows that change are written
                fact["conflicts"] = [c for c in fact["conflicts"] if c not in gone]
        audit = self._s["audit"]  # deleted from, never replaced: the journal sees each key
        for key in [key for key in audit if key[0] in gone]:
            del audit[key]
        return len(gone)

    def delete_episodes(self, ids: Iterable[str]) -> int:
        gone = set(rec.as_list(ids) or []) & set(self._s["episodes"])
        for episode_id in gone:
            del self._s["episodes"][episode_id]
        return len(gone)

    def update_episode(self, episode_id: str, *, summary: str | None,
                       evidence: str | None) -> None:
        row = self._s["episodes"].get(episode_id)
        if row is None:
            raise rec.not_found("episode", episode_id)
        row.update(summary=summary, evidence=evidence)

    def list_marks(self, prefix: str) -> dict[str, Any]:
        return {key: self.get_mark(key) for key in sorted(self._s["marks"])
                if key.startswith(prefix)}

    def delete_marks(self, keys: Iterable[str]) -> int:
        gone = set(rec.as_list(keys) or []) & set(self._s["marks"])
        for key in gone:
            del self._s["marks"][key]
        return len(gone)

    def compact(self, tables: Iterable[str] = ()) -> dict[str, Any]:
        """Nothing of a memory store outlives the process."""
        return {"vacuumed": False, "wal_truncated": True}

    def truncate_wal(self) -> bool:
        return True
