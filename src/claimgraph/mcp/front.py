"""The fast front: the protocol's hot path over stdio, answered before the SDK is imported.

The official SDK costs about a second of CPU to import (its pydantic models, the HTTP
transports, the client), longer than the whole session start an agent should wait for a memory
server. The front is a small JSON-RPC loop over the same stdio wire that answers, in the SDK's
own wire form (docs/mcp.md, "Start-up"), only the messages a session opens with:

- the 2025-11-25 handshake (``initialize``, ``notifications/initialized``, ``ping``), or the
  2026-07-28 per-request envelope (``server/discover``), each as the SDK answers them;
- ``tools/list`` and ``tools/call`` for our tools, through the same functions the SDK server
  calls (``calls``), on the same two worker threads, and ``notifications/cancelled`` (a
  cancelled call is not answered).

The store's modules are not loaded to answer the handshake or ``tools/list``: once the first
answer is out, the read thread loads the search path's modules (``verbs.warm_up``) while the
client reads it, so an agent's session start waits for neither.

Anything else — another method, another protocol version, a line that is not plain JSON-RPC
(bad JSON or UTF-8, a lone surrogate, deep nesting, duplicate keys, an unexpected field) — is
not guessed at: the front waits for its calls in flight, imports the SDK and hands it the wire
(``server.run``), replaying first what set the session's state (the handshake, or a discover
in the opening envelope; their answers were already sent, so the SDK's are dropped), then the
line itself. From there on the SDK serves the session, so every answer outside the hot path is
the SDK's by construction. ``--sdk-only`` skips the front (for comparing the two).

Like the SDK's transport, the front keeps the wire on private descriptors (``wire``), so a
stray print cannot corrupt the protocol.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Mapping


from claimgraph import __version__
from claimgraph.mcp.calls import INSTRUCTIONS, NAME, TITLE, Job, Workers, tool_listing, unknown_tool
from claimgraph.mcp.journal import log
from claimgraph.mcp.session import ServerState
from claimgraph.mcp.tools import BY_NAME
from claimgraph.mcp.wire import Wire

HANDSHAKE_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
PROTOCOL_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
ENVELOPE_KEYS = (PROTOCOL_KEY, CAPABILITIES_KEY, CLIENT_INFO_KEY)
RESERVED_PREFIX = "io.modelcontextprotocol/"
#: Nesting the front reads itself; deeper lines go to the SDK, whose parser sets the limits.
MAX_DEPTH = 32
CAPABILITY_NAMES = ("roots", "sampling", "elicitation", "experimental", "extensions")
CLIENT_INFO_NAMES = {"name", "version", "title", "description", "websiteUrl"}
REPLAY_ID = "claimgraph-front-replay"
#: The log is written this long after the first answer if no tool result made it write
#: sooner: a session whose agent calls nothing still logs its start, and at its end there is
#: nothing left to load (an agent may kill a server that is slow to exit). A call in flight
#: then goes first: its answer writes the log once it is out (``Front.flush_when_idle``).
LOG_AFTER_S = 0.5


class NotOurs(Exception):
    """A message the front leaves to the SDK (the reason is logged)."""


# --- reading one line strictly ------------------------------------------------------------------

def read_message(line: bytes) -> dict[str, Any]:
    """The JSON-RPC message on ``line``, or NotOurs when anything about it is unusual."""
    if not line.endswith(b"\n") or b"\r" in line:
        raise NotOurs("line ending")
    try:
        message = json.loads(line.decode("utf-8"), object_pairs_hook=_unique_keys,
                             parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:  # bad UTF-8 or JSON, a duplicate key, NaN
        raise NotOurs(f"not plain JSON ({type(error).__name__})") from None
    _plain(message, 0)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" \
            or not isinstance(message.get("method"), str) \
            or not set(message) <= {"jsonrpc", "id", "method", "params"}:
        raise NotOurs("not a JSON-RPC request or notification")
    if "id" in message and (isinstance(message["id"], bool)
                            or not isinstance(message["id"], (int, str))
                            or isinstance(message["id"], int) and abs(message["id"]) > 2**53):
        raise NotOurs("request id")
    if not isinstance(message.get("params", {}), dict):
        raise NotOurs("params")
    return message


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("duplicate key")
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _plain(value: Any, depth: int) -> None:
    """No nesting past MAX_DEPTH, no lone surrogate in any text."""
    if depth > MAX_DEPTH:
        raise NotOurs("nesting")
    if isinstance(value, str):
        if any("\ud800" <= ch <= "\udfff" for ch in value):
            raise NotOurs("lone surrogate")
    elif isinstance(value, dict):
        for key, item in value.items():
            _plain(key, depth + 1)
            _plain(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _plain(item, depth + 1)


def _only(params: Mapping[str, Any], allowed: set[str]) -> None:
    if not set(params) <= allowed:
        raise NotOurs("unexpected parameter")


def _opaque_meta(meta: Any) -> None:
    """A request's ``_meta`` past the envelope: a progress token (we report no progress) and
    the client's own keys (Claude Code's ``claudecode/toolUseId``), none of the protocol's."""
    if not isinstance(meta, dict):
        raise NotOurs("_meta")
    for key, value in meta.items():
        if key.startswith(RESERVED_PREFIX) or key == "progress_token" or (
                key == "progressToken" and (isinstance(value, bool)
                                            or not isinstance(value, (str, int)))):
            raise NotOurs("_meta")


