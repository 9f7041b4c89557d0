"""What only the SQLite backend has: pragmas, the schema version, migrations, damaged files."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph import STORE_FORMAT
from claimgraph.errors import ClaimgraphError
from claimgraph.opening import open_store
from claimgraph.store import sqlite_db
from claimgraph.store import sqlite_schema, sqlite_sql
from claimgraph.store.memory import MemoryStore
from claimgraph.store.open import open_memory_store
from claimgraph.store.sqlite import SqliteStore

from .store_helpers import entity, fact


@pytest.fixture
def db(tmp_path):
    return tmp_path / "claims.db"


def _filled(path, n: int = 300) -> None:
    """A closed store file with enough rows to span many pages."""
    store = SqliteStore(path)
    entity(store, "e-1", "Core")
    store.insert_facts([fact(f"f-{i}", "e-1", lit=f"literal number {i} " * 5) for i in range(n)])
    store.close()


def _raw(path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def test_a_file_store_runs_in_wal_with_the_designed_pragmas(db):
    store = SqliteStore(db)
    assert store.pragma("journal_mode") == "wal"
    assert store.pragma("synchronous") == 1
    assert store.pragma("busy_timeout") >= 5000
    assert store.pragma("foreign_keys") == 1
    store.close()


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
       st.booleans())
def test_a_file_uri_is_the_one_pathlib_gives(name, absolute):
    """``file_uri`` builds a store's URI without ``urllib.parse``: the very text ``as_uri``
    gives, for any name (spaces, ``%``, ``?``, ``#``, any script), relative or absolute."""
    from pathlib import Path

    from claimgraph.store.sqlite_db import file_uri
    path = ("/tmp/" if absolute else "") + name.replace("\x00", "")
    assert file_uri(path) == Path(path).absolute().as_uri()


@given(st.lists(st.sampled_from(["", ".", "..", "a", "b c", "%", "é"]), max_size=6),
       st.sampled_from(["", "/", "//", "///"]))
def test_a_file_uri_keeps_the_path_as_pathlib_does_without_pathlib(parts, lead):
    """Dots, doubled slashes, a leading ``//`` and ``..`` (never resolved: across a symbolic
    link that would name another file) come out of ``file_uri`` as ``Path.absolute`` leaves
    them, though the module no longer imports ``pathlib`` (the SessionStart hook's "no fact"
    answer loads it through nothing else)."""
    from pathlib import Path

    from claimgraph.store.sqlite_peek import file_uri
    path = lead + "/".join(parts)
    assert file_uri(path) == Path(path).absolute().as_uri()


def test_a_reader_runs_only_the_pragmas_a_read_uses(db):
    """A read-only connection waits out a writer, sorts in memory and maps the file; the
    write-only pragmas are left at SQLite's defaults (it never writes)."""
    SqliteStore(db).close()
    reader = SqliteStore(db, read_only=True)
    try:
        assert reader.pragma("busy_timeout") >= 5000
        assert reader.pragma("temp_store") == 2  # MEMORY
        assert reader.pragma("mmap_size") > 0
        assert reader.pragma("foreign_keys") == 0
    finally:
        reader.close()


def test_the_schema_version_is_stored_in_the_database(db):
    store = SqliteStore(db)
    assert store.schema_version() == STORE_FORMAT == len(sqlite_schema.MIGRATIONS)
    store.close()
    con = _raw(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == STORE_FORMAT
    assert con.execute("PRAGMA application_id").fetchone()[0] == sqlite_schema.APPLICATION_ID
    con.close()


def test_data_survives_closing_and_reopening(db):
    store = SqliteStore(db)
    entity(store, "e-1", "Core", aliases=["kernel"])
    store.insert_fact(fact("f-1", "e-1", lit="persisted literal", evidence=["a.py: x"]))
    store.set_mark("hw", {"line": 7})
    before = (store.all_facts(), store.list_entities(), store.stats())
    store.close()
    again = SqliteStore(db)
    assert (again.all_facts(), again.list_entities(), again.stats()) == before
    assert again.get_mark("hw") == {"line": 7}
    assert [e["id"] for e in again.search("persisted")["facts"]] == ["f-1"]
    again.close()


def test_a_database_from_a_future_format_is_refused_naming_both_versions(db):
    SqliteStore(db).close()
    con = _raw(db)
    con.execute(f"PRAGMA user_version = {STORE_FORMAT + 1}")
    con.close()
    with pytest.raises(ClaimgraphError) as info:
        SqliteStore(db)
    err = info.value
    assert err.type == "future-format"
    assert f"format {STORE_FORMAT + 1}" in err.message and f"format {STORE_FORMAT} " in err.message
    assert "upgrade" in err.hint and (err.data["found"], err.data["supported"]) == (
        STORE_FORMAT + 1, STORE_FORMAT)


def test_a_file_that_is_not_sqlite_is_a_corrupt_store(db):
    db.write_text("these are not the pages you are looking for\n" * 50)
    with pytest.raises(ClaimgraphError) as info:
        SqliteStore(db)
    assert info.value.type == "corrupt-store"
    assert str(db) in info.value.message and info.value.hint


def test_a_truncated_database_is_a_corrupt_store(db):
    _filled(db)
    size = db.stat().st_size
    with db.open("r+b") as handle:
        handle.truncate(size // 2)
    with pytest.raises(ClaimgraphError) as info:
        SqliteStore(db).all_facts()
    assert info.value.type == "corrupt-store" and "truncated" in info.value.message


def test_damaged_pages_surface_as_corrupt_store_not_a_traceback(db):
    _filled(db)
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = b"\xa5" * (len(data) - page)
    db.write_bytes(bytes(data))
    with pytest.raises(ClaimgraphError) as info:
        store = SqliteStore(db)
        store.all_facts()
        store.search("literal number")
    assert info.value.type == "corrupt-store"


def test_another_programs_database_is_never_migrated(db):
    con = _raw(db)
    con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    con.close()
    with pytest.raises(ClaimgraphError) as info:
        SqliteStore(db)
    assert info.value.type == "not-a-store"
    con = _raw(db)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["photos"]
    con.close()


def test_a_failing_migration_step_leaves_nothing_half_applied(db):
    SqliteStore(db).close()
    broken = (*sqlite_schema.MIGRATIONS,
              ("CREATE TABLE added_by_v2 (x)", "ALTER TABLE no_such_table ADD COLUMN y"))
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=broken)
    con = _raw(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == STORE_FORMAT
    assert not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'added_by_v2'").fetchall()
    con.close()


def test_a_failing_baseline_leaves_a_new_file_empty(db):
    broken = ((*sqlite_schema.BASELINE, "CREATE TABLE entities (x)"),)
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=broken)
    con = _raw(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    con.close()


def test_migrations_run_forward_and_the_result_is_then_too_new_for_this_build(db):
    _filled(db, 3)
    newer = (*sqlite_schema.MIGRATIONS, ("ALTER TABLE facts ADD COLUMN note TEXT",))
    store = SqliteStore(db, migrations=newer)
    assert store.schema_version() == STORE_FORMAT + 1 and len(store.all_facts()) == 3
    store.close()
    with pytest.raises(ClaimgraphError, match="format"):
        SqliteStore(db)


def test_a_writer_starved_of_the_lock_gets_store_busy(db, monkeypatch):
    monkeypatch.setattr(sqlite_db, "BUSY_TIMEOUT_MS", 50)
    store = SqliteStore(db)
    other = _raw(db)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(ClaimgraphError) as info:
        store.set_mark("k", 1)
    assert info.value.type == "store-busy"
    other.execute("ROLLBACK")
    store.set_mark("k", 1)
    assert store.get_mark("k") == 1
    other.close()
    store.close()


def test_cached_entities_follow_commits_from_another_connection(db):
    reader, writer = SqliteStore(db), SqliteStore(db)
    entity(writer, "e-1", "Core")
    writer.insert_fact(fact("f-1", "e-1", lit="x"))
    assert reader.get_fact("f-1")["subject"]["name"] == "Core"
    writer.update_entity("e-1", name="Kernel")
    assert reader.get_fact("f-1")["subject"]["name"] == "Kernel"
    assert reader.get_entity_by_id("e-1")["name"] == "Kernel"
    reader.close()
    writer.close()


def test_a_transaction_sees_commits_made_just_before_it_began(db):
    mine, theirs = SqliteStore(db), SqliteStore(db)
    entity(theirs, "e-1", "Core")
    assert mine.get_entity_by_id("e-1")["name"] == "Core"
    theirs.update_entity("e-1", name="Kernel")
    with mine.transaction():
        assert mine.get_entity_by_id("e-1")["name"] == "Kernel"
    mine.close()
    theirs.close()


def test_a_store_belongs_to_the_thread_that_opened_it(db):
    store = SqliteStore(db)
    errors: list[BaseException] = []

    def use() -> None:
        try:
            store.get_mark("k")
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)
    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert errors and isinstance(errors[0], sqlite3.ProgrammingError)
    store.close()


def test_literals_inserted_in_a_transaction_are_indexed_at_commit(db):
    store = SqliteStore(db)
    entity(store, "e-1", "Core")
    with store.transaction():
        store.insert_facts([fact(f"f-{i}", "e-1", lit=f"batch literal {i}") for i in range(50)])
        store.insert_fact(fact("f-late", "e-1", lit="late literal"))
    store.close()
    again = SqliteStore(db)
    assert len(again.search("batch literal", limit=100)["facts"]) == 50
    assert [f["id"] for f in again.search("late lit")["facts"]] == ["f-late"]
    again.close()


# --- open_store -----------------------------------------------------------------------------
def test_open_store_creates_the_directory_the_file_and_the_stamp(tmp_path):
    db = tmp_path / "deep" / "er" / "claims.db"
    store = open_store(db)
    assert db.exists() and (tmp_path / "deep" / "er" / "claims.db.version").exists()
    store.close()
    open_store(db, create=False).close()


def test_open_store_refuses_a_missing_store_when_asked_not_to_create(tmp_path):
    with pytest.raises(ClaimgraphError) as info:
        open_store(tmp_path / "nope.db", create=False)
    assert info.value.type == "store-missing"
    assert not (tmp_path / "nope.db").exists()


def test_open_store_refuses_a_future_stamp_before_touching_the_database(tmp_path):
    db = tmp_path / "claims.db"
    (tmp_path / "claims.db.version").write_text('{"format": 99, "version": "9.0.0"}')
    with pytest.raises(ClaimgraphError) as info:
        open_store(db)
    assert info.value.type == "future-format" and "99" in info.value.message
    assert not db.exists()


def test_open_store_refuses_a_directory(tmp_path):
    with pytest.raises(ClaimgraphError) as info:
        open_store(tmp_path)
    assert info.value.type == "store-is-directory"


def test_open_store_supports_memory_stores():
    store = open_store(":memory:")
    assert isinstance(store, SqliteStore) and store.is_empty()
    store.close()
    assert isinstance(open_memory_store(), MemoryStore)


def test_the_search_indexes_stay_consistent_through_every_kind_of_write(db):
    store = SqliteStore(db)
    entity(store, "e-1", "Core", aliases=["kernel"])
    entity(store, "e-2", "Husk")
    with store.transaction():
        store.insert_facts([fact(f"f-{i}", "e-1", lit=f"literal {i}") for i in range(20)])
        store.update_entity("e-1", name="Kernel", add_aliases=["core"], remove_aliases=["kernel"])
        store.delete_entity("e-2")
        with pytest.raises(ClaimgraphError):
            store.insert_facts([fact("f-x", "e-1", lit="rolled back"),
                                fact("f-0", "e-1", lit="dup")])
    with pytest.raises(RuntimeError), store.transaction():
        entity(store, "e-3", "Ghost")
        store.insert_fact(fact("f-ghost", "e-3", lit="ghost literal"))
        raise RuntimeError("abort")
    store.open_episode({"id": "ep-1", "ref": "r", "summary": "first summary"})
    store.close_episode("ep-1", "second summary", 5)
    for table in ("entity_fts", "fact_fts", "episode_fts"):
        store._db.run(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
    assert [e["id"] for e in store.search("kernel")["entities"]] == ["e-1"]
    assert store.search("husk")["entities"] == [] and store.search("ghost")["facts"] == []
    assert store.search("rolled back")["facts"] == []
    assert store.search("first summ")["episodes"] == []
    store.close()


def test_a_store_whose_directory_cannot_exist_is_a_clear_error(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a directory should be")
    with pytest.raises(ClaimgraphError) as info:
        open_store(blocker / "sub" / "claims.db")
    assert info.value.type == "store-unopenable" and info.value.hint
    with pytest.raises(ClaimgraphError) as info:
        SqliteStore(blocker / "claims.db")
    assert info.value.type == "store-unopenable" and str(blocker) in info.value.message


# --- format 1 -> 2: the dormant state and the audit verdicts --------------------------------
def _version_1_file(path) -> None:
    """A store as the format-1 build left it: the baseline schema with an entity and two facts."""
    SqliteStore(path, migrations=sqlite_schema.MIGRATIONS[:1]).close()
    con = _raw(path)
    con.execute("INSERT INTO entities (id, name, norm, type, scope, aliases)"
                " VALUES ('e-1', 'Core', 'core', 'module', 'proj', '[]')")
    for i, lit in ((1, "uses sqlite"), (2, "prefers uv")):
        con.execute("INSERT INTO facts (id, subject_id, predicate, object_kind, object_lit, "
                    "t_valid,"
                    " recorded_at, confidence, epistemic, scope, source_type, evidence) VALUES"
                    f" ('f-{i}', 'e-1', 'core/prefers', 'literal', '{lit}', {i}000, {i}000, 0.8,"
                    " 'observation', 'proj', 'session-log', '[\"src/a.py: `a`\"]')")
        con.execute(f"INSERT INTO fact_fts (rowid, object_lit) SELECT pk, object_lit FROM facts"
                    f" WHERE id = 'f-{i}'")
    con.execute("INSERT INTO marks (key, value) VALUES ('capture.high', '42')")
    assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    con.close()


def _failing_at(version: int) -> tuple[tuple[str, ...], ...]:
    """The real migrations up to ``version``, whose step to it fails after all its statements."""
    steps = sqlite_schema.MIGRATIONS
    return (*steps[:version - 1], (*steps[version - 1], "ALTER TABLE no_such_table ADD COLUMN y"))


def _columns(path, table: str) -> list[str]:
    con = _raw(path)
    try:
        return [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
    finally:
        con.close()


def test_the_current_format_adds_decay_and_audit_the_read_then_the_head_indexes_on_the_baseline():
    assert STORE_FORMAT == 8 == len(sqlite_schema.MIGRATIONS)
    assert sqlite_schema.MIGRATIONS[0] is sqlite_schema.BASELINE
    assert sqlite_schema.MIGRATIONS[1] is sqlite_schema.DECAY_AND_AUDIT
    assert sqlite_schema.MIGRATIONS[2] is sqlite_schema.READ_INDEXES
    assert sqlite_schema.MIGRATIONS[3] is sqlite_schema.HEAD_INDEXES
    assert sqlite_schema.MIGRATIONS[4] is sqlite_schema.MARKS_TABLE
    assert sqlite_schema.MIGRATIONS[5] is sqlite_schema.WORD_INDEX
    assert sqlite_schema.MIGRATIONS[6] is sqlite_schema.FACT_TOUCHES
    assert sqlite_schema.MIGRATIONS[7] is sqlite_schema.SEARCH_KEYS


def test_a_version_1_file_migrates_to_2_with_its_data_intact(db):
    _version_1_file(db)
    assert "dormant_since" not in _columns(db, "facts")
    store = SqliteStore(db)
    assert store.schema_version() == STORE_FORMAT
    facts = store.all_facts()
    assert [(f["id"], f["object_lit"], f["dormant_since"], f["evidence"]) for f in facts] == [
        ("f-1", "uses sqlite", None, ["src/a.py: `a`"]),
        ("f-2", "prefers uv", None, ["src/a.py: `a`"])]
    assert facts[0]["subject"]["name"] == "Core" and store.get_mark("capture.high") == 42
    assert [f["id"] for f in store.search("sqlite")["facts"]] == ["f-1"]
    assert store.dormant_fact_ids() == [] and store.get_audit() == []
    store.set_dormant(["f-1"], 5000)
    store.record_audit([{"fact_id": "f-2", "evidence": "src/a.py: `a`", "file": "src/a.py",
                         "verdict": "file-missing", "checked_at": 5000}])
    store.close()
    reopened = SqliteStore(db)
    assert reopened.dormant_fact_ids() == ["f-1"] and reopened.suspect_fact_ids() == ["f-2"]
    reopened.close()


def test_open_store_migrates_a_version_1_file_and_restamps_it(tmp_path):
    path = tmp_path / "claims.db"
    _version_1_file(path)
    stamp = tmp_path / "claims.db.version"
    stamp.write_text('{"format": 1, "version": "0.1.0"}\n')
    store = open_store(path)
    assert store.schema_version() == STORE_FORMAT and len(store.all_facts()) == 2
    store.close()
    assert f'"format": {STORE_FORMAT}' in stamp.read_text()


def test_a_failing_step_of_the_2_migration_leaves_a_version_1_file_untouched(db):
    _version_1_file(db)
    broken = _failing_at(2)
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=broken)
    con = _raw(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    assert not con.execute("SELECT 1 FROM sqlite_master WHERE name IN"
                           " ('audit_verdicts', 'facts_dormant')").fetchall()
    assert con.execute("SELECT count(*) FROM facts").fetchone()[0] == 2
    con.close()
    assert "dormant_since" not in _columns(db, "facts")
    store = SqliteStore(db)  # and the real migration still succeeds afterwards
    assert store.schema_version() == STORE_FORMAT and len(store.all_facts()) == 2
    store.close()


# --- format 2 -> 3: the read indexes ---------------------------------------------------------
def _indexes(path) -> set[str]:
    con = _raw(path)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'"
                                          " AND name NOT LIKE 'sqlite_autoindex%'")}
    finally:
        con.close()


def _plan(store: SqliteStore, sql: str, params: list) -> str:
    return " ".join(str(row[-1]) for row in store._db.rows("EXPLAIN QUERY PLAN " + sql, params))


def test_a_version_2_file_migrates_to_3_with_its_data_and_marks_intact(db):
    _version_1_file(db)
    SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:2]).close()
    assert "facts_t_invalid" in _indexes(db) and "facts_scope" not in _indexes(db)
    store = SqliteStore(db)
    assert store.schema_version() == STORE_FORMAT
    assert [f["id"]
            for f in store.select_facts(scopes=["proj"], valid_cheap=True)] == ["f-1", "f-2"]
    assert store.get_mark("capture.high") == 42
    assert [f["id"] for f in store.search("sqlite")["facts"]] == ["f-1"]
    store.close()
    found = _indexes(db)
    assert {"facts_scope", "facts_valid_recorded", "facts_cited"} <= found
    assert "facts_t_invalid" not in found


def test_a_failing_step_of_the_3_migration_leaves_a_version_2_file_untouched(db):
    _version_1_file(db)
    SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:2]).close()
    broken = _failing_at(3)
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=broken)
    assert _raw(db).execute("PRAGMA user_version").fetchone()[0] == 2
    assert "facts_t_invalid" in _indexes(db) and "facts_scope" not in _indexes(db)


