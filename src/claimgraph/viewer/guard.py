"""The gate in front of every page: loopback Host, the per-start token, read-only methods.

Pure ASGI middleware, so nothing reaches a route without passing it. Every URL starts with
``/<token>/``; anything else is a 403 (compared in constant time), as is a request whose Host is
not 127.0.0.1 or localhost (a DNS-rebinding page cannot borrow the browser's way in). The viewer
writes nothing, so GET and HEAD are the only methods: any other is a 405, and a 405 or 403 is
answered before any route runs. Every answer carries headers that keep the page to itself: no
script, style, font or image from anywhere but the viewer, no framing, no referrer, no cache.
"""

from __future__ import annotations

import hmac
from typing import Any, Awaitable, Callable, MutableMapping

#: ASGI's own shapes, as Starlette spells them, so its app passes for ours.
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

READ_METHODS = frozenset({"GET", "HEAD"})
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY"),
           (b"cache-control", b"no-store"), (b"cross-origin-resource-policy", b"same-origin")]


def host_name(scope: Scope) -> str:
    """The Host header without its port ("" when absent)."""
    for name, value in scope.get("headers") or ():
        if name == b"host":
            host: str = value.decode("latin-1").strip().lower()
            return host.rsplit(":", 1)[0] if not host.startswith("[") else host
    return ""


def split_token(path: str) -> tuple[str, str]:
    """``/<token>/rest`` -> (token, ``/rest``)."""
    head, slash, rest = path.lstrip("/").partition("/")
    return head, "/" + rest if slash else ""


class Guard:
    """Wraps the viewer's app; ``token`` is this start's secret."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # websockets: not served
        send = with_headers(send)
        if host_name(scope) not in LOOPBACK_NAMES:
            return await refuse(send, 403, "this viewer answers only to 127.0.0.1 or localhost")
        token, rest = split_token(scope["path"])
        if not hmac.compare_digest(token.encode("utf-8", "replace"), self.token):
            return await refuse(send, 403, "a wrong or missing token: open the URL that "
                                           "`claimgraph serve` printed")
        if scope["method"] not in READ_METHODS:
            return await refuse(send, 405, "the viewer is read-only: only GET and HEAD",
                                [(b"allow", b"GET, HEAD")])
        if not rest:
            return await redirect(send, f"/{token}/")
        inner = {**scope, "path": rest, "raw_path": rest.encode("utf-8"), "root_path": ""}
        await self.app(inner, receive, send)


def with_headers(send: Send) -> Send:
    async def sending(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers") or () if k.lower() != b"server"]
            message = {**message, "headers": kept + HEADERS}
        await send(message)
    return sending


async def refuse(send: Send, code: int, text: str,
                 extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = f"{code}: {text}\n".encode()
    await send({"type": "http.response.start", "status": code, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


async def redirect(send: Send, location: str) -> None:
    await send({"type": "http.response.start", "status": 308, "headers": [
        (b"location", location.encode()), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})
