"""The consolidate stage against a real SQLite file: collapse, sweep, episodes, clusters."""

from __future__ import annotations

from claimgraph.core.ingest import ingest, open_episode
from claimgraph.curator.consolidate import consolidate, mechanical_summary, swept_key
from claimgraph.curator.stage_tools import Fence, StageTools

MINUTE = 60_000


def run(sh, db, dry_run=False):
    return consolidate(StageTools(sh, Fence(db, None), "cur-test", dry_run))["counts"]


def duplicate(sh, fact, later_ms):
    """A second row repeating ``fact`` (as a merge or an import leaves behind)."""
    copy = {**fact, "id": sh.new_id("f"), "recorded_at": fact["recorded_at"] + later_ms,
            "t_valid": fact["t_valid"] + later_ms, "conflicts": []}
    with sh.store.transaction():
        sh.store.insert_fact(copy)
    return copy["id"]


def test_duplicates_collapse_to_the_earliest_with_kind_and_successor(shell, db, clock):
    ingest(shell, [{"subject": "api", "predicate": "depends-on", "object": "redis"}])
    [first] = shell.store.select_facts()
    dupes = [duplicate(shell, first, 10), duplicate(shell, first, 20)]
    clock[0] += MINUTE
    counts = run(shell, db)
    assert counts["duplicates_invalidated"] == 2
    assert shell.store.get_fact(first["id"])["t_invalid"] is None
    for fid in dupes:
        fact = shell.store.get_fact(fid)
        assert fact["t_invalid"] is not None
        assert (fact["invalidation_kind"], fact["successor"]) == ("merge-duplicate", first["id"])
    assert run(shell, db)["duplicates_invalidated"] == 0


def test_sweep_links_candidates_newer_to_older_once_ever(shell, db, clock):
    ingest(shell, [{"subject": "team", "predicate": "prefers", "object": "tabs"}])
    clock[0] += 1
    ingest(shell, [{"subject": "team", "predicate": "prefers", "object": "spaces"},
                   {"subject": "app", "predicate": "depends-on", "object": "KuzuDB"}])
    clock[0] += 1
    ingest(shell, [{"subject": "app", "predicate": "decided-against", "object": "kuzu-db"}])
    by_obj = {f.get("object_lit") or f["predicate"]: f for f in shell.store.select_facts()}
    assert run(shell, db)["conflicts_linked"] == 2
    assert shell.store.get_fact(by_obj["spaces"]["id"])["conflicts"] == [by_obj["tabs"]["id"]]
    against, uses = by_obj["core/decided-against"], by_obj["core/depends-on"]
    assert shell.store.get_fact(against["id"])["conflicts"] == [uses["id"]]
    with shell.store.transaction():
        shell.store.unlink_conflicts(by_obj["spaces"]["id"], [by_obj["tabs"]["id"]])
        shell.store.set_mark("curator:watermark", None)  # force a full pass
    counts = run(shell, db)
    assert (counts["mode"], counts["conflicts_linked"]) == ("full", 0)
    assert shell.store.get_fact(by_obj["spaces"]["id"])["conflicts"] == []
    assert shell.store.get_mark(swept_key(by_obj["tabs"]["id"], by_obj["spaces"]["id"]))


def test_a_write_path_link_the_user_removed_is_never_relinked(shell, db, clock):
    ingest(shell, [{"subject": "team", "predicate": "prefers", "object": "tabs"}])
    clock[0] += 1
    ingest(shell, [{"subject": "team", "predicate": "prefers", "object": "spaces"}])
    tabs, spaces = sorted(shell.store.select_facts(), key=lambda f: f["recorded_at"])
    with shell.store.transaction():
        shell.store.link_conflicts(spaces["id"], [tabs["id"]])  # as the write path flags it
    assert run(shell, db)["conflicts_linked"] == 0
    with shell.store.transaction():
        shell.store.unlink_conflicts(spaces["id"], [tabs["id"]])
        shell.store.set_mark("curator:watermark", None)
    assert run(shell, db)["conflicts_linked"] == 0