def test_a_projects_facts_and_decays_candidates_are_read_through_an_index():
    """Neither read may scan the facts table: both grow with the store, not the project."""
    store = SqliteStore(":memory:")
    sql, params = sqlite_sql.select_facts({"scope": ["p1"]}, None, None, False, True)
    assert "USING INDEX facts_scope (scope=? AND t_invalid=?)" in _plan(store, sql, params)
    sql, params = sqlite_sql.select_facts({}, None, 1000, False, True)
    assert "facts_valid_recorded (t_invalid=? AND recorded_at<?)" in _plan(store, sql, params)


def test_facts_not_ended_at_an_instant_are_read_through_the_narrowest_index():
    """``valid_at`` is an OR of two ranges of ``t_invalid``: beside a scope, a conflict link
    or a citation it must not send the planner through the validity index (every live fact
    of the store) but through the scope index, the link table or ``facts_cited``."""
    store = SqliteStore(":memory:")
    for lists in ({"scope": ["p1"]}, {"scope": ["p1", "user"]}):
        plan = _plan(store, *sqlite_sql.select_facts(lists, None, None, False, False,
                                                     valid_at=5))
        assert "USING INDEX facts_scope (scope=?)" in plan and "facts_valid_recorded" not in plan
    plan = _plan(store, *sqlite_sql.select_facts({}, None, None, True, False, valid_at=5))
    assert "SCAN conflict_links" in plan and "facts_valid_recorded" not in plan, plan
    plan = _plan(store, *sqlite_sql.select_facts({}, None, None, False, False,
                                                 with_evidence=True, valid_at=5))
    assert "USING INDEX facts_cited" in plan and "facts_valid_recorded" not in plan, plan
    plan = _plan(store, *sqlite_sql.select_facts({}, None, None, False, False, valid_at=5))
    assert "facts_valid_recorded (t_invalid=?)" in plan, plan
    assert "facts_valid_recorded (t_invalid>?)" in plan, plan


