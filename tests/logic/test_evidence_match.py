"""Claim-vs-evidence, the pure part: REFERENCE §17's exact behaviour, pinned."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic import evidence_match as P
from claimgraph.logic.evidence_match import (
    check, code_spans, identifiers, match_evidence, parse_evidence, summarize)

FILE = """
def compute_risk(portfolio):
    exposure = portfolio.total_exposure()
    return RiskModel(exposure).score
"""


# --- parse_evidence ------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("src/a.py: def f", {"file": "src/a.py", "quote": "def f"}),
    ("  /abs/x.py:   spaced quote  ", {"file": "/abs/x.py", "quote": "spaced quote"}),
    ("src/a.py:12: text", {"file": "src/a.py:12", "quote": "text"}),
    ("Makefile.am: all:\n\tbuild", {"file": "Makefile.am", "quote": "all:\n\tbuild"}),
    ("./Makefile: `test:`", {"file": "./Makefile", "quote": "`test:`"}),
])
def test_a_path_before_a_colon_and_whitespace_is_the_cited_file(text, expected):
    assert parse_evidence(text) == expected


@pytest.mark.parametrize("text", [
    "transcript#L12: always use uv", "README: no dot or slash", "no colon at all",
    "src/a.py:no-space-after-colon", "model: uv run pytest"])
def test_without_a_path_shaped_reference_the_whole_string_is_the_quote(text):
    assert parse_evidence(text) == {"file": None, "quote": text}


# --- identifiers and code spans -------------------------------------------------------------

def test_identifiers_are_code_shaped_lowercased_and_deduplicated_in_order():
    quote = ("compute_risk calls portfolio.total_exposure then RiskModel; the Risk module "
             "and getScore, HTTPServer, COMPUTE_RISK again, a_b and plain words")
    assert identifiers(quote) == ["compute_risk", "portfolio.total_exposure", "riskmodel",
                                  "getscore", "httpserver"]


def test_short_and_plain_words_are_not_identifiers():
    assert identifiers("a_b x.y Foo the Module returns value") == []


def test_a_trailing_dot_is_not_part_of_an_identifier():
    assert identifiers("see config.load.") == ["config.load"]


def test_code_spans_are_trimmed_split_on_ellipses_and_short_fragments_dropped():
    quote = "`def f(x): ... return x` and ` ` and `a…longer_part` and `abc`"
    assert code_spans(quote) == ["def f(x):", "return x", "longer_part"]


# --- match_evidence --------------------------------------------------------------------------

def test_supported_when_identifiers_are_found():
    result = match_evidence(parse_evidence("r.py: compute_risk uses RiskModel"), FILE)
    assert result == {"verdict": "supported",
                      "identifiers": {"found": ["compute_risk", "riskmodel"], "missing": [],
                                      "ratio": 1.0},
                      "code_spans": {"checked": [], "found": []}}


def test_fragments_match_with_whitespace_collapsed_and_case_ignored():
    quote = "r.py: `DEF   compute_risk(portfolio):\n exposure = portfolio.total_exposure()`"
    assert match_evidence(parse_evidence(quote), FILE)["verdict"] == "supported"


def test_below_the_ratio_with_a_missing_fragment_is_partial_and_names_the_misses():
    quote = "r.py: compute_risk with ghost_one and ghost_two `not in the file`"
    result = match_evidence(parse_evidence(quote), FILE)
    assert result["verdict"] == "partial"
    assert result["identifiers"] == {"found": ["compute_risk"],
                                     "missing": ["ghost_one", "ghost_two"], "ratio": 0.33}


def test_all_fragments_found_supports_even_below_the_ratio():
    quote = "r.py: ghost_one ghost_two compute_risk `RiskModel(exposure)`"
    assert match_evidence(parse_evidence(quote), FILE)["verdict"] == "supported"


def test_ratio_exactly_at_the_threshold_is_supported_and_rounds_half_up():
    found = match_evidence(parse_evidence("r.py: compute_risk RiskModel portfolio.total_exposure "
                                          "ghost_one ghost_two"), FILE)
    assert found["identifiers"]["ratio"] == 0.6 and found["verdict"] == "supported"
    eighth = match_evidence(parse_evidence("r.py: compute_risk " + " ".join(
        f"ghost_{i}" for i in range(7))), FILE)
    assert eighth["identifiers"]["ratio"] == 0.13  # 0.125 rounds up, not to even


def test_nothing_to_check_is_unverifiable_and_nothing_found_is_unsupported():
    assert match_evidence(parse_evidence("r.py: it computes risk"), FILE)["verdict"] == "unverifiable"
    assert match_evidence(parse_evidence("r.py: `ghost_fn()`"), FILE)["verdict"] == "unsupported"


def test_the_claim_vs_evidence_check_catches_confabulation():
    checks = [{"label": "real risk", **check(parse_evidence(
                  "/repo/r.py: `def compute_risk(portfolio):` scores with RiskModel"),
                  {"status": "ok", "content": FILE})},
              {"label": "hallucinated risk", **check(parse_evidence(
                  "/repo/r.py: `def compute_var(positions):` via MonteCarloEngine"),
                  {"status": "ok", "content": FILE})}]
    assert checks[0]["verdict"] == "supported"
    assert checks[1]["verdict"] == "unsupported" and checks[1]["identifiers"]["missing"]
    summary = summarize(checks)
    assert summary["confabulation_suspected"] is True and summary["overall"] == "suspect"


# --- check: the early verdicts ---------------------------------------------------------------

@pytest.mark.parametrize("read, verdict", [
    ({"status": "missing", "reason": "no-such-file"}, "file-missing"),
    ({"status": "unreadable", "reason": "binary"}, "file-unreadable"),
    ({"status": "outside", "reason": "climbs-out-of-project"}, "outside-project"),
])
def test_a_file_that_cannot_be_read_gets_its_verdict_before_any_matching(read, verdict):
    result = check(parse_evidence("a/b.py: compute_risk"), read)
    assert result["verdict"] == verdict and result["reason"] == read["reason"]
    assert result["identifiers"] == {"found": [], "missing": [], "ratio": None}


def test_evidence_citing_no_file_is_no_file_cited():
    assert check(parse_evidence("transcript#L3: compute_risk"), None)["verdict"] == "no-file-cited"


# --- summarize -------------------------------------------------------------------------------

@pytest.mark.parametrize("verdicts, overall, suspected", [
    ([], "no-claims", False),
    (["supported", "unverifiable", "no-file-cited", "file-unreadable", "outside-project"],
     "supported", False),
    (["supported", "partial"], "mixed", False),
    (["partial", "file-missing"], "incomplete", False),
    (["unsupported", "file-missing"], "suspect", True),
    (["supported", "unsupported"], "suspect", True),
])
def test_summary_overall_rules(verdicts, overall, suspected):
    summary = summarize([{"verdict": v} for v in verdicts])
    assert summary["total"] == len(verdicts)
    assert summary["overall"] == overall and summary["confabulation_suspected"] is suspected
    assert sum(summary["by_verdict"].values()) == len(verdicts)


@given(st.text(max_size=120), st.text(max_size=200))
def test_verdicts_are_deterministic_and_well_formed(evidence, content):
    parsed = parse_evidence(evidence)
    first = match_evidence(parsed, content)
    assert first == match_evidence(parse_evidence(evidence), content)
    ids = first["identifiers"]
    assert sorted(ids["found"] + ids["missing"]) == sorted(identifiers(parsed["quote"]))
    assert set(first["code_spans"]["found"]) <= set(first["code_spans"]["checked"])
    assert first["verdict"] in {"supported", "partial", "unsupported", "unverifiable"}


@given(st.lists(st.sampled_from(["supported", "partial", "unsupported", "file-missing",
                                 "unverifiable"]), max_size=8))
def test_the_summary_does_not_depend_on_order(verdicts):
    checks = [{"verdict": v} for v in verdicts]
    assert summarize(checks) == summarize(list(reversed(checks)))


# --- prepared text: one pass per file, the same verdicts --------------------------------------

_CODEY = st.text(alphabet=st.sampled_from(list("abAB_.xy \t\n`()İ")), max_size=40)


@given(_CODEY, _CODEY)
def test_a_prepared_text_gives_exactly_the_verdict_of_the_raw_text(content, quote):
    """Names hold no whitespace, so finding them in the collapsed text is finding them in the
    raw lowercased text; the shell may prepare each file once for all its citations."""
    parsed = {"file": "a.py", "quote": quote}
    assert P.match_evidence(parsed, content, P.searchable(content)) == \
        P.match_evidence(parsed, content)
    for name in P.identifiers(quote):
        assert (name in P.searchable(content)) == (name in content.lower())


def test_check_accepts_a_read_that_carries_only_the_prepared_text():
    parsed = P.parse_evidence("a.py: `def total(items):` and line_items")
    content = "def   total(items):\n    return line_items\n"
    prepared = {"status": "ok", "searchable": P.searchable(content)}
    assert P.check(parsed, prepared) == P.check(parsed, {"status": "ok", "content": content})


def test_a_plain_quote_found_whole_in_the_file_supports_the_claim_without_backticks():
    source = "import os\nimport psycopg\n\nconn = psycopg.connect()\n"
    assert match_evidence(parse_evidence("src/db.py: import psycopg"), source)["verdict"] \
        == "supported"
    assert match_evidence(parse_evidence('src/db.py: "import   psycopg"'), source)["verdict"] \
        == "supported"
    paraphrase = parse_evidence("src/db.py: it talks to postgres")
    assert match_evidence(paraphrase, source)["verdict"] == "unverifiable"
