"""Time travel's two counts are one: the sparkline's value at every instant of the slider is
how many facts ``claimgraph facts --as-of`` believes then (over the project's and the user's
scopes), which is the count the page shows for the chosen instant. A dormant fact (decayed
below the shown threshold) and a forgotten one are not believed at any instant; the sparkline
once counted them while their valid time held, so the page showed two numbers for one thing.
On SQLite and PostgreSQL (the timeline comes from each store's SQL)."""

from __future__ import annotations

import json
import math
import re
from html import unescape
from typing import Any

import pytest
from starlette.testclient import TestClient

from claimgraph.core.briefing import scopes
from claimgraph.core.reads import scope_facts
from claimgraph.core.vocabulary import seed
from claimgraph.core import Shell
from claimgraph import location
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store
from claimgraph.viewer.app import create_app
from claimgraph.viewer.source import Source
from claimgraph.viewer.timeline import SPARK_HEIGHT, SPARK_WIDTH, spark_x, thinned

TOKEN = "t" * 32
NOW = 1_800_000_000_000
PROJECT = "proj"


def fact(n: int, scope: str, begin_days_ago: int, **fields: Any) -> dict:
    return {"id": f"f-{n:03d}", "subject": f"e-{scope}", "predicate": "core/prefers",
            "object_kind": "literal", "object_lit": f"value {n}",
            "t_valid": NOW - begin_days_ago * DAY_MS, "recorded_at": NOW - 100 * DAY_MS,
            "confidence": 0.8, "epistemic": "observation", "scope": scope,
            "source_type": "session-log", "evidence": [], **fields}


def ago(days: int) -> int:
    return NOW - days * DAY_MS


#: Live, replaced, dormant (still valid, and ended), forgotten, an end recorded before its
#: begin, the user scope's (one dormant), another project's, and one that begins in the future.
FACTS = [
    *(fact(n, PROJECT, 60 - 5 * n) for n in range(6)),
    fact(10, PROJECT, 50, t_invalid=ago(20), invalidation_kind="superseded"),
    fact(11, PROJECT, 45, dormant_since=ago(2)),
    fact(12, PROJECT, 33, dormant_since=ago(1)),
    fact(13, PROJECT, 40, t_invalid=ago(10), invalidation_kind="superseded",
         dormant_since=ago(12)),
    fact(14, PROJECT, 38, t_invalid=ago(8), invalidation_kind="forgotten"),
    fact(15, PROJECT, 12, t_invalid=ago(25), invalidation_kind="superseded"),
    fact(20, "user", 55), fact(21, "user", 36, dormant_since=ago(3)),
    fact(30, "other", 42), fact(31, "other", 30, dormant_since=ago(1)),
    fact(40, PROJECT, -5),
]


@pytest.fixture(params=["sqlite", "postgres"])
def source(request, tmp_path):
    if request.param == "postgres":
        db = location.resolve(request.getfixturevalue("pg_url"))
    else:
        db = tmp_path / "claims.db"
    store = open_store(db)
    seed(Shell(store))
    with store.transaction():
        for scope in (PROJECT, "user", "other"):
            store.insert_entity({"id": f"e-{scope}", "name": "api", "scope": scope})
        store.insert_facts(FACTS)
    store.close()
    found = Source(db, clock=lambda: NOW)
    yield found
    found.close()


@pytest.fixture
def get(source):
    with TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1:8731") as client:
        def asof(at: int | None = None) -> dict[str, Any]:
            params = {"id": PROJECT, **({} if at is None else {"at": str(at)})}
            answer = client.get(f"/{TOKEN}/asof", params=params)
            assert answer.status_code == 200, answer.text[:500]
            return read_page(answer.text)
        yield asof


def read_page(html: str) -> dict[str, Any]:
    """What a person sees of the counts: the slider's instants and position, the sparkline
    (its counts, its line and its mark) and the count of what was believed."""
    def attribute(pattern: str) -> str:
        return unescape(re.search(pattern, html, re.S).group(1))
    line = attribute(r'<polyline points="([^"]*)"')
    return {"instants": json.loads(attribute(r'data-instants="([^"]*)"')),
            "counts": json.loads(attribute(r'data-counts="([^"]*)"')),
            "index": int(attribute(r'id="asof-slider"[^>]*value="(\d+)"')),
            "total": int(attribute(r'<section class="asof"[^>]*data-total="(\d+)"')),
            "at": int(attribute(r'<section class="asof" data-at="(\d+)"')),
            "line": [tuple(map(float, xy.split(","))) for xy in line.split()],
            "mark": float(attribute(r'<line id="asof-mark" x1="([^"]+)"'))}


