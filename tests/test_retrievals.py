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


def test_past_the_cap_only_the_newest_lines_within_half_of_it_are_kept(db, monkeypatch):
    """The append that takes the file past CAP_BYTES cuts it to its newest whole lines within
    KEEP_BYTES, that append's line included; below the cap, nothing is rewritten."""
    monkeypatch.setattr(retrievals, "CAP_BYTES", 20_000)
    monkeypatch.setattr(retrievals, "KEEP_BYTES", 10_000)
    path = retrievals.path_for(db)
    line = len(json.dumps({"type": "read", "verb": "facts", "fact_ids": ["f-00000-0000-0000-0000"
                           "-000000000000"], "at": 1000}, separators=(",", ":"))) + 1
    under = 20_000 // line  # appends that stay at or under the cap
    for i in range(under):
        retrievals.log_read(db, "facts", [f"f-{i:05d}-0000-0000-0000-000000000000"], 1000 + i)
    assert path.stat().st_size == under * line <= 20_000
    retrievals.log_read(db, "facts", [f"f-{under:05d}-0000-0000-0000-000000000000"], 1000 + under)
    kept = lines(db)
    assert len(kept) == 10_000 // line
    assert kept[-1]["at"] == 1000 + under and kept[0]["at"] == 1000 + under + 1 - len(kept)
    assert path.stat().st_size <= 10_000
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_an_unwritable_log_is_reported_not_raised(tmp_path):
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("")
    assert retrievals.log_read(blocked / "claims.db", "facts", ["f-1"], 1) is False


WRITER = """
import sys
from claimgraph import retrievals
db, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    assert retrievals.log_read(db, "search", [f"f-{who}-{i:04d}-0000-0000-000000000000"], 1000 + i)
"""


def test_concurrent_writers_across_the_cap_lose_no_line(db):
    """Four real processes append across the moment the cap rewrites the file. Every line has
    the same length, so the one rewrite keeps a known number of the newest lines: every line
    the writers appended must be there (none lost to the rewrite, none twice, none torn), and
    only the oldest seeds are gone."""
    line = len(json.dumps({"type": "read", "verb": "search", "fact_ids": [
        "f-0-0000-0000-0000-000000000000"], "at": 1000}, separators=(",", ":"))) + 1
    seeds = retrievals.CAP_BYTES // line - 10  # ten appends short of the cap
    retrievals.path_for(db).write_bytes(b"".join(
        b'{"type":"read","verb":"search","fact_ids":["f-s%05d-0000-0000-000000000000"],"at":1000}\n'
        % i for i in range(seeds)))
    assert len(retrievals.path_for(db).read_bytes()) == seeds * line
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(w), "100"],
                                env=dict(os.environ)) for w in range(4)]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0, 0]
    kept = lines(db)
    at_cut = retrievals.CAP_BYTES // line + 1  # the line that took the file past the cap
    assert len(kept) == retrievals.KEEP_BYTES // line + seeds + 400 - at_cut
    ours = sorted(e["fact_ids"][0] for e in kept if not e["fact_ids"][0].startswith("f-s"))
    assert ours == sorted(f"f-{w}-{i:04d}-0000-0000-000000000000"
                          for w in range(4) for i in range(100))
    oldest_kept = min(int(e["fact_ids"][0][3:8]) for e in kept
                      if e["fact_ids"][0].startswith("f-s"))
    assert oldest_kept == seeds - (len(kept) - 400)


def test_the_cap_keeps_the_newest_whole_lines_within_its_bytes(tmp_path):
    """Under the cap nothing is rewritten (the file's bytes stay as they are); over it, the
    newest whole lines that fit stay, in order: a line the boundary cuts goes, and a torn last
    line (a crash mid-append) stays as it was."""
    path = tmp_path / "claims.db.retrievals"
    path.write_bytes(b"".join(b'{"n":%d}\n' % n for n in range(10)))  # 8 bytes a line
    before = path.stat().st_mtime_ns
    assert retrievals.enforce_cap(path, cap=80, keep=30) == 0
    assert path.stat().st_mtime_ns == before
    path.write_bytes(path.read_bytes() + b'{"n":10}\n')  # 89 bytes: 9 digits of 2 bytes
    assert retrievals.enforce_cap(path, cap=80, keep=30) == 64  # lines 0-7 go; 7 is cut
    assert path.read_text().splitlines() == ['{"n":8}', '{"n":9}', '{"n":10}']
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    path.write_bytes(b"".join(b'{"n":%d}\n' % n for n in range(10)) + b'{"n":1')
    assert retrievals.enforce_cap(path, cap=80, keep=22) == 64
    assert path.read_bytes() == b'{"n":8}\n{"n":9}\n{"n":1'
