"""``store.sqlite_peek.has_facts``: the SessionStart hook's first question, on real files.

False only when the file is a claimgraph store this code reads and no fact of either scope is
in it; None (open the store the usual way) whenever anything else is the case."""

from __future__ import annotations

import sqlite3

from claimgraph import STORE_FORMAT
from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.store import sqlite_schema
from claimgraph.store.sqlite import SqliteStore
from claimgraph.store.sqlite_peek import APPLICATION_ID, OLDEST_READ, has_facts

SCOPES = ["github.com/o/a", "user"]


def fresh(tmp_path) -> tuple[str, Shell]:
    path = str(tmp_path / "claims.db")
    sh = Shell(store=SqliteStore(path))
    seed(sh)
    return path, sh


def set_version(path: str, version: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def test_the_copied_constants_are_the_schemas():
    assert APPLICATION_ID == sqlite_schema.APPLICATION_ID
    assert OLDEST_READ == min(sqlite_schema.READS_OLDER.values())


def test_a_fact_in_either_scope_and_only_there_counts(tmp_path):
    path, sh = fresh(tmp_path)
    assert has_facts(path, SCOPES) is False  # the vocabulary alone: no fact
    assert_fact(sh, "web", "depends-on", "react", scope="github.com/o/b")
    assert has_facts(path, SCOPES) is False  # another project's
    made = assert_fact(sh, "tabs", "prefers", "spaces", scope="user")["fact"]
    assert has_facts(path, SCOPES) is True
    assert has_facts(path, ["github.com/o/a"]) is False
    sh.store.invalidate(made["id"], sh.now(), kind="forgotten")
    assert has_facts(path, SCOPES) is True  # any state: the usual read decides what shows
    sh.store.close()


def test_a_fact_committed_but_not_yet_checkpointed_is_seen(tmp_path):
    path, sh = fresh(tmp_path)
    assert_fact(sh, "api", "depends-on", "postgres", scope="github.com/o/a")
    assert (tmp_path / "claims.db-wal").stat().st_size > 0  # still in the log, store open
    assert has_facts(path, SCOPES) is True
    sh.store.close()


def test_anything_doubtful_is_left_to_the_usual_open(tmp_path):
    path, sh = fresh(tmp_path)
    sh.store.close()
    set_version(path, STORE_FORMAT + 1)  # a newer claimgraph's
    assert has_facts(path, SCOPES) is None
    set_version(path, OLDEST_READ - 1)  # needs an upgrade before anything reads it
    assert has_facts(path, SCOPES) is None
    other = tmp_path / "other.db"  # SQLite with a facts table, but not ours
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute("CREATE TABLE facts (scope TEXT)")
    conn.execute("PRAGMA user_version = 5")
    conn.close()
    assert has_facts(str(other), SCOPES) is None
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 200)
    assert has_facts(str(garbage), SCOPES) is None
    assert has_facts(str(tmp_path / "missing.db"), SCOPES) is None


def test_a_store_path_that_is_a_symbolic_link_is_left_to_the_usual_open(tmp_path):
    path, sh = fresh(tmp_path)
    sh.store.close()
    link = tmp_path / "linked.db"
    link.symlink_to(path)
    assert has_facts(path, SCOPES) is False  # the file itself answers
    assert has_facts(str(link), SCOPES) is None  # the store never follows a link