def believed(source: Source, at: int) -> int:
    """How many facts ``claimgraph facts --as-of`` believes at ``at`` in the page's scopes."""
    with source.shell() as sh:
        return len(scope_facts(sh, scopes(PROJECT), as_of=at)["facts"])


def valid(at: int) -> int:
    """The count the sparkline once drew: every fact whose valid time holds, dormant or
    forgotten alike."""
    return sum(1 for f in FACTS if f["scope"] in (PROJECT, "user") and f["t_valid"] <= at
               and (f.get("t_invalid") is None or f["t_invalid"] > at))


def test_the_sparkline_counts_what_was_believed_at_every_instant(get, source):
    page = get()
    instants, counts = page["instants"], page["counts"]
    assert instants[-1] == NOW and len(counts) == len(instants) > 10
    assert counts == [believed(source, t) for t in instants]
    # Dormant and forgotten facts are valid at most of these instants: the count differs.
    assert valid(NOW) - counts[-1] == 3
    assert sum(valid(t) != c for t, c in zip(instants, counts)) > len(instants) // 2


def test_the_count_shown_is_the_sparklines_at_the_chosen_instant(get, source):
    instants = get()["instants"]
    between = (instants[3] + instants[4]) // 2
    for at in [None, *instants, between, instants[0] - DAY_MS, NOW + DAY_MS]:
        page = get(at)
        index, chosen = page["index"], page["at"]
        assert page["instants"][index] == chosen == min(NOW if at is None else at, NOW), at
        assert page["total"] == page["counts"][index] == believed(source, chosen), at
        x, y = page["line"][index]
        assert x == page["mark"], at  # the mark stands on the chosen instant's stop
        top = max(page["counts"])
        assert y == round(SPARK_HEIGHT - page["total"] * SPARK_HEIGHT / top, 1), at
    assert get(instants[0] - DAY_MS)["total"] == 0


def test_a_fact_gone_dormant_leaves_both_counts_at_once(get, source):
    """The timeline is kept per store state: dormancy is a write, so the next step counts
    anew, and the sparkline and the count drop together, at every instant the fact held."""
    before = get()
    store = open_store(source.db)
    try:
        with store.transaction():
            assert store.set_dormant(["f-002"], NOW) == 1
    finally:
        store.close()
    after = get()
    assert after["instants"] == before["instants"]
    held_from = before["instants"].index(ago(50))
    assert after["counts"] == [c - (i >= held_from) for i, c in enumerate(before["counts"])]
    assert after["total"] == after["counts"][-1] == before["total"] - 1


def test_the_chosen_instant_is_always_a_stop_of_the_slider():
    points = list(range(0, 30_000, 3))
    few = thinned(points, keep=7, limit=50)
    assert few[0] == 0 and few[-1] == points[-1] and 7 in few
    assert len(few) == 51 and few == sorted(set(few))
    assert thinned(points, keep=points[333], limit=50).count(points[333]) == 1
    assert thinned([10, 20], keep=5) == [5, 10, 20]
    assert thinned([10, 20], keep=15) == [10, 15, 20]
    assert thinned([10, 20], keep=20) == [10, 20]


def js_round_tenth(x: float) -> float:
    """``Math.round(x * 10) / 10`` as the page's script computes it (viewer.js): halves up."""
    return math.floor(x * 10 + 0.5) / 10


def test_the_mark_the_script_moves_stands_on_the_stop_the_server_drew():
    """The slider's input handler places the mark at ``index * width / (stops - 1)``, rounded
    to a tenth in JavaScript; the polyline's stops and the first mark are ``spark_x``'s. The
    two must agree at every stop, halves included (33 stops: the 4th is at 56.25)."""
    for stops in range(1, 202):
        for index in range(stops):
            js = js_round_tenth(index * SPARK_WIDTH / max(1, stops - 1))
            assert spark_x(index, stops) == js, (index, stops)
