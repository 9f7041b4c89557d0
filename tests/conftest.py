"""Suite-wide guards: no test may touch the real home directory or a real user's store."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check behaviour, never speed: hypothesis's default 200 ms deadline per example
# (and its "data generation too slow" health check) fail them on a loaded machine for nothing
# they assert. One profile for the whole suite, loaded before any test module is imported, so
# a test's own @settings(...) starts from it; nothing here relies on a deadline.
settings.register_profile("claimgraph", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("claimgraph")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME, the XDG dirs and CLAIMGRAPH_DB at a fresh temp tree for every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config"),
                     ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
        path = home / sub
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(path))
    monkeypatch.setenv("CLAIMGRAPH_DB", str(home / "store" / "claims.db"))
    for var in list(os.environ):
        if var.startswith("CLAIMGRAPH_") and var != "CLAIMGRAPH_DB":
            monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True, scope="session")
def real_home_is_untouched():
    """Fail the run if anything wrote claimgraph files under the real home directory."""
    real = Path(os.path.expanduser("~"))
    watched = [real / ".local/share/claimgraph", real / ".config/claimgraph"]
    before = {p: p.exists() for p in watched}
    yield
    for path, existed in before.items():
        assert path.exists() == existed, f"a test touched the real home directory: {path}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a long stress run; CLAIMGRAPH_SKIP_SLOW=1 skips "
                            "it and the server-store tests (CI's second pass: they run once)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Read at collection, before the per-test guard above clears CLAIMGRAPH_* variables."""
    if os.environ.get("CLAIMGRAPH_SKIP_SLOW") != "1":
        return
    skip = pytest.mark.skip(reason="slow stress run: CLAIMGRAPH_SKIP_SLOW=1 (it ran in CI's "
                                   "first pass)")
    skip_server = pytest.mark.skip(reason="server store: CLAIMGRAPH_SKIP_SLOW=1 (it ran against "
                                          "CI's cluster in the first pass)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
        elif _uses_the_server(item):
            item.add_marker(skip_server)


def _uses_the_server(item: pytest.Item) -> bool:
    """A test on the server store: it asks for the cluster, or runs a backend-parametrized
    suite (store contract, core semantics) with the ``postgres`` backend."""
    if "postgres_server" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgres" in callspec.params.values()


# --- PostgreSQL: a private cluster for the server-store tests -------------------------------
# Read when this file is imported: ``isolated_home`` removes every CLAIMGRAPH_* variable before
# a test's own fixtures run, and the server fixture is first requested from inside those.
CI_POSTGRES = os.environ.get("CLAIMGRAPH_TEST_POSTGRES")
REQUIRE_POSTGRES = os.environ.get("CLAIMGRAPH_REQUIRE_POSTGRES") == "1"


def _skip_or_fail_postgres(reason: str) -> None:
    loud = f"POSTGRESQL STORE TESTS NOT RUN: {reason}"
    print(f"\n*** {loud} ***", file=sys.stderr)
    if REQUIRE_POSTGRES:
        pytest.fail(f"{loud} (and CLAIMGRAPH_REQUIRE_POSTGRES=1 says they must run)",
                    pytrace=False)
    pytest.skip(loud)


@pytest.fixture(scope="session")
def postgres_server():
    """The URL of a test database on a private cluster: CI's (CLAIMGRAPH_TEST_POSTGRES), else
    one started here when PostgreSQL's server binaries are installed, else a loud skip."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _skip_or_fail_postgres("psycopg is not installed (run ./install.sh)")
    if CI_POSTGRES:
        yield CI_POSTGRES
        return
    import tempfile

    pg_cluster = _pg_cluster()
    if pg_cluster.binaries() is None:
        _skip_or_fail_postgres("PostgreSQL's server is not installed (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="claimgraph-pg-"))
    try:
        url = pg_cluster.start(root)
    except RuntimeError as error:
        _skip_or_fail_postgres(f"could not start a private cluster: {error}")
    yield url
    pg_cluster.stop(root)
    import shutil
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(postgres_server):
    """A fresh schema on the test database for one test, dropped afterwards."""
    import uuid

    import psycopg
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield schema_url(postgres_server, schema)
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(scope="session")
def pg_cluster_module():
    """tests/pg_cluster.py, for tests that run a cluster of their own."""
    return _pg_cluster()


def _pg_cluster():
    """tests/pg_cluster.py (also a script .ci/run calls), loaded by path."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("pg_cluster",
                                                  Path(__file__).with_name("pg_cluster.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def schema_url(url: str, schema: str) -> str:
    """The URL with its search path set to ``schema`` (then public, where pg_trgm lives)."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}%2Cpublic"
