"""Store fixtures: every contract test runs against each backend, built the way users get it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from .store_helpers import ALL_BACKENDS, make_store

@pytest.fixture(params=ALL_BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    opened = make_store(request.param, tmp_path, url)
    yield opened
    opened.close()

