"""Every page through the app's own test client, against the store built from real transcripts."""

from __future__ import annotations

import re
from html import unescape

import pytest
from starlette.testclient import TestClient

from claimgraph.core.briefing import compile_for, gather_from, scopes
from claimgraph.core.provenance import transcript_lines
from claimgraph.logic.briefing import groups
from claimgraph.opening import open_store
from claimgraph.viewer.app import create_app
from claimgraph.viewer.source import Source
from viewer_helpers import TOKEN
from viewer_store import MARKUP, PROJECT


def facts_of(built, **criteria):
    store = open_store(built.db, read_only=True)
    try:
        return store.select_facts(**criteria)
    finally:
        store.close()


def text_of(response) -> str:
    """The page's visible text, roughly: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.text)).split())


def test_the_projects_page_lists_every_project_with_its_counts(get, built):
    response = get("/")
    assert response.status_code == 200
    scopes = {f["scope"] for f in facts_of(built)}
    for scope in scopes:
        assert f'data-project="{scope}"' in response.text
    row = re.search(rf'<tr data-project="{re.escape(PROJECT)}">(.*?)</tr>', response.text, re.S)
    cells = re.findall(r'<td class="n">(.*?)</td>', row.group(1), re.S)
    numbers = [int(re.sub(r"<[^>]+>", "", c).strip()) for c in cells]
    mine = [f for f in facts_of(built, scopes=[PROJECT])]
    valid = [f for f in mine if f["t_invalid"] is None]
    assert numbers[0] == len(valid)  # facts (none dormant in this store)
    assert numbers[3] == 1  # one open conflict: the contradiction we asserted
    assert numbers[4] == len(mine) - len(valid)  # the superseded version
    assert "captured" in row.group(1)  # its last capture, from the capture log


def test_the_project_page_groups_facts_as_the_context_does_and_shows_the_exact_block(
        get, built, source):
    response = get("/project", id=PROJECT)
    assert response.status_code == 200
    with source.shell() as sh:
        block = compile_for(sh.store, PROJECT, sh.now(), source.budget_chars)["text"]
    shown = re.search(r'<pre id="context-block">(.*?)</pre>', response.text, re.S).group(1)
    assert unescape(shown) == block
    with source.shell() as sh:  # the sections hold what the context's groups hold
        found = gather_from(sh.store, sh.store.select_facts(scopes=scopes(PROJECT)), sh.now())
        expected = groups(found["facts"], found["conflicts"], sh.now(), source.half_life_days,
                          found["successors"])
    shown_totals = dict(re.findall(r'id="section-(\w+)" data-total="(\d+)"', response.text))
    for key, members in expected.items():
        if members:
            assert shown_totals.pop(key) == str(len(members)), key
        else:
            assert key not in shown_totals, key
    # beside the context's groups, only the facts the block leaves out (when there are any:
    # how many the fixtures' capture yields changes with capture's rules)
    assert set(shown_totals) <= {"left_out"}
    assert all(int(total) > 0 for total in shown_totals.values())
    conflicts = re.search(r'id="section-conflicts" data-total="(\d+)"', response.text)
    assert conflicts.group(1) == "1"
    assert '<svg class="bar"' in response.text


def test_the_project_page_filters_by_predicate_class_and_text(get):
    everything = text_of(get("/project", id=PROJECT))
    assert "written in" in everything and "decided against" in everything
    by_predicate = text_of(get("/project", id=PROJECT, predicate="core/decided-against"))
    assert "spotter decided against" in by_predicate.split("What the next session")[0]
    assert "spotter written in" not in by_predicate.split("What the next session")[0]
    by_class = get("/project", id=PROJECT, **{"class": "commitment"}).text
    facts = by_class.split('<aside class="block">')[0]
    assert "cls-commitment" in facts and "cls-observation" not in facts
    by_text = text_of(get("/project", id=PROJECT, text="Credo"))
    listed = by_text.split("What the next session")[0]
    assert "Credo" in listed and "Elixir" not in listed


def test_an_unknown_class_is_a_bad_request_and_an_unknown_project_not_found(get):
    assert get("/project", id=PROJECT, **{"class": "rumour"}).status_code == 400
    assert get("/project", id="/no/such/project").status_code == 404
    assert get("/project").status_code == 404
    assert get("/asof", id="/no/such/project").status_code == 404


def test_a_fact_page_shows_every_version_of_its_history(get, built):
    response = get(f"/fact/{built.ids['new_version']}")
    assert response.status_code == 200
    history = re.search(r'<table class="grid" id="history">(.*?)</table>', response.text, re.S)
    rows = re.findall(r'<tr class="([^"]*)" data-fact="([^"]+)"', history.group(1))
    assert [fid for _, fid in rows] == [built.ids["old_version"], built.ids["new_version"]]
    assert "ended" in rows[0][0] and "current" in rows[1][0]
    assert "superseded" in history.group(1)


def test_a_fact_page_shows_the_transcript_line_that_taught_it(get, built, source):
    taught = [f for f in facts_of(built, scopes=[PROJECT]) if transcript_lines(f)]
    fact = next(f for f in taught if "Rig prefix" in (f.get("object_lit") or ""))
    response = get(f"/fact/{fact['id']}")
    lines = re.findall(r'<div class="tline" data-line="(\d+)">.*?<pre>(.*?)</pre>',
                       response.text, re.S)
    assert [int(n) for n, _ in lines] == transcript_lines(fact)
    assert any("Which rig do these beads belong to?" in unescape(text) for _, text in lines)
    assert "claude-code:subagent" in response.text  # the episode it came from


def test_a_fact_page_shows_cited_files_with_their_audit_verdicts(get, built):
    cited = next(f for f in facts_of(built) if any(": `" in e for e in f["evidence"]))
    response = get(f"/fact/{cited['id']}")
    files = re.search(r'<dd id="cited-files">(.*?)</dd>', response.text, re.S).group(1)
    assert "file-missing" in files  # the sessions' project trees are not on this machine


def test_a_fact_page_shows_its_conflicts_from_either_side(get, built):
    newer = get(f"/fact/{built.ids['contradiction']}").text
    linked = re.search(r'<ul class="members" id="conflicts">(.*?)</ul>', newer, re.S).group(1)
    assert "decided-against" in linked and "open" in linked
    older_id = re.search(r'href="/[^"]+/fact/([^"]+)"', linked).group(1)
    older = get(f"/fact/{older_id}").text
    assert built.ids["contradiction"] in older  # the link lives on the newer fact only


def test_markup_from_memory_is_shown_as_text_never_run(get, built):
    response = get(f"/fact/{built.ids['markup']}")
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;alert(" in response.text
    assert MARKUP.split(">")[0].replace("<", "&lt;") in response.text


def test_time_travel_shows_what_was_believed_at_each_instant(get, built):
    before = get("/asof", id=PROJECT, at="2026-02-15").text
    after = get("/asof", id=PROJECT, at="2026-02-23").text
    old, new = built.ids["old_version"], built.ids["new_version"]
    assert f'data-fact="{old}"' in before and f'data-fact="{new}"' not in before
    assert f'data-fact="{new}"' in after and f'data-fact="{old}"' not in after
    assert "2026-02-22" in after  # the change is listed


def test_time_travel_offers_every_instant_on_its_slider(get, built):
    response = get("/asof", id=PROJECT)
    instants = re.search(r'data-instants="\[([^\]]*)\]"', response.text).group(1).split(", ")
    fact = facts_of(built, ids=[built.ids["old_version"]])[0]
    assert str(fact["t_valid"]) in instants and str(fact["t_invalid"]) in instants
    partial = get("/asof", id=PROJECT, at="2026-02-15", part="facts")
    assert partial.text.lstrip().startswith('<section class="asof"')


@pytest.mark.parametrize("at", ["yesterday", "12:00", "1" * 40])
def test_a_time_that_is_not_a_time_is_a_bad_request(get, at):
    assert get("/asof", id=PROJECT, at=at).status_code == 400


def test_the_activity_page_lists_runs_and_plots_facts_added_per_day(get, built):
    response = get("/activity")
    assert response.status_code == 200
    runs = re.findall(r'<tr class="[^"]*" data-log="(\w+)">', response.text)
    assert runs.count("capture") == len(built.reports) and runs.count("curate") >= 1
    added = sum(r["counts"].get("created", 0) for r in built.reports)
    assert f"{added} added" in text_of(response)
    assert '<rect class="added"' in response.text


def test_the_review_page_lists_the_open_conflict_and_the_suspect_claims(get, built):
    response = get("/review")
    conflicts = re.search(r'id="conflicts">(.*?)</ol>', response.text, re.S).group(1)
    assert built.ids["contradiction"] in conflicts
    suspects = re.search(r'<ul class="members" id="missing">(.*?)</ul>', response.text, re.S)
    store = open_store(built.db, read_only=True)
    try:
        missing = store.suspect_fact_ids()
    finally:
        store.close()
    assert missing and all(fid in suspects.group(1) for fid in missing[:20])
    mine = get("/review", id=PROJECT).text
    assert built.ids["contradiction"] in mine
    elsewhere = get("/review", id="/tmp/tmpw6sk2trg").text
    assert built.ids["contradiction"] not in elsewhere
    assert get("/review", id="/no/such/project").status_code == 404


def test_static_assets_are_served_from_the_package(get):
    css = get("/static/viewer.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert get("/static/viewer.js").headers["content-type"].startswith("text/javascript")
    assert get("/static/other.js").status_code == 404


def test_no_page_references_anything_outside_the_viewer(get, built):
    for path, params in (("/", {}), ("/project", {"id": PROJECT}), ("/asof", {"id": PROJECT}),
                         ("/activity", {}), ("/review", {}),
                         (f"/fact/{built.ids['new_version']}", {})):
        html = get(path, **params).text
        external = re.findall(r'(?:src|href)="(https?:)?//', html)
        assert external == [], path


def test_an_empty_store_says_there_is_nothing_yet(tmp_path):
    open_store(tmp_path / "claims.db").close()
    with TestClient(create_app(Source(tmp_path / "claims.db"), TOKEN),
                    base_url="http://127.0.0.1") as client:
        home = client.get(f"/{TOKEN}/")
        assert home.status_code == 200 and "holds no facts yet" in home.text
        for path in ("/activity", "/review"):
            assert client.get(f"/{TOKEN}{path}").status_code == 200


def test_a_store_that_went_away_is_a_clear_error_page(tmp_path):
    with TestClient(create_app(Source(tmp_path / "gone.db"), TOKEN),
                    base_url="http://127.0.0.1") as client:
        answer = client.get(f"/{TOKEN}/")
    assert answer.status_code == 503
    assert "no claimgraph store" in answer.text and "claimgraph init" in answer.text
    assert not (tmp_path / "gone.db").exists()
