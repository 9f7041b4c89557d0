"""The deep check, purely: the verify task, reading a verdict vector, merging it by id."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic import verify as V


def check(ident: int, file: str | None = "src/a.py", quote: str = "`def total(items):`",
          **over):
    return {"id": ident, "label": f"claim {ident}", "file": file, "quote": quote,
            "verdict": "supported", "identifiers": {"found": [], "missing": [], "ratio": None},
            "code_spans": {"checked": ["def total(items):"], "found": []}, **over}


VECTOR = [{"id": 0, "verdict": "supported", "why": "line 1", "quote": "def total(items):"},
          {"id": 1, "verdict": "refuted", "why": "no such function", "quote": None}]


# --- reading the reply ------------------------------------------------------------------

def test_a_bare_json_array_is_read_as_the_verdict_vector():
    assert V.parse_verdicts(json.dumps(VECTOR)) == {"verdicts": VECTOR, "ignored": 0}


def test_prose_and_a_code_fence_around_the_array_are_ignored():
    reply = ("Here is what I found [after reading both files]:\n```json\n"
             + json.dumps(VECTOR, indent=2) + "\n```\nLet me know [if] you need more.")
    assert V.parse_verdicts(reply)["verdicts"] == VECTOR


def test_the_last_array_with_a_verdict_wins_so_a_corrected_answer_counts():
    draft = [{"id": 0, "verdict": "unclear"}, {"id": 1, "verdict": "unclear"}]
    reply = f"Draft: {json.dumps(draft)}\nOn reflection: {json.dumps(VECTOR)}\n"
    assert V.parse_verdicts(reply)["verdicts"] == VECTOR


def test_an_echoed_claims_array_without_verdicts_is_not_taken_for_the_answer():
    echoed = [{"id": 0, "claim": "x", "file": "a.py", "cited_evidence": "q"}]
    reply = f"{json.dumps(VECTOR)}\nYou asked about: {json.dumps(echoed)}"
    assert V.parse_verdicts(reply)["verdicts"] == VECTOR


def test_one_object_per_line_is_read_when_there_is_no_array():
    reply = "\n".join(json.dumps(v) for v in VECTOR)
    assert V.parse_verdicts(reply) == {"verdicts": VECTOR, "ignored": 0}


def test_edn_style_keywords_any_case_and_numeric_string_ids_are_accepted():
    reply = json.dumps([{"id": "0", "verdict": ":SUPPORTED"}, {"id": 1, "verdict": " Refuted "}])
    verdicts = V.parse_verdicts(reply)["verdicts"]
    assert [(v["id"], v["verdict"]) for v in verdicts] == [(0, "supported"), (1, "refuted")]


def test_malformed_entries_are_dropped_and_counted():
    entries = [VECTOR[0], {"id": 1}, {"verdict": "refuted"}, {"id": True, "verdict": "refuted"},
               {"id": 2, "verdict": "probably"}, "refuted", None, {"id": 1.5, "verdict": "unclear"}]
    assert V.parse_verdicts(json.dumps(entries)) == {"verdicts": [VECTOR[0]], "ignored": 7}


def test_why_and_quote_are_whitespace_collapsed_capped_and_null_when_not_text():
    long_why = "word " * 400
    [verdict] = V.parse_verdicts(json.dumps(
        [{"id": 0, "verdict": "refuted", "why": long_why, "quote": 12}]))["verdicts"]
    assert len(verdict["why"]) == V.MAX_WHY_CHARS and verdict["why"].endswith("…")
    assert "  " not in verdict["why"] and verdict["quote"] is None


def test_a_reply_without_a_vector_reads_as_none_and_never_raises():
    for reply in ("", "I could not read the files.", "[1, 2, 3]", "{not json}", "[{]",
                  '{"relation": "compatible"}', "```json\n[\n```", "[" * 5000):
        assert V.parse_verdicts(reply) == {"verdicts": None, "ignored": 0}


@given(st.text(max_size=300))
def test_any_text_parses_to_a_vector_or_none(text):
    parsed = V.parse_verdicts(text)
    assert parsed["verdicts"] is None or all(v["verdict"] in V.VERDICTS
                                             for v in parsed["verdicts"])


# --- merging ------------------------------------------------------------------------------

def test_verdicts_fold_onto_checks_by_id_and_an_uncovered_check_keeps_none():
    checks = [check(0), check(1), check(2)]
    merged = V.merge_verdicts(checks, VECTOR)
    assert [m["deep"] and m["deep"]["verdict"] for m in merged] == ["supported", "refuted", None]
    assert merged[0]["deep"] == {"verdict": "supported", "why": "line 1",
                                 "quote": "def total(items):"}
    assert "deep" not in checks[0]  # the input is not changed


def test_a_repeated_id_keeps_its_first_verdict_and_no_vector_leaves_every_deep_none():
    twice = [VECTOR[1], {**VECTOR[0], "id": 1}]
    assert V.merge_verdicts([check(1)], twice)[0]["deep"]["verdict"] == "refuted"
    assert [m["deep"] for m in V.merge_verdicts([check(0), check(1)], None)] == [None, None]


def test_deep_counts_count_each_verdict_and_the_unjudged():
    merged = V.merge_verdicts([check(0), check(1), check(2)], VECTOR)
    assert V.deep_counts(merged) == {"supported": 1, "refuted": 1, "unclear": 0, "unjudged": 1}


# --- the task -----------------------------------------------------------------------------

def claims_in(prompt: str) -> list[dict]:
    start = prompt.index("=== BEGIN CLAIMS ===") + len("=== BEGIN CLAIMS ===")
    return json.loads(prompt[start:prompt.index("=== END CLAIMS ===")])


def test_the_task_lists_every_claim_by_id_with_its_source_and_the_reply_shape():
    checks = [check(0), check(1, file="src/gone.py"), check(2, file=None, quote="no file")]
    prompt = V.verify_task(checks, {"src/a.py": "def total(items):\n    return sum(items)\n"})
    assert claims_in(prompt) == [
        {"id": 0, "claim": "claim 0", "file": "src/a.py", "cited_evidence": "`def total(items):`"},
        {"id": 1, "claim": "claim 1", "file": "src/gone.py",
         "cited_evidence": "`def total(items):`"},
        {"id": 2, "claim": "claim 2", "file": None, "cited_evidence": "no file"}]
    assert "=== BEGIN src/a.py ===\n    1  def total(items):\n    2      return sum(items)\n" \
           "=== END src/a.py ===" in prompt
    assert "Not available (answer unclear unless other source decides): src/gone.py" in prompt
    assert "REFUTE" in prompt and '"verdict": "supported" | "refuted" | "unclear"' in prompt


def test_a_big_file_is_shown_around_the_lines_the_claims_quote():
    lines = [f"filler_{i} = {i}" for i in range(3000)]
    lines[1500] = "def total(items):"
    shown = V.excerpt("\n".join(lines), ["def total(items):"])
    assert " 1501  def total(items):" in shown
    assert " 1497  filler_1496" in shown and " 1505  filler_1504" in shown
    assert "filler_1495 " not in shown and "filler_1505 " not in shown
    assert shown.startswith("  ...") and len(shown) < 1000


def test_without_a_hit_a_big_file_shows_its_head_cut_at_the_limit():
    shown = V.excerpt("\n".join(f"line_{i}" for i in range(10_000)), ["nowhere"], limit=500)
    assert shown.startswith("    1  line_0") and shown.endswith("(cut: over this file's share "
                                                               "of the prompt)")
    assert len(shown) <= 500 + 60


def test_the_source_section_stays_within_its_budget_and_names_what_it_left_out():
    sources = {f"src/m{i}.py": "x = 1\n" * 5000 for i in range(20)}
    checks = [check(i, file=f"src/m{i}.py") for i in range(20)]
    prompt = V.verify_task(checks, sources)
    source_part = prompt[prompt.index("Source, as it is now"):]
    assert len(source_part) < V.MAX_SOURCE_CHARS + 20 * 80
    assert "=== src/m19.py: (omitted: the prompt's source budget is spent) ===" in prompt
    assert len(claims_in(prompt)) == 20


def test_needles_are_the_quoted_names_and_code_lowercased_without_repeats():
    checks = [check(0, identifiers={"found": ["a_b"], "missing": ["c_d"], "ratio": 0.5},
                    code_spans={"checked": ["Def X_Y()"], "found": []}),
              check(1, identifiers={"found": ["a_b"], "missing": [], "ratio": 1.0},
                    code_spans={"checked": [], "found": []})]
    assert V.needles(checks) == ["a_b", "c_d", "def x_y()"]
