"""Record builders shared by the store tests (plain functions, no fixtures)."""

from __future__ import annotations

from typing import Any

from claimgraph.opening import open_store
from claimgraph.store.memory import MemoryStore
from claimgraph.store.sqlite import SqliteStore

BACKENDS = ("memory", "sqlite-memory", "sqlite-file")
#: The contract suite's backends: the local three and a PostgreSQL server (a private cluster;
#: skipped loudly where PostgreSQL is not installed, a failure in CI).
ALL_BACKENDS = (*BACKENDS, "postgres")


def make_store(kind: str, tmp_path: Any, url: str | None = None) -> Any:
    """A fresh, empty store of the named backend (``url``: the server schema for postgres)."""
    if kind == "postgres":
        from claimgraph.store.postgres import PostgresStore
        return PostgresStore(url)
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite-memory":
        return SqliteStore(":memory:")
    return open_store(tmp_path / "data" / "claims.db")


def entity(store: Any, entity_id: str, name: str, *, type: str | None = "module",
           scope: str = "proj", aliases: list[str] | None = None) -> dict:
    """Insert and return an entity with test-friendly defaults."""
    return store.insert_entity({"id": entity_id, "name": name, "type": type, "scope": scope,
                                "aliases": aliases or []})


def fact(fact_id: str, subject: Any, predicate: str = "core/depends-on", *,
         ref: Any = None, lit: str | None = None, t_valid: int = 1000, **fields: Any) -> dict:
    """A complete fact record; an entity object when ``ref`` is given, else a literal."""
    record = {
        "id": fact_id, "subject": subject, "predicate": predicate,
        "object_kind": "entity" if ref is not None else "literal",
        "object_ref": ref, "object_lit": lit, "t_valid": t_valid, "t_invalid": None,
        "recorded_at": t_valid, "last_reinforced_at": None, "confidence": 0.8,
        "epistemic": "observation", "scope": "proj", "source_type": "session-log",
        "episode": None, "conflicts": [], "invalidation_reason": None,
        "invalidation_kind": None, "successor": None, "evidence": [],
    }
    record.update(fields)
    return record
