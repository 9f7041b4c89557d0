"""Viewer fixtures: the store built from the real transcripts, an app over it, and its client."""

from __future__ import annotations

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
from viewer_helpers import TOKEN, Served  # noqa: E402
from viewer_store import BuiltStore, build  # noqa: E402


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


@pytest.fixture(scope="module")
def served(built: BuiltStore) -> Iterator[Served]:
    server = Served(built.env, "--port", "0")
    yield server
    server.stop()
