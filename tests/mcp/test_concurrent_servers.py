"""Ten MCP servers on one store, each asserting and reading in a loop for ten seconds."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from claimgraph.mcp.views import wire
from claimgraph.opening import open_store

from .conftest import Served, call, talk

pytestmark = pytest.mark.timeout(300)
SERVERS = 10
LOOP_S = 10.0


def test_ten_servers_on_one_store_lose_no_write_and_keep_it_whole(served: Served):
    created: dict[int, list[str]] = {n: [] for n in range(SERVERS)}
    failures: list[tuple[int, str, dict[str, Any]]] = []
    ready = anyio.Event()
    connected = [0]

    async def worker(n: int) -> None:
        async with served.client() as client:
            connected[0] += 1
            if connected[0] == SERVERS:
                ready.set()
            await ready.wait()
            deadline = time.monotonic() + LOOP_S
            i = 0
            while time.monotonic() < deadline:
                is_error, out = await call(client, "memory_assert", {
                    "subject": f"service-{n}", "predicate": "depends-on", "object": f"lib-{n}-{i}"})
                if is_error or out["status"] != "created":
                    failures.append((n, "assert", out))
                else:
                    created[n].append(out["fact"]["id"])
                is_error, out = await call(client, "memory_facts", {"entity": f"service-{n}"})
                if is_error:
                    failures.append((n, "facts", out))
                elif {f["id"] for f in out["facts"]} != set(created[n]):
                    failures.append((n, "facts", facts_mismatch(i, created[n], out)))
                is_error, out = await call(client, "memory_search", {"query": "GraphQL"})
                if is_error or not out["facts"]:
                    failures.append((n, "search", out))
                i += 1

    async def conversation() -> None:
        async with anyio.create_task_group() as group:
            for n in range(SERVERS):
                group.start_soon(worker, n)
    talk(conversation)

    store = open_store(served.db, create=False)
    try:  # what the store holds of each fact a read missed: the failure names its cause
        for _n, what, found in failures:
            if what == "facts" and found.get("missing"):
                found["stored"] = [stored_view(f) for f in store.get_facts_by_ids(found["missing"])]
    finally:
        store.close()
    assert not failures, "\n".join(repr(f) for f in failures)  # whole: pytest would cut it
    assert all(created[n] for n in range(SERVERS)), {n: len(ids) for n, ids in created.items()}
    store = open_store(served.db, create=False)
    try:
        wanted = [fid for ids in created.values() for fid in ids]
        assert len(store.get_facts_by_ids(wanted)) == len(wanted)
        assert store.pragma("integrity_check") == "ok"
    finally:
        store.close()
    print(f"\n[mcp] {len(wanted)} asserts by {SERVERS} servers in {LOOP_S:.0f} s")
    assert served.problems == []


def facts_mismatch(i: int, created: list[str], out: dict[str, Any]) -> dict[str, Any]:
    """A memory_facts answer that is not exactly this server's own writes, said in ids (the
    answer itself is too long to survive pytest's report)."""
    seen = [f["id"] for f in out["facts"]]
    return {"iteration": i, "answered": len(seen), "created": len(created),
            "missing": [c for c in created if c not in seen],
            "extra": [f for f in out["facts"] if f["id"] not in created],
            "entities": out["entities"], "as_of": out["as_of"]}


def stored_view(fact: dict[str, Any]) -> dict[str, Any]:
    """The times and state that decide whether a read at ``as_of`` shows the fact (as the
    answer writes times, so the two compare at a glance)."""
    keys = ("id", "t_valid", "recorded_at", "t_invalid", "invalidation_kind", "dormant_since",
            "scope")
    return wire({k: fact.get(k) for k in keys})
