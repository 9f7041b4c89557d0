"""The viewer in a real browser: Debian's chromium, headless, driven by Playwright.

No browser is downloaded: Playwright drives the system chromium (``executable_path``). Where
chromium or Playwright is missing the tests are skipped with a loud message, and with
``CLAIMGRAPH_REQUIRE_BROWSER=1`` (CI, which installs chromium from Debian's packages) that
skip is a failure. Screenshots go to the test's temporary directory, and also to
``$CLAIMGRAPH_SCREENSHOTS`` when it names a directory (how docs/images is refreshed).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import pytest

from claimgraph.opening import open_store
from claimgraph.viewer.present import instant
from viewer_helpers import Served
from viewer_store import PROJECT, environment

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 860}
#: Read at import: the suite's home guard clears CLAIMGRAPH_* variables before each test.
SCREENSHOTS = os.environ.get("CLAIMGRAPH_SCREENSHOTS")
#: The pages docs/images keeps (the README and docs/viewer.md show them).
DOC_SHOTS = frozenset({"project", "provenance", "asof", "activity"})


def skip_or_fail(reason: str) -> None:
    loud = f"VIEWER BROWSER TESTS NOT RUN: {reason}"
    print(f"\n*** {loud} ***", file=sys.stderr)
    if os.environ.get("CLAIMGRAPH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{loud} (and CLAIMGRAPH_REQUIRE_BROWSER=1 says they must run)",
                    pytrace=False)
    pytest.skip(loud)


def chromium_path() -> str | None:
    override = os.environ.get("CLAIMGRAPH_CHROMIUM")
    if override:
        return override
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    executable = chromium_path()
    if executable is None:
        skip_or_fail("no chromium on PATH (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("Playwright for Python is not installed (the `test` extra has it)")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def tab(browser) -> Iterator[object]:
    """A fresh page that records console errors and failed requests."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.on("requestfailed", lambda r: page.problems.append(f"failed {r.url}"))
    yield page
    context.close()


def shoot(page, name: str, tmp_path: Path) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"))
    if SCREENSHOTS and Path(SCREENSHOTS).is_dir() and name in DOC_SHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / f"viewer-{name}.png"))


def visit(page, url: str) -> object:
    answer = page.goto(url)
    page.wait_for_load_state("networkidle")
    assert answer.status == 200, url
    return answer


def test_every_page_loads_with_its_assets_and_no_errors(tab, served, built, tmp_path):
    project = quote(PROJECT, safe="")
    pages = {"projects": ("", "#projects"), "project": (f"project?id={project}", "#context-block"),
             "activity": ("activity", "#runs"), "review": ("review", "#conflicts"),
             "fact": (f"fact/{built.ids['new_version']}", "#history")}
    for name, (path, marker) in pages.items():
        visit(tab, served.url + path)
        assert tab.locator(marker).count() == 1, name
        color = tab.evaluate("getComputedStyle(document.body).backgroundColor")
        assert color == "rgb(250, 251, 252)", "the stylesheet did not load"
        shoot(tab, name, tmp_path)
    assert tab.problems == []


def test_a_facts_provenance_shows_the_transcript_line_that_taught_it(tab, served, tmp_path):
    visit(tab, served.url + f"project?id={quote(PROJECT, safe='')}")
    tab.get_by_role("link", name="Rig prefix", exact=False).first.click()
    tab.wait_for_load_state("networkidle")
    lines = tab.locator("#transcript-lines .tline")
    assert lines.count() >= 1
    assert "Which rig do these beads belong to?" in tab.locator("#transcript-lines").inner_text()
    assert tab.locator("#transcript-lines .tline .ln").first.inner_text().startswith("L")
    shoot(tab, "provenance", tmp_path)
    assert tab.problems == []


def shown_facts(page) -> list[str]:
    return page.eval_on_selector_all("#asof-facts tr[data-fact]",
                                     "rows => rows.map(r => r.dataset.fact)")


def move_slider(page, index: int) -> None:
    """Set the slider as a person would end a drag: the value, then its change event."""
    before = page.get_attribute("#asof-results section", "data-at")
    page.eval_on_selector("#asof-slider", "(s, i) => { s.value = i; "
                          "s.dispatchEvent(new Event('input')); "
                          "s.dispatchEvent(new Event('change')); }", index)
    page.wait_for_function("before => document.querySelector('#asof-results section')"
                           ".dataset.at !== before", arg=before)


