"""The pure judge: prompts, lenient verdict parsing, plans, verdict refs, summaries."""

from __future__ import annotations

import json

import pytest

from claimgraph.logic import judge as J


def fact(fid, pred, obj, name="team"):
    return {"id": fid, "subject": {"id": "e-1", "name": name}, "predicate": pred,
            "object_kind": "literal", "object_lit": obj, "epistemic": "preference",
            "source_type": "session-log", "scope": "project", "confidence": 0.6,
            "recorded_at": 1_800_000_000_000}


PAIR = {"fact": fact("f-b", "core/prefers", "spaces"), "candidate": fact("f-a", "core/prefers",
                                                                         "tabs")}


def test_judge_prompt_names_roles_definitions_and_both_facts():
    prompt = J.judge_prompt(PAIR["fact"], PAIR["candidate"],
                            {"core/prefers": {"definition": "a chosen option"}})
    assert "Fact A is the newer assertion; fact B is the established one." in prompt
    assert "core/prefers — a chosen option" in prompt
    a_line = next(line for line in prompt.splitlines() if line.startswith("Fact A: "))
    shown = json.loads(a_line[len("Fact A: "):])
    assert set(shown) == {"id", "subject", "predicate", "object", "epistemic", "source-type",
                          "scope", "confidence", "recorded-at"}
    assert (shown["id"], shown["object"], shown["subject"]) == ("f-b", "spaces", "team")


@pytest.mark.parametrize("text, relation, conf", [
    ('{"relation": "compatible", "confidence": 0.9, "rationale": "both"}', "compatible", 0.9),
    ('Sure!\n{"relation": "nope"}\n{"relation": ":Duplicate", "confidence": 3}', "duplicate", 1.0),
    ('Here: {"relation": "supersedes", "confidence": "high", "rationale": "a {b} \\" c"} ok',
     "supersedes", 0.0),
    ('```json\n{\n  "relation": "contradicts",\n  "confidence": -2\n}\n```', "contradicts", 0.0),
    ('{"rationale": "unbalanced \\"}{\\"", "relation": "compatible", "confidence": 0.5}',
     "compatible", 0.5),
])
def test_parse_verdict_is_lenient_and_clamps(text, relation, conf):
    verdict = J.parse_verdict(text)
    assert (verdict["relation"], verdict["confidence"]) == (relation, conf)


@pytest.mark.parametrize("text", ["", "I think they conflict.", '{"relation": "maybe"}',
                                  "{" * 10, '[{"relation": 1}]'])
def test_unreadable_replies_are_unparseable(text):
    assert J.parse_verdict(text) == {"relation": "unparseable", "confidence": 0.0,
                                     "rationale": ""}


def test_brace_scan_is_capped_in_objects_and_size():
    noise = '{"x": 1} ' * J.SCAN_MAX_OBJECTS
    assert J.parse_verdict(noise + '{"relation": "compatible"}')["relation"] == "unparseable"
    far = " " * J.SCAN_LIMIT_CHARS + '{"relation": "compatible"}'
    assert J.parse_verdict("x" + far)["relation"] == "unparseable"


def test_contradicts_is_never_automated_whatever_the_confidence():
    plan = J.resolution_plan(PAIR, {"relation": "contradicts", "confidence": 1.0})
    assert plan == {"action": "none", "reason": "needs-human"}


def test_resolution_plans_per_relation():
    def plan(rel: str, conf: float = 0.95) -> dict:
        return J.resolution_plan(PAIR, {"relation": rel, "confidence": conf})

    assert plan("unparseable")["reason"] == "unparseable"
    assert plan("compatible", 0.79)["reason"] == "low-confidence"
    assert plan("compatible") == {"action": "unlink", "fact": "f-b", "candidate": "f-a"}
    assert plan("duplicate") == {"action": "invalidate", "fact": "f-b", "kind": "judged-duplicate",
                                 "successor": "f-a", "reason": "judged duplicate of f-a"}
    assert plan("supersedes") == {"action": "invalidate", "fact": "f-a",
                                  "kind": "judged-superseded", "successor": "f-b",
                                  "reason": "judged superseded by f-b"}


def test_verdict_refs_sort_ids_and_round_trip():
    ref = J.verdict_ref("f-b", "f-a", "compatible", 0.875)
    assert ref == "verdict:f-a+f-b=compatible@0.88"
    assert J.parse_verdict_ref(ref) == (frozenset({"f-a", "f-b"}),
                                        {"relation": "compatible", "confidence": 0.88})
    for other in (None, "ingest:ep-1", "verdict:f-a+f-b=maybe@0.50", "verdict:f-a=compatible@1"):
        assert J.parse_verdict_ref(other) is None


def test_recorded_verdicts_read_only_curation_episodes():
    episodes = [{"source_type": "curation", "ref": J.verdict_ref("f-1", "f-2", "duplicate", 1)},
                {"source_type": "session-log", "ref": J.verdict_ref("f-3", "f-4", "compatible", 1)},
                {"source_type": "curation", "ref": "enrich:e-1@x"}]
    assert J.recorded_verdicts(episodes) == {
        frozenset({"f-1", "f-2"}): {"relation": "duplicate", "confidence": 1.0}}


def test_verdict_summary_reads_as_a_sentence():
    text = J.verdict_summary(PAIR, {"relation": "compatible", "confidence": 0.9,
                                    "rationale": "different files"})
    assert text == ('judged compatible (0.90): team prefers "spaces" vs team prefers "tabs" '
                    "— different files")


def test_summary_prompt_lists_the_facts_and_asks_for_sentences():
    prompt = J.summary_prompt({"source_type": "session-log", "ref": "s1"},
                              [PAIR["fact"], PAIR["candidate"]])
    assert "1 to 3 plain sentences" in prompt and "decisions and preferences" in prompt
    assert '- team prefers "spaces"' in prompt and "session-log (s1)" in prompt


def test_parse_summary_strips_fences_joins_and_caps():
    assert J.parse_summary("```\nWe chose  tabs.\nAlso ruff.\n```") == "We chose tabs. Also ruff."
    assert J.parse_summary("  \n```\n```\n") is None
    long = J.parse_summary("word " * 400)
    assert len(long) == J.MAX_SUMMARY_CHARS and long.endswith("…")
