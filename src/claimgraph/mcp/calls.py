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
import threading
import time
from queue import SimpleQueue
from typing import Any, Callable, Mapping


from claimgraph.errors import ClaimgraphError
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
    from claimgraph.logic.safe_render import safe_value

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


def _warm_up(ctx: ServerState) -> None:
    from claimgraph.mcp import verbs

    verbs.warm_up(ctx)


class Job:
    """One piece of work's outcome, set by the worker thread that ran it (``concurrent.futures``
    would do, but it loads ``logging`` with it, at every server start)."""

    def __init__(self) -> None:
        self.finished = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
        self.callbacks: list[Callable[[Job], None]] = []
        self.lock = threading.Lock()

    def settle(self, value: Any = None, error: BaseException | None = None) -> None:
        with self.lock:
            self.value, self.error = value, error
            self.finished.set()
            callbacks, self.callbacks = self.callbacks, []
        for callback in callbacks:
            _guarded(callback, self)

    def add_done_callback(self, callback: Callable[[Job], None]) -> None:
        """``callback(job)`` once it is finished (at once, here, if it is already)."""
        with self.lock:
            if not self.finished.is_set():
                self.callbacks.append(callback)
                return
        _guarded(callback, self)

    def result(self) -> Any:
        self.finished.wait()
        if self.error is not None:
            raise self.error
        return self.value


def _guarded(callback: Callable[[Job], None], job: Job) -> None:
    """A callback that fails is logged, never raised into the worker (which must live on to
    run the jobs queued behind, the shell's close among them)."""
    try:
        callback(job)
    except Exception:  # noqa: BLE001
        log.exception("mcp.callback-failed")


class Worker:
    """One thread running its jobs in order, so a shell never leaves the thread it was opened
    on (SQLite insists)."""

    def __init__(self, name: str) -> None:
        self.queue: SimpleQueue[tuple[Job, Callable[..., Any], tuple[Any, ...]] | None] = \
            SimpleQueue()
        self.thread = threading.Thread(target=self._run, name=name)
        self.thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Job:
        job = Job()
        self.queue.put((job, fn, args))
        return job

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            job, fn, args = item
            try:
                value = fn(*args)
            except BaseException as error:  # noqa: BLE001 - handed to whoever waits for it
                job.settle(error=error)
            else:
                job.settle(value)

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join()


class Workers:
    """One thread for reads, one for writes: each shell stays on its own thread."""

    def __init__(self) -> None:
        self.reads = Worker("mcp-read")
        self.writes = Worker("mcp-write")

    def submit(self, ctx: ServerState, tool: Tool, raw: Mapping[str, Any] | None) -> Job:
        """Run the call on its thread; the Job's result is (the result's text, is_error)."""
        return (self.writes if tool.writes else self.reads).submit(call, ctx, tool, raw)

    def warm_up(self, ctx: ServerState) -> None:
        """Load the search path's modules on the read thread, ahead of the first call (which
        queues behind it on that thread)."""
        self.reads.submit(_warm_up, ctx)

    def close(self, ctx: ServerState) -> None:
        """Close each shell on its own thread, then stop both threads."""
        for worker, close in ((self.reads, ctx.close_reader), (self.writes, ctx.close_writer)):
            worker.submit(close).result()
            worker.stop()