def test_time_travel_reads_the_projects_facts_not_every_live_fact():
    """What was believed at an instant (the viewer's time travel) walks the scopes' facts
    through the scope index; through the validity index it walked every live fact of the
    store (100,000 at 100,000 facts over 50 projects, for a project of 2,000)."""
    from claimgraph.store import sqlite_sections
    store = SqliteStore(":memory:")
    statements, params = sqlite_sections.believed_at(["p1", "user"], 5_000, 4_000, 200, 30.0)
    for sql in statements:
        plan = _plan(store, sql, params)
        assert "USING INDEX facts_scope (scope=?" in plan, plan
        assert "facts_valid_recorded" not in plan, plan


def test_the_held_candidates_are_one_pass_over_the_live_facts():
    """The review's held candidates make each fact's words once (a materialized pass), not
    once per word looked for, and a project's through the scope index."""
    from claimgraph.store import sqlite_sections
    store = SqliteStore(":memory:")
    for at in (None, 5):
        sql, params = sqlite_sections.held_candidates(["p1"], at)
        plan = _plan(store, sql, params)
        assert "MATERIALIZE shown" in plan and "USING INDEX facts_scope (scope=?" in plan, plan


def test_the_audits_cited_facts_and_the_dormant_ids_are_read_through_their_indexes():
    """The audit reads only facts that cite something; the dormant list sorts its few ids
    instead of walking every fact's id in order."""
    store = SqliteStore(":memory:")
    sql, params = sqlite_sql.select_facts({}, None, None, False, True, with_evidence=True)
    assert "USING INDEX facts_cited (t_invalid=?)" in _plan(store, sql, params)
    assert "USING INDEX facts_dormant" in _plan(store, sqlite_sql.DORMANT_IDS, [])


