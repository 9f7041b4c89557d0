"""The server schema's versioning: migrations run in one transaction (all steps or none),
once even when two processes open a new store together, and a store written by a newer
claimgraph is refused before anything in it changes — as SQLite's are."""

from __future__ import annotations

import threading

import psycopg
import pytest

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.store import postgres_schema as schema
from claimgraph.store.postgres import PostgresStore
from claimgraph.store.postgres_db import PostgresDb


def tables(url: str) -> set[str]:
    db = PostgresDb(url)
    found = {row[0] for row in db.rows(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
    db.close()
    return found


def set_format(url: str, version: int) -> None:
    db = PostgresDb(url)
    db.run("UPDATE claimgraph_meta SET value = %s WHERE key = 'format'", (str(version),))
    db.close()


def test_a_store_from_a_future_format_is_refused_and_left_as_it_was(pg_url):
    PostgresStore(pg_url).close()
    set_format(pg_url, STORE_FORMAT + 1)
    before = tables(pg_url)
    for read_only in (False, True):
        with pytest.raises(ClaimgraphError) as info:
            PostgresStore(pg_url, read_only=read_only)
        err = info.value
        assert err.type == "future-format" and "upgrade" in err.hint
        assert (err.data["found"], err.data["supported"]) == (STORE_FORMAT + 1, STORE_FORMAT)
    assert tables(pg_url) == before
    db = PostgresDb(pg_url)
    assert db.one("SELECT value FROM claimgraph_meta WHERE key = 'format'")[0] == str(
        STORE_FORMAT + 1)
    db.close()


def test_a_migration_that_fails_half_way_leaves_nothing_behind(pg_url):
    broken = (schema.BASELINE, ("CREATE TABLE half_done (a INT)", "SELECT 1 / 0"))
    db = PostgresDb(pg_url)
    with pytest.raises(psycopg.errors.DivisionByZero):
        schema.migrate(db, "test store", broken)
    db.close()
    assert tables(pg_url) == set()  # not the baseline's tables, not the meta table, nothing


def test_an_older_store_is_brought_forward_by_the_steps_it_lacks(pg_url):
    db = PostgresDb(pg_url)
    assert schema.migrate(db, "test store", (schema.BASELINE,)) == 1
    later = (schema.BASELINE, ("CREATE TABLE added_later (a INT)",))
    assert schema.migrate(db, "test store", later) == 2
    assert schema.migrate(db, "test store", later) == 2  # nothing left to do
    db.close()
    assert "added_later" in tables(pg_url) and "facts" in tables(pg_url)


def test_a_reader_never_creates_or_upgrades_a_store(pg_url):
    with pytest.raises(ClaimgraphError) as info:
        PostgresStore(pg_url, read_only=True)
    assert info.value.type == "store-empty" and tables(pg_url) == set()
    db = PostgresDb(pg_url)
    schema.migrate(db, "test store", (schema.BASELINE,))
    db.close()
    with pytest.raises(ClaimgraphError) as info:
        PostgresStore(pg_url, read_only=True)
    assert info.value.type == "store-needs-upgrade"


def test_two_processes_opening_a_new_store_at_once_migrate_it_once(pg_url):
    barrier, failures = threading.Barrier(4), []

    def open_one() -> None:
        barrier.wait()
        try:
            PostgresStore(pg_url).close()
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            failures.append(error)

    workers = [threading.Thread(target=open_one) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert failures == []
    db = PostgresDb(pg_url)
    assert db.one("SELECT count(*) FROM claimgraph_meta WHERE key = 'format'")[0] == 1
    db.close()


def indexes(url: str) -> set[str]:
    db = PostgresDb(url)
    found = {row[0] for row in db.rows(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")}
    db.close()
    return found


def test_a_format_3_store_gets_the_head_indexes_with_its_facts_intact(pg_url):
    db = PostgresDb(pg_url)
    schema.migrate(db, "test store", schema.MIGRATIONS[:3])
    db.run("INSERT INTO entities (id, name, norm, type, scope, aliases, search_text) VALUES"
           " ('e-1', 'Core', 'core', 'module', 'p', '[]', 'Core'),"
           " ('e-2', 'SQLite', 'sqlite', 'library', 'p', '[]', 'SQLite')")
    db.run("INSERT INTO facts (id, subject_id, predicate, object_kind, object_ref_id, t_valid,"
           " recorded_at, confidence, epistemic, scope, source_type) VALUES ('f-1', 'e-1',"
           " 'core/depends-on', 'entity', 'e-2', 1000, 1000, 0.9, 'observation', 'p', 'code')")
    db.close()
    assert "facts_subject_predicate" in indexes(pg_url)
    store = PostgresStore(pg_url)
    heads = store.get_fact_heads_for(["e-2"], "in")
    assert [(h["id"], h["subject"], h["object_ref"]) for h in heads] == [("f-1", "e-1", "e-2")]
    assert [f["id"] for f in store.get_history("e-1", "core/depends-on")] == ["f-1"]
    store.close()
    found = indexes(pg_url)
    assert {"facts_subject_heads", "facts_object_heads"} <= found
    assert not {"facts_subject_predicate", "facts_object_ref"} & found
    db = PostgresDb(pg_url)
    with db.transaction():
        db.run("SET LOCAL enable_seqscan = off")
        plan = " ".join(r[0] for r in db.rows(
            "EXPLAIN SELECT id, subject_id, t_valid FROM facts WHERE object_ref_id = 'e-2'"))
    db.close()
    assert "Index Only Scan using facts_object_heads" in plan, plan


def test_a_format_5_store_is_read_as_it_is_and_gets_its_word_index_on_the_first_write(pg_url):
    """Format 6 only adds the words column: a reader searches a format-5 store by trigrams;
    the first writer's upgrade fills the column for the facts already there."""
    db = PostgresDb(pg_url)
    schema.migrate(db, "test store", schema.MIGRATIONS[:5])
    db.run("INSERT INTO entities (id, name, norm, type, scope, aliases, search_text) VALUES"
           " ('e-1', 'Ana', 'ana', 'person', 'p', '[]', 'Ana')")
    db.run("INSERT INTO facts (id, subject_id, predicate, object_kind, object_lit, t_valid,"
           " recorded_at, confidence, epistemic, scope, source_type) VALUES ('f-1', 'e-1',"
           " 'x/said', 'literal', 'I painted the garden fence', 1000, 1000, 0.9, 'observation',"
           " 'p', 'code')")
    db.close()
    reader = PostgresStore(pg_url, read_only=True)
    assert reader.rank_words(["painting"]) is None
    assert [f["id"] for f in reader.search("fence")["facts"]] == ["f-1"]
    reader.close()
    writer = PostgresStore(pg_url)
    assert [f["id"] for f in writer.rank_words(["paintings", "fences"])] == ["f-1"]
    writer.close()

