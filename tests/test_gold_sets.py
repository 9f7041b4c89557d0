"""The blind gold sets under bench/memory are measuring instruments: a malformed key silently
scores every fact as found (an empty ``a|`` alternative is a substring of anything), and a trap
keyed so that a gold fact of the same session restates it punishes capture for being right.

These checks read only the gold files in the tree (the transcripts are third-party and are
restored separately); the matching rule is the one bench/memory/README.md describes: a key set
matches a text when every one of its terms occurs in the lowercased text, a term being
``|``-separated alternatives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GOLD_ROOT = Path(__file__).resolve().parent.parent / "bench" / "memory"
GOLD_FILES = sorted(GOLD_ROOT.glob("gold*/*.gold.json"))
IMPORTANCE = {"high", "medium", "low"}
FACT_FIELDS = {"id", "kind", "subject", "object", "importance", "keys"}
TRAP_FIELDS = {"id", "what", "keys"}


def key_set_matches(key_set: list[str], text: str) -> bool:
    """Every term of the set occurs in ``text`` (case-blind), a term being alternatives."""
    lowered = text.lower()
    return all(any(alt in lowered for alt in term.lower().split("|")) for term in key_set)


def matches(item: dict, text: str) -> bool:
    return any(key_set_matches(key_set, text) for key_set in item["keys"])


def own_text(fact: dict) -> str:
    """What the labeller wrote the fact as: any faithful restatement shares its key terms."""
    return " ".join(str(fact.get(field, "")) for field in ("subject", "object", "quote"))


def key_problems(item: dict) -> list[str]:
    keys = item.get("keys")
    if not isinstance(keys, list) or not keys:
        return ["no key sets"]
    problems = []
    for key_set in keys:
        if not isinstance(key_set, list) or not key_set:
            problems.append(f"empty key set {key_set!r}")
            continue
        for term in key_set:
            if not isinstance(term, str) or any(alt == "" for alt in term.split("|")):
                problems.append(f"term {term!r} has an empty alternative: it matches any text")
    return problems


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_there_are_gold_sets_to_check():
    assert len(GOLD_FILES) >= 100


def form_problems(gold: dict) -> list[str]:
    problems = []
    if not {"transcript", "project", "facts", "traps"} <= gold.keys():
        return ["missing transcript, project, facts or traps"]
    ids = [item.get("id") for item in gold["facts"] + gold["traps"]]
    if len(ids) != len(set(ids)):
        problems.append("ids are not unique")
    for fact in gold["facts"]:
        if not FACT_FIELDS <= fact.keys() or fact["importance"] not in IMPORTANCE:
            problems.append(f"{fact.get('id')}: fields or importance")
        problems += [f"{fact.get('id')}: {p}" for p in key_problems(fact)]
    for trap in gold["traps"]:
        if not TRAP_FIELDS <= trap.keys():
            problems.append(f"{trap.get('id')}: fields")
        problems += [f"{trap.get('id')}: {p}" for p in key_problems(trap)]
    return problems


def matching_problems(gold: dict) -> list[str]:
    problems = []
    for fact in gold["facts"]:
        if not matches(fact, own_text(fact)):
            problems.append(f"{fact['id']}: its keys miss its own text")
        restated = f"{fact['subject']} | {fact['object']}"
        hit = [trap["id"] for trap in gold["traps"] if matches(trap, restated)]
        if hit:
            problems.append(f"{fact['id']} restated would hit trap(s) {hit}")
    return problems


def test_every_gold_file_is_well_formed():
    found = {path.name: form_problems(load(path)) for path in GOLD_FILES}
    assert {name: p for name, p in found.items() if p} == {}


def test_each_fact_matches_its_own_keys_and_no_trap_of_its_session():
    found = {path.name: matching_problems(load(path)) for path in GOLD_FILES}
    assert {name: p for name, p in found.items() if p} == {}


@pytest.mark.parametrize("keys, text, expected", [
    ([["badge", "rule|linked"]], "Badge labels: Rule", True),
    ([["badge", "rule|linked"]], "labels: Rule", False),
    ([["PNPM"]], "use pnpm", True),
    ([["a"], ["b", "c"]], "only c here", False),
])
def test_the_matching_rule(keys, text, expected):
    assert matches({"keys": keys}, text) is expected


def test_the_checks_find_what_they_look_for():
    trap = {"id": "t1", "what": "old label", "keys": [["label", "rule"]]}
    fact = {"id": "g1", "kind": "fact", "subject": "label", "object": "now Rule",
            "importance": "high", "keys": [["label"]]}
    assert matching_problems({"facts": [fact], "traps": [trap]}) != []
    assert form_problems({"transcript": "t", "project": "p", "facts": [fact, fact],
                          "traps": []}) == ["ids are not unique"]
    unkeyed = dict(fact, keys=[["nowhere"]])
    assert matching_problems({"facts": [unkeyed], "traps": []}) != []


def test_key_problems_catch_what_would_match_everything():
    assert key_problems({"keys": [["ok|"]]}) != []
    assert key_problems({"keys": [[]]}) != []
    assert key_problems({"keys": []}) != []
    assert key_problems({"keys": [["ok|fine", "x"]]}) == []
