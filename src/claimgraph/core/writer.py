"""Store access for the write path: ``Writer`` goes to the store directly (a single assert);
``core.batch_writer.BatchWriter`` is its batched flavour for ``ingest``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from claimgraph.core import entities as ents
from claimgraph.core import tombstones
from claimgraph.core.shell import Shell
from claimgraph.core.vocabulary import resolve_predicate
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import facts as F
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
            self.before_store_write()
            tombstones.lift_fact(self.sh.store, key)
            del self._buried[key]
            return
        raise ClaimgraphError(
            "purged-fact", "this fact was purged from memory and is not learned again",
            hint="if it should be remembered after all, assert it with --allow-relearn",
            purged=self._buried[key])

    def expect(self, items: Iterable[Any]) -> None:
        """Told every item of a batch up front; a direct writer asks the store as it goes."""

    def predicate(self, name: str) -> Record:
        """The registry row (an x/* name is registered on first use: a store write)."""
        return resolve_predicate(self.sh, name)

    def entity(self, name: str, scope: str, type: str | None) -> Record:
        return ents.ensure_entity(self.sh, name, scope, type)

    def resolves(self, name: str, scope: str) -> bool:
        return ents.resolve_entity(self.sh, name, scope) is not None

    def out_facts(self, subject_id: str, predicates: Iterable[str]) -> list[Record]:
        return self.sh.store.get_facts(subject_id, "out", list(predicates))

    def inserts_plainly(self, row: Sequence[Any], pred: Mapping[str, Any]) -> bool:
        """True when the fact of ``row`` (``logic.facts.build_fact_row``, on a predicate with
        no group-mates or mention partners) is a plain insert, known without ``decide``; a
        direct writer always lets it decide."""
        return False

    def insert_row(self, row: list[Any], subject: Record, object_ref: Record | None) -> None:
        """Write the plain insert of ``row`` (only asked after ``inserts_plainly``)."""
        self.insert(dict(F.fact_from_row(row, subject, object_ref)))

    def insert(self, fact: Record) -> None:
        self.sh.store.insert_fact(fact)

    def before_change(self, subject_id: str) -> None:
        """Called before any write that is not a plain insert of a new fact."""

    def before_store_write(self) -> None:
        """Called before a write this writer does not make itself (a tombstone lifted)."""

    def flush(self) -> None:
        """Write out anything buffered."""