# --- format 3 -> 4: the end indexes carry the fact heads ---------------------------------------
def _version_3_file(path) -> None:
    """The format-1 file migrated to 3, plus a fact whose object is an entity."""
    _version_1_file(path)
    SqliteStore(path, migrations=sqlite_schema.MIGRATIONS[:3]).close()
    con = _raw(path)
    con.execute("INSERT INTO entities (id, name, norm, type, scope, aliases)"
                " VALUES ('e-2', 'SQLite', 'sqlite', 'library', 'proj', '[]')")
    con.execute("INSERT INTO facts (id, subject_id, predicate, object_kind, object_ref_id, t_valid,"
                " t_invalid, recorded_at, confidence, epistemic, scope, source_type) VALUES"
                " ('f-3', 'e-1', 'core/depends-on', 'entity', 'e-2', 3000, 4000, 3000, 0.9,"
                " 'observation', 'proj', 'code')")
    con.execute("INSERT INTO entity_fts (rowid, text) SELECT pk, name FROM entities WHERE id = "
                "'e-2'")
    con.commit()
    con.close()


def test_a_version_3_file_migrates_to_4_with_its_data_and_marks_intact(db):
    _version_3_file(db)
    assert {"facts_subject_predicate", "facts_object_ref"} <= _indexes(db)
    before = SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:3])
    facts, heads = before.all_facts(), before.get_fact_heads_for(["e-1", "e-2"], "both")
    before.close()
    store = SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:4])
    assert store.schema_version() == 4
    assert store.all_facts() == facts and len(facts) == 3
    assert sorted(store.get_fact_heads_for(["e-1", "e-2"], "both"), key=lambda h: h["id"]) == \
        sorted(heads, key=lambda h: h["id"])
    assert [h["id"] for h in store.get_fact_heads_for(["e-2"], "in")] == ["f-3"]
    assert [f["id"] for f in store.get_history("e-1", "core/prefers")] == ["f-1", "f-2"]
    assert store.get_mark("capture.high") == 42
    assert [f["id"] for f in store.search("sqlite")["facts"]] == ["f-1", "f-3"]
    store.close()
    found = _indexes(db)
    assert {"facts_subject_heads", "facts_object_heads"} <= found
    assert not {"facts_subject_predicate", "facts_object_ref"} & found
    assert SqliteStore(db).check_integrity(quick=False) == []


