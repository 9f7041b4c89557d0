"""After ``purge --match``, no byte of the text is left in any file of the store — the database,
its WAL and SHM, every sidecar — nor in SQLite's own dump; and a dump taken afterwards, loaded
into a new store, neither holds it nor lets it back in."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.cli.main import main
from claimgraph.core import tombstones
from claimgraph.opening import open_store

from .conftest import PROJECT_A, SECRET, holding, process


def sqlite_dump(db: Path) -> str:
    """``sqlite3 DB .dump`` when the shell is installed, and Python's iterdump always."""
    conn = sqlite3.connect(db)
    try:
        text = "\n".join(conn.iterdump())
    finally:
        conn.close()
    shell = shutil.which("sqlite3")
    if shell:
        text += subprocess.run([shell, str(db), ".dump"], capture_output=True, text=True,
                               check=True).stdout
    return text


def test_the_text_is_in_the_raw_files_before_and_in_none_after(seeded, purge):
    assert len(holding(seeded.files())) >= 5
    assert SECRET in sqlite_dump(seeded.db)
    assert purge("--match", SECRET)[0] == 0
    files = seeded.files()
    assert {"claims.db", "claims.db.capture.log", "claims.db.capture.log.1",
            "claims.db.crash.log"} <= set(files)
    assert holding(files) == []
    assert holding(files, SECRET.encode().hex()) == []
    dumped = sqlite_dump(seeded.db)
    assert "CREATE TABLE facts" in dumped and SECRET not in dumped
    files = seeded.files()  # opening the store for the dump made a WAL and SHM: still clean
    assert holding(files) == []


def test_no_trace_while_another_process_holds_the_store_open(seeded, tmp_path):
    """A long-lived reader (an MCP server, the daemon) keeps a connection: the WAL is still cut."""
    reader = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
         "c.execute('select count(*) from facts').fetchone(); print('open', flush=True); "
         "sys.stdin.readline()", str(seeded.db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "open"
        done = process("purge", "--match", SECRET, "--yes")
        assert done.returncode == 0, done.stderr
        assert "WAL could not be cut" not in done.stderr
        assert holding(seeded.files()) == []
    finally:
        reader.stdin.close()
        reader.wait(timeout=30)


def test_a_dump_after_the_purge_loads_into_a_store_without_it(seeded, purge, tmp_path, capsys):
    assert purge("--session", "s1", "--match", SECRET)[0] == 0
    assert purge("--match", SECRET)[0] == 0
    dump, evidence = tmp_path / "backup.jsonl", tmp_path / "bundle"
    assert main(["dump", "--out", str(dump)]) == 0
    assert main(["dump", "--out", str(tmp_path / "split.jsonl"), "--evidence", str(evidence)]) == 0
    assert SECRET not in dump.read_text()
    assert not [p for p in evidence.iterdir() if SECRET.encode() in p.read_bytes()]
    restored = tmp_path / "restored" / "claims.db"
    assert main(["load", str(dump), "--db", str(restored)]) == 0
    everything = b"".join(p.read_bytes() for p in restored.parent.rglob("*") if p.is_file())
    assert SECRET.encode() not in everything
    store = open_store(restored)
    try:
        assert len(store.list_marks(tombstones.FACT_PREFIX)) == 2  # the purges' tombstones came
        assert store.list_marks(tombstones.SESSION_PREFIX)
    finally:
        store.close()
    capsys.readouterr()
    refused = main(["--db", str(restored), "assert", "api", "prefers", f"auth token {SECRET}",
                    "--scope", PROJECT_A, "--json"])
    assert refused == 1 and '"purged-fact"' in capsys.readouterr().err


def test_a_dump_with_tombstones_never_restores_a_fact_they_name(seeded, purge, tmp_path):
    """A dump edited (or merged) to carry a purged fact next to its tombstone: load skips it."""
    assert main(["dump", "--out", str(tmp_path / "before.jsonl")]) == 0
    assert purge("--fact", next(f["id"] for f in seeded.facts()
                                if f["object_lit"] == "REST"))[0] == 0
    assert main(["dump", "--out", str(tmp_path / "after.jsonl")]) == 0
    old = (tmp_path / "before.jsonl").read_text().splitlines()
    new = (tmp_path / "after.jsonl").read_text().splitlines()
    merged = tmp_path / "merged.jsonl"
    merged.write_text("\n".join([*old, *(line for line in new if '"tombstone"' in line)]) + "\n")
    restored = tmp_path / "r" / "claims.db"
    assert main(["load", str(merged), "--db", str(restored)]) == 0
    store = open_store(restored)
    try:
        assert "REST" not in {f["object_lit"] for f in store.all_facts()}
        assert "gRPC" in {f["object_lit"] for f in store.all_facts()}
    finally:
        store.close()


@pytest.mark.parametrize("flag", ["--allow-relearn"])
def test_a_person_may_assert_a_purged_fact_again_on_purpose(seeded, purge, capsys, flag):
    assert purge("--match", SECRET)[0] == 0
    capsys.readouterr()
    argv = ["assert", "billing", "failure-mode", f"leaks {SECRET}", "--scope",
            "github.com/acme/billing"]
    assert main(argv) == 1
    assert "was purged from memory" in capsys.readouterr().err
    assert main([*argv, flag]) == 0
    store = seeded.store()
    try:
        assert store.list_marks(tombstones.FACT_PREFIX).keys().__len__() == 1  # one lifted
    finally:
        store.close()
