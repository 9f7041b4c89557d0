"""``<db>.retrievals``: reads and outcomes as JSON lines, the mark, the cap, many writers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph import retrievals


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "claims.db"


def lines(db: Path) -> list[dict]:
    return [json.loads(line) for line in retrievals.path_for(db).read_text().splitlines()]


def test_a_read_is_one_line_naming_the_verb_the_facts_and_the_time(db):
    assert retrievals.log_read(db, "search", ["f-1", "f-2", "f-1"], 1234)
    assert lines(db) == [{"type": "read", "verb": "search", "fact_ids": ["f-1", "f-2"], "at": 1234}]
    assert oct(retrievals.path_for(db).stat().st_mode & 0o777) == "0o600"


def test_a_read_that_surfaced_nothing_is_not_logged(db):
    assert retrievals.log_read(db, "search", [], 1)
    assert not retrievals.path_for(db).exists()


def test_pending_is_what_was_read_since_the_last_outcome(db):
    retrievals.log_read(db, "facts", ["f-old"], 1)
    retrievals.log_outcome(db, "accepted", ["f-old"], 2)
    retrievals.log_read(db, "search", ["f-a", "f-b"], 3)
    retrievals.log_read(db, "recall", ["f-b", "f-c"], 4)
    waiting = retrievals.pending(db)
    assert waiting["fact_ids"] == ["f-a", "f-b", "f-c"]
    assert [r["verb"] for r in waiting["reads"]] == ["search", "recall"]


def test_torn_and_foreign_lines_are_skipped_and_the_kebab_key_is_read(db):
    path = retrievals.path_for(db)
    path.write_text('{"type":"read","verb":"facts","fact-ids":["f-1"],"at":1}\n'
                    '{"type":"read","verb":"sea\nnot json\n[1,2]\n')
    assert retrievals.pending(db)["fact_ids"] == ["f-1"]


def test_nothing_logged_means_nothing_pending(db):
    assert retrievals.pending(db) == {"reads": [], "fact_ids": []}


def test_past_2000_lines_only_the_newest_1000_are_kept(db):
    for i in range(2001):
        retrievals.log_read(db, "facts", [f"f-{i:05d}-0000-0000-0000-000000000000"], i)
    kept = lines(db)
    assert len(kept) == 1000
    assert kept[0]["at"] == 1001 and kept[-1]["at"] == 2000


def test_an_unwritable_log_is_reported_not_raised(tmp_path):
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("")
    assert retrievals.log_read(blocked / "claims.db", "facts", ["f-1"], 1) is False


WRITER = """
import sys
from claimgraph import retrievals
db, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    assert retrievals.log_read(db, "search", [f"f-{who}-{i:04d}-0000-0000-000000000000"], i)
"""


def test_concurrent_writers_across_the_cap_lose_no_line(db):
    """Four real processes append across the moment the cap rewrites the file. The rewrite
    drops only the oldest 1001 lines (seeds), so every line the writers appended must be
    there: none lost to the rewrite, none twice, none torn."""
    for i in range(1990):
        retrievals.log_read(db, "facts", [f"f-seed-{i:04d}-0000-0000-000000000000"], i)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(w), "100"],
                                env=dict(os.environ)) for w in range(4)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0, 0]
    kept = lines(db)
    assert len(kept) == 1990 + 400 - 1001  # one rewrite, at 2001 lines, down to 1000
    ours = sorted(e["fact_ids"][0] for e in kept if "seed" not in e["fact_ids"][0])
    assert ours == sorted(f"f-{w}-{i:04d}-0000-0000-000000000000"
                          for w in range(4) for i in range(100))


def test_the_cap_counts_lines_and_keeps_the_newest(tmp_path):
    """Under the cap nothing is rewritten (the file's bytes stay as they are); over it, the
    newest ``keep`` lines stay, in order."""
    path = tmp_path / "claims.db.retrievals"
    path.write_bytes(b"".join(b'{"n":%d}\n' % n for n in range(10)))
    before = path.stat().st_mtime_ns
    assert retrievals.enforce_cap(path, cap=10, keep=4) == 0
    assert path.stat().st_mtime_ns == before
    path.write_bytes(path.read_bytes() + b'{"n":10')  # a torn last line is no line yet
    assert retrievals.enforce_cap(path, cap=10, keep=4) == 0
    path.write_bytes(path.read_bytes() + b'}\n')
    assert retrievals.enforce_cap(path, cap=10, keep=4) == 7
    assert path.read_text().splitlines() == [f'{{"n":{n}}}' for n in range(7, 11)]
