"""The MCP server over stdio, on the official SDK's low-level ``Server`` (no hand-written JSON-RPC).

The SDK speaks the protocol (the initialize handshake and the 2026 discover probe Claude Code
sends first, tools/list, tools/call, ping) and owns stdout: it moves the wire to a private
descriptor and points fd 1 at stderr, so a stray print can never corrupt the protocol. This
module maps the memory_* tools onto it:

- a tool's failure is a tool result with ``isError`` and one line of JSON text,
  ``{"error", "type", "hint", ...}`` (REFERENCE §14: the CLI's error shape), never a crashed
  server; an unexpected exception is logged with its traceback and reported the same way;
- an unknown tool is a protocol error, -32602 with the known names;
- reads run on one worker thread and writes on another (``session.ServerState``), so the event
  loop keeps answering while a write waits for the lease;
- every call is logged to ``<db>.mcp.log`` (JSON lines: tool, status — "ok" or the error
  type — and duration_ms).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Mapping

import anyio
import structlog
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from claimgraph import __version__
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.safe_render import safe_value
from claimgraph.mcp.arguments import input_schema, parse
from claimgraph.mcp.session import ServerState
from claimgraph.mcp.tools import BY_NAME, TOOLS, Tool

log = structlog.get_logger("claimgraph.mcp")
INSTRUCTIONS = (
    "claimgraph is this user's long-term memory of earlier coding sessions: decisions, "
    "preferences, conventions, project structure and lessons from failures, each with where it "
    "came from. Before changing a component, choosing a tool or retrying something that failed, "
    "call memory_search (or memory_coach with the task). Record lasting decisions the user "
    "states with memory_assert. Memory can be outdated: facts carry a confidence and a date.")


def tool_listing() -> list[types.Tool]:
    return [types.Tool(name=t.name, description=t.description, input_schema=input_schema(t.args),
                       annotations=types.ToolAnnotations(read_only_hint=not t.writes,
                                                         destructive_hint=False,
                                                         open_world_hint=False))
            for t in TOOLS]


def text_result(payload: Any, is_error: bool = False) -> types.CallToolResult:
    text = json.dumps(safe_value(payload), ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                is_error=is_error)


def error_payload(error: ClaimgraphError) -> dict[str, Any]:
    """The CLI's error shape on one line; nested details (a lease holder's record) are left
    to the log, the message already names what matters."""
    record = {k: v for k, v in error.to_dict().items()
              if isinstance(v, (str, int, float, bool)) and v is not None}
    return {k: " ".join(v.split()) if isinstance(v, str) else v for k, v in record.items()}


def call(ctx: ServerState, tool: Tool, raw: Mapping[str, Any] | None) -> types.CallToolResult:
    """Run one tool call on the calling (worker) thread; every outcome becomes a result."""
    started = time.monotonic()
    try:
        result = text_result(tool.run(ctx, parse(tool.args, raw)))
        outcome = "ok"
    except ClaimgraphError as error:
        result, outcome = text_result(error_payload(error), is_error=True), error.type
    except Exception as error:  # noqa: BLE001 - a bug in one call must not end the session
        log.exception("mcp.tool-crashed", tool=tool.name)
        crash = ClaimgraphError("internal-error", f"internal error in {tool.name}: "
                                f"{type(error).__name__}: {error}",
                                hint=f"this is a bug; the traceback is in {ctx.db}.mcp.log")
        result, outcome = text_result(error_payload(crash), is_error=True), "internal-error"
    log.info("mcp.tool", tool=tool.name, status=outcome,
             duration_ms=round((time.monotonic() - started) * 1000, 2))
    return result


class Workers:
    """One thread for reads, one for writes: each shell stays on its own thread."""

    def __init__(self) -> None:
        self.reads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-read")
        self.writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-write")

    async def run(self, ctx: ServerState, tool: Tool,
                  raw: Mapping[str, Any] | None) -> types.CallToolResult:
        pool = self.writes if tool.writes else self.reads
        return await asyncio.get_running_loop().run_in_executor(pool, call, ctx, tool, raw)

    def close(self, ctx: ServerState) -> None:
        """Close each shell on its own thread (SQLite insists), then stop both threads."""
        for pool, close in ((self.reads, ctx.close_reader), (self.writes, ctx.close_writer)):
            pool.submit(close).result()
            pool.shutdown(wait=True)


def build(ctx: ServerState, workers: Workers) -> Server:
    async def list_tools(_rctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_listing())

    async def call_tool(_rctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            known = ", ".join(BY_NAME)
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}; known: {known}",
                           data={"known": list(BY_NAME)})
        return await workers.run(ctx, tool, params.arguments)

    return Server("claimgraph", version=__version__, title="claimgraph memory",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(ctx: ServerState) -> None:
    """Serve until the client closes stdin."""
    workers = Workers()
    server = build(ctx, workers)
    try:
        async with stdio_server() as (read_stream, write_stream):
            async with answering_bad_lines(read_stream, write_stream) as messages:
                await server.run(messages, write_stream, server.create_initialization_options())
    finally:
        workers.close(ctx)


@asynccontextmanager
async def answering_bad_lines(read_stream: Any, write_stream: Any) -> AsyncIterator[Any]:
    """The messages the SDK read, minus the lines it could not: for each of those (not JSON, a
    lone surrogate, nesting past what the parser takes, not a JSON-RPC message) the client gets
    a JSON-RPC error reply with a null id (the spec's answer when the id cannot be read),
    instead of silence."""
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def relay() -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await _relay()

    async def _relay() -> None:
        async with send:
            async for item in read_stream:
                if isinstance(item, Exception):
                    log.warning("mcp.bad-message", reason=f"{type(item).__name__}: "
                                f"{str(item)[:200]}")
                    await write_stream.send(SessionMessage(types.JSONRPCError(
                        jsonrpc="2.0", id=None, error=types.ErrorData(
                            code=types.PARSE_ERROR, message="parse error: the line is not a "
                            "JSON-RPC message this server can read (invalid JSON or text, "
                            "nesting too deep, or a malformed request)"))))
                    continue
                await send.send(item)

    async with anyio.create_task_group() as group:
        group.start_soon(relay)
        async with receive:
            yield receive


def run(ctx: ServerState) -> None:
    anyio.run(serve, ctx)
