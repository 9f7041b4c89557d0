"""A scripted stand-in for the Gemini API (v1beta), for driving the real `gemini` CLI offline.

Adapted from the stdlib fake used to measure Gemini CLI 0.61.0 (docs/agents.md): the same
protocol, scripted per prompt like ``fake_messages_api``. Facts it rests on, as measured:

- ``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`` (no path) with ``GEMINI_API_KEY`` and
  ``security.auth.selectedType = "gemini-api-key"`` in settings.json sends the main agent's
  turns to ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` with
  ``{contents, systemInstruction, tools: [{functionDeclarations}], generationConfig}``.
  Helper calls (routing, next-speaker checks, summaries) declare no tools and go to
  ``:generateContent``; they get a small JSON text that satisfies every schema seen.
- One SSE event is enough: ``data: {candidates: [{content: {role: "model", parts: [...]},
  finishReason: "STOP"}], usageMetadata}``; a part is ``{functionCall: {name, args}}`` or
  ``{text}``. Tool results come back as ``functionResponse`` parts in the next request.
- Our SessionStart context reaches the model inside ``<hook_context>…</hook_context>``,
  prepended to the prompt's text.

Scripts: the latest user text (not a tool result) picks the script by a marker it contains;
the number of model turns after it is the index of the turn. Bounded like the Claude fake.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_messages_api import RequestLog

USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
UTILITY = json.dumps({"complexity_reasoning": "fake", "complexity_score": 10,
                      "reasoning": "fake", "next_speaker": "user"})
_ROUTE = re.compile(r"/models/([^/:]+):(\w+)$")


@dataclass(frozen=True)
class Turn:
    part: dict[str, Any]


def call(name: str, **args: Any) -> Turn:
    return Turn({"functionCall": {"name": name, "args": args}})


def write_file(file_path: str, content: str) -> Turn:
    return call("write_file", file_path=file_path, content=content)


def shell(command: str, description: str = "run a command") -> Turn:
    return call("run_shell_command", command=command, description=description)


def say(text: str) -> Turn:
    return Turn({"text": text})


def _user_texts(content: Mapping[str, Any]) -> list[str]:
    return [p["text"] for p in content.get("parts") or ()
            if isinstance(p, dict) and isinstance(p.get("text"), str)]


def choose_turn(body: Mapping[str, Any], scripts: Mapping[str, Sequence[Turn]]) -> Turn:
    contents = [c for c in body.get("contents") or () if isinstance(c, dict)]
    starts = [n for n, c in enumerate(contents) if c.get("role") == "user"
              and any(t.strip() and not t.lstrip().startswith("<session_context>")
                      for t in _user_texts(c))]
    if not starts:
        return say("Done.")
    prompt = "\n".join(_user_texts(contents[starts[-1]]))
    done = sum(1 for c in contents[starts[-1]:] if c.get("role") == "model")
    for marker, turns in scripts.items():
        if marker in prompt:
            return turns[done] if done < len(turns) else say("Done.")
    return say("Done.")


def candidate(part: Mapping[str, Any]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [dict(part)]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": USAGE, "modelVersion": "fake-gemini"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests go to the RequestLog."""

    def do_GET(self) -> None:
        self.server.requests.add({"method": "GET", "path": self.path, "answer": "404"})
        self._send(404, "application/json", b'{"error":{"code":404,"message":"not found"}}')

    def do_POST(self) -> None:
        length = min(int(self.headers.get("content-length") or 0), 64 * 1024 * 1024)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        tools = any(t.get("functionDeclarations") for t in body.get("tools") or ()
                    if isinstance(t, dict))
        entry = {"method": "POST", "path": self.path, "body": body, "tools": int(tools)}
        self.server.requests.add(entry)
        route = _ROUTE.search(self.path.split("?")[0])
        if self.server.count() > self.server.max_requests or route is None:
            entry["answer"] = "400"
            return self._send(400, "application/json", b'{"error":{"code":400,"message":"no"}}')
        operation = route[2]
        if operation == "countTokens":
            entry["answer"] = "countTokens"
            return self._send(200, "application/json", b'{"totalTokens": 10}')
        turn = choose_turn(body, self.server.scripts) if tools else say(UTILITY)
        entry["answer"] = (turn.part.get("functionCall") or {}).get("name") or \
            ("text" if tools else "utility")
        if operation == "streamGenerateContent":
            data = ("data: " + json.dumps(candidate(turn.part)) + "\r\n\r\n").encode()
            return self._send(200, "text/event-stream", data)
        self._send(200, "application/json", json.dumps(candidate(turn.part)).encode())

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


class FakeGeminiAPI:
    """``with FakeGeminiAPI({"marker": [turn, …]}) as api:`` serves on ``api.base_url``."""

    def __init__(self, scripts: Mapping[str, Sequence[Turn]], *, max_requests: int = 200,
                 lifetime: float = 300.0) -> None:
        self._server = _Server(scripts, max_requests)
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

    def __enter__(self) -> "FakeGeminiAPI":
        self._thread.start()
        self._deadline.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._deadline.cancel()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
