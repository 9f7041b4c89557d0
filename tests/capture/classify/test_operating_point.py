"""The sentence model's operating point: the pair shipped is what the written rule picks from the
whole-session measurements committed beside it (train/operating_point.py, docs/capture.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SHIPPED = REPO / "src" / "claimgraph" / "capture" / "classify" / "sentence_model.json"
VERDICT_NAMES = {"keep", "noise", "wrong", "dangerous"}


@pytest.fixture(scope="module")
def op():
    sys.path.insert(0, str(REPO / "train"))
    try:
        import operating_point
    finally:
        sys.path.remove(str(REPO / "train"))
    return operating_point


@pytest.fixture(scope="module")
def table(op):
    return json.loads(op.TABLE.read_text(encoding="utf-8"))


def test_the_shipped_point_is_the_rules_choice_on_the_committed_table(op, table):
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    chosen = op.choose(table["candidates"])
    assert chosen == tuple(table["chosen"])
    assert chosen == (shipped["threshold"], shipped["phrase_floor"])


def test_the_table_measures_every_candidate_with_every_fact_judged(op, table):
    pairs = [(row["threshold"], row["floor"]) for row in table["candidates"]]
    assert pairs == op.candidates() and op.BASELINE in pairs
    assert all(row["unjudged"] == 0 for row in table["candidates"])
    assert all(sum(row["verdicts"].values()) == row["user_facts"] for row in table["candidates"])
    assert len(table["transcripts"]) == 33


def test_the_table_holds_no_session_of_a_set_labelled_after_it(table):
    """The fourth blind set is the lead's check of this choice: it must never be in it."""
    sets = {name.rsplit("/", 1)[0] for name in table["transcripts"]}
    assert sets == {"fixtures/gold", "memory/gold", "memory/gold-fresh", "memory/gold-third"}


def test_every_verdict_file_row_names_its_fact_and_a_known_verdict(op):
    for path in (op.VERDICTS, op.HERE / "data" / "verdicts-third-reviewer.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert row["verdict"] in VERDICT_NAMES and row["why"]
            assert all(row[k] for k in ("transcript", "predicate", "subject", "object"))


def row(threshold, floor, found, bad=0, noise=0, traps=3, high=0, facts=40, probes=True):
    return {"threshold": threshold, "floor": floor, "found": found, "found_high": high,
            "trap_hits": traps, "user_facts": facts, "unjudged": 0, "probes_pass": probes,
            "verdicts": {"keep": facts - bad - noise, "noise": noise, "wrong": bad}}


def test_the_rule_takes_the_most_found_among_the_safe_and_precise(op):
    rows = [row(0.70, 0.50, 60, bad=2),
            row(0.50, 1.0, 70, bad=4),            # 10% wrong: not admissible
            row(0.55, 1.0, 69, bad=1, traps=4),   # more trap hits than before: not admissible
            row(0.60, 0.30, 65, bad=2),
            row(0.65, 1.0, 64, bad=0)]
    assert op.choose(rows) == (0.60, 0.30)


def test_ties_go_to_more_high_facts_then_fewer_wrong_then_the_stricter_pair(op):
    assert op.choose([row(0.70, 0.50, 60), row(0.60, 1.0, 60, high=1)]) == (0.60, 1.0)
    assert op.choose([row(0.70, 0.50, 60, bad=1), row(0.60, 1.0, 60)]) == (0.60, 1.0)
    assert op.choose([row(0.70, 0.50, 60), row(0.60, 1.0, 60)]) == (0.70, 0.50)
    assert op.choose([row(0.70, 0.50, 60), row(0.70, 0.40, 60)]) == (0.70, 0.50)


def test_a_pair_that_loses_one_of_issue_23s_probes_is_never_chosen(op):
    rows = [row(0.70, 0.50, 60, bad=3), row(0.75, 0.40, 62, bad=1, probes=False)]
    assert op.choose(rows) == (0.70, 0.50)


def test_the_tables_probe_columns_are_the_shipped_weights(op, table):
    """The probes are read with the weights that ship: a retrain with other weights must
    measure the table again."""
    assert op.with_probes(table["candidates"], SHIPPED) == table["candidates"]


def test_with_none_admissible_the_lowest_wrong_share_among_the_safe(op):
    rows = [row(0.70, 0.50, 60, bad=4), row(0.80, 1.0, 50, bad=3, facts=20),
            row(0.75, 1.0, 55, bad=3), row(0.50, 1.0, 70, bad=3, traps=9)]
    assert op.choose(rows) == (0.75, 1.0)


def test_the_rule_refuses_a_table_with_facts_nobody_judged(op):
    rows = [row(0.70, 0.50, 60)]
    rows[0]["unjudged"] = 1
    with pytest.raises(ValueError):
        op.choose(rows)


def test_a_candidates_kept_sentences_follow_score_and_phrase_floor(op):
    def classify(sentence):
        return "x/convention" if sentence.startswith("we always") else None
    explain = [{"line": 1, "sentence": "we always use tabs", "score": 0.45, "kept": True},
               {"line": 2, "sentence": "the api returns json", "score": 0.72, "kept": True},
               {"line": 3, "sentence": "fix it", "score": 0.90, "kept": False}]
    assert op.keeps(explain, 0.70, 0.40, classify) == {(1, "we always use tabs"),
                                                        (2, "the api returns json")}
    assert op.keeps(explain, 0.75, 1.0, classify) == frozenset()
    # a rounded score this near a threshold cannot tell: that candidate runs capture itself
    assert op.keeps(explain, 0.72, 1.0, classify) is None
