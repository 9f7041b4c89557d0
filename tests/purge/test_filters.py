"""Each purge filter alone, and combined (a fact must pass every filter given)."""

from __future__ import annotations

import json

from claimgraph.core import tombstones
from claimgraph.logic.purge import PLACEHOLDER

from .conftest import FEB, PROJECT_A, PROJECT_B, SECRET, holding

ALL = {("api", "prefers", "REST"), ("api", "prefers", f"auth token {SECRET}"),
       ("api", "depends-on", "kuzu"), ("billing", "depends-on", "stripe"),
       ("billing", "failure-mode", f"leaks {SECRET}"), ("api", "prefers", "gRPC"),
       ("user", "prefers", "uv")}


def fact_id(seeded, subject, obj):
    return next(f["id"] for f in seeded.facts()
                if f["subject"]["name"] == subject
                and (f["object_lit"] or f["object_ref"]["name"]) == obj)


def episodes(seeded):
    store = seeded.store()
    try:
        return {e["ref"]: e for e in store.list_episodes()}
    finally:
        store.close()


def marks(seeded, prefix):
    store = seeded.store()
    try:
        return store.list_marks(prefix)
    finally:
        store.close()


def test_fact_alone_takes_that_fact_and_the_segment_it_came_from(seeded, purge):
    target = fact_id(seeded, "api", "kuzu")
    code, out, _ = purge("--fact", target[:10], "--json")
    assert code == 0
    assert seeded.statements() == ALL - {("api", "depends-on", "kuzu")}
    assert json.loads(out.splitlines()[-1])["counts"]["evidence segments"] == 1
    s1 = episodes(seeded)["claude-code:s1@0-400"]
    assert s1["evidence"] is None and s1["summary"] == "2 facts — 2 prefers; 1 purged"
    assert not (seeded.sidecars.evidence_dir / seeded.segments["s1"]).exists()
    assert (seeded.sidecars.evidence_dir / seeded.segments["s2"]).exists()
    assert json.loads(out.splitlines()[-1])["counts"]["entities"] == 1  # kuzu, named by no other
    assert "kuzu" not in {e["name"] for e in _entities(seeded)}
    assert len(marks(seeded, tombstones.FACT_PREFIX)) == 1


def test_session_alone_takes_its_facts_episode_segment_and_pending_spool(seeded, purge):
    code, out, _ = purge("--session", "s1")
    assert code == 0, out
    assert seeded.statements() == ALL - {("api", "prefers", "REST"), ("api", "depends-on", "kuzu"),
                                         ("api", "prefers", f"auth token {SECRET}")}
    refs = set(episodes(seeded))
    assert "codex:s2@0-300" in refs and "claude-code:s1@0-400" not in refs
    assert not (seeded.sidecars.spool_dir / "claude-code-s1.json").exists()
    assert not (seeded.sidecars.evidence_dir / seeded.segments["s1"]).exists()
    assert marks(seeded, tombstones.SESSION_PREFIX)["tombstone:session:claude-code:s1"][
        "offset"] == 400
    assert marks(seeded, "capture:claude-code:s1")["capture:claude-code:s1"]["episode"] is None
    entities = {e["name"] for e in _entities(seeded)}
    assert "kuzu" not in entities and "api" in entities  # api still has a fact in project B


def _entities(seeded):
    store = seeded.store()
    try:
        return store.list_entities()
    finally:
        store.close()


def test_project_alone_takes_that_projects_facts_and_what_only_they_named(seeded, purge):
    assert purge("--project", PROJECT_B)[0] == 0
    assert seeded.statements() == ALL - {("billing", "depends-on", "stripe"),
                                         ("billing", "failure-mode", f"leaks {SECRET}"),
                                         ("api", "prefers", "gRPC")}
    assert "codex:s2@0-300" not in episodes(seeded)
    assert {e["name"] for e in _entities(seeded)} >= {"api", "kuzu"}
    assert not {"billing", "stripe"} & {e["name"] for e in _entities(seeded)}