def test_a_failing_step_of_the_4_migration_leaves_a_version_3_file_untouched(db):
    _version_3_file(db)
    broken = _failing_at(4)
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=broken)
    assert _raw(db).execute("PRAGMA user_version").fetchone()[0] == 3
    found = _indexes(db)
    assert {"facts_subject_predicate", "facts_object_ref"} <= found
    assert not {"facts_subject_heads", "facts_object_heads"} & found
    store = SqliteStore(db)  # and the real migration still succeeds afterwards
    assert store.schema_version() == STORE_FORMAT and len(store.all_facts()) == 3
    store.close()


# --- format 4 -> 5: marks becomes a rowid table ------------------------------------------------
def _table_sql(path, name: str) -> str:
    con = _raw(path)
    try:
        return con.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
    finally:
        con.close()


def _version_4_file_with_a_big_mark(path) -> None:
    _version_3_file(path)
    SqliteStore(path, migrations=sqlite_schema.MIGRATIONS[:4]).close()
    con = _raw(path)
    con.execute("INSERT INTO marks (key, value) VALUES ('oplog:outbox', ?)",
                ('{"lines": ["' + "x" * 300_000 + '"]}',))
    con.commit()
    con.close()


def test_a_version_4_file_migrates_to_5_with_every_mark_intact(db):
    """A large value (the oplog's outbox after a big batch) in a WITHOUT ROWID table is copied
    whole by every lookup of ANY key that compares against it; as a rowid table it is not."""
    _version_4_file_with_a_big_mark(db)
    assert "WITHOUT ROWID" in _table_sql(db, "marks")
    store = SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:5])
    assert store.schema_version() == 5
    assert store.get_mark("capture.high") == 42
    assert store.get_mark("oplog:outbox") == {"lines": ["x" * 300_000]}
    assert len(store.all_facts()) == 3
    store.set_mark("capture.high", 43)
    store.close()
    assert "WITHOUT ROWID" not in _table_sql(db, "marks")
    assert SqliteStore(db).get_mark("capture.high") == 43


def test_a_failing_step_of_the_5_migration_leaves_a_version_4_file_untouched(db):
    _version_4_file_with_a_big_mark(db)
    broken = _failing_at(5)
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=broken)
    assert _raw(db).execute("PRAGMA user_version").fetchone()[0] == 4
    assert "WITHOUT ROWID" in _table_sql(db, "marks")
    store = SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:5])
    assert store.schema_version() == 5 and store.get_mark("capture.high") == 42
    store.close()


def test_a_reader_reads_a_version_4_file_as_it_is_but_refuses_a_version_3_one(db, tmp_path):
    """Format 5 changed only how marks are stored, so a read (the SessionStart hook on a store
    not written since the upgrade) still works without migrating; format 3 lacks indexes the
    reads rely on, and is refused with the way out."""
    _version_4_file_with_a_big_mark(db)
    reader = SqliteStore(db, read_only=True)
    assert reader.schema_version() == 4 and reader.stats()["format"] == 4
    assert len(reader.all_facts()) == 3 and reader.get_mark("capture.high") == 42
    reader.close()
    assert _raw(db).execute("PRAGMA user_version").fetchone()[0] == 4  # nothing migrated
    older = tmp_path / "three.db"
    _version_3_file(older)
    with pytest.raises(ClaimgraphError) as refused:
        SqliteStore(older, read_only=True)
    assert refused.value.type == "store-needs-upgrade"
    assert f"format {STORE_FORMAT}" in refused.value.message


# --- format 5 -> 6: the word index ------------------------------------------------------------
def _version_5_file(path) -> None:
    """A format-5 store with facts in words: painting, a chess club, a version."""
    _version_1_file(path)
    SqliteStore(path, migrations=sqlite_schema.MIGRATIONS[:5]).close()
    con = _raw(path)
    for i, lit in ((3, "went to the chess club meetup yesterday"), (4, "painted the garden fence")):
        con.execute("INSERT INTO facts (id, subject_id, predicate, object_kind, object_lit, "
                    "t_valid,"
                    " recorded_at, confidence, epistemic, scope, source_type) VALUES"
                    f" ('f-{i}', 'e-1', 'x/said', 'literal', '{lit}', {i}000, {i}000, 0.8,"
                    " 'observation', 'proj', 'session-log')")
        con.execute(f"INSERT INTO fact_fts (rowid, object_lit) SELECT pk, object_lit FROM facts"
                    f" WHERE id = 'f-{i}'")
    con.commit()
    con.close()


