"""Viewer fixtures: the store built from the real transcripts, an app over it, and its client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

# --import-mode=importlib puts no test directory on sys.path; the helpers live beside us.
sys.path.insert(0, str(Path(__file__).resolve().parent))

pytest.importorskip("starlette", reason="the viewer extra is not installed")
from starlette.testclient import TestClient  # noqa: E402

from claimgraph.viewer.app import create_app  # noqa: E402
from claimgraph.viewer.source import Source  # noqa: E402
from viewer_store import BuiltStore, build  # noqa: E402

TOKEN = "test-token-0123456789abcdef"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltStore:
    return build(tmp_path_factory.mktemp("viewer-store"))


@pytest.fixture
def source(built: BuiltStore) -> Source:
    return Source(built.db, environ=dict(built.env))


@pytest.fixture
def client(source: Source) -> Iterator[TestClient]:
    """Requests go to http://127.0.0.1 (the Host the viewer answers to) under the token."""
    with TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1:8731") as test_client:
        yield test_client


@pytest.fixture
def get(client: TestClient):
    """``get("/fact/f-1", id=...)``: a GET under the token."""
    return lambda path, **params: client.get(f"/{TOKEN}{path}", params=params or None)


class Served:
    """A real ``claimgraph serve`` process: its URL (with the token), its pid, what it printed."""

    def __init__(self, env: dict[str, str], *argv: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "claimgraph", "serve", *argv],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, stdin=subprocess.DEVNULL)
        first = self.proc.stdout.readline()
        if not first.startswith("claimgraph viewer: "):
            self.stop()
            raise AssertionError(f"serve printed {first!r}; stderr: {self.proc.stderr.read()}")
        self.url = first.split(": ", 1)[1].strip()
        self.origin = self.url.rsplit("/", 2)[0]
        self.token = self.url.rstrip("/").rsplit("/", 1)[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def served(built: BuiltStore) -> Iterator[Served]:
    server = Served(built.env, "--port", "0")
    yield server
    server.stop()
