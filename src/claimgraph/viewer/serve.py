"""Start the viewer: a socket on 127.0.0.1 only, a fresh token, uvicorn serving until Ctrl-C.

The socket is bound here, before uvicorn starts, so the address is checked by us (anything but
loopback is refused: the viewer has no other protection than the token, and a token is not a
password) and the URL printed names the port actually bound. With no ``--port`` the viewer
tries ``DEFAULT_PORT`` and falls back to any free port; a port asked for by name that is taken
is an error. uvicorn's access log is off: every URL carries the token.
"""

from __future__ import annotations

import errno
import secrets
import socket
import sys
import webbrowser
from typing import TextIO

import uvicorn

from claimgraph.errors import ClaimgraphError
from claimgraph.viewer.app import create_app
from claimgraph.viewer.source import Source

LOOPBACK = "127.0.0.1"
ACCEPTED_HOSTS = frozenset({"127.0.0.1", "localhost"})
DEFAULT_PORT = 8731
TOKEN_BYTES = 24
TUNNEL_HINT = ("to view it from another machine, forward the port over SSH "
               "(ssh -L {port}:127.0.0.1:{port} this-host) and open the printed URL there")


def check_host(host: str) -> str:
    """127.0.0.1 (or localhost, which means it); anything else is refused."""
    if host.strip().lower() not in ACCEPTED_HOSTS:
        raise ClaimgraphError("not-loopback",
                              f"claimgraph serve binds 127.0.0.1 only, not {host!r}",
                              hint=TUNNEL_HINT.format(port=DEFAULT_PORT), host=host)
    return LOOPBACK


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1: ``port``, else DEFAULT_PORT, else a free one."""
    if port is not None:
        return _listen(port)
    try:
        return _listen(DEFAULT_PORT)
    except ClaimgraphError:
        return _listen(0)


def _listen(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((LOOPBACK, port))
        sock.listen(64)
    except OSError as err:
        sock.close()
        taken = err.errno == errno.EADDRINUSE
        raise ClaimgraphError("port-in-use" if taken else "cannot-listen",
                              f"cannot listen on 127.0.0.1:{port}: {err.strerror or err}",
                              hint="pick another --port, or --port 0 for any free one",
                              port=port) from None
    sock.set_inheritable(True)
    return sock


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def serve(source: Source, sock: socket.socket, *, open_browser: bool = False,
          token: str | None = None, out: TextIO = sys.stdout) -> int:
    """Serve until interrupted; prints the URL (with its token) first."""
    token = token or new_token()
    port = sock.getsockname()[1]
    url = f"http://{LOOPBACK}:{port}/{token}/"
    print(f"claimgraph viewer: {url}", file=out, flush=True)
    print(f"read-only, on 127.0.0.1 only, store {source.db}; Ctrl-C stops it", file=out,
          flush=True)
    if open_browser and not webbrowser.open(url):
        print("could not open a browser here; open the URL above yourself", file=out, flush=True)
    config = uvicorn.Config(create_app(source, token), log_level="warning", access_log=False,
                            server_header=False, lifespan="off")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        source.close()
    return 0