def _call_params(params: Mapping[str, Any]) -> None:
    if not isinstance(params.get("name"), str) \
            or not isinstance(params.get("arguments"), (dict, type(None))):
        raise NotOurs("tools/call params")


def _client_info(info: Any) -> None:
    """Names and texts only (Claude Code adds a title, a description and a website)."""
    if not (isinstance(info, dict) and {"name", "version"} <= set(info) <= CLIENT_INFO_NAMES
            and all(isinstance(value, str) for value in info.values())):
        raise NotOurs("client info")


def _capabilities(caps: Any) -> None:
    """Only the common capability shapes: each a flag object (``roots.listChanged``) or an
    object of objects."""
    if not isinstance(caps, dict) or not set(caps) <= set(CAPABILITY_NAMES):
        raise NotOurs("client capabilities")
    for name, value in caps.items():
        if not isinstance(value, dict):
            raise NotOurs("client capabilities")
        for key, item in value.items():
            wanted = bool if (name, key) == ("roots", "listChanged") else dict
            if not isinstance(item, wanted):
                raise NotOurs("client capabilities")


# --- the session ------------------------------------------------------------------------------

class Front:
    """One session's hot path; ``lead`` holds what the SDK must replay on a hand-over."""

    def __init__(self, ctx: ServerState, workers: Workers, wire: Wire) -> None:
        self.ctx, self.workers, self.wire = ctx, workers, wire
        self.era: str | None = None  # "legacy" (the handshake) or "modern" (per-request envelope)
        self.lead: list[bytes] = []
        self.pending: set[threading.Event] = set()
        self.calls: dict[int | str, bool] = {}  # in flight: request id -> cancelled
        self.calls_lock = threading.Lock()

    def handle(self, message: dict[str, Any]) -> None:
        """Answer ``message``, or raise NotOurs before anything was sent or changed."""
        params = message.get("params") or {}
        meta = params.get("_meta")
        if message["method"] == "notifications/cancelled":
            self.cancel(message, params)
        elif isinstance(meta, dict) and PROTOCOL_KEY in meta:
            self.modern(message, params, meta)
        elif "_meta" in params and message["method"] != "tools/call":
            raise NotOurs("_meta")
        else:
            if "_meta" in params:
                _opaque_meta(meta)
            self.legacy(message, params)

    def legacy(self, message: dict[str, Any], params: dict[str, Any]) -> None:
        method, is_request = message["method"], "id" in message
        if method == "initialize" and is_request and self.era is None:
            _only(params, {"protocolVersion", "capabilities", "clientInfo"})
            if params.get("protocolVersion") != HANDSHAKE_VERSION:
                raise NotOurs("protocol version")
            _capabilities(params.get("capabilities"))
            _client_info(params.get("clientInfo"))
            self.era = "legacy"
            self.lead.append(replayed(message))
            self.answer(message, {"capabilities": {"tools": {"listChanged": False}},
                                  "instructions": INSTRUCTIONS,
                                  "protocolVersion": HANDSHAKE_VERSION,
                                  "serverInfo": server_info()})
        elif self.era != "legacy":
            raise NotOurs(f"{method} outside the handshake")
        elif method == "notifications/initialized" and not is_request and not params:
            self.lead.append(replayed(message))
        elif method == "ping" and is_request and not params:
            self.answer(message, {})
        elif method == "tools/list" and is_request and not params:
            self.answer(message, {"tools": tool_listing()})
        elif method == "tools/call" and is_request:
            _only(params, {"name", "arguments", "_meta"})
            _call_params(params)
            self.tool(message, params, {})
        else:
            raise NotOurs(method)

    def modern(self, message: dict[str, Any], params: dict[str, Any],
               meta: dict[str, Any]) -> None:
        method = message["method"]
        if self.era == "legacy" or "id" not in message:
            raise NotOurs(f"{method} in the other era")
        if meta[PROTOCOL_KEY] != MODERN_VERSION or CAPABILITIES_KEY not in meta:
            raise NotOurs("request envelope")
        _opaque_meta({k: v for k, v in meta.items() if k not in ENVELOPE_KEYS})
        _capabilities(meta[CAPABILITIES_KEY])
        if CLIENT_INFO_KEY in meta:
            _client_info(meta[CLIENT_INFO_KEY])
        stamp = {"resultType": "complete", "_meta": {SERVER_INFO_KEY: server_info()}}
        cached = {"cacheScope": "private", "ttlMs": 0}
        if method == "server/discover" and set(params) == {"_meta"}:
            result = {**cached, "capabilities": {"tools": {"listChanged": False}},
                      "instructions": INSTRUCTIONS, "supportedVersions": [MODERN_VERSION]}
        elif method == "tools/list" and set(params) == {"_meta"}:
            result = {**cached, "tools": tool_listing()}
        elif method == "tools/call":
            _only(params, {"name", "arguments", "_meta"})
            _call_params(params)
            result = None
        else:
            raise NotOurs(method)
        if self.era is None:  # the opening request set the era: the SDK replays a discover
            self.era = "modern"
            self.lead.append(replayed({"jsonrpc": "2.0", "id": 0, "method": "server/discover",
                                       "params": {"_meta": meta}}))
        if result is None:
            self.tool(message, params, stamp)
        else:
            self.answer(message, {**result, **stamp})

    def cancel(self, message: dict[str, Any], params: dict[str, Any]) -> None:
        """As the SDK: a call the client cancelled while it ran is never answered (its work,
        on a worker thread, still runs to its end); any other cancel changes nothing."""
        request = params.get("requestId")
        if self.era is None or "id" in message or not set(params) <= {"requestId", "reason"} \
                or not isinstance(params.get("reason", ""), str) \
                or isinstance(request, bool) or not isinstance(request, (int, str)):
            raise NotOurs("notifications/cancelled")
        with self.calls_lock:
            if same_id(request) in self.calls:
                self.calls[same_id(request)] = True

    def tool(self, message: dict[str, Any], params: dict[str, Any],
             stamp: dict[str, Any]) -> None:
        name, arguments = params["name"], params.get("arguments")
        if same_id(message["id"]) in self.calls:
            raise NotOurs("a request id already in flight")
        tool = BY_NAME.get(name)
        if tool is None:
            code, text, data = unknown_tool(name)
            self.wire.send({"jsonrpc": "2.0", "id": message["id"],
                            "error": {"code": code, "message": text, "data": data}})
            return
        answered, key = threading.Event(), same_id(message["id"])
        self.pending.add(answered)
        with self.calls_lock:
            self.calls[key] = False

        def done(finished: Job) -> None:
            try:
                text, is_error = finished.result()
                with self.calls_lock:
                    if not self.calls.pop(key, False):
                        self.answer(message, {"content": [{"type": "text", "text": text}],
                                              "isError": is_error, **stamp})
            finally:
                answered.set()
                self.pending.discard(answered)
            log.flush()  # the first answer is out: the log may cost its imports now
        self.workers.submit(self.ctx, tool, arguments).add_done_callback(done)

    def answer(self, message: dict[str, Any], result: dict[str, Any]) -> None:
        self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def flush_when_idle(self) -> None:
        """The log's timer (``LOG_AFTER_S``): write it now unless a call is in flight. Its
        first line loads structlog and the redactor (~100 ms of CPU, holding the interpreter
        lock), which would hold up that call's answer; the call writes the log once answered."""
        if not self.pending:
            log.flush()

    def settle(self) -> None:
        """Wait for the calls in flight to be answered."""
        for answered in list(self.pending):
            answered.wait()


