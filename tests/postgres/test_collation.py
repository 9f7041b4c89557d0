"""Text orders by its bytes on the server store whatever the database's locale, as SQLite and
the memory store order it: the viewer's sections and the entity lists tie-break on names, and
every store must print the same bytes. The test database runs with no locale (byte order
anyway), so this one makes a database whose default collation is ICU's English, where "B"
sorts between "a" and "c" and "_" is ignored."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from claimgraph.logic.briefing_sections import SECTION_KEYS
from claimgraph.store.postgres import PostgresStore
from claimgraph.store.sqlite import SqliteStore

from ..store.store_helpers import entity, fact

NAMES = ("beta", "Beta", "_alpha", "alpha", "Alpha-2", "alpha_2", "gamma")
NOW = 1_800_000_000_000


@pytest.fixture
def locale_url(postgres_server):
    """A database whose default collation is not byte order (skipped without ICU)."""
    name = f"icu_{uuid.uuid4().hex[:10]}"
    admin = postgres_server.replace("/claimgraph_test?", "/postgres?")
    with psycopg.connect(admin, autocommit=True) as conn:
        try:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu"
                         " ICU_LOCALE 'en' LOCALE 'C'")
        except psycopg.Error as error:
            pytest.skip(f"this server cannot make an ICU database: {error}")
    url = postgres_server.replace("/claimgraph_test?", f"/{name}?")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        assert conn.execute("SELECT ARRAY['b', 'B', 'a'] < ARRAY['B', 'b', 'a']"
                            ).fetchone() == (True,)  # the locale does not sort as bytes do
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def fill(store) -> None:
    """Facts tied on everything the sections rank by but their subjects' names."""
    for k, name in enumerate(NAMES):
        entity(store, f"e-{k}", name)
    store.insert_facts([fact(f"f-{k}", f"e-{k}", lit=f"v{k}", t_valid=NOW - 1000)
                        for k in range(len(NAMES))])


def test_names_tie_break_in_byte_order_whatever_the_databases_locale(locale_url, tmp_path):
    local, server = SqliteStore(str(tmp_path / "claims.db")), PostgresStore(locale_url)
    try:
        for store in (local, server):
            fill(store)
        windows = {key: (0, 100) for key in SECTION_KEYS}
        answers = [store.context_sections(["proj"], NOW, windows=windows)
                   for store in (local, server)]
        assert answers[0] == answers[1]
        placed = [i for ids in answers[1]["ids"].values() for i in ids]
        assert sorted(placed) == sorted(f"f-{k}" for k in range(len(NAMES)))
        names = [[e["name"] for e in store.list_entities()] for store in (local, server)]
        assert names[1] == names[0] == sorted(NAMES, key=str.encode)
    finally:
        local.close()
        server.close()
