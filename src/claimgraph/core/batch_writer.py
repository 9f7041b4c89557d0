"""The batched Writer for ``ingest``: one store round trip per table, not per fact.

A batch of thousands would pay a store round trip per entity lookup, per new entity and per
fact. ``BatchWriter`` instead asks the store once for every name the batch mentions
(``expect``), keeps those candidates in step with what the batch itself creates and heals,
and buffers new entities and plain fact inserts into one ``insert_entities`` and one
``insert_facts``. It also caches each subject's outgoing facts.

Everything it remembers lives for one batch inside one transaction under the write lease, so
nobody else can change it. Buffered writes go out, entities first, before any write that is
not a plain insert (a supersession, a reinforcement, a healed entity, a predicate registered,
a tombstone lifted), so decisions always see the store's truth and the oplog records the
same effects in the same order as asserting item by item would.
"""

from __future__ import annotations

from bisect import insort
from typing import Any, Callable, Iterable, Mapping, Sequence

from claimgraph.core import entities as ents
from claimgraph.core.shell import Shell
from claimgraph.core.writer import Record, Writer
from claimgraph.core.writes import decision_mates
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import facts as F
from claimgraph.logic.model import DEFAULT_SCOPE
from claimgraph.logic.names import normalize_entity_name
from claimgraph.store.fact_rows import PREDICATE, SUBJECT, fact_row


def _entity_order(entity: Record) -> tuple[str, str]:
    """``find_entities``' order: name, then id."""
    return entity["name"], entity["id"]


