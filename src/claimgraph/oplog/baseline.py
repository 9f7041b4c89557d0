"""A store's whole graph as oplog effects: what a log starts with on a store that has data.

A store written before its log began (an older claimgraph, a store restored from a dump
before syncing was set up) would otherwise hold rows no replica could ever learn, and that
a rebuild from the logs would drop. The baseline states them once, as ordinary effects, in
an order that replays cleanly: predicates, entities, episodes, facts (their invalidation,
links and dormancy included), then the purge tombstones.
"""

from __future__ import annotations

from typing import Any

from claimgraph.logic import oplog as L
from claimgraph.store.fact_rows import fact_row
from claimgraph.store.base import Store

Record = dict[str, Any]


def baseline_effects(store: Store) -> list[Record]:
    effects: list[Record] = []
    for row in store.list_predicates():
        effects.append({"t": "register-predicate", "predicate": {"record": "predicate", **row}})
    for entity in sorted(store.list_entities(), key=lambda e: e["id"]):
        effects.append({"t": "ensure-entity", "entity": {"record": "entity", **entity}})
    for episode in sorted(store.list_episodes(), key=lambda e: e["id"]):
        effects.append({"t": "open-episode", "episode": {"record": "episode", **episode}})
    for fact in store.all_facts():
        effects.append({"t": "insert-fact", "fact": fact_effect(fact)})
    for key, value in store.list_marks(L.SYNCED_MARK_PREFIX).items():
        effects.append({"t": "set-mark", "key": key, "value": value})
    return effects


def fact_effect(fact: Record, checked: bool = False) -> Record:
    """A fact as the log keeps it: entities by id, every field present, tagged.

    ``rec.stored_fact`` plus the tag, built with its keys in sorted order
    (``L.FACT_LINE_KEYS``) so the line is encoded without sorting."""
    return L.row_fact(fact_row(fact, checked))


def insert_effect(fact: Record, checked: bool = False) -> Record | list[Any]:
    """The insert-fact effect of ``fact`` as the outbox keeps it: its row (``fact_row``, one
    per fact of a batch), or the whole effect when a value does not fit a row."""
    row = fact_row(fact, checked)
    return row if L.row_fits(row) else {"t": "insert-fact", "fact": L.row_fact(row)}