def test_open_episodes_with_facts_close_with_the_mechanical_summary(shell, db, clock):
    filled = ingest(shell, [{"subject": "api", "predicate": "depends-on", "object": "redis"},
                            {"subject": "api", "predicate": "depends-on", "object": "kafka"},
                            {"subject": "api", "predicate": "written-in", "object": "python"}],
                    ref="notes:1")["episode"]
    with shell.store.transaction():
        empty = open_episode(shell, "session-log", "empty:1")
    clock[0] += 2 * MINUTE
    young = ingest(shell, [{"subject": "ui", "predicate": "written-in", "object": "ts"}],
                   ref="notes:2")["episode"]
    counts = run(shell, db)
    assert (counts["episodes_closed"], counts["episodes_empty"],
            counts["episodes_too_young"]) == (1, 1, 1)
    closed = shell.store.get_episode(filled["id"])
    assert closed["summary"] == ("session-log episode (notes:1): "
                                 "3 facts — 2 depends-on, 1 written-in")
    assert closed["closed_at"] == clock[0]
    assert shell.store.get_episode(empty["id"])["closed_at"] is None
    assert shell.store.get_episode(young["id"])["closed_at"] is None


def test_mechanical_summary_counts_one_fact_singular():
    episode = {"source_type": "adr", "ref": "docs/adr/1.md"}
    assert mechanical_summary(episode, ["core/decided-against"]) == (
        "adr episode (docs/adr/1.md): 1 fact — 1 decided-against")


def test_after_a_full_pass_only_subjects_of_new_episodes_are_scanned(shell, db, clock):
    ingest(shell, [{"subject": f"mod{i}", "predicate": "depends-on", "object": "redis"}
                   for i in range(30)])
    assert run(shell, db)["facts_scanned"] == 30
    clock[0] += 1
    assert run(shell, db)["facts_scanned"] == 30  # still inside the look-back window
    clock[0] += 11 * MINUTE
    run(shell, db)  # the last pass started inside the window, so this one looks once more
    assert run(shell, db)["facts_scanned"] == 0
    ingest(shell, [{"subject": "mod1", "predicate": "written-in", "object": "go"}])
    counts = run(shell, db)
    assert (counts["mode"], counts["facts_scanned"]) == ("incremental", 2)


def test_entity_duplicate_clusters_are_reported_not_merged(shell, db):
    ingest(shell, [{"subject": "AuthService", "predicate": "depends-on", "object": "redis"}])
    with shell.store.transaction():
        shell.store.insert_entity({"id": "e-x", "name": "auth-service", "type": None,
                                   "scope": "project", "aliases": []})
    assert run(shell, db)["entity_clusters"] == 1
    assert shell.store.get_entity_by_id("e-x") is not None


def test_dry_run_counts_the_work_and_writes_nothing(shell, db, clock):
    ingest(shell, [{"subject": "api", "predicate": "depends-on", "object": "redis"}])
    [first] = shell.store.select_facts()
    duplicate(shell, first, 10)
    clock[0] += 2 * MINUTE
    counts = run(shell, db, dry_run=True)
    assert (counts["duplicates_invalidated"], counts["episodes_closed"]) == (1, 1)
    assert all(f["t_invalid"] is None for f in shell.store.select_facts())
    assert shell.store.get_mark("curator:watermark") is None


def test_sweep_links_a_later_sessions_replacement_and_invalidates_nothing(shell, db, clock):
    ingest(shell, [{"subject": "proj", "predicate": "x/decided",
                    "object": "Render a progress bar"},
                   {"subject": "proj", "predicate": "x/decided",
                    "object": "Keep the sync log in the home directory"}])
    clock[0] += MINUTE
    ingest(shell, [{"subject": "proj", "predicate": "x/decided",
                    "object": "Show a spinner instead of the progress bar"},
                   {"subject": "proj", "predicate": "x/decided",
                    "object": "Pin the formatter version"}])
    by_obj = {f["object_lit"]: f for f in shell.store.select_facts()}
    clock[0] += MINUTE
    assert run(shell, db)["conflicts_linked"] == 1
    newer = shell.store.get_fact(by_obj["Show a spinner instead of the progress bar"]["id"])
    assert newer["conflicts"] == [by_obj["Render a progress bar"]["id"]]
    assert all(shell.store.get_fact(f["id"])["t_invalid"] is None for f in by_obj.values())
    assert run(shell, db)["conflicts_linked"] == 0


def test_conventions_alone_reach_the_sweep_full_and_incremental(shell, db, clock):
    ingest(shell, [{"subject": "repo", "predicate": "x/convention",
                    "object": "Write the changelog entries by hand"}])
    clock[0] += MINUTE
    assert run(shell, db)["conflicts_linked"] == 0  # full pass; the watermark is set now
    clock[0] += MINUTE
    ingest(shell, [{"subject": "repo", "predicate": "x/convention",
                    "object": "Generate changelog entries from commit titles instead"}])
    clock[0] += MINUTE
    counts = run(shell, db)
    assert (counts["mode"], counts["conflicts_linked"]) == ("incremental", 1)
