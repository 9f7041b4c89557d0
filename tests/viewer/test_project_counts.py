"""One "believed" across the viewer: the project page's headline counts what time travel counts
at now and what ``claimgraph facts`` lists (a fact valid now, neither forgotten nor dormant),
and the dormant facts it leaves out apart, so the two still add up to the sections. The page
once summed every section, dormant facts included, and said more facts were believed than time
travel did. The projects list's columns are held to the same definitions. On a real SQLite
store (and PostgreSQL), read by the app and by the real ``claimgraph`` in a subprocess."""

from __future__ import annotations

import json
import re
import time
from html import unescape
from typing import Any

import pytest
from starlette.testclient import TestClient

from claimgraph import location
from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store
from claimgraph.viewer.app import create_app
from claimgraph.viewer.source import Source
from viewer_store import claimgraph, environment

TOKEN = "t" * 32
PROJECT = "proj"
#: The store's facts are placed in days around the moment it is built: every read below (the
#: app's and the subprocesses') happens within seconds of it, so none crosses a boundary.
NOW = time.time_ns() // 1_000_000


def ago(days: float) -> int:
    return NOW - int(days * DAY_MS)


def fact(n: int, scope: str, begin_days_ago: float, **fields: Any) -> dict:
    return {"id": f"f-{n:03d}", "subject": f"e-{scope}", "predicate": "core/prefers",
            "object_kind": "literal", "object_lit": f"value {n}", "t_valid": ago(begin_days_ago),
            "recorded_at": ago(100), "confidence": 0.8, "epistemic": "observation",
            "scope": scope, "source_type": "session-log", "evidence": [], **fields}


#: Believed now: 5 live ones, one read from code, one suspect (each in a section of its own
#: kind) in the project, 2 in the user scope. Not believed: 2 dormant and valid in the project
#: and 1 in the user scope (left out, counted apart), one dormant whose valid time ended, one
#: replaced last week (under "changed"), one forgotten, one that begins next week; another
#: project's facts.
FACTS = [
    *(fact(n, PROJECT, 60 - 5 * n) for n in range(5)),
    fact(5, PROJECT, 30, source_type="code"),
    fact(6, PROJECT, 28),
    fact(10, PROJECT, 45, dormant_since=ago(2)),
    fact(11, PROJECT, 33, dormant_since=ago(1)),
    fact(12, PROJECT, 40, t_invalid=ago(10), invalidation_kind="superseded",
         dormant_since=ago(12)),
    fact(13, PROJECT, 50, t_invalid=ago(7), invalidation_kind="superseded"),
    fact(14, PROJECT, 38, t_invalid=ago(8), invalidation_kind="forgotten"),
    fact(15, PROJECT, -7),
    fact(20, "user", 55), fact(21, "user", 36), fact(22, "user", 20, dormant_since=ago(3)),
    fact(30, "other", 42), fact(31, "other", 30, dormant_since=ago(1)),
]
SUSPECT = "f-006"
BELIEVED = {PROJECT: 7, "user": 2}
DORMANT = {PROJECT: 2, "user": 1}


@pytest.fixture(params=["sqlite", "postgres"])
def env(request, tmp_path) -> dict[str, str]:
    env = environment(tmp_path)
    if request.param == "postgres":
        env["CLAIMGRAPH_DB"] = request.getfixturevalue("pg_url")
    store = open_store(location.resolve(env["CLAIMGRAPH_DB"]))
    try:
        seed(Shell(store))
        with store.transaction():
            for scope in (PROJECT, "user", "other"):
                store.insert_entity({"id": f"e-{scope}", "name": "api", "scope": scope})
            store.insert_facts(FACTS)
            store.record_audit([{"fact_id": SUSPECT, "evidence": "a.py: `x`", "file": "a.py",
                                 "verdict": "unsupported", "reason": None,
                                 "content_hash": None, "checked_at": NOW, "details": {}}])
    finally:
        store.close()
    return env


@pytest.fixture
def get(env):
    source = Source(location.resolve(env["CLAIMGRAPH_DB"]), environ=env)
    with TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1:8731") as client:
        def page(path: str, **params: str) -> str:
            answer = client.get(f"/{TOKEN}{path}", params=params)
            assert answer.status_code == 200, answer.text[:500]
            return answer.text
        yield page
    source.close()


def listed(env: dict[str, str], scope: str) -> int:
    """How many facts ``claimgraph facts`` (the default listing, all of it) believes."""
    done = claimgraph(env, "--json", "facts", "--scope", scope, "--limit", "0")
    return json.loads(done.stdout)["total"]