def same_id(request: int | str) -> int | str:
    """The id as the SDK correlates it: "7" and 7 are one request."""
    if isinstance(request, str):
        try:
            return int(request)
        except ValueError:
            return request
    return request


def server_info() -> dict[str, str]:
    return {"name": NAME, "title": TITLE, "version": __version__}


def replayed(message: dict[str, Any]) -> bytes:
    """``message`` as the SDK is to replay it: a request under the id whose answer is dropped."""
    if "id" in message:
        message = {**message, "id": REPLAY_ID}
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def serve(ctx: ServerState) -> None:
    """Serve the session: the front while it knows the messages, then the SDK."""
    workers, wire = Workers(), Wire()
    front, warm = Front(ctx, workers, wire), False
    try:
        for line in wire.reader:
            try:
                front.handle(read_message(line))
                if not warm:  # the first answer is out: load what the first call needs
                    workers.warm_up(ctx)
                    later = threading.Timer(LOG_AFTER_S, front.flush_when_idle)
                    later.daemon = True
                    later.start()
                    warm = True
            except NotOurs as reason:
                log.info("mcp.sdk-takes-over", reason=str(reason))
                front.settle()
                log.flush()
                hand_over(ctx, workers, wire, [*front.lead, line])
                return
        front.settle()
    finally:
        log.flush()
        workers.close(ctx)
        wire.restore()


def hand_over(ctx: ServerState, workers: Workers, wire: Wire, lead: list[bytes]) -> None:
    from claimgraph import startup

    with startup.more_imports():  # the SDK's models live as long as the server
        from claimgraph.mcp import server
    server.run(ctx, workers, wire=wire, lead=lead, dropped=REPLAY_ID)
