"""Which facts make a ranked section's cap never depends on the ids a capture minted.

Facts written by one capture share a confidence, often a recorded instant and a subject (the
project), so they tie exactly on effective confidence and on the subject's name. Ids are
random: two stores fed the same facts with different ids must still show the same facts, on
every backend and on every path that ranks (the live compile from light rows, the block read
whole, the curator's stored shortlist at later instants, and the viewer's placement query).
"""

from __future__ import annotations

import itertools
import random

import pytest

from claimgraph.core import Shell
from claimgraph.core.briefing import compile_for, gather, scopes
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.logic import briefing as compiled
from claimgraph.logic.timeutil import DAY_MS

from .conftest import START, _make_store
from .test_briefing_shortlist import WholeReads, store_shortlists

PROJECT = "github.com/o/tied"
#: (predicate, how many, object kind): more than each ranked section's cap, all at one tie.
TIED = [("depends-on", compiled.MAX_FACTS + 17, "entity"),
        ("tested-by", 9, None),
        ("failure-mode", compiled.MAX_LESSONS + 11, None),
        ("written-in", compiled.MAX_STRUCTURE + 8, "entity")]


class FixedClock:
    """One instant for every write: one capture's facts recorded together."""

    def __init__(self) -> None:
        self.now = START + DAY_MS

    def __call__(self) -> int:
        return self.now


def _ids(kind: str) -> object:
    """Ids minted in ascending order, or at random: the same facts, other ids."""
    if kind == "ascending":
        counter = itertools.count(1)
        return lambda prefix: f"{prefix}-{next(counter):06d}"
    rng = random.Random(kind)
    return lambda prefix: f"{prefix}-{rng.getrandbits(48):012x}"


def _feed(sh: Shell) -> None:
    rng = random.Random(7)  # the same sessions for both stores
    said = [(predicate, f"{predicate}-thing-{n:02d}", kind)
            for predicate, count, kind in TIED for n in range(count)]
    rng.shuffle(said)
    for predicate, obj, kind in said:
        extra = {"object_kind": kind} if kind else {}
        assert_fact(sh, "tied", predicate, obj, scope=PROJECT, source_type="session-log",
                    confidence=0.6, **extra)
    # A second capture later, at its own tie; and a commitment that never fades.
    sh.clock.now += 3 * DAY_MS
    for n in range(compiled.MAX_FACTS + 5):
        assert_fact(sh, "tied", "depends-on", f"later-{n:02d}", scope=PROJECT,
                    source_type="session-log", confidence=0.6)


def _shell(kind: str, ids: str, tmp_path, url: str | None) -> Shell:
    store = _make_store(kind, tmp_path, url)
    sh = Shell(store=store, clock=FixedClock(), new_id=_ids(ids))
    seed(sh)
    _feed(sh)
    return sh


@pytest.fixture(params=["memory", "sqlite-memory", "sqlite-file", "postgres"])
def two_shells(request, tmp_path):
    """Two fresh stores of one backend, fed the same facts with different ids."""
    urls: list[str | None] = [None, None]
    if request.param == "postgres":
        urls = [request.getfixturevalue("pg_url"), _second_schema(request)]
    made = [_shell(request.param, ids, tmp_path / ids, url)
            for ids, url in zip(("ascending", "random"), urls)]
    yield made
    for sh in made:
        sh.store.close()


def _second_schema(request) -> str:
    import uuid

    import psycopg

    from tests.conftest import schema_url
    server = request.getfixturevalue("postgres_server")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")

    def drop() -> None:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    request.addfinalizer(drop)
    return schema_url(server, schema)


@pytest.fixture(autouse=True)
def _dirs(tmp_path):
    for name in ("ascending", "random"):
        (tmp_path / name).mkdir()


LATER = [0, DAY_MS, 40 * DAY_MS, 2000 * DAY_MS]  # the last: every fact at the floor


def test_two_stores_fed_the_same_facts_compile_the_same_block(two_shells):
    first, second = two_shells
    for later in LATER:
        now = first.clock.now + later
        blocks = [compile_for(sh.store, PROJECT, now)["text"] for sh in two_shells]
        assert blocks[0] == blocks[1], later
        wholes = [compile_for(WholeReads(sh.store), PROJECT, now)["text"] for sh in two_shells]
        assert wholes == blocks, later
    now = first.clock.now
    found = gather(WholeReads(first.store), PROJECT, now)
    uncut = compiled.groups(found["facts"], found["conflicts"], now)
    for key, cap in compiled.RANKED_CAPS.items():  # the cap cut a tie in every ranked section
        tied = [c for _, c in uncut[key]]
        assert len(tied) > cap and tied[cap - 1] == tied[cap], key


def test_the_stored_shortlists_of_two_stores_render_the_same_block(two_shells):
    if not hasattr(two_shells[0].store, "select_context_heads"):
        pytest.skip("only a store with light rows stores a shortlist")
    if getattr(two_shells[0].store, "path", None) == ":memory:":
        pytest.skip("the curator's fence locks a file beside the store: a file store's work")
    for sh in two_shells:
        store_shortlists(sh)
    for later in LATER:
        now = two_shells[0].clock.now + later
        blocks = [compile_for(sh.store, PROJECT, now)["text"] for sh in two_shells]
        assert blocks[0] == blocks[1], later
        assert blocks[0] == compile_for(WholeReads(two_shells[0].store), PROJECT, now)["text"]


def _said(sh: Shell, ids: list[str]) -> list[tuple[str, str]]:
    facts = {f["id"]: f for f in sh.store.get_facts_by_ids(ids)}
    return [(facts[i]["predicate"], str(facts[i]["object_lit"] or facts[i]["object_ref"]["name"]))
            for i in ids]


def test_the_placement_query_orders_ties_by_what_the_facts_say(two_shells):
    if not hasattr(two_shells[0].store, "context_sections"):
        pytest.skip("this store is placed in Python (logic.briefing_sections)")
    windows = {"current": (0, compiled.MAX_FACTS), "lessons": (3, compiled.MAX_LESSONS),
               "structure": (0, 10 ** 9)}
    for later in LATER:
        placed = [sh.store.context_sections(scopes(PROJECT), sh.clock.now + later,
                                            windows=windows) for sh in two_shells]
        for key in windows:
            said = [_said(sh, p["ids"][key]) for sh, p in zip(two_shells, placed)]
            assert said[0] == said[1], (later, key)
