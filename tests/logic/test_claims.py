"""extract_claims over any JSON shape (REFERENCE §17, fractal-engine's extract-claims)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic.claims import extract_claims, json_path, label_of


def test_every_object_with_evidence_is_a_claim_children_before_parents():
    document = {"summary": "review", "evidence": "top.py: x",
                "risks": [{"risk": "first", "evidence": "a.py: a_b"},
                          {"risk": "second", "evidence": ["b.py: c_d", "c.py: e_f"],
                           "details": {"name": "inner", "evidence": "d.py: g_h"}}]}
    assert extract_claims(document) == [
        {"label": "first", "json_path": "$.risks[0]", "evidence": ["a.py: a_b"]},
        {"label": "inner", "json_path": "$.risks[1].details", "evidence": ["d.py: g_h"]},
        {"label": "second", "json_path": "$.risks[1]", "evidence": ["b.py: c_d", "c.py: e_f"]},
        {"label": "summary", "json_path": "$", "evidence": ["top.py: x"]},
    ]


def test_a_list_keeps_only_its_strings_and_an_object_without_strings_contributes_nothing():
    document = [{"title": "mixed", "evidence": ["a.py: x", 3, None, {"f": 1}, "b.py: y"]},
                {"title": "none", "evidence": [1, 2]}, {"title": "number", "evidence": 7},
                {"title": "null", "evidence": None}, {"title": "empty", "evidence": []}]
    assert extract_claims(document) == [
        {"label": "mixed", "json_path": "$[0]", "evidence": ["a.py: x", "b.py: y"]}]


def test_the_label_is_the_first_present_of_description_name_claim_risk_title():
    assert label_of({"title": "t", "risk": "r", "claim": "c", "name": "n",
                     "description": "d"}) == "d"
    assert label_of({"title": "t", "risk": "r", "claim": "c", "name": "n"}) == "n"
    assert label_of({"title": "t", "risk": "r", "claim": "c"}) == "c"
    assert label_of({"title": "t", "risk": "r"}) == "r"
    assert label_of({"title": "t", "evidence": "x"}) == "t"


def test_a_null_label_field_is_skipped_and_a_non_string_label_is_shown_as_json():
    assert label_of({"description": None, "name": "n"}) == "n"
    assert label_of({"name": {"first": "a"}}) == '{"first": "a"}'
    assert label_of({"claim": 3}) == "3"


def test_without_a_label_field_the_first_other_key_names_the_claim():
    assert label_of({"evidence": "a.py: x", "severity": "high", "area": "db"}) == "severity"
    assert label_of({"evidence": "a.py: x"}) == ""


def test_json_paths_quote_keys_that_are_not_plain_names():
    assert json_path([]) == "$"
    assert json_path(["risks", 2, "sub_part"]) == "$.risks[2].sub_part"
    assert json_path(["odd key", "ünï", "9lives", 'q"']) == '$["odd key"]["ünï"]["9lives"]["q\\""]'


def test_a_scalar_or_empty_document_has_no_claims():
    for document in ("text", 3, None, [], {}, [[[]]]):
        assert extract_claims(document) == []


def test_a_very_deep_document_is_walked_without_exhausting_the_stack():
    document: dict = {"name": "leaf", "evidence": "a.py: x_y"}
    for _ in range(20_000):
        document = {"next": document}
    [claim] = extract_claims(document)
    assert claim["label"] == "leaf" and claim["json_path"].count(".next") == 20_000


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["evidence", "name", "risk", "x", "y z"]), inner, max_size=4),
    max_leaves=30)


@given(json_values)
def test_each_claim_is_found_again_at_its_path(document):
    for claim in extract_claims(document):
        node = document
        for step in _steps(claim["json_path"]):
            node = node[step]
        assert "evidence" in node and claim["evidence"]
        assert all(isinstance(e, str) for e in claim["evidence"])


def _steps(path: str) -> list:
    """Parse our JSONPath back (test helper; keys here are plain or JSON-quoted)."""
    steps, i = [], 1
    while i < len(path):
        if path[i] == ".":
            j = i + 1
            while j < len(path) and path[j] not in ".[":
                j += 1
            steps.append(path[i + 1:j])
            i = j
        else:
            value, end = json.JSONDecoder().raw_decode(path, i + 1)
            steps.append(value)
            i = end + 1
    return steps
