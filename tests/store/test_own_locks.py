"""A process that opens its store twice must keep its own locks.

POSIX record locks belong to a process and a file: closing any descriptor of the file drops all
of them. If opening a second connection read the store file with a plain ``open()`` and closed
it, the writer's locks went with it; another process opening and closing the store then took
itself for the last user, checkpointed and deleted the WAL under the writer, and the writer's
next commits (reported as saved) were lost when it exited. Real processes, a real SQLite file.
"""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

SCENARIO = textwrap.dedent("""
    import os, subprocess, sys
    from claimgraph.core import Shell
    from claimgraph.core.vocabulary import seed
    from claimgraph.core.writes import assert_fact
    from claimgraph.opening import open_store
    db = sys.argv[1]
    writer = Shell(open_store(db, create=True))
    seed(writer)
    assert_fact(writer, "a", "prefers", "one", scope="p")
    if sys.argv[2] == "with-reader":
        reader = Shell(open_store(db, read_only=True))
    other = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
             "c.execute('select count(*) from facts').fetchall(); c.close()")
    subprocess.run([sys.executable, "-c", other, db], check=True)
    assert_fact(writer, "b", "prefers", "two", scope="p")
    os._exit(0)  # ends without closing, as a killed server would
""")


def facts_after(tmp_path: Path, mode: str) -> int:
    db = tmp_path / mode / "claims.db"
    db.parent.mkdir(mode=0o700)
    subprocess.run([sys.executable, "-c", SCENARIO, str(db), mode], check=True, timeout=120)
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM facts").fetchone()[0]


def test_a_second_connection_in_the_process_keeps_the_writers_commits(tmp_path: Path) -> None:
    assert facts_after(tmp_path, "with-reader") == 2


def test_the_writer_alone_keeps_its_commits(tmp_path: Path) -> None:
    assert facts_after(tmp_path, "writer-only") == 2
