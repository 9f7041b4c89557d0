"""Ten MCP servers on one store, each asserting and reading in a loop for ten seconds."""

from __future__ import annotations

import time

import anyio
import pytest

from claimgraph.store.open import open_store

from .conftest import Served, call, talk

pytestmark = pytest.mark.timeout(300)
SERVERS = 10
LOOP_S = 10.0


def test_ten_servers_on_one_store_lose_no_write_and_keep_it_whole(served: Served):
    created: dict[int, list[str]] = {n: [] for n in range(SERVERS)}
    failures: list[tuple[int, str, object]] = []
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
                if is_error or len(out["facts"]) != len(created[n]):
                    failures.append((n, "facts", out))
                is_error, out = await call(client, "memory_search", {"query": "GraphQL"})
                if is_error or not out["facts"]:
                    failures.append((n, "search", out))
                i += 1

    async def conversation() -> None:
        async with anyio.create_task_group() as group:
            for n in range(SERVERS):
                group.start_soon(worker, n)
    talk(conversation)

    assert failures == []
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