def test_a_version_5_file_migrates_to_the_current_format_and_its_facts_rank_by_their_words(db):
    _version_5_file(db)
    assert "fact_words" not in _table_names(db)
    store = SqliteStore(db)
    assert store.schema_version() == STORE_FORMAT == 8  # through 6, 7 (touches), 8 (keys)
    assert [f["id"] for f in store.rank_words(["painting"], 10)] == ["f-4"]
    assert [f["id"] for f in store.rank_words(["clubs", "meetups"], 10)] == ["f-3"]
    store.close()
    assert "fact_words" in _table_names(db)


def test_the_word_index_follows_new_edited_and_deleted_facts(db):
    _version_5_file(db)
    store = SqliteStore(db)
    with store.transaction():
        store._db.run("UPDATE facts SET object_lit = 'sketched the garden fence' WHERE id = 'f-4'")
    assert store.rank_words(["painting"], 10) == []
    assert [f["id"] for f in store.rank_words(["sketches"], 10)] == ["f-4"]
    store.delete_facts(["f-3"])
    assert store.rank_words(["club"], 10) == []
    assert store.check_integrity(quick=False) == []
    store.close()


def test_a_failing_step_of_the_6_migration_leaves_a_version_5_file_untouched(db):
    _version_5_file(db)
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db, migrations=_failing_at(6))
    assert _raw(db).execute("PRAGMA user_version").fetchone()[0] == 5
    assert "fact_words" not in _table_names(db)


def test_a_reader_reads_a_version_5_file_as_it_is_ranking_without_the_word_index(db):
    """The word index only adds a route: a reader (the SessionStart hook, a read-only
    ``search``) of a store not yet upgraded still reads and searches it by trigrams."""
    _version_5_file(db)
    reader = SqliteStore(db, read_only=True)
    assert reader.schema_version() == 5 and reader.rank_words(["painting"], 10) is None
    assert [f["id"] for f in reader.search("fence")["facts"]] == ["f-4"]
    reader.close()
    assert _raw(db).execute("PRAGMA user_version").fetchone()[0] == 5
    older = SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:5])  # no word index to check
    assert older.check_integrity(quick=False) == []
    older.close()


def _table_names(path) -> set[str]:
    con = _raw(path)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        con.close()


@pytest.mark.parametrize("direction, ends", [
    ("out", ["e-1"]), ("out", ["e-1", "e-2"]), ("in", ["e-2"]), ("in", ["e-1", "e-2"]),
    ("both", ["e-1"]), ("both", ["e-1", "e-2"])])
def test_fact_heads_are_read_from_the_end_indexes_alone(direction, ends):
    """Ranking a popular entity's facts must not read each fact's row: every side of the
    heads query is a search of a covering index, never the table."""
    store = SqliteStore(":memory:")
    for select in (sqlite_sql.FACT_HEAD_SELECT, sqlite_sql.FACT_HEAD_NO_ENDS_SELECT):
        plan = _plan(store, *sqlite_sql.facts_touching(ends, direction, None, select, ""))
        sides = {"out": ["subject"], "in": ["object"], "both": ["subject", "object"]}[direction]
        for side in sides:
            assert f"USING COVERING INDEX facts_{side}_heads" in plan, plan
        assert plan.count("SEARCH f USING") == len(sides), plan


def test_searchs_bounded_entity_routes_keep_walking_the_end_indexes_in_key_order():
    """Search's subject and object parts (``sqlite_sql.search_keys``) take the first rows an
    index gives (LIMIT, no ORDER BY): the head indexes keep the old key order, so the same
    candidates come back, and their sort keys come from the index alone."""
    store = SqliteStore(":memory:")
    for sql in (sqlite_sql.search_keys_for(*kind) for kind in sqlite_sql.SEARCH_KEY_KINDS):
        plan = _plan(store, sql, {"phrase": '"core"', "limit": 5, "named": "[1]", "texts": "[1]"})
        for side in ("subject", "object"):
            assert (f"COVERING INDEX facts_{side}_heads" in plan) == ("named AS" in sql), plan
    subject_cols = [r[2] for r in store._db.rows("PRAGMA index_info(facts_subject_heads)")]
    object_cols = [r[2] for r in store._db.rows("PRAGMA index_info(facts_object_heads)")]
    assert subject_cols[:4] == ["subject_id", "predicate", "t_valid", "pk"]
    assert object_cols[:2] == ["object_ref_id", "pk"]


def test_the_lenders_episodes_are_sized_without_walking_them():
    """Search's episode arm, its lenders' episodes known, counts each on the episode index up
    to the cap (two seeks, or a bounded count): an episode is never walked whole to find
    which episodes were given (a DISTINCT over the index walked 50k entries a search)."""
    store = SqliteStore(":memory:")
    plan = _plan(store, sqlite_sql.SMALL_EPISODES_AMONG, {"ids": '["ep-1"]', "cap": 301})
    assert "SCAN json_each" in plan, plan
    assert "SCAN m" not in plan and "SCAN f" not in plan, plan
    assert plan.count("SEARCH m USING COVERING INDEX facts_episode (episode=?)") == 3, plan


def test_search_keys_sort_in_python_as_the_sql_search_order():
    """Search sorts its candidates' key rows in Python; the kept facts are then read with the
    SQL order. Both must agree on every key: NULL and set t_invalid, equal valid times, ids that
    differ only in case or past ASCII."""
    import random
    rng = random.Random(5)
    ids = ["f-a", "f-B", "f-b", "f-é", "f-€", "f-\U0001f600", "F-a", "f-a0", "f-", "f-z"]
    store = SqliteStore(":memory:")
    entity(store, "e-1", "Core")
    store.insert_facts([fact(f"{ids[i % 10]}{i}", "e-1", lit="x",
                             t_valid=rng.choice([1, 2, 10**12]),
                             t_invalid=rng.choice([None, 10**13])) for i in range(200)])
    every = json.dumps(list(range(1, 201)))
    in_sql = [r[0] for r in store._db.rows("SELECT f.pk FROM facts f WHERE f.pk IN"
                                           " (SELECT value FROM json_each(?))"
                                           + sqlite_sql._SEARCH_ORDER, (every,))]
    by_pk = sqlite_sql.search_keys_for("none", "given", False)  # a reader of format 7 or older
    keys = store._db.rows(by_pk, {"texts": every, "limit": -1})  # -1: no limit
    assert [k[-1] for k in sorted(keys)] == in_sql
    assert [k[-1] for k in keys] == in_sql  # SQLite's own sort of the key rows agrees
    assert [k[-1] for k in store._db.rows(by_pk, {"texts": every, "limit": 7})] == in_sql[:7]
    assert len({k[1] for k in keys}) == 3 and {k[0] for k in keys} == {0, 1}


