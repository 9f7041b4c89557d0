"""Store access for the write path, in two flavours: direct, and batched for ``ingest``.

A single assert reads and writes the store directly. A batch of thousands would pay a store
round trip per entity and per fact, so ``BatchWriter`` caches what the batch itself resolves
(entities by name, each subject's outgoing facts) and buffers plain inserts into one
``insert_facts``. The cache lives for one batch inside one transaction under the write lease,
so nobody else can change what it remembers; any write other than a plain insert flushes the
buffer and forgets that subject's facts, so decisions always see the store's truth.
"""

from __future__ import annotations

from typing import Any, Iterable

from claimgraph.core import entities as ents
from claimgraph.core import tombstones
from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.purge import statement_key

Record = dict[str, Any]


class Writer:
    """Direct store access: every call goes to the store.

    Every write path asks ``refuse_purged`` before it creates anything, so a purged fact is
    never brought back by a capture, an ingest or an agent (``relearn`` lifts the tombstone
    instead: a person said so). The tombstones are read once per writer, inside its lease.
    """

    def __init__(self, sh: Shell, relearn: bool = False) -> None:
        self.sh = sh
        self.relearn = relearn
        self._buried: dict[str, object] | None = None

    def redact(self, value: Any) -> Any:
        """No secret is stored, whoever asserts: capture cleaned its text already, a person
        or a model extractor may not have. Imported here: the SessionStart hook reads
        through this package and must not load the redactor."""
        from claimgraph.logic.redact import redact
        return redact(value) if isinstance(value, str) else value

    def refuse_purged(self, scope: str, subject: str, predicate: str, obj: str) -> None:
        """Raise ``purged-fact`` when a purge buried this statement (see core.tombstones).
        The key is only hashed when tombstones exist: this runs once per fact of an ingest."""
        if self._buried is None:
            self._buried = tombstones.buried_facts(self.sh.store)
        if not self._buried:
            return
        key = statement_key(scope, subject, predicate, obj)
        if key not in self._buried:
            return
        if self.relearn:
            tombstones.lift_fact(self.sh.store, key)
            del self._buried[key]
            return
        raise ClaimgraphError(
            "purged-fact", "this fact was purged from memory and is not learned again",
            hint="if it should be remembered after all, assert it with --allow-relearn",
            purged=self._buried[key])

    def entity(self, name: str, scope: str, type: str | None) -> Record:
        return ents.ensure_entity(self.sh, name, scope, type)

    def resolves(self, name: str, scope: str) -> bool:
        return ents.resolve_entity(self.sh, name, scope) is not None

    def out_facts(self, subject_id: str, predicates: Iterable[str]) -> list[Record]:
        return self.sh.store.get_facts(subject_id, "out", list(predicates))

    def insert(self, fact: Record) -> None:
        self.sh.store.insert_fact(fact)

    def before_change(self, subject_id: str) -> None:
        """Called before any write that is not a plain insert of a new fact."""

    def flush(self) -> None:
        """Write out anything buffered."""


class BatchWriter(Writer):
    """Caches entities and subjects' facts for one batch; buffers inserts."""

    def __init__(self, sh: Shell, relearn: bool = False) -> None:
        super().__init__(sh, relearn)
        self._entities: dict[tuple[str, str], Record] = {}
        self._out: dict[str, dict[str, list[Record]]] = {}
        self._pending: list[Record] = []
        #: Redacted text by text: a batch names each subject (and many objects) many times.
        self._redacted: dict[str, str] = {}

    def redact(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        clean = self._redacted.get(value)
        if clean is None:
            clean = self._redacted[value] = super().redact(value)
        return clean

    def entity(self, name: str, scope: str, type: str | None) -> Record:
        cached = self._entities.get((name, scope))
        if cached is not None and (type is None or cached.get("type") is not None):
            return cached
        entity, created = ents.ensure_entity_noting_creation(self.sh, name, scope, type)
        self._entities[(name, scope)] = entity
        if created:
            self._out[entity["id"]] = {}
        return entity

    def resolves(self, name: str, scope: str) -> bool:
        return (name, scope) in self._entities or super().resolves(name, scope)

    def _by_predicate(self, subject_id: str) -> dict[str, list[Record]]:
        """The subject's outgoing facts grouped by predicate, loaded once per batch."""
        grouped = self._out.get(subject_id)
        if grouped is None:
            grouped = self._out[subject_id] = {}
            for fact in self.sh.store.get_facts(subject_id, "out"):
                grouped.setdefault(fact["predicate"], []).append(fact)
        return grouped

    def out_facts(self, subject_id: str, predicates: Iterable[str]) -> list[Record]:
        grouped = self._by_predicate(subject_id)
        return [f for p in predicates for f in grouped.get(p, ())]

    def insert(self, fact: Record) -> None:
        """Buffer the fact; its subject's cached list must include it (load the list first)."""
        grouped = self._by_predicate(fact["subject"]["id"])
        self._pending.append(fact)
        grouped.setdefault(fact["predicate"], []).append(fact)

    def before_change(self, subject_id: str) -> None:
        self.flush()
        self._out.pop(subject_id, None)

    def flush(self) -> None:
        if self._pending:
            self.sh.store.insert_facts(self._pending)
            self._pending = []
