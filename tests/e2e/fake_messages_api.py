"""A scripted stand-in for the Anthropic Messages API, for driving the real `claude` CLI offline.

Findings from spiking the real CLI 2.1.332 (npm `@anthropic-ai/claude-code`) against this server,
no hooks, `claude -p … --allowedTools "Write Bash" --output-format json`, env HOME=<tmp>,
ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY=dummy, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1:

- Endpoints hit: ONLY `POST /v1/messages?beta=true`, one request per model turn (a prompt, then
  one more after each batch of tool results). No count_tokens, no title/summary call, no HEAD/GET
  probe, no telemetry in `-p` mode with nonessential traffic disabled. `--resume` adds nothing:
  the resumed request replays the whole earlier conversation, then the new prompt.
- Headers: `x-api-key: <ANTHROPIC_API_KEY>`, `anthropic-version: 2023-06-01`, `anthropic-beta:
  claude-code-20250219,…`, `User-Agent: claude-cli/2.1.332 (external, sdk-cli)`,
  `X-Claude-Code-Session-Id: <session id>`, `x-app: cli`, Stainless SDK headers
  (`X-Stainless-Retry-Count`, `X-Stainless-Timeout: 600`), `Connection: keep-alive`.
- Body: model `claude-opus-5-5`, `stream: true`, max_tokens 128000, thinking adaptive, a `system`
  list, 12 tools (Agent, Bash, Edit, ListAgents, Read, ReportFindings, ScheduleWakeup, Skill,
  ToolSearch, Workflow, DeferredToolPlaceholder, Write), `metadata.user_id` (JSON string holding the
  session id). The user turn is several text blocks: `<system-reminder>` blocks (git status,
  attribution) and then the prompt itself; `messages` also holds a `role: "system"` message
  (the environment) right after that first user turn. Tool results come back as `tool_result`
  blocks in the next user message.
- Minimum SSE accepted (each variant measured): `event: <name>` + `data: <json>` pairs with
  `content-type: text/event-stream`: message_start (a full message object with usage),
  content_block_start, content_block_delta (text_delta, or input_json_delta carrying the tool
  input JSON in one or several chunks; the tool_use `input` in content_block_start may be `{}`),
  content_block_stop. message_delta (stop_reason `tool_use`/`end_turn`) and message_stop may be
  left out (the result then shows stop_reason null) but are sent here. Without content_block_stop
  the blocks are dropped: the CLI retries 3 times and exits 1. Without `event:` lines, or with a
  JSON body answering a streaming request, the CLI silently retries the same turn NON-streaming
  (`stream: false`) and accepts a plain JSON message there, so this server answers both. A body
  delimited by Content-Length and one ended by closing the connection both work.
- Errors: HTTP 400 `{"type":"error",…}` is retried 6 times (the last 3 with 21 tools instead of
  12), then exit 1; 529 overloaded is retried 3 times within ~2.5 s, then exit 1.
- Hooks: SessionStart (source startup/resume) and SessionEnd (reason "other") fire in `-p` mode;
  a SessionEnd hook still running after the budget prints
  `SessionEnd hook [<command>] failed: Hook cancelled` on stderr, the exit code stays 0.
- A run of 3 turns takes ~1.2 s; `--resume <id> -p …` keeps the session id and appends to the
  same transcript, `~/.claude/projects/<munged cwd>/<id>.jsonl`.

The server is bounded: it binds 127.0.0.1 only, stops itself after `lifetime` seconds, answers
at most `max_requests` requests (then 400s, which the client gives up on after 6 tries), and
gives each connection a socket timeout, so a wedged client can never keep it or the test alive.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_FALLBACK = "claude-fake"


@dataclass(frozen=True)
class Turn:
    """One scripted assistant message: its content blocks and why it stopped."""

    blocks: tuple[dict[str, Any], ...]
    stop_reason: str


def say(text: str) -> Turn:
    return Turn(({"type": "text", "text": text},), "end_turn")


def tool(name: str, **tool_input: Any) -> Turn:
    block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:24]}", "name": name,
             "input": tool_input}
    return Turn(({"type": "text", "text": f"Using {name}."}, block), "tool_use")


def write(file_path: str, content: str) -> Turn:
    return tool("Write", file_path=file_path, content=content)


def bash(command: str, description: str = "Run a command") -> Turn:
    return tool("Bash", command=command, description=description)


HARMLESS = say("Done.")


def _user_texts(message: Mapping[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or () if b.get("type") == "text"]


def _is_prompt(message: Mapping[str, Any]) -> bool:
    """A user message carrying a typed prompt, not just tool results or reminders."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if not isinstance(content, str) and any(b.get("type") == "tool_result" for b in content or ()):
        return False
    return any(t.strip() and not t.lstrip().startswith("<system-reminder>")
               for t in _user_texts(message))


