"""What the server answers, before any transport wraps it: the tool listing, a tool call's
result, and the workers that run the calls — without the SDK.

Both doors to the protocol use these: the SDK's low-level ``Server`` (``server``) and the fast
front (``front``), which answers the hot path of a session before the SDK is imported. Each
value here is the protocol's wire form (camelCase keys, as the SDK serialises its types), so
the two answer with the same JSON (docs/mcp.md, "Start-up"):

- a tool's failure is a tool result with ``isError`` and one line of JSON text,
  ``{"error", "type", "hint", ...}`` (the CLI's error shape), never a crashed server; an
  unexpected exception is logged with its traceback and reported the same way;
- an unknown tool is a protocol error, -32602 with the known names;
- reads run on one worker thread and writes on another (``session.ServerState``), so the
  server keeps answering while a write waits for the lease;
- every call is logged to ``<db>.mcp.log`` (JSON lines: tool, status — "ok" or the error
  type — and duration_ms).
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Mapping


from claimgraph.errors import ClaimgraphError
from claimgraph.logic.safe_render import safe_value
from claimgraph.mcp.arguments import input_schema, parse
from claimgraph.mcp.journal import log
from claimgraph.mcp.session import ServerState
from claimgraph.mcp.tools import BY_NAME, TOOLS, Tool

NAME, TITLE = "claimgraph", "claimgraph memory"
INVALID_PARAMS = -32602
INSTRUCTIONS = (
    "claimgraph is this user's long-term memory of earlier coding sessions: decisions, "
    "preferences, conventions, project structure and lessons from failures, each with where it "
    "came from. Before changing a component, choosing a tool or retrying something that failed, "
    "call memory_search (or memory_coach with the task). Record lasting decisions the user "
    "states with memory_assert. Memory can be outdated: facts carry a confidence and a date.")


def tool_listing() -> list[dict[str, Any]]:
    """Every tool as ``tools/list`` names it (wire form)."""
    return [{"name": t.name, "description": t.description, "inputSchema": input_schema(t.args),
             "annotations": {"readOnlyHint": not t.writes, "destructiveHint": False,
                             "openWorldHint": False}}
            for t in TOOLS]


def unknown_tool(name: str) -> tuple[int, str, dict[str, Any]]:
    """(code, message, data) of the protocol error for a tool this server does not have."""
    known = ", ".join(BY_NAME)
    return INVALID_PARAMS, f"unknown tool {name!r}; known: {known}", {"known": list(BY_NAME)}


def text(payload: Any) -> str:
    return json.dumps(safe_value(payload), ensure_ascii=False, separators=(",", ":"))


def error_payload(error: ClaimgraphError) -> dict[str, Any]:
    """The CLI's error shape on one line; nested details (a lease holder's record) are left
    to the log, the message already names what matters."""
    record = {k: v for k, v in error.to_dict().items()
              if isinstance(v, (str, int, float, bool)) and v is not None}
    return {k: " ".join(v.split()) if isinstance(v, str) else v for k, v in record.items()}


def call(ctx: ServerState, tool: Tool, raw: Mapping[str, Any] | None) -> tuple[str, bool]:
    """Run one tool call on the calling (worker) thread: (the result's text, is_error)."""
    started = time.monotonic()
    try:
        result = text(tool.run(ctx, parse(tool.args, raw))), False
        outcome = "ok"
    except ClaimgraphError as error:
        result, outcome = (text(error_payload(error)), True), error.type
    except Exception as error:  # noqa: BLE001 - a bug in one call must not end the session
        log.exception("mcp.tool-crashed", tool=tool.name)
        crash = ClaimgraphError("internal-error", f"internal error in {tool.name}: "
                                f"{type(error).__name__}: {error}",
                                hint=f"this is a bug; the traceback is in {ctx.db}.mcp.log")
        result, outcome = (text(error_payload(crash)), True), "internal-error"
    log.info("mcp.tool", tool=tool.name, status=outcome,
             duration_ms=round((time.monotonic() - started) * 1000, 2))
    return result


class Workers:
    """One thread for reads, one for writes: each shell stays on its own thread."""

    def __init__(self) -> None:
        self.reads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-read")
        self.writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-write")

    def submit(self, ctx: ServerState, tool: Tool,
               raw: Mapping[str, Any] | None) -> Future[tuple[str, bool]]:
        pool = self.writes if tool.writes else self.reads
        return pool.submit(call, ctx, tool, raw)

    def close(self, ctx: ServerState) -> None:
        """Close each shell on its own thread (SQLite insists), then stop both threads."""
        for pool, close in ((self.reads, ctx.close_reader), (self.writes, ctx.close_writer)):
            pool.submit(close).result()
            pool.shutdown(wait=True)
