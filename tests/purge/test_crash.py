"""A purge killed (as by kill -9) at any stage leaves nothing half-done, and running the same
command again converges on exactly what an uninterrupted purge leaves."""

from __future__ import annotations

import json

import pytest

from claimgraph.core import tombstones
from claimgraph.purge.run import CRASH_ENV, STAGES

from .conftest import SECRET, holding, process, seed_store

ARGV = ("purge", "--session", "s1", "--match", SECRET, "--yes")


def state(seeded):
    """What a reader sees: facts, episodes with a readable segment, marks, and the files."""
    store = seeded.store()
    try:
        episodes = store.list_episodes()
        for episode in episodes:
            if episode["evidence"]:
                seeded.sidecars.get_evidence(episode["evidence"])  # never a dangling name
        marks = {k for k in store.list_marks("") if not k.startswith("purge:record:")}
        refs = sorted("ingest:" if e["ref"].startswith("ingest:") else e["ref"] for e in episodes)
        return (sorted(seeded.statements()), refs, sorted(marks),
                sorted(p.name for p in seeded.sidecars.evidence_dir.iterdir()),
                store.get_mark(tombstones.PENDING))
    finally:
        store.close()


@pytest.fixture
def clean(tmp_path_factory):
    """What one uninterrupted purge leaves (in a store of its own)."""
    db = tmp_path_factory.mktemp("clean") / "claims.db"
    seeded = seed_store(db)
    done = process(*ARGV, "--db", str(db))
    assert done.returncode == 0, done.stderr
    return state(seeded)


@pytest.mark.parametrize("stage", STAGES)
def test_killed_at_any_stage_then_run_again_converges(seeded, clean, stage):
    killed = process(*ARGV, env={CRASH_ENV: stage})
    assert killed.returncode == 137
    if stage == "purge-rewritten":  # before the commit: the store is as it was
        assert len(seeded.statements()) == 7
    again = process(*ARGV)
    assert again.returncode == 0, again.stderr
    assert state(seeded) == clean
    left = holding(seeded.files())
    # outside --session s1: session s2's fact and segment; logs are scrubbed everywhere
    assert left == ["claims.db", f"claims.db.evidence/{seeded.segments['s2']}"]
    events = [json.loads(line) for line in seeded.sidecars.capture_log.read_text().splitlines()
              if '"purge"' in line]
    assert events and all(SECRET not in json.dumps(e) for e in events)


def test_any_later_purge_finishes_what_a_killed_one_owed(seeded):
    killed = process(*ARGV, env={CRASH_ENV: "purge-committed"})
    assert killed.returncode == 137
    store = seeded.store()
    try:
        owed = store.get_mark(tombstones.PENDING)["delete"]
    finally:
        store.close()
    assert owed and all((seeded.sidecars.evidence_dir / n).exists() for n in owed)
    other = process("purge", "--project", "github.com/acme/nothing-here", "--yes")
    assert other.returncode == 0, other.stderr
    assert "finished an interrupted purge" in other.stdout
    assert not any((seeded.sidecars.evidence_dir / n).exists() for n in owed)
    store = seeded.store()
    try:
        assert store.get_mark(tombstones.PENDING) is None
    finally:
        store.close()
