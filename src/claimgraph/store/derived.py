"""Store protocol methods that are other protocol methods asked a narrower question: written
once here for every backend (memory, SQLite, PostgreSQL), so none of them can answer differently."""

from __future__ import annotations

from abc import abstractmethod

from claimgraph.store.records import Record

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence


class StoreDefaults:
    """Mixed into every backend; each supplies the batch forms these are defined by."""

    @abstractmethod
    def insert_facts(self, facts: Iterable[Record]) -> None: ...

    @abstractmethod
    def get_facts_by_ids(self, ids: Iterable[str]) -> list[Record]: ...

    @abstractmethod
    def get_facts_for(self, entity_ids: Iterable[str], direction: str = "out",
                      predicates: Iterable[str] | None = None) -> list[Record]: ...

    def insert_fact_rows(self, rows: Sequence[list[Any]], guarded: bool = True) -> None:
        """Facts given as their rows (``store.fact_rows``): the same insert as their whole
        facts, all or nothing either way (a backend with a faster way overrides it)."""
        from claimgraph.logic.oplog import row_fact  # only writes get here
        self.insert_facts([row_fact(list(row)) for row in rows])

    def insert_fact(self, fact: Record) -> None:
        """One fact is a batch of one (the same checks, the same refusals)."""
        self.insert_facts((fact,))

    def get_fact(self, fact_id: str) -> Record | None:
        facts = self.get_facts_by_ids([fact_id])
        return facts[0] if facts else None

    def get_facts(self, entity_id: str, direction: str = "out",
                  predicates: Iterable[str] | None = None) -> list[Record]:
        return self.get_facts_for([entity_id], direction, predicates)

    def get_history(self, entity_id: str, predicate: str) -> list[Record]:
        """Every version of subject+predicate: the subject's facts of that one predicate."""
        return self.get_facts(entity_id, "out", [predicate])
