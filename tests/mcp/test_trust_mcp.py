"""MCP at the trust boundary: malformed JSON-RPC gets an error reply, a NUL is a clear
error, and reads work on a store this user may not write (the official SDK client, and raw
bytes where the SDK would never send them)."""

from __future__ import annotations

import json
import subprocess
import sys

from mcp import Client, StdioServerParameters

from tests.hooks.conftest import without_dac_override

from .conftest import SERVER_TIMEOUT_S, Served, call, talk

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


def test_malformed_json_rpc_gets_an_error_reply_and_the_server_goes_on(served: Served):
    server = subprocess.Popen([sys.executable, "-m", "claimgraph.mcp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              cwd=served.project, env=served.env)
    try:
        def send(text: str) -> None:
            server.stdin.write(text.encode("utf-8", "surrogatepass") + b"\n")
            server.stdin.flush()

        def answer() -> dict:
            return json.loads(server.stdout.readline())
        send(json.dumps(INIT))
        assert answer()["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        call_ = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_search",' \
                '"arguments":{"query":%s}}}'
        send(call_ % (2, '"\\ud800"'))            # a lone surrogate
        send(call_ % (3, "[" * 50_000 + "]" * 50_000))  # 50,000-deep nesting
        send("{not json")
        for _ in range(3):
            reply = answer()
            assert reply["error"]["code"] == -32700 and reply["id"] is None
        send(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        assert answer() == {"jsonrpc": "2.0", "id": 4, "result": {}}
    finally:
        server.stdin.close()
        server.wait(timeout=SERVER_TIMEOUT_S)


def test_a_nul_in_a_query_is_a_clear_argument_error(served: Served):
    async def conversation():
        async with served.client() as client:
            return await call(client, "memory_search", {"query": "bill\x00ing"})
    is_error, answer = talk(conversation)
    assert is_error and answer["type"] == "invalid-argument" and "NUL" in answer["error"]


def test_reads_work_on_a_store_this_user_may_not_write(served: Served):
    directory = served.db.parent
    for path in directory.iterdir():
        path.chmod(0o400 if path.is_file() else 0o500)
    directory.chmod(0o500)
    prefix = without_dac_override()
    params = StdioServerParameters(command=(prefix or (sys.executable,))[0],
                                   args=[*prefix[1:], *([sys.executable] if prefix else []),
                                         "-m", "claimgraph.mcp"],
                                   cwd=str(served.project), env=served.env)
    try:
        async def conversation():
            async with Client(params, read_timeout_seconds=SERVER_TIMEOUT_S) as client:
                return await call(client, "memory_search", {"query": "billing"})
        is_error, answer = talk(conversation)
    finally:
        directory.chmod(0o700)
        for path in directory.iterdir():
            path.chmod(0o600 if path.is_file() else 0o700)
    assert not is_error, answer
    assert any(f["object"] == "GraphQL" for f in answer["facts"])
