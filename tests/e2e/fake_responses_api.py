"""A scripted stand-in for the OpenAI Responses API, for driving the real `codex` CLI offline.

Adapted from the stdlib fake used to measure Codex CLI 0.171.0 (docs/agents.md): the same
protocol, scripted per prompt like ``fake_messages_api``. Facts it rests on, as measured:

- With a custom provider (``[model_providers.fake] base_url=…/v1, wire_api="responses"``)
  Codex sends only ``POST {base_url}/responses``: no model listing, no websocket. The body is
  plain JSON ``{model, stream: true, input: [...], tools: [...], …}``; ``input`` starts with
  two developer messages and the ``<environment_context>`` user message, then the prompt;
  later requests add ``function_call`` / ``function_call_output`` (or ``custom_tool_call`` /
  ``custom_tool_call_output`` for apply_patch) items. Our SessionStart context arrives as a
  separate developer message.
- The answer that works is SSE (``text/event-stream``, Content-Length body):
  ``response.created``, one ``response.output_item.done`` per item (a ``function_call``, a
  ``custom_tool_call`` or an assistant ``message``), ``response.completed`` with usage.
- Requests that declare no tools (the TUI's title thread) get plain text.
- With an unknown model slug Codex offers ``exec_command`` but not ``apply_patch``; with a
  slug of its catalog (``gpt-5.5``) it offers ``apply_patch`` as a custom tool.

Scripts: the latest prompt (a user message that is not the harness's) picks the script by a
marker it contains; the number of tool outputs after that prompt is the index of the turn.
Bounded like the Claude fake: loopback only, a lifetime, a request cap, socket timeouts.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_messages_api import RequestLog

HARNESS = ("<environment_context>", "<user_instructions>", "# AGENTS.md")
USAGE = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
         "output_tokens_details": None, "total_tokens": 15}


@dataclass(frozen=True)
class Turn:
    item: dict[str, Any]  # without call_id / id, added when served


def run(cmd: str) -> Turn:
    """An ``exec_command`` call (what Codex 0.171 offers every model)."""
    return Turn({"type": "function_call", "name": "exec_command",
                 "arguments": json.dumps({"cmd": cmd})})


def patch(path: str, content: str) -> Turn:
    """An ``apply_patch`` call adding one file (offered to catalog models such as gpt-5.5)."""
    body = "".join(f"+{line}\n" for line in content.splitlines())
    text = f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"
    return Turn({"type": "custom_tool_call", "name": "apply_patch", "input": text})


def say(text: str) -> Turn:
    return Turn({"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": text}]})


def _texts(item: Mapping[str, Any]) -> list[str]:
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [c.get("text", "") for c in content or () if isinstance(c, dict)]


def _is_prompt(item: Mapping[str, Any]) -> bool:
    return (item.get("type") == "message" and item.get("role") == "user"
            and any(t.strip() and not t.lstrip().startswith(HARNESS) for t in _texts(item)))


def choose_turn(body: Mapping[str, Any], scripts: Mapping[str, Sequence[Turn]]) -> Turn:
    items = [i for i in body.get("input") or () if isinstance(i, dict)]
    if not body.get("tools"):
        return say("Title")
    starts = [n for n, item in enumerate(items) if _is_prompt(item)]
    if not starts:
        return say("Done.")
    prompt = "\n".join(_texts(items[starts[-1]]))
    done = sum(1 for i in items[starts[-1]:]
               if i.get("type") in ("function_call_output", "custom_tool_call_output"))
    for marker, turns in scripts.items():
        if marker in prompt:
            return turns[done] if done < len(turns) else say("Done.")
    return say("Done.")


def sse(turn: Turn) -> bytes:
    rid = f"resp_{uuid.uuid4().hex[:12]}"
    item = dict(turn.item)
    if item["type"] == "message":
        item["id"] = f"msg_{uuid.uuid4().hex[:12]}"
    else:
        item["call_id"] = f"call_{uuid.uuid4().hex[:12]}"
    events = [{"type": "response.created", "response": {"id": rid}},
              {"type": "response.output_item.done", "item": item},
              {"type": "response.completed", "response": {"id": rid, "usage": USAGE}}]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests go to the RequestLog."""

    def do_GET(self) -> None:
        self.server.requests.add({"method": "GET", "path": self.path, "answer": "404"})
        self._send(404, "application/json", b'{"error":{"message":"not found"}}')

    def do_POST(self) -> None:
        length = min(int(self.headers.get("content-length") or 0), 64 * 1024 * 1024)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        entry = {"method": "POST", "path": self.path, "body": body,
                 "tools": len((body or {}).get("tools") or ()) if isinstance(body, dict) else 0}
        self.server.requests.add(entry)
        if self.server.count() > self.server.max_requests or not isinstance(body, dict) \
                or not self.path.split("?")[0].endswith("/responses"):
            entry["answer"] = "400"
            return self._send(400, "application/json", b'{"error":{"message":"fake: no"}}')
        turn = choose_turn(body, self.server.scripts)
        entry["answer"] = turn.item.get("name") or turn.item["type"]
        entry["last"] = json.dumps(body.get("input", [])[-1:])[:300]
        self._send(200, "text/event-stream", sse(turn))

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, scripts: Mapping[str, Sequence[Turn]], max_requests: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.scripts, self.max_requests = scripts, max_requests
        self.requests = RequestLog()
        self._count, self._lock = 0, threading.Lock()

    def count(self) -> int:
        with self._lock:
            self._count += 1
            return self._count


class FakeResponsesAPI:
    """``with FakeResponsesAPI({"marker": [turn, …]}) as api:`` serves on ``api.base_url``."""

    def __init__(self, scripts: Mapping[str, Sequence[Turn]], *, max_requests: int = 100,
                 lifetime: float = 300.0) -> None:
        self._server = _Server(scripts, max_requests)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.1}, daemon=True)
        self._deadline = threading.Timer(lifetime, self._server.shutdown)
        self._deadline.daemon = True

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> RequestLog:
        return self._server.requests

    def __enter__(self) -> "FakeResponsesAPI":
        self._thread.start()
        self._deadline.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._deadline.cancel()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
