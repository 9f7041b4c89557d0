"""``claimgraph serve`` as a real process: what it prints, where it listens, what it refuses."""

from __future__ import annotations

import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

import psutil

from viewer_helpers import Served
from viewer_store import claimgraph


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def raw_get(origin: str, path: str) -> str:
    """A request line sent as typed: no client normalizes its dots away."""
    host, port = origin.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                     .encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_serve_prints_a_loopback_url_with_a_token_and_answers_it(served):
    assert served.url.startswith("http://127.0.0.1:") and len(served.token) >= 32
    status, html = fetch(served.url)
    assert status == 200 and 'id="projects"' in html
    assert fetch(served.origin + "/")[0] == 403
    assert fetch(served.origin + "/activity")[0] == 403


def test_serve_listens_on_127_0_0_1_and_nowhere_else(served):
    listening = [c for c in psutil.Process(served.proc.pid).net_connections(kind="inet")
                 if c.status == psutil.CONN_LISTEN]
    assert listening and {c.laddr.ip for c in listening} == {"127.0.0.1"}


def test_a_raw_traversal_after_the_token_reaches_no_file(served):
    for path in (f"/{served.token}/static/../../../../etc/passwd",
                 f"/{served.token}/static/..%2f..%2fapp.py", f"/{served.token}/../etc/passwd"):
        answer = raw_get(served.origin, path)
        status = int(answer.split(" ", 2)[1])
        assert status in (403, 404), (path, answer[:200])
        assert "root:" not in answer and "import" not in answer


def test_each_start_has_a_new_token(built):
    first, second = Served(built.env, "--port", "0"), Served(built.env, "--port", "0")
    try:
        assert first.token != second.token
        assert fetch(f"{second.origin}/{first.token}/")[0] == 403
    finally:
        first.stop()
        second.stop()


def test_a_non_loopback_address_is_refused_before_anything_listens(built):
    done = claimgraph(built.env, "serve", "--host", "0.0.0.0", "--port", "0", check=False)
    assert done.returncode == 1 and done.stdout == ""
    assert "binds 127.0.0.1 only" in done.stderr and "ssh -L" in done.stderr


def test_a_taken_port_is_a_clear_error(built):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = claimgraph(built.env, "serve", "--port", str(port), check=False)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port 0" in done.stderr


def test_serving_a_store_that_does_not_exist_says_so(built, tmp_path):
    env = {**built.env, "CLAIMGRAPH_DB": str(tmp_path / "nothing.db")}
    done = claimgraph(env, "serve", "--port", "0", check=False)
    assert done.returncode == 1 and "no claimgraph store" in done.stderr
    assert not (tmp_path / "nothing.db").exists()


def test_open_hands_the_url_with_its_token_to_the_browser(built, tmp_path):
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{opened}"\n')
    browser.chmod(browser.stat().st_mode | stat.S_IEXEC)
    server = Served({**built.env, "BROWSER": str(browser)}, "--port", "0", "--open")
    try:
        for _ in range(200):
            if opened.exists() and opened.read_text():
                break
            time.sleep(0.05)
        assert opened.read_text() == server.url
    finally:
        server.stop()


def test_no_other_command_and_no_hook_loads_the_viewer(built):
    probe = ("import sys\n"
             "from claimgraph.cli.main import main\n"
             "import claimgraph.hooks.entry\n"
             "main(['stats'])\n"
             "loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('starlette', 'jinja2', 'uvicorn') or m.startswith('claimgraph.viewer'))\n"
             "print('LOADED', loaded)\n")
    done = subprocess.run([sys.executable, "-c", probe], env=built.env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout
