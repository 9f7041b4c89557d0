"""Search's first k facts are the same facts in the same order whichever way they are found
(docs/search.md, "Cost on a large store"): with a limit, every route is ranked on fact heads,
each text's keys are cut in SQL and only the facts shown are read whole; without one, every fact
found is read whole and ranked. The cheap path must give the first k of the full one, ids, order
and scores, and the same count, on every backend, at every instant, in any scope. SQLite and the
memory store (its own reads, in Python) must also agree with each other.

The store is seeded and varied on purpose: names and words that are not ASCII, a single-valued
predicate changed over time, facts ended earlier or later than the instants searched at,
forgotten facts, two projects, episodes of many sizes with questions in them (the neighbourhood
and the episode arms), dates a question can name."""

from __future__ import annotations

import random

import pytest

from claimgraph.core import Shell
from claimgraph.core.forget import forget
from claimgraph.core.ingest import ingest
from claimgraph.core.reads import search
from claimgraph.core.vocabulary import seed
from claimgraph.logic.timeutil import DAY_MS, from_iso

START = from_iso("2026-01-05")
#: The instants searched at: before some facts began and ended, between, after them all.
INSTANTS = (from_iso("2026-01-20"), from_iso("2026-02-20"), from_iso("2026-06-01"))
SPEAKERS = ("Priya", "Tomas", "Zoë", "Łukasz", "東京チーム")
MODULES = ("auth.service", "billing.api", "sync_worker", "naïve_cache", "retry_queue")
LIBRARIES = ("postgres", "redis-3", "redis-4", "kafka", "pytest", "ruff", "uv")
WORDS = ("retry", "timeout", "migration", "cache", "café", "straße", "deploy", "schema",
         "painting", "dog", "cello", "Lisbon", "東京", "crème brûlée", "lock", "queue")
QUERIES = (
    "retry fails when postgres",      # a phrase of several words
    "retr",                           # a prefix: the trigram route alone
    "postg",
    "Zoë",                            # names that are not ASCII
    "Łukasz café",
    "東京",
    "crème brûlée",
    "straße",
    "redis-3",                        # identifiers
    "auth.service",
    "naïve_cache timeout",
    "What did Priya fix on 2026-01-12?",  # a named day
    "Has Tomas got any pets?",        # a category
    "Priya's dog",                    # a possessive
    "Where did Zoë travel in February?",
    "What version is billing.api on?",  # the single-valued predicate
    "deploy schema migration lock queue",
    "nothing like this anywhere",
)
SCOPES = (None, ["proj-a"], ["proj-b"], ["proj-a", "proj-b"])


def sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(2, 4))
    shape = rng.random()
    if shape < 0.2:
        return f"Did the {words[0]} work with {rng.choice(LIBRARIES)}?"
    if shape < 0.45:
        return f"{words[0]} {words[1]} fails when {rng.choice(LIBRARIES)} restarts"
    return " ".join(["I", rng.choice(("fixed", "loved", "walked", "saw")), *words])


