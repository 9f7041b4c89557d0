"""Search's order is a function of the facts, not of their ids or the order a store took them
in (docs/search.md, "Ties"): the same facts loaded in two orders, under other ids, rank alike,
on every backend; and SQLite and PostgreSQL agree where their routes are the same."""

from __future__ import annotations

import itertools
import uuid

import pytest

from claimgraph.core import Shell
from claimgraph.core.ingest import ingest
from claimgraph.core.reads import search
from claimgraph.core.vocabulary import seed
from claimgraph.logic.timeutil import from_iso

NOW = from_iso("2026-03-01")
SESSIONS = (from_iso("2026-01-10"), from_iso("2026-02-14"))
PLACES = ("park", "lake", "beach", "river", "market", "museum")
PETS = ("dog", "cat", "horse")


def turns() -> list[dict]:
    """Two speakers' turns in two sessions. Many tie: the same length and the same query
    words (BM25 alike), the same valid time and confidence (the entity route alike)."""
    out = []
    for n, (place, pet) in enumerate(itertools.product(PLACES, PETS)):
        for speaker in ("Priya", "Tomas"):
            out.append({"subject": speaker, "predicate": "x/said", "object_kind": "literal",
                        "object": f"I walked to the {place} with my {pet} today",
                        "valid_from": SESSIONS[n % 2]})
    for n, topic in enumerate(("painting", "cooking", "running", "reading", "singing")):
        for speaker in ("Priya", "Tomas"):
            out.append({"subject": speaker, "predicate": "x/said", "object_kind": "literal",
                        "object": f"{topic} keeps me calm", "valid_from": SESSIONS[n % 2]})
    return out


def loaded(kind: str, tmp_path, name: str, items: list[dict], new_id, url=None) -> Shell:
    """A store of ``kind`` holding ``items``, each in an episode of its own (so no episode
    order, which is the store's, plays a part), under the ids ``new_id`` mints."""
    if kind == "postgres":
        from claimgraph.store.postgres import PostgresStore
        store = PostgresStore(url)
    elif kind == "memory":
        from claimgraph.store.memory import MemoryStore
        store = MemoryStore()
    else:
        from claimgraph.opening import open_store
        store = open_store(str(tmp_path / f"{name}.db"))
    sh = Shell(store=store, clock=lambda: NOW, new_id=new_id)
    seed(sh)
    for item in items:
        ingest(sh, [item])
    return sh


def counting(prefix: str):
    counter = itertools.count(1)
    return lambda kind: f"{prefix}{kind}-{next(counter):04d}"


def random_ids(kind: str) -> str:
    return f"{kind}-{uuid.uuid4().hex}"


QUERIES = ("Where did Priya walk with her dog?", "What keeps Tomas calm?", "Priya",
           "walked with my cat", "horse")


def ranked(sh: Shell, query: str, limit: int | None) -> list[tuple[str, str]]:
    return [(f["subject"]["name"], f["object_lit"])
            for f in search(sh, query, limit=limit)["facts"]]


@pytest.fixture(params=["memory", "sqlite-file", "postgres"])
def two_loads(request, tmp_path):
    """The same facts in one order with counting ids, and reversed with random ids."""
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    items = turns()
    first = loaded(request.param, tmp_path, "a", items, counting("z"), url)
    if request.param == "postgres":  # the second store in a schema of its own
        url = request.getfixturevalue("pg_url_second")
    second = loaded(request.param, tmp_path, "b", items[::-1], random_ids, url)
    yield first, second
    first.store.close()
    second.store.close()


@pytest.fixture
def pg_url_second(postgres_server):
    """A second fresh schema on the test cluster."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in postgres_server else "?"  # as the suite's pg_url: the schema first
    yield f"{postgres_server}{sep}options=-csearch_path%3D{schema}%2Cpublic"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.mark.parametrize("limit", [10, None])
@pytest.mark.parametrize("query", QUERIES)
def test_the_same_facts_rank_alike_whatever_their_ids_and_load_order(two_loads, query, limit):
    first, second = two_loads
    assert ranked(first, query, limit) == ranked(second, query, limit)


def test_the_facts_tie_so_the_order_is_the_tie_breaks(two_loads):
    """The set is built to tie: without its tie-breaks the ids would decide."""
    first, _ = two_loads
    for query in ("What keeps Tomas calm?", "Where did Priya walk with her dog?"):
        scores = [f["retrieval_score"] for f in search(first, query, limit=None)["facts"]]
        assert len(set(scores)) < len(scores)


def test_sqlite_and_postgres_give_the_same_order_where_their_routes_agree(tmp_path, pg_url):
    """A name alone ranks by the entity route and the trigram route, the same on both
    backends (the word routes differ: another stemmer, another ranking function)."""
    items = turns()
    on_sqlite = loaded("sqlite-file", tmp_path, "s", items, counting("s"))
    on_postgres = loaded("postgres", tmp_path, "p", items[::-1], random_ids, pg_url)
    try:
        for limit in (10, None):
            assert ranked(on_sqlite, "Priya", limit) == ranked(on_postgres, "Priya", limit)
    finally:
        on_sqlite.store.close()
        on_postgres.store.close()


def test_a_tie_falls_to_the_newer_valid_time_first(two_loads):
    first, _ = two_loads
    facts = search(first, "Priya", limit=None)["facts"]
    for a, b in zip(facts, facts[1:]):
        if a["retrieval_score"] == b["retrieval_score"]:
            assert a["t_valid"] >= b["t_valid"]
