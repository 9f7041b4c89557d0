"""The MCP server over stdio, on the official SDK's low-level ``Server`` (no hand-written JSON-RPC
past the front's hot path).

The SDK speaks the protocol (the initialize handshake and the 2026 discover probe Claude Code
sends first, tools/list, tools/call, ping) and owns stdout: it moves the wire to a private
descriptor and points fd 1 at stderr, so a stray print can never corrupt the protocol. This
module maps the memory_* tools (``calls``: the listing, the results, the worker threads) onto
it. It serves a whole session with ``--sdk-only``; otherwise it takes over from the fast front
(``front``) at the first message the front leaves to it, on the front's wire, after replaying
what set the session's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Iterable

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from claimgraph import __version__
from claimgraph.mcp.calls import (INSTRUCTIONS, NAME, TITLE, Job, Workers, tool_listing,
                                  unknown_tool)
from claimgraph.mcp.journal import log
from claimgraph.mcp.session import ServerState
from claimgraph.mcp.tools import BY_NAME

from claimgraph.mcp.wire import Wire



def build(ctx: ServerState, workers: Workers) -> Server:
    async def list_tools(_rctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": tool_listing()})

    async def call_tool(_rctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            code, message, data = unknown_tool(params.name)
            raise MCPError(code, message, data=data)
        text, is_error = await finished(workers.submit(ctx, tool, params.arguments))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    is_error=is_error)

    return Server(NAME, version=__version__, title=TITLE, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def finished(job: Job) -> Any:
    """The job's result, awaited on the event loop (which keeps serving meanwhile)."""
    loop = asyncio.get_running_loop()
    waiter = loop.create_future()

    def settle(done: Job) -> None:
        if waiter.cancelled():
            return
        if done.error is not None:
            waiter.set_exception(done.error)
        else:
            waiter.set_result(done.value)
    def hand_back(done: Job) -> None:
        with contextlib.suppress(RuntimeError):  # the loop ended first: nobody waits for it
            loop.call_soon_threadsafe(settle, done)
    job.add_done_callback(hand_back)
    return await waiter


async def serve(ctx: ServerState, workers: Workers, wire: Wire | None, lead: Iterable[bytes],
                dropped: str | None) -> None:
    """Serve until the client closes stdin: on the process's stdio, or on the front's wire
    after its ``lead`` lines (answers to the id ``dropped`` are not sent: the front sent its
    own)."""
    server = build(ctx, workers)
    streams = {} if wire is None else {"stdin": anyio.wrap_file(_Unowned(wire.reader)),
                                       "stdout": anyio.wrap_file(_Unowned(wire.writer))}
    async with stdio_server(**streams) as (read_stream, write_stream):
        answers = Dropping(write_stream, dropped)
        async with answering_bad_lines(read_stream, answers, lead) as messages:
            await server.run(messages, answers, server.create_initialization_options())


class _Unowned(io.TextIOWrapper):
    """UTF-8 text over the front's binary wire (as the SDK's transport reads it), which it
    never closes: the front's buffer, and what it still holds, stay the front's."""

    def __init__(self, buffer: Any) -> None:
        super().__init__(buffer, encoding="utf-8", errors="replace")

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


class Dropping:
    """The SDK's write stream, minus its answers to the replayed requests."""

    def __init__(self, stream: Any, dropped: str | None) -> None:
        self.stream, self.dropped = stream, dropped

    async def send(self, item: SessionMessage) -> None:
        if self.dropped is None or getattr(item.message, "id", None) != self.dropped:
            await self.stream.send(item)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> Dropping:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


def parsed(lines: Iterable[bytes]) -> list[SessionMessage | Exception]:
    """The front's lines as the SDK's stdio transport reads them (text lines, then one
    message each, or the exception it raised)."""
    found: list[SessionMessage | Exception] = []
    for line in io.StringIO(b"".join(lines).decode("utf-8", "replace"), newline=None):
        try:
            found.append(SessionMessage(types.jsonrpc_message_adapter.validate_json(
                line, by_name=False)))
        except Exception as error:  # noqa: BLE001 - as the transport: the error is the item
            found.append(error)
    return found


@asynccontextmanager
async def answering_bad_lines(read_stream: Any, write_stream: Any,
                              lead: Iterable[bytes] = ()) -> AsyncIterator[Any]:
    """The messages the SDK read (after the front's ``lead``), minus the lines it could not:
    for each of those (not JSON, a lone surrogate, nesting past what the parser takes, not a
    JSON-RPC message) the client gets a JSON-RPC error reply with a null id (the spec's answer
    when the id cannot be read), instead of silence."""
    send, receive = anyio.create_memory_object_stream[Any](0)
    first = parsed(lead)

    async def relay() -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async with send:
                for item in first:
                    await forward(item)
                async for item in read_stream:
                    await forward(item)

    async def forward(item: Any) -> None:
        if isinstance(item, Exception):
            log.warning("mcp.bad-message", reason=f"{type(item).__name__}: {str(item)[:200]}")
            await write_stream.send(SessionMessage(types.JSONRPCError(
                jsonrpc="2.0", id=None, error=types.ErrorData(
                    code=types.PARSE_ERROR, message="parse error: the line is not a "
                    "JSON-RPC message this server can read (invalid JSON or text, "
                    "nesting too deep, or a malformed request)"))))
        else:
            await send.send(item)

    async with anyio.create_task_group() as group:
        group.start_soon(relay)
        async with receive:
            yield receive


def run(ctx: ServerState, workers: Workers, wire: Wire | None = None, lead: Iterable[bytes] = (),
        dropped: str | None = None) -> None:
    anyio.run(serve, ctx, workers, wire, list(lead), dropped)


def run_sdk_only(ctx: ServerState) -> None:
    """The whole session on the SDK (``--sdk-only``)."""
    workers = Workers()
    try:
        run(ctx, workers)
    finally:
        workers.close(ctx)