class BatchWriter(Writer):
    """Resolves entities against one prefetch; buffers new entities and inserts."""

    def __init__(self, sh: Shell, relearn: bool = False) -> None:
        super().__init__(sh, relearn)
        self._entities: dict[tuple[str, str], Record] = {}
        #: Every scope's candidates per normalized name, as ``find_entities`` would answer
        #: now (a name absent here is answered by the store, which then holds all of them).
        self._by_norm: dict[str, list[Record]] = {}
        #: Per subject and predicate, its facts: whole, or a plain insert of this batch as
        #: (row, subject, object_ref) until a decision needs it whole (``out_facts``).
        self._out: dict[str, dict[str, list[Any]]] = {}
        self._new_entities: list[Record] = []
        #: Facts to insert, as their rows (``store.fact_rows``), in the order asserted.
        self._pending: list[list[Any]] = []
        #: Redacted text by text: a batch names each subject (and many objects) many times.
        self._redacted: dict[str, str] = {}
        self._redactor: Callable[[str], str] | None = None
        #: Per subject and predicate, the ``object_key`` of every fact in ``_out``: the
        #: set-based decision (``inserts_plainly``). Dropped with the subject's ``_out``.
        self._standing: dict[str, dict[str, set[tuple[Any, Any]]]] = {}
        #: A plain row's born confidence per (source type, stated confidence): the batch loop's
        #: memo of ``logic.facts.birth_confidence``, a pure function of the two.
        self._born: dict[tuple[str, float | None], float] = {}

    def redact(self, value: Any) -> Any:
        """``Writer.redact``, once per distinct text of the batch, through the redactor bound
        once (``Writer.redact`` imports it at each call, a seventh of a short text's cost)."""
        if not isinstance(value, str):
            return value
        clean = self._redacted.get(value)
        if clean is None:
            redactor = self._redactor
            if redactor is None:  # imported at first use, as Writer.redact does
                from claimgraph.logic.redact import redact
                redactor = self._redactor = redact
            clean = self._redacted[value] = redactor(value)
        return clean

    def expect(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Fetch the candidates of every subject and object the items name, in one query, then
        the outgoing facts of every candidate a subject could resolve to, in one more: a batch
        over a large store otherwise read each existing subject's facts by a query of its own."""
        names: set[str] = set()
        subjects: set[tuple[str, str]] = set()
        named: dict[str, str] = {}  # each text's name, once per distinct text
        for item in items:
            get = item.get
            value = get("subject")
            if value is not None:
                name = named.get(value) if type(value) is str else None
                if name is None:
                    name = self._name_of(value, named, names)
                subjects.add((name, get("subject_scope") or get("scope") or DEFAULT_SCOPE))
            value = get("object")
            if value is not None and (type(value) is not str or value not in named):
                self._name_of(value, named, names)
        names.discard("")
        for name, found in self.sh.store.find_entities_many(names, None).items():
            self._by_norm.setdefault(normalize_entity_name(name), found)
        self._prefetch_out({entity["id"] for name, scope in subjects if name
                            for entity in self._candidates(name, scope)})

    def _name_of(self, value: Any, named: dict[str, str], names: set[str]) -> str:
        """The name ``value`` resolves by (redacted, stripped), added to ``names`` and, for a
        text, kept in ``named``."""
        name = str(self.redact(value)).strip()
        names.add(name)
        if type(value) is str:
            named[value] = name
        return name

    def _prefetch_out(self, entity_ids: set[str]) -> None:
        """``_by_predicate`` for many subjects at once (``get_facts_for`` keeps each subject's
        order: t_valid, then id)."""
        wanted = sorted(entity_ids - self._out.keys())
        if not wanted:
            return
        grouped: dict[str, dict[str, list[Record]]] = {entity_id: {} for entity_id in wanted}
        for fact in self.sh.store.get_facts_for(wanted, "out"):
            grouped[fact["subject"]["id"]].setdefault(fact["predicate"], []).append(fact)
        self._out.update(grouped)
        for entity_id in wanted:
            self._standing.pop(entity_id, None)

    def predicate(self, name: str) -> Record:
        known: Record | None = self.sh.registry_memo.get(("name", name))
        if known is not None:
            return known
        self._write_entities()  # a first use may register the predicate
        return super().predicate(name)

    def mates(self, pred: dict[str, Any]) -> list[str]:
        """``writes.decision_mates``, kept with the registry's other derived answers (dropped
        with them when a registration changes the registry)."""
        key = ("decision-mates", pred["id"])
        known: list[str] | None = self.sh.registry_memo.get(key)
        if known is None:
            known = self.sh.registry_memo[key] = decision_mates(self.sh, pred)
        return known

    # --- entities ---------------------------------------------------------------------------
    def entity(self, name: str, scope: str, type: str | None) -> Record:
        cached = self._entities.get((name, scope))
        if cached is not None and (type is None or cached.get("type") is not None):
            return cached
        entity, created = self._ensure(ents.require_name(name), scope or DEFAULT_SCOPE, type)
        self._entities[(name, scope)] = entity
        if created:
            self._out[entity["id"]] = {}
            self._standing.pop(entity["id"], None)
        return entity

    def _ensure(self, name: str, scope: str, type: str | None) -> tuple[Record, bool]:
        """``entities.ensure_entity_noting_creation`` against the batch's candidates."""
        match = ents.match_among(name, self._candidates(name, scope), type)
        if match is None:
            entity: Record = {"id": self.sh.new_id("e"), "name": name, "type": type,
                              "scope": scope, "aliases": []}
            self._new_entities.append(entity)
            self._index(entity)
            return entity, True
        entity = match["entity"]
        heal_alias, heal_type = ents.healing(match, name, type)
        if heal_alias or heal_type:
            self._write_entities()
            healed = self.sh.store.update_entity(entity["id"], type=heal_type,
                                                 add_aliases=heal_alias)
            self._unindex(entity)
            self._index(healed)
            entity = healed
        return entity, False

    def resolves(self, name: str, scope: str) -> bool:
        if (name, scope) in self._entities:
            return True
        name = ents.require_name(name)
        return ents.match_among(name, self._candidates(name, scope), None) is not None

    def _candidates(self, name: str, scope: str) -> list[Record]:
        norm = normalize_entity_name(name)
        found = self._by_norm.get(norm)
        if found is None:
            found = self._by_norm[norm] = self.sh.store.find_entities_many([name], None)[name]
        return [e for e in found if e["scope"] == scope]

    def _norms(self, entity: Record) -> set[str]:
        return {normalize_entity_name(n) for n in (entity["name"], *entity.get("aliases", ()))}

    def _index(self, entity: Record) -> None:
        for norm in self._norms(entity):
            found = self._by_norm.get(norm)
            if found is not None:
                insort(found, entity, key=_entity_order)

    def _unindex(self, entity: Record) -> None:
        for norm in self._norms(entity):
            found = self._by_norm.get(norm)
            if found is not None:
                found[:] = [e for e in found if e["id"] != entity["id"]]

    # --- facts ------------------------------------------------------------------------------
    def _by_predicate(self, subject_id: str) -> dict[str, list[Any]]:
        """The subject's outgoing facts grouped by predicate, loaded once per batch."""
        grouped = self._out.get(subject_id)
        if grouped is None:
            self._standing.pop(subject_id, None)
            grouped = self._out[subject_id] = {}
            for fact in self.sh.store.get_facts(subject_id, "out"):
                grouped.setdefault(fact["predicate"], []).append(fact)
        return grouped

    def inserts_plainly(self, row: Sequence[Any], pred: Mapping[str, Any]) -> bool:
        """``logic.facts.inserts_undecided`` over the subject's facts on the predicate, whose
        object keys are kept per batch (a set, not a scan of the facts per new one)."""
        subject_id, predicate = row[SUBJECT], row[PREDICATE]
        known = self._standing.get(subject_id)
        standing = None if known is None else known.get(predicate)
        if standing is None:
            facts = self._by_predicate(subject_id).get(predicate, ())
            standing = self._standing.setdefault(subject_id, {})[predicate] = {
                F.row_object_key(f[0]) if type(f) is tuple else F.object_key(f) for f in facts}
        return F.inserts_undecided(F.row_object_key(row), pred, standing)

    def out_facts(self, subject_id: str, predicates: Iterable[str]) -> list[Record]:
        """Each fact once, as the store answers: a predicate can be named twice (``prefers``
        and ``decided-against`` are both group-mates and mention partners), and a fact met
        twice was linked (and could be superseded) twice. A plain insert of this batch is made
        whole here, once (``insert_row`` keeps its row)."""
        grouped = self._by_predicate(subject_id)
        out: list[Record] = []
        for p in dict.fromkeys(predicates):
            facts = grouped.get(p) or []
            for at, fact in enumerate(facts):
                if type(fact) is tuple:
                    fact = facts[at] = F.fact_from_row(*fact)
                out.append(fact)
        return out

    def insert(self, fact: Record) -> None:
        """Buffer the fact; its subject's cached list must include it (load the list first)."""
        subject_id, predicate = fact["subject"]["id"], fact["predicate"]
        grouped = self._by_predicate(subject_id)
        self._pending.append(fact_row(fact, checked=True))
        grouped.setdefault(predicate, []).append(fact)
        standing = self._standing.get(subject_id, {}).get(predicate)
        if standing is not None:
            standing.add(F.object_key(fact))

    def insert_row(self, row: list[Any], subject: Record, object_ref: Record | None) -> None:
        """Buffer a plain insert as its row: the statement's parameters and the log's effect
        are both taken from it, and its subject's cached list keeps (row, ends) until a
        decision needs the whole fact (``out_facts``)."""
        subject_id, predicate = subject["id"], row[PREDICATE]
        grouped = self._by_predicate(subject_id)
        self._pending.append(row)
        grouped.setdefault(predicate, []).append((row, subject, object_ref))
        standing = self._standing.get(subject_id, {}).get(predicate)
        if standing is not None:
            standing.add(F.row_object_key(row))

    # --- writing out ------------------------------------------------------------------------
    def before_change(self, subject_id: str) -> None:
        self.flush()
        self._out.pop(subject_id, None)
        self._standing.pop(subject_id, None)

    def before_store_write(self) -> None:
        self._write_entities()

    def _write_entities(self) -> None:
        if self._new_entities:
            self.sh.store.insert_entities(self._new_entities)
            self._new_entities = []

    def flush(self) -> None:
        """The buffered entities, then the buffered facts, unguarded: the batch's transaction
        is the unit (``Store.insert_fact_rows``), so a failure here ends the batch
        (``BatchFailed``) instead of counting as the item that happened to flush."""
        self._write_entities()
        if self._pending:
            try:
                self.sh.store.insert_fact_rows(self._pending, guarded=False)
            except ClaimgraphError as error:
                raise BatchFailed(error) from error
            self._pending = []


class BatchFailed(Exception):
    """An unguarded flush failed: the batch stops and its transaction rolls back (``ingest``
    raises ``error``, the store's own refusal). Not a ClaimgraphError, so no item's handler
    takes it for that item's error."""

    def __init__(self, error: ClaimgraphError) -> None:
        super().__init__(str(error))
        self.error = error
