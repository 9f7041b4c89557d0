"""Recall's and the coach's decisions on plain values: scopes, evidence lines, tiers, briefings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic import coach as C
from claimgraph.logic import recall as R
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN, strip_injected


def fact(fid: str, *, scope: str = "p", predicate: str = "core/prefers",
         epistemic: str = "preference",
         subject: str = "api", obj: str = "REST", conflicts: list[str] | None = None) -> dict:
    return {"id": fid, "scope": scope, "predicate": predicate, "epistemic": epistemic,
            "subject": {"id": f"e-{subject}", "name": subject}, "object_kind": "literal",
            "object_lit": obj, "t_valid": 0, "conflicts": conflicts or []}


# --- scopes ------------------------------------------------------------------------------------

def test_a_reader_limited_to_scopes_sees_only_those_scopes():
    facts = [fact("a", scope="p"), fact("b", scope="user"), fact("c", scope="other")]
    assert [f["id"] for f in R.in_scopes(facts, ("p", "user"))] == ["a", "b"]


def test_no_scopes_means_every_scope():
    facts = [fact("a", scope="p"), fact("c", scope="other")]
    assert R.in_scopes(facts, None) == facts


@given(st.lists(st.sampled_from(["p", "user", "q", "r"]), max_size=20),
       st.sets(st.sampled_from(["p", "user", "q", "r"])))
def test_scope_filtering_keeps_order_and_only_allowed_scopes(scopes, allowed):
    facts = [fact(str(i), scope=s) for i, s in enumerate(scopes)]
    kept = R.in_scopes(facts, allowed)
    assert all(f["scope"] in allowed for f in kept)
    assert [f["id"] for f in kept] == [f["id"] for f in facts if f["scope"] in allowed]


# --- recall ------------------------------------------------------------------------------------

def test_recall_asks_the_whole_query_then_its_tokens():
    assert R.recall_queries("why does the billing-api retry") == [
        "why does the billing-api retry", "billing-api", "retry"]


def test_evidence_lines_are_those_naming_a_token_case_insensitively_first_five():
    text = "\n".join([f"line {i} about Redis" for i in range(8)] + ["nothing here"])
    assert R.evidence_lines(text, ["redis"]) == [f"line {i} about Redis" for i in range(5)]


def test_evidence_lines_without_tokens_match_nothing():
    assert R.evidence_lines("anything at all", []) == []


def test_a_long_evidence_line_is_cut_to_one_readable_line():
    [line] = R.evidence_lines("x" * 1000 + " redis", ["redis"])
    assert len(line) == R.EVIDENCE_LINE_CHARS and line.endswith("…")


def test_the_tier_is_the_first_that_answered():
    assert R.choose_tier(facts=2, min_hits=1, episodes=0, evidence=0) == "facts"
    assert R.choose_tier(facts=1, min_hits=3, episodes=2, evidence=0) == "episodes"
    assert R.choose_tier(facts=0, min_hits=1, episodes=0, evidence=1) == "evidence"
    assert R.choose_tier(facts=0, min_hits=1, episodes=0, evidence=0) == "nothing"


def test_too_few_facts_and_nothing_else_still_answers_from_the_facts_found():
    assert R.choose_tier(facts=1, min_hits=3, episodes=0, evidence=0) == "facts"


# --- coach -------------------------------------------------------------------------------------

def test_the_coach_query_is_the_prompts_first_tokens_without_our_own_block():
    prompt = (f"{CONTEXT_OPEN}\n### memory\n- api prefers GraphQL\n{CONTEXT_CLOSE}\n"
              "refactor the billing-api retry loop")
    assert C.coach_query(prompt) == "refactor billing-api retry loop"


def test_a_possessive_in_the_prompt_keeps_its_owner_in_the_coach_query():
    assert C.coach_query("fix the parser's BOM handling") == "fix parser BOM handling"


def test_a_long_prompt_is_cut_to_a_bounded_query():
    words = " ".join(f"word{i}" for i in range(100))
    assert len(C.coach_query(words).split()) == C.MAX_QUERY_TOKENS


def test_standing_puts_commitments_before_preferences_and_keeps_three():
    hits = [fact("p1"), fact("c1", epistemic="commitment", predicate="core/decided-against"),
            fact("o1", epistemic="observation", predicate="core/depends-on"), fact("p2"),
            fact("c2", epistemic="commitment"), fact("p3")]
    assert [f["id"] for f in C.standing(hits)] == ["c1", "c2", "p1"]


def test_standing_is_what_the_block_tells_as_standing():
    note = {**fact("n1", epistemic="commitment"), "source_type": "agent-note",
            "recorded_at": 5, "last_reinforced_at": 5}
    seconded = {**note, "id": "n2", "last_reinforced_at": 9}
    dated = fact("s1", epistemic="commitment", obj="our latest release is v0.2.0")
    rule = fact("r1", epistemic="commitment", obj="tag every release from main")
    # an uncorroborated agent's note and a state of its day are no standing decision
    assert [f["id"] for f in C.standing([note, dated, seconded, rule])] == ["n2", "r1"]


def test_hazards_are_failure_modes_at_most_three():
    hits = [fact(f"h{i}", predicate="core/failure-mode", epistemic="observation")
            for i in range(5)] + [fact("p")]
    assert [f["id"] for f in C.hazards(hits)] == ["h0", "h1", "h2"]


def test_conflicts_touching_a_hit_or_a_matched_entity_are_kept():
    newer, older = fact("n", conflicts=["o"]), fact("o", obj="gRPC")
    elsewhere = {"fact": fact("x", subject="db"), "candidate": fact("y", subject="db")}
    pairs = [{"fact": newer, "candidate": older}, elsewhere]
    assert C.touching(pairs, {"o"}, set()) == [pairs[0]]
    assert C.touching(pairs, set(), {"e-db"}) == [elsewhere]
    assert C.touching(pairs, set(), set()) == []


def test_nothing_relevant_means_no_push_and_no_briefing():
    selection = C.select([fact("o", epistemic="observation",
                               predicate="core/depends-on")], [], set())
    assert selection["push"] is False
    assert C.briefing(selection) == ""


def test_the_briefing_is_marked_so_capture_strips_it_and_names_each_kind():
    hazard = fact("h", predicate="core/failure-mode", epistemic="observation",
                  obj="retry storms when redis is down")
    selection = C.select([fact("c", epistemic="commitment", predicate="core/decided-against",
                               obj="GraphQL"), hazard], [], set())
    text = C.briefing(selection)
    assert text.startswith(CONTEXT_OPEN) and text.endswith(CONTEXT_CLOSE)
    assert 'api decided-against "GraphQL" (seen)' in text  # no source: what was observed
    assert 'api failure-mode "retry storms when redis is down" (seen)' in text
    assert strip_injected(f"before {text} after") == "before  after"


def test_each_pushed_line_names_how_it_was_learned_as_the_session_start_block_does():
    said = {**fact("c", epistemic="commitment", predicate="core/decided-against", obj="GraphQL"),
            "source_type": "user-assertion"}
    noted = {**fact("n", obj="gRPC"), "source_type": "agent-note"}
    hazard = {**fact("h", predicate="core/failure-mode", epistemic="observation",
                     obj="retry storms when redis is down"),
              "source_type": "session-log", "evidence": ["ops/redis.md: `retry storms`"]}
    text = C.briefing({"push": True, "commitments": [said], "hazards": [hazard],
                       "conflicts": [{"fact": said, "candidate": noted}]})
    assert '- api decided-against "GraphQL" (you said)\n' in text
    assert '- api failure-mode "retry storms when redis is down" (ops/redis.md)' in text
    assert ('- api decided-against "GraphQL" (you said) — conflicts with — '
            'api prefers "gRPC" (agent\'s note)') in text
    assert "(commitment)" not in text


def test_what_a_push_logs_is_its_commitments_and_hazards():
    selection = {"commitments": [fact("c")], "hazards": [fact("h")],
                 "conflicts": [{"fact": fact("n"), "candidate": fact("o")}]}
    assert C.surfaced_ids(selection) == ["c", "h"]