def episodes(seed_value: int = 23) -> list[list[dict]]:
    """Batches (each one episode) of varied items; the same for every backend."""
    rng = random.Random(seed_value)
    out: list[list[dict]] = []
    day = 0
    for batch in range(28):
        day += rng.randint(0, 4)
        scope = "proj-a" if batch % 3 else "proj-b"
        items = []
        for n in range(rng.choice((1, 3, 8, 20, 40))):
            kind = rng.random()
            begins = START + (day + n // 10) * DAY_MS + n * 60_000
            item: dict = {"scope": scope, "valid_from": begins}
            if kind < 0.45:
                item |= {"subject": rng.choice(SPEAKERS), "predicate": "x/said",
                         "object_kind": "literal", "object": sentence(rng)}
            elif kind < 0.65:
                item |= {"subject": rng.choice(MODULES), "predicate": "depends-on",
                         "object": rng.choice(LIBRARIES)}
            elif kind < 0.85:
                item |= {"subject": rng.choice(MODULES), "predicate": "failure-mode",
                         "object_kind": "literal", "object": sentence(rng)}
            else:
                item |= {"subject": rng.choice(MODULES[:2]), "predicate": "core/has-version",
                         "object_kind": "literal", "object": f"v{batch}.{n}"}
            if rng.random() < 0.08:  # ended: some before the instants searched, some after
                item["valid_until"] = begins + rng.choice((3, 30, 90)) * DAY_MS
            items.append(item)
        out.append(items)
    return out


def loaded(kind: str, tmp_path, url: str | None = None) -> Shell:
    """The seeded facts in a store of ``kind``; a few forgotten afterwards."""
    if kind == "postgres":
        from claimgraph.store.postgres import PostgresStore
        store = PostgresStore(url)
    elif kind == "memory":
        from claimgraph.store.memory import MemoryStore
        store = MemoryStore()
    else:
        from claimgraph.opening import open_store
        store = open_store(str(tmp_path / "top-k.db"))
    counter = iter(range(1, 1_000_000))
    sh = Shell(store=store, clock=lambda: INSTANTS[-1],
               new_id=lambda kind: f"{kind}-{next(counter):06d}")
    seed(sh)
    for items in episodes():
        ingest(sh, items)
    said = sorted(f["id"] for f in search(sh, "retry", limit=None)["facts"])
    forget(sh, said[::5], reason="a test forgets a few")
    return sh


def ranked(sh: Shell, query: str, scopes,
           limit: int | None) -> tuple[list[tuple[str, float, float]], int]:
    """(id, score, effective confidence) of each fact shown, in order, and the count."""
    found = search(sh, query, scopes, limit=limit)
    return [(f["id"], f["retrieval_score"], f["effective_confidence"])
            for f in found["facts"]], found["total"]


def at(sh: Shell, instant: int) -> Shell:
    """The same store read at another instant."""
    return Shell(store=sh.store, clock=lambda: instant, new_id=sh.new_id)


def first_k_of_full(sh: Shell) -> dict[tuple, tuple[list[tuple[str, float, float]], int]]:
    """Every query at every instant and scope: the cheap path's first k beside the full
    path's; asserts they are equal, and returns the cheap path's answers."""
    answers = {}
    for instant in INSTANTS:
        reader = at(sh, instant)
        for scopes in SCOPES:
            for query in QUERIES:
                full, total = ranked(reader, query, scopes, None)
                for k in (3, 10, 25):
                    cheap, cheap_total = ranked(reader, query, scopes, k)
                    assert (cheap, cheap_total) == (full[:k], total), (instant, scopes, query, k)
                    answers[instant, None if scopes is None else tuple(scopes), query, k] = (
                        cheap, cheap_total)
    return answers


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    """Each local backend's answers, computed once (the full path's check included)."""
    out = {}
    for kind in ("sqlite-file", "memory"):
        sh = loaded(kind, tmp_path_factory.mktemp(kind))
        try:
            out[kind] = first_k_of_full(sh)
        finally:
            sh.store.close()
    return out


def test_the_first_k_are_the_full_rankings_first_k(answers):
    for found in answers.values():
        assert sum(1 for ids, _ in found.values() if ids) > len(found) // 2


def test_sqlite_and_the_memory_store_rank_alike(answers):
    assert answers["sqlite-file"] == answers["memory"]


def test_the_first_k_are_the_full_rankings_first_k_on_postgres(tmp_path, pg_url):
    sh = loaded("postgres", tmp_path, pg_url)
    try:
        assert first_k_of_full(sh)
    finally:
        sh.store.close()


def test_the_seeded_store_reaches_what_the_paths_differ_on(tmp_path):
    """The set exercises what the cheap path does apart from the full one: more facts found
    than shown, ties read by text, neighbours that join, closed and forgotten facts left
    out (a set that never reaches them would pass the checks above for nothing)."""
    sh = loaded("sqlite-file", tmp_path)
    try:
        reader = at(sh, INSTANTS[1])
        found = search(reader, "retry fails when postgres", limit=None)
        assert found["total"] > 25
        scores = [f["retrieval_score"] for f in found["facts"]]
        assert len(set(scores)) < len(scores)
        everything = sh.store.select_facts()
        assert any(f.get("invalidation_kind") == "forgotten" for f in everything)
        assert any(f.get("t_invalid") and f["t_invalid"] <= INSTANTS[1] for f in everything)
        assert any(f.get("t_invalid") and f["t_invalid"] > INSTANTS[1] for f in everything)
        shown = {f["id"] for f in found["facts"]}
        assert not {f["id"] for f in everything if f.get("invalidation_kind") == "forgotten"
                    } & shown
    finally:
        sh.store.close()