def test_entity_alone_takes_every_fact_naming_it_in_every_scope(seeded, purge):
    assert purge("--entity", "API")[0] == 0  # resolved as lookups resolve: normalized
    assert seeded.statements() == {("billing", "depends-on", "stripe"),
                                   ("billing", "failure-mode", f"leaks {SECRET}"),
                                   ("user", "prefers", "uv")}
    assert "api" not in {e["name"] for e in _entities(seeded)}


def test_before_alone_takes_what_was_recorded_earlier(seeded, purge):
    assert purge("--before", "2026-02-01")[0] == 0
    assert seeded.statements() == ALL - {("api", "prefers", "REST"), ("api", "depends-on", "kuzu"),
                                         ("api", "prefers", f"auth token {SECRET}")}
    assert all(e["opened_at"] >= FEB for e in episodes(seeded).values())


def test_match_alone_removes_the_text_from_every_file_and_rewrites_segments(seeded, purge):
    before = episodes(seeded)
    code, out, err = purge("--match", SECRET)
    assert (code, err) == (0, ""), err
    assert seeded.statements() == ALL - {("api", "prefers", f"auth token {SECRET}"),
                                         ("billing", "failure-mode", f"leaks {SECRET}")}
    assert holding(seeded.files()) == []
    after = episodes(seeded)
    for ref in ("claude-code:s1@0-400", "codex:s2@0-300"):
        name = after[ref]["evidence"]
        assert name != before[ref]["evidence"]
        assert PLACEHOLDER in seeded.sidecars.get_evidence(name)
    log = seeded.sidecars.capture_log.read_text().splitlines()
    assert PLACEHOLDER in log[0] and json.loads(log[1]) == {"event": "x"}
    event = json.loads(log[-1])
    assert event["event"] == "purge" and event["filters"] == ["match"]
    assert event["counts"]["facts"] == 2 and event["counts"]["log lines"] == 3
    assert (seeded.sidecars.spool_dir / "claude-code-s1.json").exists()  # held no secret


def test_session_and_match_combined_take_only_what_both_select(seeded, purge):
    code, _, err = purge("--session", "s1", "--match", SECRET)
    assert code == 0
    assert seeded.statements() == ALL - {("api", "prefers", f"auth token {SECRET}")}
    assert PLACEHOLDER in seeded.sidecars.get_evidence(episodes(seeded)["claude-code:s1@0-400"][
        "evidence"])
    assert seeded.sidecars.get_evidence(seeded.segments["s2"]).count(SECRET) == 1
    assert "still appears" in err and "outside these filters" in err
    assert holding(seeded.files()) != []


def test_project_and_entity_combined(seeded, purge):
    assert purge("--project", PROJECT_A, "--entity", "api")[0] == 0
    assert seeded.statements() == ALL - {("api", "prefers", "REST"), ("api", "depends-on", "kuzu"),
                                         ("api", "prefers", f"auth token {SECRET}")}


def test_fact_and_before_combined_need_both(seeded, purge):
    grpc = fact_id(seeded, "api", "gRPC")  # recorded in February
    code, out, _ = purge("--fact", grpc, "--before", "2026-02-01")
    assert code == 0 and "nothing" in out
    assert seeded.statements() == ALL
    assert purge("--fact", grpc, "--before", "2026-03-01")[0] == 0
    assert seeded.statements() == ALL - {("api", "prefers", "gRPC")}


def test_dry_run_shows_the_counts_and_changes_no_byte(seeded, purge):
    def files():  # a reader may make SQLite's own -wal/-shm appear; those are not content
        return {k: v for k, v in seeded.files().items() if not k.endswith(("-wal", "-shm"))}
    before = files()
    code, out, _ = purge("--match", SECRET, "--dry-run", "--json", yes=False)
    plan = json.loads(out)
    assert code == 0 and plan["status"] == "plan"
    assert plan["counts"] == {"facts": 2, "episodes": 0, "entities": 0, "evidence segments": 2,
                              "log lines": 3, "spool files": 0, "oplog entries": 2}  # 2 inserts
    assert files() == before


def test_a_purge_needs_a_filter_and_a_match_needs_text(seeded, purge):
    assert purge()[0] == 1
    code, _, err = purge("--match", "  ")
    assert code == 1 and "--match needs some text" in err
