"""A big project's page reads one page of each section and links to the rest (issues 24, 29).

The store here is built through the store's own API (hundreds of facts, fast): more standing
decisions than the context's budget can hold, more current facts than a page shows. The page
must match the context's own grouping and block exactly, page through every section in the
context's order, and never read the whole scope.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from html import unescape

import pytest
from starlette.testclient import TestClient

from claimgraph.core import Shell
from claimgraph.core.briefing import compile_for, scopes
from claimgraph.core.vocabulary import seed
from claimgraph.logic.briefing import listed_as_contended
from claimgraph.logic.briefing_sections import SECTION_KEYS, sections_of
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store
from claimgraph.store.sqlite import SqliteStore
from claimgraph.viewer.app import create_app
from claimgraph.viewer.cache import PageCache
from claimgraph.viewer.project import SHOWN_PER_SECTION, open_pairs
from claimgraph.viewer.source import Source
from viewer_helpers import TOKEN

PROJECT = "/work/big-project"
NOW = 1_800_000_000_000
PREDICATES = ("core/depends-on", "core/tested-by", "core/prefers", "core/built-with",
              "core/failure-mode", "core/written-in")


#: Stances the block tells as facts of their date, not as standing decisions
#: (``logic.briefing.told_as_state``): (object, source, evidence).
DATED = (
    ("the latest release is v{i}.0.1", "session-log", []),
    ("PR #{i} is merged", "session-log", []),
    ("Rename the parser{i} module to reader", "user-assertion",
     ["transcript#L4: asked and done once: renamed src/parser.py"]),
    ("Support the board {i} as well", "user-assertion",
     ["transcript#L9: asked and done: added src/board.py"]),
)


def big_fact(i: int, scope: str) -> dict:
    row = {"id": f"f-{i:05d}", "subject": f"e-{scope}-{i % 9}", "predicate": PREDICATES[i % 6],
           "object_kind": "literal", "object_lit": f"value {i}", "t_valid": NOW - (i % 90) * DAY_MS,
           "recorded_at": NOW - (i % 90) * DAY_MS, "confidence": 0.5 + (i % 5) / 10,
           "epistemic": "commitment" if i % 3 == 0 else "observation", "scope": scope,
           "source_type": "code" if i % 11 == 0 else "session-log", "evidence": []}
    if i % 8 == 2:  # a stance (every sixth is a preference, every third a commitment)
        text, source, evidence = DATED[(i // 8) % len(DATED)]
        row.update(object_lit=text.format(i=i), evidence=evidence,
                   source_type="code" if i % 11 == 0 else source)
    if i % 17 == 1:
        row.update(t_invalid=NOW - (i % 40) * DAY_MS, invalidation_kind="superseded",
                   successor=f"f-{i + 1:05d}")
    if i % 23 == 0:
        row["dormant_since"] = NOW - DAY_MS
    return row


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("big") / "claims.db"
    store = open_store(db)
    seed(Shell(store))
    with store.transaction():
        for scope, first, count in ((PROJECT, 0, 1200), ("user", 5000, 60)):
            for n in range(9):
                store.insert_entity({"id": f"e-{scope}-{n}", "name": f"part-{n % 4}",
                                     "scope": scope})
            store.insert_facts(big_fact(first + k, scope) for k in range(count))
        store.link_conflicts("f-00004", ["f-00008"])
        store.link_conflicts("f-00010", ["f-00020"])
    store.close()
    return db


@pytest.fixture
def source(big) -> Source:
    return Source(big, clock=lambda: NOW)


@pytest.fixture
def get(source):
    with TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1") as client:
        yield lambda path, **params: client.get(f"/{TOKEN}{path}", params=params or None)


def expected_sections(source: Source) -> dict:
    with source.shell() as sh:
        wanted = scopes(PROJECT)
        suspect = set(sh.store.suspect_fact_ids())
        pairs = open_pairs(sh.store, wanted, suspect, NOW)
        open_ids = listed_as_contended(pairs)
        return sections_of(sh.store.select_facts(scopes=wanted), suspect, open_ids, NOW,
                           {key: (0, 10_000) for key in SECTION_KEYS})


def listed(html: str, key: str) -> list[str]:
    body = re.search(rf'id="section-{key}" data-total="\d+" data-shown="\d+">(.*?)</section>',
                     html, re.S).group(1)
    return re.findall(r'<tr>\s*<td class="conf">.*?href="/[^"]+/fact/([^"]+)"', body, re.S)


def test_the_block_beside_a_big_page_is_the_hooks_own(get, source):
    html = get("/project", id=PROJECT).text
    with source.shell() as sh:
        block = compile_for(sh.store, PROJECT, NOW, source.budget_chars)
    assert "more — query the graph" in block["text"]  # the budget cut the decisions
    # The oldest stances come first there; those told as a state are not among them.
    decisions = block["text"].split("### Standing decisions")[1].split("###")[0].splitlines()
    assert decisions and not any(told in line for line in decisions for told in (
        "latest release is", "is merged", "Rename the parser", "as well"))
    shown = re.search(r'<pre id="context-block">(.*?)</pre>', html, re.S).group(1)
    assert unescape(shown) == block["text"]


def test_a_configured_half_life_ranks_the_page_and_its_block_as_the_hook_does(big):
    """The viewer is given ``half_life_days`` (``claimgraph serve``): its block is the one
    compiled with that half-life, as the hook and ``claimgraph context`` compile it, and the
    confidences it lists are decayed with it (these facts are up to 90 days old)."""
    pages = {}
    for half_life in (20.0, 90.0):
        source = Source(big, clock=lambda: NOW, half_life_days=half_life)
        with TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1") as client:
            html = client.get(f"/{TOKEN}/project", params={"id": PROJECT}).text
        with source.shell() as sh:
            block = compile_for(sh.store, PROJECT, NOW, source.budget_chars, half_life)
        shown = re.search(r'<pre id="context-block">(.*?)</pre>', html, re.S).group(1)
        assert unescape(shown) == block["text"]
        pages[half_life] = re.findall(r'<td class="conf">(.*?)</td>', html, re.S)
    assert pages[20.0] and pages[20.0] != pages[90.0]


def test_every_section_pages_through_all_its_facts_in_the_contexts_order(get, source):
    expected = expected_sections(source)
    first = get("/project", id=PROJECT).text
    for key in ("decisions", "current", "left_out"):
        total = expected["counts"][key]
        assert total > SHOWN_PER_SECTION, key
        assert f'id="section-{key}" data-total="{total}" data-shown="{SHOWN_PER_SECTION}"' in first
        seen, page, html = [], 1, first
        while True:
            seen += listed(html, key)
            nxt = re.search(rf'id="section-{key}".*?<a href="([^"]+)">next →</a>', html, re.S)
            if nxt is None:
                break
            query = parse_qs(urlparse(unescape(nxt.group(1))).query)
            assert query["section"] == [key] and query["page"] == [str(page + 1)]
            page += 1
            html = get("/project", id=PROJECT, section=key, page=str(page)).text
            assert 'id="context-block"' not in html  # a section's page is that section alone
        assert seen == expected["ids"][key], key
        assert page == -(-total // SHOWN_PER_SECTION)


def test_a_filter_keeps_to_its_pages(get):
    html = get("/project", id=PROJECT, predicate="core/prefers", section="decisions",
               page="2").text
    link = re.search(r'<a href="([^"]+)">← previous', html).group(1)
    query = parse_qs(urlparse(unescape(link)).query)
    assert query["predicate"] == ["core/prefers"] and query["page"] == ["1"]


@pytest.mark.parametrize("params", [{"section": "everything"}, {"section": "current", "page": "0"},
                                    {"page": "two"}, {"page": "9" * 30}])
def test_a_page_that_is_not_a_page_is_a_bad_request(get, params):
    assert get("/project", id=PROJECT, **params).status_code == 400


def test_the_page_never_reads_the_whole_scope(get, monkeypatch):
    real = SqliteStore.select_facts

    def narrow_only(self, **criteria):
        if criteria.get("scopes") and not criteria.get("conflicted"):
            raise AssertionError(f"read every fact of {criteria['scopes']}")
        return real(self, **criteria)

    def refuse(self):
        raise AssertionError("read every fact of the store")

    monkeypatch.setattr(SqliteStore, "select_facts", narrow_only)
    monkeypatch.setattr(SqliteStore, "all_facts", refuse)
    for params in ({}, {"section": "current", "page": "3"}, {"text": "value 1"}):
        assert get("/project", id=PROJECT, **params).status_code == 200, params
    for at in (None, "2026-12-01", str(NOW - 40 * DAY_MS)):
        answer = get("/asof", id=PROJECT, **({"at": at} if at else {}))
        assert answer.status_code == 200 and "Believed at" in answer.text, at


def test_time_travel_on_a_big_project_shows_the_first_of_what_was_believed(get, source):
    from claimgraph.core.reads import believed
    from claimgraph.logic.retrieval import fact_filter
    at = NOW - 40 * DAY_MS
    html = get("/asof", id=PROJECT, at=str(at)).text
    with source.shell() as sh:
        facts = sh.store.select_facts(scopes=scopes(PROJECT))
    expected = believed(facts, scopes(PROJECT), fact_filter(at=at), at, source.half_life_days)
    shown = re.findall(r'<tr data-fact="([^"]+)">', html)
    assert shown == [f["id"] for f in expected[:200]] and len(expected) > 200
    assert f'data-total="{len(expected)}"' in html


def test_a_page_is_built_once_for_everyone_who_asks_while_the_store_is_unchanged():
    cache, calls, gate = PageCache(builds=1), [], threading.Event()

    def build():
        calls.append(1)
        gate.wait(5)
        return {"page": len(calls)}

    answers = []
    workers = [threading.Thread(target=lambda: answers.append(cache.get(("p", 1), build)))
               for _ in range(8)]
    for w in workers:
        w.start()
    time.sleep(0.2)
    gate.set()
    for w in workers:
        w.join()
    assert calls == [1] and answers == [{"page": 1}] * 8
    assert cache.get(("p", 1), build) == {"page": 1}
    assert cache.get(("p", 2), build) == {"page": 2}  # another store state: built again


def test_a_page_cache_forgets_after_its_time_and_keeps_no_failure():
    now = [0.0]
    cache = PageCache(ttl_s=10, clock=lambda: now[0])
    assert cache.get("k", lambda: 1) == 1
    now[0] = 5
    assert cache.get("k", lambda: 2) == 1
    now[0] = 11
    assert cache.get("k", lambda: 3) == 3
    with pytest.raises(ValueError):
        cache.get("x", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert cache.get("x", lambda: 4) == 4


def test_a_refreshing_cache_serves_the_old_entry_while_one_rebuild_runs():
    now = [0.0]
    cache = PageCache(ttl_s=10, refresh_s=100, clock=lambda: now[0])
    assert cache.get("k", lambda: 1) == 1
    now[0] = 20
    started, release = threading.Event(), threading.Event()

    def slow() -> int:
        started.set()
        release.wait(10)
        return 2
    assert cache.get("k", slow) == 1  # the reader does not wait for the rebuild
    assert started.wait(10)
    assert cache.get("k", lambda: 3) == 1  # one rebuild at a time; the old entry meanwhile
    release.set()
    deadline = time.monotonic() + 10
    while cache.get("k", lambda: 4) != 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cache.get("k", lambda: 5) == 2 and cache.built == 2
    now[0] = 200  # too old to serve: the reader waits for a build
    assert cache.get("k", lambda: 6) == 6


def test_a_cache_drops_what_its_caller_names_stale():
    cache = PageCache()
    for key in (("p", 1), ("q", 1), ("p", 2)):
        cache.get(key, lambda key=key: key)
    cache.drop(lambda key: key[-1] != 2)
    assert cache.get(("p", 2), lambda: "again") == ("p", 2)
    assert cache.get(("p", 1), lambda: "rebuilt") == "rebuilt" and cache.built == 4


def test_a_write_to_the_store_shows_on_the_next_load(big, tmp_path):
    db = tmp_path / "claims.db"
    db.write_bytes(big.read_bytes())
    source = Source(db, clock=lambda: NOW)
    with TestClient(create_app(source, TOKEN), base_url="http://127.0.0.1") as client:
        asked = {"id": PROJECT, "text": "freshly"}
        before = client.get(f"/{TOKEN}/project", params=asked).text
        store = open_store(db)
        try:
            store.insert_facts([{**big_fact(9999, PROJECT), "object_lit": "freshly written",
                                 "epistemic": "commitment"}])
        finally:
            store.close()
        after = client.get(f"/{TOKEN}/project", params=asked).text
    assert "Nothing matches the filter" in before and "freshly written" in after


def test_every_page_of_a_project_is_a_slice_of_one_placement(source):
    """Pages of one project (sections, page numbers, a parameter no page reads) share one
    placement while the store is unchanged, and give what a placement of their own gives;
    a filter has a placement of its own."""
    from claimgraph.viewer.project import project
    placements = PageCache()

    def shared(key, build):
        return placements.get(key, lambda: build(None))

    asks = [{}, {"nonce": "1"}, {"section": "current", "page": "2"},
            {"section": "decisions", "page": "3"}, {"section": "left_out", "page": "1"}]
    for params in asks:
        assert project(source, PROJECT, params, shared) == project(source, PROJECT, params)
    assert placements.built == 1
    filtered = [{"predicate": "core/prefers", "section": "decisions", "page": "2"},
                {"text": "PART-1"}, {"class": "commitment", "section": "left_out"},
                {"predicate": "core/failure-mode", "text": "value 1"}]
    for n, params in enumerate(filtered, start=2):
        # cut from the whole placement, the same as placing under the filter
        assert project(source, PROJECT, params, shared) == project(source, PROJECT, params)
        assert placements.built == n
