"""What a person reads on the pages (issue 26): no markdown punctuation, no epoch milliseconds, a
fact's history holding only its own belief, counts that add up, no empty sections, and plain
words where the store keeps ids (which stay in links and data attributes)."""

from __future__ import annotations

import re
from html import unescape

from claimgraph.viewer.fact import versions
from claimgraph.viewer.present import code_spans, instant, plain, plain_predicate
from viewer_store import PROJECT

EPOCH_MS = re.compile(r"\b1\d{12}\b")
PREDICATE_ID = re.compile(r"\b(?:core|x)/[a-z-]+")


def visible(html: str) -> str:
    """The text a person sees: no tags, no attributes, no script; the exact-block <pre> is
    left out (it is the injected text, shown as such on purpose)."""
    html = re.sub(r'<pre id="context-block">.*?</pre>', " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_project_page_shows_no_markdown(get):
    html = get("/project", id=PROJECT).text
    text = visible(html)
    assert "`" not in text
    assert "<code>claimgraph conflicts</code>" in html  # the heading's code span, as code
    lines = re.findall(r'<span class="line">(.*?)</span>', html, re.S)
    assert lines and not any(unescape(line).lstrip().startswith("- ") for line in lines)


def test_no_page_shows_epoch_milliseconds(get, built):
    pages = [get("/project", id=PROJECT), get("/asof", id=PROJECT),
             get("/asof", id=PROJECT, at="2026-02-15"), get(f"/fact/{built.ids['new_version']}"),
             get("/activity"), get("/review"), get("/")]
    for page in pages:
        assert page.status_code == 200
        assert not EPOCH_MS.search(visible(page.text)), page.url
    box = re.search(r'<input type="text" name="at" id="asof-at" value="([^"]+)"', pages[2].text)
    assert box.group(1) == "2026-02-15T00:00:00Z"
    link = re.search(r'href="([^"]*asof[^"]*)">as of then', pages[3].text).group(1)
    assert "at=2026-02-22T00%3A00%3A00Z" in link


def test_an_iso_instant_from_the_box_reads_back_the_same_instant(get, built):
    text = get("/asof", id=PROJECT, at="2026-02-22T00:00:00Z").text
    assert f'data-fact="{built.ids["new_version"]}"' in text
    assert instant(1796337663226) == "2026-12-03T22:41:03.226Z"
    assert instant(1771718400000) == "2026-02-22T00:00:00Z"


def test_a_fact_history_lists_only_versions_of_the_same_belief(get, built):
    # Two conventions of one subject are two beliefs, not versions of one.
    page = get(f"/fact/{built.ids['second_rule']}").text
    history = re.search(r'<table class="grid" id="history">(.*?)</table>', page, re.S).group(1)
    listed = re.findall(r'data-fact="([^"]+)"', history)
    assert listed == [built.ids["second_rule"]]
    assert built.ids["markup"] not in history
    assert "1 other fact with the same subject and predicate is a separate belief" in visible(page)
    # A one-valued predicate's earlier values are its versions.
    versions_page = get(f"/fact/{built.ids['new_version']}").text
    assert built.ids["old_version"] in versions_page


def test_versions_follow_replacements_and_equal_values():
    a = {"id": "a", "object_kind": "literal", "object_lit": "use tabs", "successor": "b"}
    b = {"id": "b", "object_kind": "literal", "object_lit": "use spaces", "successor": None}
    c = {"id": "c", "object_kind": "literal", "object_lit": "no print", "successor": None}
    d = {"id": "d", "object_kind": "literal", "object_lit": "Use  TABS", "successor": None}
    every = [a, b, c, d]
    assert [f["id"] for f in versions(b, every, "many")] == ["a", "b", "d"]
    assert [f["id"] for f in versions(c, every, "many")] == ["c"]
    assert versions(c, every, "one") == every


def test_section_counts_add_up_to_the_header(get):
    """The facts believed now and the dormant ones (not believed, left out) are every fact
    of every section but "changed", each once."""
    html = get("/project", id=PROJECT).text
    believed, dormant = map(int, re.search(
        r'id="project-summary" data-believed="(\d+)" data-dormant="(\d+)"', html).groups())
    sections = re.findall(r'<section class="group" id="section-(\w+)" data-total="(\d+)"'
                          r' data-shown="(\d+)">(.*?)</section>', html, re.S)
    assert sections
    ids = set()
    for key, total, shown, body in sections:
        assert int(total) == int(shown) > 0, key  # all fit on one page here
        if key != "changed":
            ids |= set(re.findall(r'href="/[^"]+/fact/([^"]+)"', body))
    assert len(ids) == believed + dormant
    said = f"{believed} facts believed now in this project's scope and the user scope"
    if dormant:
        said += f", and {dormant} dormant"
    assert said in visible(html)


def test_empty_sections_are_not_shown(get):
    html = get("/project", id=PROJECT).text
    shown = re.findall(r'id="section-(\w+)" data-total="(\d+)"', html)
    assert all(int(total) > 0 for _, total in shown)
    assert "changed" not in [key for key, _ in shown]  # nothing changed in the last 30 days
    assert '<p class="empty">nothing' not in html


def test_people_read_words_and_machines_read_ids(get, built):
    pages = {"project": get("/project", id=PROJECT).text, "review": get("/review").text,
             "fact": get(f"/fact/{built.ids['contradiction']}").text,
             "asof": get("/asof", id=PROJECT).text}
    for name, html in pages.items():
        text = visible(html)
        assert not PREDICATE_ID.search(text), (name, PREDICATE_ID.search(text))
        for jargon in ("session-log", "user-assertion", "file-missing", "epistemic",
                       "inadmissible"):
            assert jargon not in text, (name, jargon)
    project = pages["project"]
    assert "spotter decided against" in visible(project)
    assert 'data-predicate="core/decided-against"' in project  # the id stays for machines
    assert '<option value="x/convention"' in project and ">convention</option>" in project


def test_words_for_ids():
    assert plain_predicate("core/decided-against") == "decided against"
    assert plain_predicate("x/convention") == "convention"
    assert plain_predicate("team/owned-by") == "team/owned-by"
    assert plain("file-missing") == "file missing" and plain("session-log") == "from a session"
    assert str(code_spans("run `a<b>` now")) == "run <code>a&lt;b&gt;</code> now"
