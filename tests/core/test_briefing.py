"""Gathering the compiled context from a store: scopes, exclusions, conflicts, determinism."""

from __future__ import annotations

from claimgraph.core.briefing import compile_for, gather
from claimgraph.core.writes import assert_fact

PROJECT = "github.com/o/a"


def add(shell, subject, pred, obj, scope=PROJECT, **options):
    return assert_fact(shell, subject, pred, obj, scope=scope, **options)["fact"]


def test_the_project_and_the_user_scope_are_read_and_other_projects_are_not(shell):
    add(shell, "api", "depends-on", "postgres")
    add(shell, "me", "prefers", "uv", scope="user", object_kind="literal")
    add(shell, "web", "depends-on", "react", scope="github.com/o/b")
    text = compile_for(shell.store, PROJECT, shell.now())["text"]
    assert "api depends-on postgres" in text and 'me prefers "uv"' in text
    assert "react" not in text


def test_dormant_and_suspect_facts_are_left_out(shell):
    dormant = add(shell, "api", "depends-on", "ftp")
    suspect = add(shell, "calc", "depends-on", "numpy", evidence=["calc.py: import numpy"])
    add(shell, "api", "depends-on", "http")
    shell.store.set_dormant([dormant["id"]], shell.now())
    shell.store.record_audit([{"fact_id": suspect["id"], "evidence": "calc.py: import numpy",
                               "file": "calc.py", "verdict": "unsupported",
                               "checked_at": shell.now()}])
    ids = {f["id"] for f in gather(shell.store, PROJECT, shell.now())["facts"]}
    assert dormant["id"] not in ids and suspect["id"] not in ids
    assert "api depends-on http" in compile_for(shell.store, PROJECT, shell.now())["text"]


def test_a_recent_supersession_shows_old_and_new_and_an_old_one_does_not(shell):
    old = add(shell, "api", "prefers", "REST", object_kind="literal")
    new = add(shell, "api", "prefers", "gRPC", object_kind="literal", on_conflict="ignore")
    shell.store.invalidate(old["id"], shell.now(), kind="superseded", successor=new["id"])
    text = compile_for(shell.store, PROJECT, shell.now())["text"]
    assert '- api prefers: "REST" → "gRPC" (you said, 2026-01-01)' in text
    shell.clock.advance_days(31)
    assert "Changed recently" not in compile_for(shell.store, PROJECT, shell.now())["text"]


def test_a_successor_in_another_scope_names_the_change_but_is_not_listed(shell):
    old = add(shell, "api", "depends-on", "vm")
    new = add(shell, "api", "depends-on", "k8s", scope="github.com/o/b")
    shell.store.invalidate(old["id"], shell.now(), kind="superseded", successor=new["id"])
    text = compile_for(shell.store, PROJECT, shell.now())["text"]
    assert "- api depends-on: vm → k8s" in text
    assert "\n- api depends-on k8s" not in text


def test_flagged_pairs_are_grouped_as_open_conflicts(shell):
    a = add(shell, "api", "depends-on", "redis")
    b = add(shell, "api", "depends-on", "memcached")
    shell.store.link_conflicts(b["id"], [a["id"]])
    found = gather(shell.store, PROJECT, shell.now())
    assert len(found["conflicts"]) == 1
    text = compile_for(shell.store, PROJECT, shell.now())["text"]
    assert ("- api depends-on: 2 claims in contention — memcached (you said) / redis (you said)"
            in text)
    assert "### Current facts" not in text


def test_the_same_store_state_compiles_to_the_same_text(shell):
    for n in range(30):
        add(shell, f"svc{n % 4}", "depends-on", f"lib{n}")
    now = shell.now()
    first = compile_for(shell.store, PROJECT, now)
    assert first == compile_for(shell.store, PROJECT, now)
    assert first["sections"]["current"] == {"shown": 30, "total": 30}


def test_an_empty_project_has_nothing_to_say(shell):
    assert compile_for(shell.store, "nowhere", shell.now())["text"] == ""


def test_every_backend_stores_a_shortlist_that_renders_the_live_block_until_a_write(
        shell, tmp_path):
    from claimgraph.core import tombstones
    from claimgraph.curator.shortlists import refresh_shortlists
    from claimgraph.curator.stage_tools import Fence, StageTools

    for n in range(60):
        add(shell, f"svc{n}", "depends-on", f"lib{n}", confidence=0.5 + (n % 7) / 20)
    add(shell, "api", "prefers", "REST")
    add(shell, "me", "prefers", "uv", scope="user", object_kind="literal")
    live = compile_for(shell.store, PROJECT, shell.now() + 3_600_000)
    fence = Fence(tmp_path / "lease.db", None, epoch=tombstones.epoch(shell.store))
    outcome = refresh_shortlists(StageTools(shell, fence, "test-run"))
    assert outcome["counts"]["stored"] == 1
    now = live["as_of"]
    assert gather(shell.store, PROJECT, now)["stored"]
    assert compile_for(shell.store, PROJECT, now) == live
    add(shell, "api", "decided-against", "GraphQL")
    found = gather(shell.store, PROJECT, now)
    assert not found["stored"] and "GraphQL" in compile_for(shell.store, PROJECT, now)["text"]