def choose_turn(body: Mapping[str, Any], scripts: Mapping[str, Sequence[Turn]]) -> Turn:
    """Pick the scripted turn from the conversation itself, so retries and resumes stay in step.

    The latest prompt selects the script (the first marker it contains); the number of
    assistant messages after that prompt is the index into it.
    """
    messages = list(body.get("messages") or ())
    if not body.get("tools"):
        return HARMLESS
    starts = [i for i, m in enumerate(messages) if _is_prompt(m)]
    if not starts:
        return HARMLESS
    prompt_text = "\n".join(_user_texts(messages[starts[-1]]))
    done = sum(1 for m in messages[starts[-1]:] if m.get("role") == "assistant")
    for marker, turns in scripts.items():
        if marker in prompt_text:
            return turns[done] if done < len(turns) else HARMLESS
    return HARMLESS


def sse_events(turn: Turn, model: str) -> list[tuple[str, dict[str, Any]]]:
    message = {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
               "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start",
                                                                     "message": message})]
    for index, block in enumerate(turn.blocks):
        events += _block_events(index, block)
    delta = {"stop_reason": turn.stop_reason, "stop_sequence": None}
    events.append(("message_delta", {"type": "message_delta", "delta": delta,
                                     "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _block_events(index: int, block: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if block["type"] == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": block["text"]}]
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        encoded = json.dumps(block["input"])
        half = len(encoded) // 2
        deltas = [{"type": "input_json_delta", "partial_json": part}
                  for part in (encoded[:half], encoded[half:])]
    return ([("content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": start})]
            + [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
               for d in deltas]
            + [("content_block_stop", {"type": "content_block_stop", "index": index})])


def message_json(turn: Turn, model: str) -> dict[str, Any]:
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
            "model": model, "content": list(turn.blocks), "stop_reason": turn.stop_reason,
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


@dataclass
class RequestLog:
    """Every request the server saw, for assertions and for failure reports."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.entries.append(entry)

    def snapshot(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.entries)

    def render(self, limit: int = 400) -> str:
        """One line per request: method, path, what we answered and the last message's text."""
        lines = []
        for e in self.snapshot():
            lines.append(f"{e['method']} {e['path']} -> {e['answer']} "
                         f"stream={e.get('stream')} tools={e.get('tools')} "
                         f"last={e.get('last', '')[:limit]!r}")
        return "\n".join(lines) or "(no requests)"


def _summary(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        return {}
    messages = body.get("messages") or [{}]
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, list):
        content = " | ".join(b.get("text") or json.dumps(b.get("content"))[:200] for b in content)
    return {"stream": body.get("stream"), "tools": len(body.get("tools") or ()),
            "messages": len(messages), "last": f"{last.get('role')}: {content}"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # seconds an idle keep-alive connection may hold a server thread
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests go to the RequestLog instead of stderr."""

    def do_POST(self) -> None:
        self._answer("POST")

    def do_GET(self) -> None:
        self._answer("GET")

    def do_HEAD(self) -> None:
        self._answer("HEAD")

    def _read_body(self) -> Any:
        length = min(int(self.headers.get("content-length") or 0), 64 * 1024 * 1024)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw[:200].decode("latin-1")

    def _answer(self, method: str) -> None:
        body = self._read_body()
        entry = {"method": method, "path": self.path,
                 "headers": {k: v for k, v in self.headers.items() if k.lower() != "x-api-key"},
                 **_summary(body), "body": body}
        self.server.requests.add(entry)
        if self.server.count_request() > self.server.max_requests:
            entry["answer"] = "400 over max_requests"
            return self._send_json(400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "fake API request cap reached"}})
        path = self.path.split("?", 1)[0]
        if method == "POST" and path == "/v1/messages/count_tokens":
            entry["answer"] = "count_tokens"
            return self._send_json(200, {"input_tokens": 10})
        if method != "POST" or path != "/v1/messages" or not isinstance(body, dict):
            entry["answer"] = "200 {}"
            return self._send_json(200, {}, head=method == "HEAD")
        turn = choose_turn(body, self.server.scripts)
        entry["answer"] = "+".join(b.get("name", b["type"]) for b in turn.blocks)
        model = body.get("model") or MODEL_FALLBACK
        if body.get("stream"):
            return self._send_sse(sse_events(turn, model))
        return self._send_json(200, message_json(turn, model))

    def _send_json(self, status: int, payload: Any, head: bool = False) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _send_sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n"
                       for name, payload in events).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, scripts: Mapping[str, Sequence[Turn]], max_requests: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.scripts = scripts
        self.max_requests = max_requests
        self.requests = RequestLog()
        self._count = 0
        self._count_lock = threading.Lock()

    def count_request(self) -> int:
        with self._count_lock:
            self._count += 1
            return self._count


class FakeMessagesAPI:
    """`with FakeMessagesAPI({"marker": [turn, …]}) as api:` serves on api.base_url until exit.

    `scripts` maps a marker (a substring of the prompt) to the turns answering that prompt.
    """

    def __init__(self, scripts: Mapping[str, Sequence[Turn]], *, max_requests: int = 100,
                 lifetime: float = 300.0) -> None:
        self._server = _Server(scripts, max_requests)
        self._lifetime = lifetime
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.1}, daemon=True)
        self._deadline = threading.Timer(lifetime, self._server.shutdown)
        self._deadline.daemon = True

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def requests(self) -> RequestLog:
        return self._server.requests

    def __enter__(self) -> "FakeMessagesAPI":
        self._thread.start()
        self._deadline.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._deadline.cancel()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