def headline(html: str) -> tuple[int, int, str]:
    found = re.search(r'<p class="meta" id="project-summary" data-believed="(\d+)"'
                      r' data-dormant="(\d+)">(.*?)</p>', html, re.S)
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", found.group(3))).split())
    return int(found.group(1)), int(found.group(2)), text


def test_the_project_page_believes_what_time_travel_and_facts_believe(env, get):
    believed, dormant, said = headline(get("/project", id=PROJECT))
    asof = get("/asof", id=PROJECT)
    at_now = int(re.search(r'<section class="asof"[^>]*data-total="(\d+)"', asof).group(1))
    assert believed == at_now == listed(env, PROJECT) + listed(env, "user")
    assert believed == sum(BELIEVED.values()) and dormant == sum(DORMANT.values())
    assert said.startswith(f"{believed} facts believed now in this project's scope and the "
                           f"user scope, and {dormant} dormant ones")


def test_every_fact_valid_now_sits_in_one_section_believed_or_dormant(get):
    html = get("/project", id=PROJECT)
    believed, dormant, _ = headline(html)
    sections = dict(re.findall(r'<section class="group" id="section-(\w+)" data-total="(\d+)"',
                               html))
    assert sum(int(n) for key, n in sections.items() if key != "changed") == believed + dormant
    notes = re.findall(r'<section class="group" id="section-left_out".*?</section>', html, re.S)
    assert len(re.findall(r"\bdormant\b", notes[0])) >= dormant
    assert int(sections["changed"]) == 1  # the replaced one: ended, so neither count


def test_a_filter_counts_its_believed_and_dormant_facts_apart(get):
    believed, dormant, said = headline(get("/project", id=PROJECT, text="value 1"))
    # "value 1", "value 10" to "value 15": 1 live, 2 dormant (10, 11), the rest not valid now
    assert (believed, dormant) == (1, 2)
    assert said.startswith("1 fact believed now in this project's scope and the user scope "
                           "that match the filter, and 2 dormant ones")


def end_next_week(env: dict[str, str]) -> None:
    """A fact valid now whose end is recorded for next week (``assert --valid-until``)."""
    store = open_store(location.resolve(env["CLAIMGRAPH_DB"]))
    try:
        with store.transaction():
            store.insert_facts([fact(16, PROJECT, 20, t_invalid=NOW + 7 * DAY_MS,
                                     invalidation_kind="manual")])
    finally:
        store.close()


def test_the_projects_list_counts_facts_and_dormant_ones_apart(env, get):
    """facts: valid (no end recorded) and not dormant; dormant: valid and dormant; ended:
    every fact with an end recorded, however it ended (replaced, forgotten). The list reads no
    clock: a fact whose valid time begins next week is among its facts already, and one that
    ends next week among the ended, while the project page and time travel count each as it
    stands now: the one difference, said in docs/viewer.md."""
    end_next_week(env)
    html = get("/")

    def row(scope: str) -> list[int]:
        cells = re.search(rf'<tr data-project="{scope}">(.*?)</tr>', html, re.S).group(1)
        return [int(re.sub(r"<[^>]+>", "", c).strip())
                for c in re.findall(r'<td class="n">(.*?)</td>', cells, re.S)]

    begins_later, ends_later = 1, 1  # f-015 and f-016
    mine, users = row(PROJECT), row("user")
    assert mine[0] == BELIEVED[PROJECT] + begins_later  # BELIEVED is before f-016
    assert (mine[1], mine[2], mine[4]) == (DORMANT[PROJECT], 1, 3 + ends_later)
    assert (users[0], users[1], users[4]) == (BELIEVED["user"], DORMANT["user"], 0)
    believed, dormant, _ = headline(get("/project", id=PROJECT))
    assert dormant == mine[1] + users[1]
    assert believed == mine[0] - begins_later + ends_later + users[0]


def test_a_fact_that_ends_next_week_is_believed_by_every_count(env, get):
    """The project page and ``claimgraph facts`` (asked the store for facts not ended now,
    ``select_facts(valid_at=...)``) both count a fact whose end is recorded for next week."""
    end_next_week(env)
    believed, _, _ = headline(get("/project", id=PROJECT))
    assert believed == sum(BELIEVED.values()) + 1
    assert listed(env, PROJECT) + listed(env, "user") == believed
