"""``python -m claimgraph.mcp`` as a real process, driven over stdio by the SDK's own client."""

from __future__ import annotations

import json
import time

import pytest
from mcp.shared.exceptions import MCPError

from claimgraph import retrievals
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars
from claimgraph.store import leases

from .conftest import OTHER, Served, call, talk

pytestmark = pytest.mark.timeout(180)

GOOD_CALLS = {
    "memory_search": {"query": "stripe"},
    "memory_recall": {"query": "webhook", "min_hits": "1"},
    "memory_facts": {"entity": "billing"},
    "memory_neighbor": {"entity": "billing", "depth": 2},
    "memory_history": {"subject": "stripe", "predicate": "has-version"},
    "memory_conflicts": {},
    "memory_coach": {"task": "add a retry to the billing webhook"},
    "memory_assert": {"subject": "billing", "predicate": "built-with", "object": "make"},
    "memory_forget": {"fact_id": None, "reason": "outdated"},  # the id is looked up per test
}
BAD_CALLS = {
    "memory_search": ({}, "missing required argument 'query'"),
    "memory_recall": ({"query": "x", "min_hits": 2.5}, "min_hits 2.5 is not a whole number"),
    "memory_facts": ({"entity": "billing", "direction": "up"}, "direction 'up' is not one of"),
    "memory_neighbor": ({"entity": "nobody"}, "no entity named 'nobody'"),
    "memory_history": ({"subject": "stripe"}, "missing required argument 'predicate'"),
    "memory_conflicts": ({"verbose": True}, "unknown argument 'verbose'"),
    "memory_coach": ({"task": ["a", "list"]}, "task must be text"),
    "memory_assert": ({"subject": "billing", "predicate": "prefers", "object": "x",
                       "confidence": "1.5"}, "confidence 1.5 is out of range"),
    "memory_forget": ({"fact_id": "f-nope"}, "no fact with id 'f-nope'"),
}


def fact_id(served: Served, subject: str, predicate: str) -> str:
    store = open_store(served.db)
    try:
        return next(f["id"] for f in store.all_facts() if f["subject"]["name"] == subject
                    and f["predicate"].endswith(predicate))
    finally:
        store.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_lists_every_tool_and_each_answers_good_and_bad_arguments(
        served: Served, mode: str):
    calls = {**GOOD_CALLS, "memory_forget": {**GOOD_CALLS["memory_forget"],
                                             "fact_id": fact_id(served, "stripe", "has-version")}}

    async def conversation():
        async with served.client(mode) as client:
            listed = (await client.list_tools()).tools
            good = {name: await call(client, name, args) for name, args in calls.items()}
            bad = {name: await call(client, name, args) for name, (args, _) in BAD_CALLS.items()}
            return client.server_info, listed, good, bad
    info, listed, good, bad = talk(conversation)
    assert info.name == "claimgraph"
    assert [t.name for t in listed] == list(GOOD_CALLS)
    assert all(t.description and t.input_schema["type"] == "object" for t in listed)
    assert {t.name for t in listed if t.annotations.read_only_hint} == set(GOOD_CALLS) - {
        "memory_assert", "memory_forget"}
    assert {name: is_error for name, (is_error, _) in good.items()} == dict.fromkeys(GOOD_CALLS,
                                                                                     False)
    for name, (is_error, payload) in bad.items():
        assert is_error, name
        assert set(payload) >= {"error", "type", "hint"}, payload
        assert BAD_CALLS[name][1] in payload["error"], payload
        assert "\n" not in json.dumps(payload)
    assert served.problems == []


def test_answers_are_this_projects_and_the_users_memory(served: Served):
    async def conversation():
        async with served.client() as client:
            return (await call(client, "memory_search", {"query": "stripe"}),
                    await call(client, "memory_facts", {"entity": "billing"}),
                    await call(client, "memory_facts", {"entity": "billing", "entity-scope": OTHER,
                                                        "scope": OTHER}),
                    await call(client, "memory_coach", {"task": "retry the billing webhook"}))
    (_, search), (_, facts), (_, other), (_, coach) = talk(conversation)
    assert search["scopes"] == [served.project_id, "user"]
    assert "stripe-legacy" not in {f["object"] for f in search["facts"]}
    assert {f["object"] for f in facts["facts"]} == {
        "GraphQL", "stripe", "double charges when the webhook retries"}
    assert [f["object"] for f in other["facts"]] == ["stripe-legacy"]
    assert coach["push"] is True and "double charges" in coach["briefing"]


def test_reads_that_surface_facts_are_logged_for_outcomes(served: Served):
    async def conversation():
        async with served.client() as client:
            await call(client, "memory_search", {"query": "GraphQL"})
            await call(client, "memory_neighbor", {"entity": "billing"})
            await call(client, "memory_coach", {"task": "haiku about autumn"})
    talk(conversation)
    reads = retrievals.pending(served.db)["reads"]
    assert [r["verb"] for r in reads] == ["search"]


