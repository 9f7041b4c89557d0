"""LoggedStore: the Store protocol, with every committed write recorded in the oplog.

A decorator over any backend (docs/sync.md, "The log"). Each mutating method runs
on the inner store and, once it has succeeded, notes its effect; the effects of one
transaction are numbered and committed with it (``own_log``), so the log holds exactly
what the store holds: nothing of a rolled-back write, nothing twice. Reads, marks (except
a purge's global tombstones), audit verdicts and housekeeping pass straight through.

Effects are recorded with absolute values (ids, times and confidences the shell chose), so
replaying them is deterministic: ``oplog.apply`` performs the same calls on another replica.
A store that held data before its log began gets a baseline first: its whole graph as
effects, so a replica (or a rebuild) never lacks what came before.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from claimgraph.logic import oplog as L
from claimgraph.oplog.baseline import baseline_effects, insert_effect
from claimgraph.oplog.own_log import OwnLog
from claimgraph.store import records as rec
from claimgraph.store.base import Store
from claimgraph.store.nesting import reentrant

Record = dict[str, Any]
BASELINE_MARK = "oplog:baseline"
T = TypeVar("T")


class LoggedStore:
    """Wraps ``inner``; ``inner`` stays reachable for reconcile (which must not log)."""

    def __init__(self, inner: Store, log: OwnLog) -> None:
        self.inner: Store = inner
        self.oplog = log
        self.depth = 0
        #: This transaction's effects: dicts, or an inserted fact's row (``insert_effect``).
        self._pending: list[Record | list[Any]] = []
        self._baselined = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    # --- transactions -----------------------------------------------------------------------
    @reentrant
    def transaction(self) -> Iterator[None]:
        """The inner transaction; at its successful end the effects are staged, then appended
        once COMMIT is done."""
        self.depth, self._pending = 1, []
        try:
            with self.inner.transaction():
                baseline = self._baseline()
                yield
                self._stage([*baseline, *self._pending])
            self.oplog.commit_staged()
        except BaseException:
            self.oplog.abandon_staged()
            raise
        finally:
            self.depth, self._pending = 0, []

    def _stage(self, effects: list[Record | list[Any]]) -> None:
        if effects:
            self.oplog.stage(self.inner, effects)

    def _note(self, effect: Record) -> None:
        self._pending.append(effect)

    def _logged(self, call: Callable[[], T], effect: Record) -> T:
        """Run one write (in its own transaction when none is open) and note its effect."""
        with self.transaction():
            result = call()
            self._note(effect)
        return result

    def ensure_logging(self) -> None:
        """Before a sync reads the logs: the baseline written, the outbox flushed."""
        with self.transaction():
            pass
        self.oplog.flush_outbox(self.inner)

    def _baseline(self) -> list[Record]:
        """The whole graph as effects, once, when the log starts on a store that has data."""
        if self._baselined or self.inner.get_mark(BASELINE_MARK) is not None:
            self._baselined = True
            return []
        self.inner.set_mark(BASELINE_MARK, {"writer": self.oplog.writer})
        if self.oplog.position() > 0:
            return []
        return baseline_effects(self.inner)

    # --- entities ---------------------------------------------------------------------------
    def insert_entity(self, entity: Record) -> Record:
        with self.transaction():
            row = self.inner.insert_entity(entity)
            self._note({"t": "ensure-entity", "entity": {"record": "entity", **row}})
        return row

    def insert_entities(self, entities: Iterable[Record]) -> list[Record]:
        with self.transaction():
            rows = self.inner.insert_entities(list(entities))
            for row in rows:
                self._note({"t": "ensure-entity", "entity": {"record": "entity", **row}})
        return rows

    def update_entity(self, entity_id: str, *, name: str | None = None, type: str | None = None,
                      add_aliases: Sequence[str] = (),
                      remove_aliases: Sequence[str] = ()) -> Record:
        adds, removes = list(add_aliases), list(remove_aliases)
        updates = {"name": name, "type": type, "add_aliases": adds, "remove_aliases": removes}
        return self._logged(
            lambda: self.inner.update_entity(entity_id, name=name, type=type, add_aliases=adds,
                                             remove_aliases=removes),
            {"t": "update-entity", "id": entity_id, "updates": updates})

    def repoint_facts(self, from_id: str, to_id: str) -> int:
        return self._logged(lambda: self.inner.repoint_facts(from_id, to_id),
                            {"t": "repoint-facts", "from": from_id, "to": to_id})

    def delete_entity(self, entity_id: str) -> None:
        return self._logged(lambda: self.inner.delete_entity(entity_id),
                            {"t": "delete-entity", "id": entity_id})

    # --- facts ------------------------------------------------------------------------------
    def insert_fact(self, fact: Record) -> None:
        self.insert_facts((fact,))

    def insert_facts(self, facts: Iterable[Record]) -> None:
        batch = list(facts)
        with self.transaction():
            self.inner.insert_facts(batch)
            self._pending.extend([insert_effect(fact, checked=True) for fact in batch])

    def insert_fact_rows(self, rows: Sequence[list[Any]], guarded: bool = True) -> None:
        """Each row is the outbox's own form of its insert-fact effect (``insert_effect``'s
        row), so the log keeps it as it is. Unguarded and failing, the transaction rolls back
        (its effects with it: none of these rows were noted)."""
        with self.transaction():
            self.inner.insert_fact_rows(rows, guarded)
            fits, row_fact = L.row_fits, L.row_fact
            self._pending.extend([row if fits(row) else {"t": "insert-fact", "fact": row_fact(row)}
                                  for row in rows])

    def repoint_predicate(self, from_id: str, to_id: str) -> int:
        return self._logged(lambda: self.inner.repoint_predicate(from_id, to_id),
                            {"t": "repoint-predicate", "from": from_id, "to": to_id})

    def invalidate(self, fact_id: str, at: int, kind: str | None = None,
                   reason: str | None = None, successor: str | None = None) -> None:
        return self._logged(
            lambda: self.inner.invalidate(fact_id, at, kind=kind, reason=reason,
                                          successor=successor),
            {"t": "invalidate", "fact-id": fact_id, "at": at, "reason": reason, "kind": kind,
             "successor": successor})

    def link_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        others = sorted(set(ids))
        return self._logged(lambda: self.inner.link_conflicts(fact_id, others),
                            {"t": "link-conflicts", "fact-id": fact_id, "ids": others})

    def unlink_conflicts(self, fact_id: str, ids: Iterable[str]) -> None:
        others = sorted(set(ids))
        return self._logged(lambda: self.inner.unlink_conflicts(fact_id, others),
                            {"t": "unlink-conflicts", "fact-id": fact_id, "ids": others})

    def reinforce(self, fact_id: str, at: int, confidence: float,
                  source_type: str | None = None) -> None:
        return self._logged(
            lambda: self.inner.reinforce(fact_id, at, confidence, source_type),
            {"t": "reinforce", "fact-id": fact_id, "at": at, "confidence": float(confidence),
             "source-type": source_type})

    def set_dormant(self, ids: Iterable[str], at: int) -> int:
        return self._counted("set-dormant", lambda w: self.inner.set_dormant(w, at), ids, at=at)

    def revive(self, ids: Iterable[str]) -> int:
        return self._counted("revive", self.inner.revive, ids)

    def _counted(self, verb: str, call: Callable[[list[str]], int], ids: Iterable[str],
                 **extra: Any) -> int:
        """Curation writes that often change nothing are logged only when they did."""
        wanted = sorted(set(rec.as_list(ids) or []))
        with self.transaction():
            changed = call(wanted)
            if changed:
                self._note({"t": verb, "ids": wanted, **extra})
        return changed

    # --- episodes and predicates ------------------------------------------------------------
    def open_episode(self, episode: Record) -> Record:
        with self.transaction():
            row = self.inner.open_episode(episode)
            self._note({"t": "open-episode", "episode": {"record": "episode", **row}})
        return row

    def close_episode(self, episode_id: str, summary: str | None, at: int) -> None:
        return self._logged(lambda: self.inner.close_episode(episode_id, summary, at),
                            {"t": "close-episode", "id": episode_id, "summary": summary, "at": at})

    def register_predicate(self, row: Record) -> None:
        given = {k: v for k, v in row.items() if k != "record"}
        return self._logged(lambda: self.inner.register_predicate(row),
                            {"t": "register-predicate", "predicate": {"record": "predicate",
                                                                      **given}})

    # --- marks and a purge's deletions ------------------------------------------------------
    def set_mark(self, key: str, value: Any) -> None:
        if not L.is_synced_mark(key):
            return self.inner.set_mark(key, value)
        return self._logged(lambda: self.inner.set_mark(key, value),
                            {"t": "set-mark", "key": key, "value": value})

    def delete_marks(self, keys: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(keys) or []))
        synced = [k for k in wanted if L.is_synced_mark(k)]
        with self.transaction():
            count = self.inner.delete_marks(wanted)
            if synced:
                self._note({"t": "delete-marks", "keys": synced})
        return count

    def delete_facts(self, ids: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        return self._logged(lambda: self.inner.delete_facts(wanted),
                            {"t": "delete-facts", "ids": wanted})

    def delete_episodes(self, ids: Iterable[str]) -> int:
        wanted = sorted(set(rec.as_list(ids) or []))
        return self._logged(lambda: self.inner.delete_episodes(wanted),
                            {"t": "delete-episodes", "ids": wanted})

    def update_episode(self, episode_id: str, *, summary: str | None,
                       evidence: str | None) -> None:
        return self._logged(
            lambda: self.inner.update_episode(episode_id, summary=summary, evidence=evidence),
            {"t": "update-episode", "id": episode_id, "summary": summary, "evidence": evidence})

