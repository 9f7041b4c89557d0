"""Store fixtures: every contract test runs against each backend, built the way users get it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from .store_helpers import BACKENDS, make_store

@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    opened = make_store(request.param, tmp_path)
    yield opened
    opened.close()