def test_an_assert_lands_in_the_sessions_episode_and_survives_a_restart(served: Served):
    session = {"CLAUDE_CODE_SESSION_ID": "5f1c-session"}

    async def conversation():
        async with served.client(**session) as client:
            first = await call(client, "memory_assert", {
                "subject": "billing", "predicate": "decided-against", "object": "SOAP",
                "class": "commitment"})
        async with served.client(**session) as client:
            again = await call(client, "memory_assert", {
                "subject": "billing", "predicate": "tested-by", "object": "pytest"})
        return first, again
    (error1, first), (error2, again) = talk(conversation)
    assert not error1 and not error2
    assert first["status"] == "created" and first["fact"]["scope"] == served.project_id
    assert first["fact"]["source_type"] == "agent-note"
    assert first["episode"]["ref"] == "mcp:claude-code:5f1c-session"
    assert again["episode"] == first["episode"]
    store = open_store(served.db, create=False)
    try:
        stored = store.get_fact(first["fact"]["id"])
        assert stored["episode"] == first["episode"]["id"]
        assert store.get_episode(stored["episode"])["source_type"] == "agent-note"
    finally:
        store.close()


def test_a_held_write_lease_is_a_clear_tool_error_after_the_configured_wait(served: Served):
    """Another process holds the lease (this test, through the lease module); the server waits
    the configured 400 ms, answers with a tool error naming the holder, keeps serving reads
    meanwhile and writes again once the lease is free."""
    held = leases.write_lease(served.db, "claimgraph-curator", 0)

    async def conversation():
        async with served.client(CLAIMGRAPH_LEASE_WAIT_MS="400") as client:
            started = time.monotonic()
            blocked = await call(client, "memory_assert", {
                "subject": "billing", "predicate": "prefers", "object": "gRPC"})
            waited = time.monotonic() - started
            read = await call(client, "memory_search", {"query": "GraphQL"})
            held.release()
            retried = await call(client, "memory_assert", {
                "subject": "billing", "predicate": "prefers", "object": "gRPC"})
            return blocked, waited, read, retried
    try:
        (is_error, error), waited, (read_error, _), (retry_error, retried) = talk(conversation)
    finally:
        held.release()
    assert is_error and error["type"] == "store-locked"
    assert "held by 'claimgraph-curator'" in error["error"] and error["hint"]
    assert waited >= 0.4
    assert read_error is False
    assert retry_error is False and retried["status"] == "created"


def test_a_bug_in_one_call_is_a_tool_error_and_the_server_keeps_serving(served: Served):
    """Evidence that is a directory makes the evidence tier raise an unexpected OSError."""
    name = "sha256-" + "0" * 64
    (Sidecars(served.db).evidence_dir / name).mkdir(parents=True)
    from claimgraph.core import Shell
    from claimgraph.core.ingest import ingest

    sh = Shell(open_store(served.db))
    ingest(sh, [{"subject": "cron", "predicate": "written-in", "object": "bash",
                 "scope": served.project_id}], ref="claude-code:s9@0-1", evidence=name)
    sh.store.close()

    async def conversation():
        async with served.client() as client:
            crashed = await call(client, "memory_recall", {"query": "zeppelin"})
            after = await call(client, "memory_search", {"query": "GraphQL"})
            return crashed, after
    (is_error, error), (after_error, after) = talk(conversation)
    assert is_error and error["type"] == "internal-error"
    assert "IsADirectoryError" in error["error"] and ".mcp.log" in error["hint"]
    assert after_error is False and after["facts"]
    crash = [e for e in served.log_events() if e["event"] == "mcp.tool-crashed"]
    assert crash and "Traceback" in crash[0]["exception"]
    assert served.problems == []


def test_an_unknown_tool_is_a_protocol_error_naming_the_known_ones(served: Served):
    async def conversation():
        async with served.client() as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("memory_delete", {})
            return refused.value
    error = talk(conversation)
    assert error.code == -32602 and "memory_search" in error.message


def test_the_server_logs_its_start_and_every_call_beside_the_store(served: Served):
    async def conversation():
        async with served.client() as client:
            await call(client, "memory_search", {"query": "stripe"})
            await call(client, "memory_facts", {"entity": "nobody"})
    talk(conversation)
    events = served.log_events()
    started = events[0]
    assert started["event"] == "mcp.started" and started["project"] == served.project_id
    calls = [(e["tool"], e["status"]) for e in events if e["event"] == "mcp.tool"]
    assert calls == [("memory_search", "ok"), ("memory_facts", "unknown-entity")]
    assert events[-1]["event"] == "mcp.stopped"


def test_reads_on_a_missing_store_are_tool_errors_and_the_first_assert_creates_it(
        served: Served, tmp_path):
    fresh = tmp_path / "fresh" / "claims.db"

    async def conversation():
        async with served.client(CLAIMGRAPH_DB=str(fresh)) as client:
            read = await call(client, "memory_search", {"query": "x"})
            wrote = await call(client, "memory_assert", {"subject": "a", "predicate": "prefers",
                                                         "object": "b"})
            again = await call(client, "memory_search", {"query": "prefers b"})
            return read, wrote, again
    (read_error, read), (write_error, _), (again_error, _) = talk(conversation)
    assert read_error and read["type"] == "store-missing"
    assert write_error is False and fresh.exists()
    assert again_error is False