SPARK_AT_SLIDER = """() => {
  const spark = document.getElementById("asof-spark");
  const index = Number(document.getElementById("asof-slider").value);
  const stop = spark.querySelector("polyline").points.getItem(index);
  return {count: JSON.parse(spark.dataset.counts)[index], stop: stop.x,
          mark: Number(document.getElementById("asof-mark").getAttribute("x1")),
          total: Number(document.querySelector("#asof-results section").dataset.total)};
}"""


def assert_spark_agrees(page) -> int:
    """The sparkline's count where the slider stands is the count of the list shown, and its
    mark stands on that stop of the line; returns that count."""
    seen = page.evaluate(SPARK_AT_SLIDER)
    assert seen["count"] == seen["total"], seen
    assert abs(seen["mark"] - seen["stop"]) < 0.05, seen
    return int(seen["total"])


def test_the_as_of_slider_changes_what_is_shown(tab, served, built, tmp_path):
    visit(tab, served.url + f"asof?id={quote(PROJECT, safe='')}")
    assert_spark_agrees(tab)
    now_shown = shown_facts(tab)
    assert built.ids["new_version"] in now_shown and built.ids["old_version"] not in now_shown
    instants = tab.evaluate("JSON.parse(document.getElementById('asof-form').dataset.instants)")
    versions = {"old": built.ids["old_version"], "new": built.ids["new_version"]}
    store = open_store(built.db, read_only=True)
    try:
        old_fact = store.get_fact(versions["old"])
    finally:
        store.close()
    move_slider(tab, instants.index(old_fact["t_valid"]))
    assert_spark_agrees(tab)
    then_shown = shown_facts(tab)
    assert versions["old"] in then_shown and versions["new"] not in then_shown
    assert len(then_shown) < len(now_shown)
    # The box and the address name the instant as an ISO time, never milliseconds.
    iso = instant(old_fact["t_valid"])
    assert "asof" in tab.url and "at=" + quote(iso, safe="") in tab.url
    assert tab.input_value("#asof-at") == iso
    shoot(tab, "asof", tmp_path)
    move_slider(tab, 0)
    assert_spark_agrees(tab)
    assert len(shown_facts(tab)) <= len(then_shown)
    assert tab.problems == []


@pytest.fixture(scope="module")
def served_dormant(built, tmp_path_factory) -> Iterator[tuple[Served, list[str]]]:
    """The built store copied, with the project's three oldest live facts gone dormant (a real
    write, as the curator's decay stage makes it), served by a real ``claimgraph serve``."""
    root = tmp_path_factory.mktemp("dormant")
    env = environment(root)
    with sqlite3.connect(built.db) as whole, sqlite3.connect(env["CLAIMGRAPH_DB"]) as copy:
        whole.backup(copy)
    store = open_store(Path(env["CLAIMGRAPH_DB"]))
    try:
        live = sorted((f for f in store.select_facts(scopes=[PROJECT])
                       if f["t_invalid"] is None and f["t_valid"] is not None),
                      key=lambda f: (f["t_valid"], f["id"]))
        dormant = [f["id"] for f in live[:3]]
        with store.transaction():
            assert store.set_dormant(dormant, live[-1]["t_valid"]) == 3
    finally:
        store.close()
    server = Served(env, "--port", "0")
    yield server, dormant
    server.stop()


def test_the_sparkline_and_the_count_agree_where_facts_are_dormant(tab, served_dormant):
    server, dormant = served_dormant
    visit(tab, server.url + f"asof?id={quote(PROJECT, safe='')}")
    stops = len(tab.evaluate("JSON.parse(document.getElementById('asof-form').dataset.instants)"))
    assert stops > 3
    for index in (None, stops // 2, 1, stops - 2, stops - 1):
        if index is not None:
            move_slider(tab, index)
        shown = shown_facts(tab)
        assert assert_spark_agrees(tab) == len(shown) < 200  # all of them listed: the rows
        assert not set(dormant) & set(shown)
    assert tab.problems == []


def test_a_filter_menu_applies_at_once(tab, served):
    visit(tab, served.url + f"project?id={quote(PROJECT, safe='')}")
    with tab.expect_navigation():
        tab.select_option("select[name=class]", "commitment")
    assert "class=commitment" in tab.url
    tags = tab.eval_on_selector_all("#section-decisions .tag[class*=cls-]",
                                    "t => t.map(e => e.textContent)")
    assert tags and set(tags) == {"commitment"}
    assert tab.locator("#section-current tr").count() == 0  # no commitment ranks there


def test_a_request_without_the_token_is_refused_in_the_browser(tab, served):
    answer = tab.goto(served.origin + "/")
    assert answer.status == 403
    assert "token" in tab.inner_text("body")
    answer = tab.goto(f"{served.origin}/not-the-token/activity")
    assert answer.status == 403
