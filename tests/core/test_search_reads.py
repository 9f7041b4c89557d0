"""What a search reads on SQLite (docs/search.md, "Cost on a large store"): one snapshot
(the store is asked once whether another process wrote, not once per read), the query's
names resolved in one read, no statement over an empty list, and no fact read whole twice.
The results are those of the same reads made one by one (``tests/core/test_search_ties.py``
covers the order)."""

from __future__ import annotations

import sqlite3

import pytest

from claimgraph.core import Shell
from claimgraph.core.ingest import ingest
from claimgraph.core.reads import search
from claimgraph.core.vocabulary import seed
from claimgraph.opening import open_store
from tests.core.test_search_ties import NOW, turns


@pytest.fixture
def traced(tmp_path):
    """A SQLite store of tied turns, and the statements its connection runs (top level)."""
    store = open_store(str(tmp_path / "claims.db"))
    sh = Shell(store=store, clock=lambda: NOW)
    seed(sh)
    for item in turns():
        ingest(sh, [item])
    statements: list[str] = []
    connection: sqlite3.Connection = store.inner._db._conn
    connection.set_trace_callback(
        lambda sql: None if sql.startswith("--") else statements.append(" ".join(sql.split())))
    yield sh, statements
    connection.set_trace_callback(None)
    store.close()


def test_a_search_reads_one_snapshot(traced):
    sh, statements = traced
    found = search(sh, "walked to the park with my dog", limit=10)
    assert found["facts"], "the probe found nothing"
    assert statements[0] == "BEGIN" and statements[-1] == "COMMIT"
    assert statements.count("PRAGMA data_version") == 1
    assert statements.count("BEGIN") == 1


def test_the_query_names_are_resolved_in_one_read(traced):
    sh, statements = traced
    search(sh, "Priya dog park", limit=10)
    by_name = [s for s in statements if "entity_aliases" in s]
    assert len(by_name) == 1, by_name


def test_no_statement_runs_over_an_empty_list(traced):
    sh, statements = traced
    search(sh, "walked to the museum with my horse", limit=10)
    assert not [s for s in statements if "json_each('[]')" in s]


def test_each_texts_candidate_keys_come_from_one_statement(traced):
    """A token's named entities, its facts by either end and its full-text hits are read in
    one statement: the entity ids and the hits' rowids never travel to Python and back."""
    sh, statements = traced
    found = search(sh, "dog park", limit=10)
    assert found["facts"], "the probe found nothing"
    keys = [s for s in statements if "ON f.pk = j.pk" in s]  # format 8: INDEXED BY between
    assert [s for s in keys if "entity_fts MATCH" in s and " facts s " in s], keys
    assert not [s for s in statements if s.startswith("SELECT e.id FROM")], statements
    assert not [s for s in statements if s.startswith("SELECT rowid FROM fact_fts")
                and "DESC" in s], statements


def test_no_fact_is_read_whole_twice(traced):
    """The heads that tie have their text read whole; the shown ones among them are not read
    again (the turns tie on words, valid time and confidence)."""
    sh, statements = traced
    found = search(sh, "keeps me calm", limit=10)
    assert len(found["facts"]) == 10
    whole_reads = [s for s in statements if s.startswith("SELECT f.id, f.subject_id, f.predicate")]
    read = [fact_id for s in whole_reads for fact_id in _ids_in(s)]
    assert read, "the probe read no fact whole"
    assert len(read) == len(set(read)), whole_reads


def test_a_search_inside_a_write_joins_it(tmp_path):
    """Inside a caller's transaction the search reads that transaction's view (its own
    writes included), opening no snapshot of its own."""
    store = open_store(str(tmp_path / "claims.db"))
    sh = Shell(store=store, clock=lambda: NOW)
    seed(sh)
    with store.inner._db.transaction():
        ingest(sh, [turns()[0]])
        assert search(sh, "park", limit=10)["facts"]
    store.close()


def _ids_in(sql: str) -> list[str]:
    """The fact ids a statement names (``f-...`` literals, as the trace shows them)."""
    return [part.split("'")[0] for part in sql.split('"') if part.startswith("f-")]