def test_a_file_store_reads_through_a_memory_map():
    """Search at 1M facts touches thousands of scattered pages: mapped, not copied by read()."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(f"{tmp}/claims.db")
        assert store.pragma("mmap_size") >= 1 << 30
        store.close()


@pytest.mark.parametrize("matches, best", [(12, "f-03"), (10, "f-01"), (3, "f-01")])
def test_a_phrase_of_several_words_keeps_the_newest_hits_however_it_reads_them(matches, best):
    """Full-text candidates are the newest ten times the limit. A phrase with a space is read
    oldest first while it matches no more than that; past it, the newest are walked back to.
    Here newer facts (higher rowids) hold older valid times, so the candidate set shows."""
    store = SqliteStore(":memory:")
    entity(store, "e-1", "Core")
    store.insert_facts([fact(f"f-{i:02d}", "e-1", lit="retry postgres", t_valid=1000 - i)
                        for i in range(1, matches + 1)])
    assert [f["id"] for f in store.search_facts("retry postgres", limit=1)] == [best]
    assert [f["id"] for f in store.search_facts("retry postgres", limit=20)] == [
        f"f-{i:02d}" for i in range(1, matches + 1)]


def test_search_keeps_the_best_of_the_union_of_its_routes_when_they_overlap():
    """Each route hands back only its own best keys; the best of the union must still be
    the best of every candidate (facts found by text AND by their subject included)."""
    store = SqliteStore(":memory:")
    entity(store, "e-r", "RetryPolicy")
    entity(store, "e-o", "Other")
    store.insert_facts(
        [fact(f"f-r{i:02d}", "e-r", lit=f"retry {i}", t_valid=(i * 37) % 101) for i in range(30)]
        + [fact(f"f-o{i:02d}", "e-o", lit=f"retry again {i}", t_valid=(i * 53) % 97,
                t_invalid=200 if i % 4 == 0 else None) for i in range(40)])
    candidates = {r[0] for r in store._db.rows(
        "SELECT rowid FROM fact_fts WHERE fact_fts MATCH '\"retry\"' ORDER BY rowid DESC LIMIT 50")}
    candidates |= {r[0] for r in store._db.rows("SELECT pk FROM facts WHERE subject_id = 'e-r'")}
    best = store._db.rows("SELECT f.id FROM facts f WHERE f.pk IN (SELECT value FROM json_each(?))"
                          + sqlite_sql._SEARCH_ORDER + " LIMIT 5",
                          (json.dumps(sorted(candidates)),))
    assert [f["id"] for f in store.search_facts("retry", limit=5)] == [r[0] for r in best]
    assert [f["id"] for f in store.search("retry", limit=5)["facts"]] == [r[0] for r in best]
def test_a_batch_of_new_entities_is_indexed_in_one_full_text_segment(tmp_path):
    """FTS5 starts a new segment whenever a rowid is not above the last one: new entities must
    be indexed in rowid order, or a batch of new entities writes many segments (slow, and a
    fragmented index until merged). Merging is turned off to see what was written."""
    store = SqliteStore(tmp_path / "claims.db")
    for option, value in (("automerge", 0), ("crisismerge", 2000)):
        store._db.run("INSERT INTO entity_fts (entity_fts, rank) VALUES (?, ?)", (option, value))
    segments = "SELECT count(*) FROM entity_fts_data WHERE id > 10"  # 1..10: structure rows
    before = store._db.one(segments)[0]
    store.insert_entities([{"id": f"e-{(i * 7919) % 1000:04d}", "name": f"module_{i}.part",
                            "type": "module", "scope": "proj", "aliases": []} for i in range(300)])
    assert store._db.one(segments)[0] - before <= 5  # in id order: 37
    assert len(store.search("module_17.")["entities"]) >= 1
    store.close()


def test_freed_pages_are_not_zeroed_on_every_write_whatever_the_build_default(tmp_path):
    """Debian's SQLite zeroes every freed page (secure_delete ON): replacing the oplog's
    outbox after a big batch then wrote megabytes of zeros into the next small write's COMMIT.
    FAST zeroes only what costs nothing extra; purge turns it fully on and VACUUMs."""
    store = SqliteStore(tmp_path / "claims.db")
    assert store.pragma("secure_delete") == 2  # FAST
    store.close()


# --- format 6 -> 7: fact touches --------------------------------------------------------------
def test_a_version_6_file_migrates_to_7_with_its_facts_and_a_reader_of_6_places_whole(db):
    _version_5_file(db)
    SqliteStore(db, migrations=sqlite_schema.MIGRATIONS[:6]).close()
    reader = SqliteStore(db, read_only=True)  # format 7 code reads a format 6 store as it is
    assert reader.touched_since((0, 0), 10) is None and len(reader.all_facts()) == 4
    reader.close()
    store = SqliteStore(db)
    assert store.schema_version() == STORE_FORMAT and "fact_touches" in _table_names(db)
    mark = store.touch_mark()
    store.reinforce("f-3", 9000, 0.9)
    assert store.touched_since(mark, 10) == ["f-3"] and len(store.all_facts()) == 4
    store.close()


# --- format 7 -> 8: search's keys -------------------------------------------------------------
def _ends(store) -> dict[str, int]:
    return dict(store._db.rows("SELECT id, ends FROM entities"))


def _retry_store(path, seed: int) -> SqliteStore:
    """Entities named like the query at one end, the other, both or neither, and literal facts
    about it, with valid times drawn from a few values (ties at every cut) and some closed."""
    import random
    rng = random.Random(seed)
    store = SqliteStore(path)
    names = [f"{'retry' if i % 3 else 'other'}_{i}" for i in range(40)]
    for i, name in enumerate(names):
        entity(store, f"e-{(i * 7) % 40:02d}", name)
    ids = [f"e-{(i * 7) % 40:02d}" for i in range(40)]
    rows = []
    for n in range(400):
        subject = ids[rng.randrange(0, 20)]  # the first twenty are subjects, the rest objects
        kind = rng.random()
        fields = {"t_valid": rng.choice([5, 10, 20, 40]),
                  "t_invalid": rng.choice([None, None, None, 50])}
        if kind < 0.5:
            rows.append(fact(f"f-{rng.randrange(10**6):06d}-{n}", subject,
                             ref=ids[rng.randrange(20, 40)], **fields))
        else:
            rows.append(fact(f"f-{rng.randrange(10**6):06d}-{n}", subject,
                             lit=rng.choice(["retry later", "retry policy x", "no match",
                                             "a retry policy"]), **fields))
    store.insert_facts(rows)
    return store


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_reads_the_same_facts_through_format_8_s_keys_as_through_the_rows(tmp_path, seed):
    """The keys come from other pages (``sqlite_schema.SEARCH_KEYS``), not other candidates:
    every query and limit (caps reached and not, ties at the cut) finds the same facts in the
    same order as the statement of format 7 and older, which reads each candidate's row."""
    store = _retry_store(tmp_path / "claims.db", seed)
    assert store._has_keys()
    for query in ("retry", "retry policy", "policy", "other_4", "nothing"):
        for limit in (1, 2, 3, 5, 10, 50, -1):
            store._layout = (True, True)
            keyed = [f["id"] for f in store.search_facts(query, limit)]
            heads = [f["id"] for f in store.search_facts(query, limit, heads=True)]
            whole = [f["id"] for f in store.search(query, limit)["facts"]]  # entities given
            store._layout = (True, False)
            assert [f["id"] for f in store.search_facts(query, limit)] == keyed == heads, (
                query, limit)
            assert [f["id"] for f in store.search(query, limit)["facts"]] == whole, (
                query, limit)
    store.close()


def test_an_entity_s_ends_follow_new_facts_and_a_merge(db):
    """``entities.ends``: 1 once a fact has the entity as its subject, 2 as its object; a bit
    is set by the transaction that wrote the fact (a search inside it sees it) and stays set."""
    store = SqliteStore(db)
    for entity_id in ("e-a", "e-b", "e-c", "e-d"):
        entity(store, entity_id, entity_id.upper())
    assert set(_ends(store).values()) == {0}
    with store.transaction():
        store.insert_facts([fact("f-1", "e-a", ref="e-b"), fact("f-2", "e-b", lit="x")])
        assert _ends(store)["e-a"] == 0  # not yet: the transaction's index work marks them
        store.search_facts("E-A")
        assert _ends(store) == {"e-a": 1, "e-b": 3, "e-c": 0, "e-d": 0}
    store.repoint_facts("e-b", "e-c")  # an entity merge moves both ends
    assert _ends(store) == {"e-a": 1, "e-b": 3, "e-c": 3, "e-d": 0}
    store.delete_facts(["f-2"])
    assert _ends(store)["e-c"] == 3  # a bit once set stays (a probe that finds nothing)
    store.close()


def test_a_version_7_file_migrates_to_8_and_a_reader_of_7_searches_alike(tmp_path):
    """A store made by format 7 gets the keys on the next writable open, its entities' ends
    from their facts; meanwhile a reader of format 7 searches it the longer way, alike."""
    path = tmp_path / "claims.db"
    old = _retry_store(path, 4)
    old.close()
    con = _raw(path)  # back to format 7, as the previous schema left it
    con.execute("DROP TRIGGER facts_ends_moved")
    con.execute("DROP INDEX facts_text_keys")
    con.execute("ALTER TABLE entities DROP COLUMN ends")
    con.execute("PRAGMA user_version = 7")
    con.commit()
    con.close()
    reader = SqliteStore(path, read_only=True)
    assert reader.schema_version() == 7 and not reader._has_keys()
    before = {(q, n): [f["id"] for f in reader.search_facts(q, n)]
              for q in ("retry", "retry policy") for n in (1, 5, 50)}
    reader.close()
    store = SqliteStore(path)
    assert store.schema_version() == STORE_FORMAT == 8 and store._has_keys()
    ends = _ends(store)
    for entity_id, bits in ends.items():
        subject = store._db.one("SELECT EXISTS (SELECT 1 FROM facts WHERE subject_id = ?)",
                                (entity_id,))[0]
        object_ = store._db.one("SELECT EXISTS (SELECT 1 FROM facts WHERE object_ref_id = ?)",
                                (entity_id,))[0]
        assert bits == subject | 2 * object_, entity_id
    assert {b for b in ends.values()} == {1, 2}
    assert {k: [f["id"] for f in store.search_facts(*k)] for k in before} == before
    store.close()


def test_a_reading_block_is_one_snapshot_that_ends_even_when_the_block_fails(db):
    """``reading``: its own deferred transaction, whatever the block does; inside a
    transaction it only joins (the outer one ends it). Another connection's commit during
    the block is not seen until the block ends."""
    store = SqliteStore(db)
    entity(store, "e1", "first")
    reader = SqliteStore(db, read_only=True)
    conn = reader._db._conn
    with reader.reading():
        assert conn.in_transaction and reader._db.depth == 1
        assert reader.get_entity_by_id("e1") is not None
        entity(store, "e2", "second")
        assert reader.get_entity_by_id("e2") is None  # the snapshot's view
    assert not conn.in_transaction and reader._db.depth == 0
    assert reader.get_entity_by_id("e2") is not None
    with pytest.raises(KeyError):
        with reader.reading():
            raise KeyError("inside")
    assert not conn.in_transaction and reader._db.depth == 0
    with store.transaction():
        with store.reading():  # joins the write transaction, ends nothing
            assert store._db.depth == 1
        assert store._db._conn.in_transaction
        entity(store, "e3", "third")
    assert not store._db._conn.in_transaction and store.get_entity_by_id("e3") is not None
    reader.close()
    store.close()
