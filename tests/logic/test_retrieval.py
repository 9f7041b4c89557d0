"""Retrieval, purely (REFERENCE §6): filters, fusion, tokens, BFS and the guided walk."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic.retrieval import (
    ANSWER_SHARE, EPISODE_SHARE, NEIGHBOUR_KEEP, NEIGHBOUR_PLACE_HALF, NEIGHBOUR_SHARE,
    NEIGHBOUR_SOURCES, WALK_BEAM, WALK_BUDGET, lender_credit,
    WALK_MAX_DEPTH, Candidates, TieBreak, best_search_hits, by_effective_confidence, lenders,
    bfs_step, fact_filter, shared_ranks,
    fact_valid_at, fuse_retrieval, fuse_search_routes, initial_bfs_state, query_tokens,
    walk_done, walk_score, walk_select, with_effective_confidence,
)
from claimgraph.logic.confidence import effective_confidence
from claimgraph.logic.timeutil import DAY_MS, from_iso

T0 = from_iso("2026-01-01")
NOW = from_iso("2026-07-18")


def entity(eid: str, name: str | None = None) -> dict[str, Any]:
    return {"id": eid, "name": name or eid, "type": None, "scope": "project", "aliases": []}


def make_fact(fid: str, **over: Any) -> dict[str, Any]:
    fact = {
        "id": fid, "subject": entity("e-auth", "AuthService"), "predicate": "core/depends-on",
        "object_kind": "literal", "object_ref": None, "object_lit": fid,
        "t_valid": T0, "t_invalid": None, "recorded_at": T0, "last_reinforced_at": T0,
        "confidence": 0.8, "epistemic": "observation", "scope": "project",
        "source_type": "session-log", "conflicts": [],
    }
    fact.update(over)
    return fact


def edge(fid: str, subject: dict, obj: dict, **over: Any) -> dict[str, Any]:
    return make_fact(fid, subject=subject, object_kind="entity", object_ref=obj,
                     object_lit=None, **over)


def book_fact(fid: str, reinforced: str) -> dict[str, Any]:
    """The seed book's §10.2 helper, field for field."""
    at = from_iso(reinforced)
    return {"id": fid, "object_lit": fid, "epistemic": "observation",
            "source_type": "session-log", "confidence": 0.9, "recorded_at": at,
            "last_reinforced_at": at, "t_valid": from_iso("2026-01-01"), "t_invalid": None}


BOOK_A, BOOK_B = book_fact("a", "2026-07-01"), book_fact("b", "2026-07-01")
BOOK_C = book_fact("c", "2025-10-01")
BOOK_ROUTES = [{"weight": 1.0, "facts": [BOOK_A, BOOK_C, BOOK_B]},
               {"weight": 1.2, "facts": [BOOK_B, BOOK_A]}]


# --- temporal filters ---------------------------------------------------------------------

def test_a_fact_is_valid_from_its_start_up_to_but_not_at_its_end():
    fact = make_fact("f", t_valid=100, t_invalid=200)
    assert [fact_valid_at(fact, at) for at in (99, 100, 199, 200)] == [False, True, True, False]


def test_a_fact_without_a_start_is_never_valid_and_an_open_one_never_ends():
    assert not fact_valid_at(make_fact("f", t_valid=None), NOW)
    assert fact_valid_at(make_fact("f", t_valid=0), 10 ** 15)


def test_as_of_time_travel_sees_the_version_that_held_then():
    heroku = make_fact("heroku", t_valid=T0, t_invalid=T0 + 30 * DAY_MS)
    fly = make_fact("fly", t_valid=T0 + 30 * DAY_MS)
    then, later = fact_filter(at=T0 + DAY_MS), fact_filter(at=T0 + 60 * DAY_MS)
    assert [f["id"] for f in (heroku, fly) if then(f)] == ["heroku"]
    assert [f["id"] for f in (heroku, fly) if later(f)] == ["fly"]


def test_include_invalidated_keeps_closed_facts():
    closed = make_fact("f", t_invalid=T0 + 1)
    assert not fact_filter(at=NOW)(closed)
    assert fact_filter(at=NOW, include_invalidated=True)(closed)


def test_include_invalidated_never_keeps_a_fact_that_began_after_the_instant():
    later = make_fact("later", t_valid=T0 + 300 * DAY_MS)
    ended = make_fact("ended", t_valid=T0, t_invalid=T0 + DAY_MS)
    as_of = fact_filter(at=T0 + 10 * DAY_MS, include_invalidated=True)
    assert [f["id"] for f in (later, ended) if as_of(f)] == ["ended"]


def test_min_confidence_compares_the_decayed_value_at_the_as_of_instant():
    fact = make_fact("f", confidence=0.8)
    assert fact_filter(at=T0, min_confidence=0.5)(fact)
    assert not fact_filter(at=T0 + 90 * DAY_MS, min_confidence=0.5)(fact)
    assert fact_filter(at=T0 + 90 * DAY_MS, min_confidence=0.4)(fact)


def test_scope_and_predicate_filters_match_exactly():
    fact = make_fact("f", scope="user", predicate="core/prefers")
    assert fact_filter(at=NOW, scope="user", predicate="core/prefers")(fact)
    assert not fact_filter(at=NOW, scope="project")(fact)
    assert not fact_filter(at=NOW, predicate="prefers")(fact)


def test_effective_confidence_annotation_is_a_copy():
    fact = make_fact("f", confidence=0.8)
    annotated = with_effective_confidence(fact, T0 + 90 * DAY_MS)
    assert annotated["effective_confidence"] == pytest.approx(0.4)
    assert "effective_confidence" not in fact


def test_route_ordering_is_liveliest_first_then_id_with_repeats_dropped():
    stale = make_fact("a", recorded_at=T0 - 400 * DAY_MS, last_reinforced_at=None)
    ordered = by_effective_confidence(
        [stale, make_fact("c"), make_fact("b"), make_fact("c")], T0)
    assert [f["id"] for f in ordered] == ["b", "c", "a"]


# --- fusion -------------------------------------------------------------------------------

def test_the_book_fusion_example_reproduces_to_the_printed_digits():
    fused = fuse_retrieval(BOOK_ROUTES, from_iso("2026-07-18"))
    assert [f["id"] for f in fused] == ["a", "b", "c"]
    expected = [0.028225162771408463, 0.02806477746590736, 0.0015554830334027529]
    for fact, score in zip(fused, expected):
        assert abs(fact["retrieval_score"] - score) < 1e-12


def test_the_book_fusion_matches_the_reference_table():
    by_id = {f["id"]: f for f in fuse_retrieval(BOOK_ROUTES, NOW)}
    rrf = {"a": 1 / 61 + 1.2 / 62, "b": 1 / 63 + 1.2 / 61, "c": 1 / 62}
    assert rrf["a"] == pytest.approx(0.0357483, abs=1e-7)
    assert rrf["b"] == pytest.approx(0.0355451, abs=1e-7)
    assert rrf["c"] == pytest.approx(0.0161290, abs=1e-7)
    assert by_id["a"]["effective_confidence"] == pytest.approx(0.78955, abs=1e-5)
    assert by_id["b"]["effective_confidence"] == pytest.approx(0.78955, abs=1e-5)
    assert by_id["c"]["effective_confidence"] == pytest.approx(0.09644, abs=1e-5)
    for fid, fact in by_id.items():
        assert fact["retrieval_score"] == pytest.approx(rrf[fid] * fact["effective_confidence"])


def test_an_invalidated_fact_never_surfaces_even_at_the_top_of_every_route():
    dead = make_fact("dead", t_invalid=NOW)
    fused = fuse_retrieval([{"facts": [dead, make_fact("alive")]}, {"facts": [dead]}], NOW)
    assert [f["id"] for f in fused] == ["alive"]


def test_a_fact_not_yet_valid_does_not_surface():
    assert fuse_retrieval([{"facts": [make_fact("future", t_valid=NOW + 1)]}], NOW) == []


def test_an_invalid_fact_still_holds_its_rank_in_the_route():
    dead = make_fact("dead", t_invalid=T0 + 1)
    fused = fuse_retrieval([{"facts": [dead, make_fact("x")]}], T0 + 2)
    assert fused[0]["retrieval_score"] == pytest.approx(0.8 / 62)


def test_a_fact_repeated_within_a_route_counts_at_its_first_rank_only():
    fact = make_fact("f", epistemic="commitment")
    fused = fuse_retrieval([{"weight": 2.0, "facts": [fact, make_fact("g"), fact]}], NOW)
    assert fused[0]["id"] == "f"
    assert fused[0]["retrieval_score"] == pytest.approx(2.0 / 61 * 0.8)


def test_a_missing_or_null_weight_means_one():
    fact = make_fact("f", epistemic="commitment")
    for route in ({"facts": [fact]}, {"weight": None, "facts": [fact]}):
        assert fuse_retrieval([route], NOW)[0]["retrieval_score"] == pytest.approx(0.8 / 61)


def test_equal_scores_fall_to_the_text_not_to_the_order_given_nor_to_the_ids():
    texts = [f"said {n}" for n in range(8)]
    def fused(order, prefix):
        facts = [make_fact(f"{prefix}{n}", object_lit=texts[n], epistemic="commitment")
                 for n in order]
        return [f["object_lit"] for f in fuse_retrieval([{"facts": [f]} for f in facts], NOW)]
    forward = fused(range(8), "a")
    assert fused(reversed(range(8)), "z") == forward
    assert fused([3, 1, 7, 0, 2, 6, 4, 5], "m") == forward
    assert forward != texts and forward != texts[::-1]  # a hash, neither the order nor A-Z


def test_equal_scores_go_to_the_newer_valid_time_first_and_ids_only_between_equal_texts():
    old, new = (make_fact(fid, object_lit="same", t_valid=t, epistemic="commitment")
                for fid, t in (("a", T0), ("b", T0 + 1)))
    assert [f["id"] for f in fuse_retrieval([{"facts": [old]}, {"facts": [new]}], NOW)] == [
        "b", "a"]
    twins = [make_fact(fid, object_lit="same", epistemic="commitment") for fid in ("z", "a")]
    assert [f["id"] for f in fuse_retrieval([{"facts": [t]} for t in twins], NOW)] == ["a", "z"]


def test_a_tie_among_heads_reads_their_texts_only_at_the_cut():
    heads = [{k: v for k, v in make_fact(f"h{n}", epistemic="commitment").items()
              if k != "predicate"} for n in range(6)]
    asked: list[list[str]] = []
    def texts(ids):
        asked.append(sorted(ids))
        return {i: f"text of {i}" for i in ids}
    order = TieBreak(texts=texts)
    scored = [(1.0, 1.0, heads[0]), *((0.5, 1.0, h) for h in heads[1:])]
    best = [e[2]["id"] for e in order.best(scored, 3)]
    assert best[0] == "h0" and asked == [["h1", "h2", "h3", "h4", "h5"]]
    again = TieBreak(texts=lambda ids: {i: f"text of {i}" for i in ids})
    assert [e[2]["id"] for e in again.best(scored[::-1], 3)] == best


@given(st.lists(st.tuples(st.sampled_from([0.2, 0.5, 0.9]), st.sampled_from([0, 1, 2]),
                          st.sampled_from(["a", "b"])), max_size=30),
       st.integers(min_value=1, max_value=12))
def test_the_best_few_are_the_first_of_the_whole_order_however_the_cut_falls(rows, limit):
    """``best`` with a limit cuts the order ``best`` gives without one: ties across the cut
    (equal score, relevance and valid time) are settled by their texts as in the whole
    order, whatever order the candidates came in."""
    facts = [{**make_fact(f"f{n}"), "t_valid": day * DAY_MS, "object_lit": text}
             for n, (_, day, text) in enumerate(rows)]
    scored = [(score, 1.0, fact) for (score, _, _), fact in zip(rows, facts)]
    whole = [e[2]["id"] for e in TieBreak().best(scored, None)]
    assert [e[2]["id"] for e in TieBreak().best(scored, limit)] == whole[:limit]
    assert [e[2]["id"] for e in TieBreak().best(scored[::-1], limit)] == whole[:limit]


def test_shared_ranks_give_a_run_of_equals_their_mean_place():
    assert shared_ranks(["a", "b", "b", "c", "c", "c"]) == [0, 1.5, 1.5, 4, 4, 4]
    assert shared_ranks([1, 1], start=3) == [3.5, 3.5] and shared_ranks([]) == []


def test_fusion_annotates_copies_and_leaves_its_input_alone():
    fuse_retrieval(BOOK_ROUTES, NOW)
    assert "retrieval_score" not in BOOK_A and "effective_confidence" not in BOOK_A


def test_search_routes_weigh_text_one_entity_one_point_two_and_hop_point_three():
    f = make_fact("f", epistemic="commitment")
    scores = [fuse_search_routes(*routes, NOW)[0]["retrieval_score"]
              for routes in (([f], [], []), ([], [f], []), ([], [], [f]))]
    assert scores == pytest.approx([1.0 / 61 * 0.8, 1.2 / 61 * 0.8, 0.3 / 61 * 0.8])


def test_search_ranks_the_entity_route_by_effective_confidence_not_store_order():
    weak, strong = make_fact("weak", confidence=0.3), make_fact("strong", confidence=0.9)
    fused = fuse_search_routes([], [weak, strong], [], T0)
    assert fused[0]["retrieval_score"] == pytest.approx(1.2 / 61 * 0.9)


fact_ids = st.sampled_from(["a", "b", "c", "d", "e", "f"])
days = st.integers(min_value=-400, max_value=400)


@st.composite
def fact_pool(draw: st.DrawFn) -> dict[str, dict[str, Any]]:
    """One version of each id: random validity, confidence and age around NOW."""
    pool = {}
    for fid in draw(st.sets(fact_ids, min_size=1)):
        start = NOW + draw(days) * DAY_MS
        length = draw(st.one_of(st.none(), st.integers(1, 500)))
        end = None if length is None else start + length * DAY_MS
        pool[fid] = make_fact(fid, t_valid=start, t_invalid=end, recorded_at=start,
                              last_reinforced_at=start, confidence=draw(st.floats(0.05, 1.0)))
    return pool


@st.composite
def routes_over_pool(draw: st.DrawFn) -> list[dict[str, Any]]:
    pool = draw(fact_pool())
    ids = st.lists(st.sampled_from(sorted(pool)), max_size=8)
    weights = st.sampled_from([None, 0.3, 1.0, 1.2])
    return [{"weight": draw(weights), "facts": [pool[i] for i in draw(ids)]}
            for _ in range(draw(st.integers(0, 4)))]


@given(routes_over_pool())
def test_fusion_never_surfaces_a_fact_invalid_at_now(routes):
    assert all(fact_valid_at(f, NOW) for f in fuse_retrieval(routes, NOW))


@given(routes_over_pool())
def test_fusion_is_deterministic_and_sorted_by_score(routes):
    first, second = fuse_retrieval(routes, NOW), fuse_retrieval(routes, NOW)
    assert first == second
    scores = [f["retrieval_score"] for f in first]
    assert scores == sorted(scores, reverse=True)


@given(routes_over_pool(), st.randoms(use_true_random=False))
def test_permuting_routes_of_equal_weight_keeps_every_score(routes, rng):
    same_weight = [{"weight": 1.0, "facts": r["facts"]} for r in routes]
    shuffled = list(same_weight)
    rng.shuffle(shuffled)
    before = {f["id"]: f["retrieval_score"] for f in fuse_retrieval(same_weight, NOW)}
    after = {f["id"]: f["retrieval_score"] for f in fuse_retrieval(shuffled, NOW)}
    assert before.keys() == after.keys()
    assert all(math.isclose(before[i], after[i], rel_tol=1e-12) for i in before)


# --- query tokens -------------------------------------------------------------------------

def test_query_tokens_drop_stopwords_in_any_case():
    assert query_tokens("Why did THE auth service use Redis") == ["auth", "service", "Redis"]


def test_query_tokens_drop_fragments_shorter_than_three_characters():
    assert query_tokens("go db api x") == ["api"]


def test_a_possessive_token_is_its_owners_name():
    assert query_tokens("What is Priya's workshop like? Tomas\u2019s bike") == [
        "Priya", "workshop", "like", "Tomas", "bike"]
    assert query_tokens("'s it's") == []


def test_query_tokens_trim_only_the_edges_so_dotted_and_hyphenated_names_survive():
    tokens = query_tokens('("shoply.api", kuzu-db?) --verbose')
    assert tokens == ["shoply.api", "kuzu-db", "verbose"]


def test_query_tokens_deduplicate_keeping_first_occurrence():
    assert query_tokens("redis cache redis, cache!") == ["redis", "cache"]


def test_query_tokens_of_nothing_are_empty():
    assert query_tokens("") == [] and query_tokens(None) == [] and query_tokens("... -- ??") == []


# --- BFS ----------------------------------------------------------------------------------

ROOT, DB, CACHE = entity("e-root", "api"), entity("e-db", "postgres"), entity("e-cache", "redis")


def test_bfs_starts_at_the_root_with_depth_zero():
    state = initial_bfs_state(ROOT)
    assert state["nodes"] == {"e-root": {**ROOT, "depth": 0}}
    assert state["edges"] == {} and state["frontier"] == {"e-root"}


def test_bfs_step_gives_new_neighbours_the_next_depth_in_both_directions():
    facts = [edge("f1", ROOT, DB), edge("f2", CACHE, ROOT)]
    state = bfs_step(initial_bfs_state(ROOT), facts, lambda f: True, 1)
    assert state["frontier"] == {"e-db", "e-cache"}
    depths = {i: n["depth"] for i, n in state["nodes"].items()}
    assert depths == {"e-root": 0, "e-db": 1, "e-cache": 1}
    assert set(state["edges"]) == {"f1", "f2"}


def test_bfs_treats_literal_objects_as_terminal():
    state = bfs_step(initial_bfs_state(ROOT), [make_fact("f", subject=ROOT)], lambda f: True, 1)
    assert state["frontier"] == set() and set(state["nodes"]) == {"e-root"}
    assert set(state["edges"]) == {"f"}


def test_bfs_never_revisits_a_node_or_refolds_an_edge():
    one = bfs_step(initial_bfs_state(ROOT), [edge("f1", ROOT, DB)], lambda f: True, 1)
    two = bfs_step(one, [edge("f1", ROOT, DB), edge("f2", DB, ROOT), edge("f3", DB, CACHE)],
                   lambda f: True, 2)
    assert two["frontier"] == {"e-cache"}
    assert two["nodes"]["e-root"]["depth"] == 0 and two["nodes"]["e-db"]["depth"] == 1
    assert two["nodes"]["e-cache"]["depth"] == 2 and set(two["edges"]) == {"f1", "f2", "f3"}


def test_bfs_skips_facts_the_keep_predicate_rejects_and_leaves_the_old_state_alone():
    start = initial_bfs_state(ROOT)
    state = bfs_step(start, [edge("f1", ROOT, DB, t_invalid=T0 + 1)], fact_filter(at=NOW), 1)
    assert state["edges"] == {} and state["frontier"] == set()
    bfs_step(start, [edge("f1", ROOT, DB)], lambda f: True, 1)
    assert start == initial_bfs_state(ROOT)


# --- guided walk --------------------------------------------------------------------------

def test_walk_score_is_one_plus_token_overlap_times_effective_confidence():
    fact = edge("f", ROOT, DB, predicate="core/depends-on", confidence=0.8)
    assert walk_score(fact, [], T0) == pytest.approx(0.8)
    assert walk_score(fact, ["postgres", "depends-on", "kafka"], T0) == pytest.approx(2.4)


def test_walk_score_reads_the_bare_predicate_name_and_compares_case_insensitively():
    fact = make_fact("f", predicate="core/prefers", object_lit="Tabs", confidence=0.5)
    assert walk_score(fact, ["core", "TABS", "AuthService"], T0) == pytest.approx(1.5)


def test_walk_score_decays_with_disuse():
    fact = make_fact("f", confidence=0.8)
    assert walk_score(fact, ["f"], T0 + 90 * DAY_MS) == pytest.approx(0.8)


def test_the_walk_decays_with_the_half_life_it_is_given():
    """The guided walk ranks with the configured half-life (``neighbor --query``), as every
    other reader: an old strong fact leads under a long one, a recent weaker one under a
    short one."""
    fact = make_fact("f", confidence=0.8)
    assert walk_score(fact, ["f"], T0 + 90 * DAY_MS, 30.0) == pytest.approx(0.2)
    old = make_fact("old", confidence=0.9)
    recent = make_fact("recent", confidence=0.5, recorded_at=T0 + 60 * DAY_MS,
                       last_reinforced_at=T0 + 60 * DAY_MS)
    at = T0 + 90 * DAY_MS
    assert [f["id"] for f in walk_select([old, recent], [], [], at, 1, 365.0)] == ["old"]
    assert [f["id"] for f in walk_select([old, recent], [], [], at, 1, 10.0)] == ["recent"]


def test_walk_select_keeps_the_top_beam_with_ties_broken_by_id():
    candidates = [make_fact(fid, confidence=0.5) for fid in ("d", "b", "c")] + [
        make_fact("a", confidence=0.9)]
    chosen = walk_select(candidates, [], [], T0, beam=3)
    assert [f["id"] for f in chosen] == ["a", "b", "c"]
    assert chosen[0]["walk_score"] == pytest.approx(0.9)


def test_walk_select_skips_collected_invalid_and_repeated_candidates():
    candidates = [make_fact("done"), make_fact("dead", t_invalid=T0 + 1), make_fact("x"),
                  make_fact("x")]
    assert [f["id"] for f in walk_select(candidates, {"done"}, [], T0 + 2)] == ["x"]


def test_walk_stops_on_an_empty_frontier_a_met_budget_or_max_depth():
    assert (WALK_BUDGET, WALK_BEAM, WALK_MAX_DEPTH) == (25, 8, 6)
    assert not walk_done({"e"}, 24, 5)
    assert walk_done(set(), 0, 0) and walk_done({"e"}, 25, 0) and walk_done({"e"}, 0, 6)


# --- ranking by words (docs/search.md) ------------------------------------------------------
from claimgraph.logic.retrieval import (  # noqa: E402
    SPECIFIC_FACTS, by_coordination, current_first, specificity, top_search_hits)


def test_an_entity_with_many_facts_is_weaker_evidence_for_each():
    assert specificity(1) == specificity(SPECIFIC_FACTS) == 1.0
    assert specificity(4 * SPECIFIC_FACTS) == 0.5
    assert specificity(300) < specificity(40) < 1.0


def test_a_popular_entitys_facts_rank_by_their_words_not_by_their_id():
    """The issue's case: a question names a speaker with hundreds of facts; the one whose
    words match must come first, whatever the ids."""
    turns = [make_fact(f"f-{n:03d}") for n in range(300)]
    answer = turns[250]
    hits, _ = top_search_hits([], turns, [], NOW, limit=10, word_facts=[answer, turns[7]])
    assert [h["id"] for h in hits[:2]] == ["f-250", "f-007"]


def test_a_specific_entity_outweighs_a_popular_one():
    popular = [make_fact(f"p-{n:03d}") for n in range(200)]
    specific = [make_fact("s-1")]
    hits, _ = top_search_hits([], [], [], NOW, limit=3, entity_groups=[popular, specific])
    assert hits[0]["id"] == "s-1"


def test_equal_scores_go_to_the_more_relevant_text_never_to_the_id():
    a, b = make_fact("a"), make_fact("b")
    hits, _ = top_search_hits([], [], [], NOW, word_facts=[b, a], entity_groups=[[a], [b]])
    assert [h["id"] for h in hits] == ["b", "a"]


def test_trigram_hits_rank_by_how_many_of_the_querys_pieces_hit_them():
    one, three, two = make_fact("one"), make_fact("three"), make_fact("two")
    ordered = by_coordination([one, three, two], {"one": 1, "three": 3, "two": 2}, {})
    assert [f["id"] for f in ordered] == ["three", "two", "one"]
    assert [f["id"] for f in by_coordination([one, two], None, {})] == ["one", "two"]


def _version(fid: str, day: int, **over: Any) -> dict[str, Any]:
    ranked = {"retrieval_score": 0.1, "effective_confidence": 0.8, **over}
    return make_fact(fid, predicate="core/has-version", t_valid=T0 + day * DAY_MS,
                     recorded_at=T0 + day * DAY_MS, **ranked)


def test_the_newer_of_two_live_values_comes_first_and_takes_the_first_place():
    old, new, other = _version("old", 1), _version("new", 9), make_fact("other")
    out = current_first([other, old, make_fact("x"), new], [], {"core/has-version"})
    assert [f["id"] for f in out] == ["other", "new", "old", "x"]


def test_a_newer_value_not_found_is_brought_in_above_the_older_and_the_length_kept():
    old = _version("old", 1)
    new = {k: v for k, v in _version("new", 9).items() if k != "retrieval_score"}
    out = current_first([old, make_fact("x")], [new, old], {"core/has-version"})
    assert [f["id"] for f in out] == ["new", "old"]
    assert out[0]["retrieval_score"] == 0.1


def test_a_first_page_lists_an_older_value_found_after_it_as_the_whole_ranking_does():
    """The first k of a ranking, with the whole ranking given (``found``): the older value
    ranked after the cut still follows the newer, with its own score, as in the whole."""
    new, old = _version("new", 9), _version("old", 1, retrieval_score=0.01)
    whole = [make_fact("x"), new, make_fact("y"), make_fact("z"), old]
    full = current_first(whole, [new, old], {"core/has-version"})
    bare_old = {k: v for k, v in old.items() if k not in ("retrieval_score",
                                                          "effective_confidence")}
    first = current_first(whole[:3], [new, bare_old], {"core/has-version"},
                          found={f["id"]: f for f in whole})
    assert [f["id"] for f in full] == ["x", "new", "old", "y", "z"]
    assert first == full[:3]
    assert first[2]["retrieval_score"] == 0.01
    # Without the whole ranking only the values shown are listed (the older is not found).
    assert [f["id"] for f in current_first(whole[:3], [new, bare_old],
                                           {"core/has-version"})] == ["x", "new", "y"]


def test_many_valued_predicates_and_other_subjects_keep_their_order():
    a = _version("a", 9, subject=entity("e-x"))
    b = _version("b", 1)
    c, d = make_fact("c", t_valid=T0 + 9 * DAY_MS), make_fact("d")
    assert [f["id"] for f in current_first([b, a, d, c], [], {"core/has-version"})] == [
        "b", "a", "d", "c"]


# --- the episode neighbourhood ----------------------------------------------------------------
def candidates(*scored: tuple[str, float]) -> Candidates:
    """Candidates scored as given (confidence 1), first seen in the order given."""
    return Candidates([(score, 1.0, make_fact(fid)) for fid, score in scored],
                      TieBreak(), NOW, 30.0)


def hit_ids(found: Candidates, rows=(), limit=None) -> list[str]:
    return [f["id"] for f in best_search_hits(found, limit, rows)[0]]


#: Hits that keep their places whatever is lent (``NEIGHBOUR_KEEP`` of them).
KEPT = [(f"top{n}", 10.0 - n) for n in range(NEIGHBOUR_KEEP)]
TOP = [fid for fid, _ in KEPT]


def test_a_hits_neighbour_joins_on_a_share_of_its_score():
    found = candidates(*KEPT, ("asked", 1.0), ("other", 0.5))
    out, total = best_search_hits(found, None, [("asked", 1, make_fact("answer"), False)])
    assert [f["id"] for f in out] == [*TOP, "asked", "other", "answer"] and total == 8
    conf = effective_confidence(make_fact("answer"), NOW, 30.0)
    # "asked" is the sixth lender (place NEIGHBOUR_KEEP): it lends its place's credit
    assert out[-1]["retrieval_score"] == pytest.approx(
        NEIGHBOUR_SHARE * 1.0 * conf * lender_credit(NEIGHBOUR_KEEP))
    assert out[NEIGHBOUR_KEEP]["retrieval_score"] == 1.0


def test_without_neighbours_the_order_is_the_fusions():
    found = candidates(("b", 1.0), ("a", 2.0), ("c", 1.0))
    assert hit_ids(found) == ["a", "b", "c"] and hit_ids(found, limit=2) == ["a", "b"]


def test_a_fact_between_two_hits_adds_both_shares_and_can_pass_a_lone_hit():
    found = candidates(*KEPT, ("a", 1.0), ("b", 1.0), ("lone", 0.01), ("mid", 0.0))
    mid = found.scored[-1][2]
    rows = [("a", 1, mid, False), ("b", -1, mid, False)]
    assert hit_ids(found, rows) == [*TOP, "a", "b", "mid", "lone"]


def test_the_first_hits_keep_their_places_whatever_their_neighbours_lend():
    """Context ranks the facts after the first few: a direct match there is never moved,
    though a fact lent to by all of them passes every hit after them."""
    found = candidates(*KEPT, ("sixth", 0.5), ("weak", 0.001))
    weak, last = found.scored[-1][2], found.scored[NEIGHBOUR_KEEP - 1][2]
    rows = [(fid, 1, weak, False) for fid in TOP] + [(fid, 1, last, False) for fid in TOP
                                                     if fid != last["id"]]
    assert hit_ids(found, rows) == [*TOP, "weak", "sixth"]  # the last kept borrowed past the first
    assert hit_ids(found, rows, limit=2) == TOP[:2]


def test_a_closed_neighbour_never_joins_and_only_the_first_hits_lend():
    found = candidates(*[(f"h{n}", 1.0 / (n + 1)) for n in range(NEIGHBOUR_SOURCES + 1)])
    assert lenders(found) == [f"h{n}" for n in range(NEIGHBOUR_SOURCES)]
    rows = [("h0", 1, make_fact("closed", t_invalid=NOW - DAY_MS), False),
            (f"h{NEIGHBOUR_SOURCES}", 1, make_fact("late"), False)]
    out, total = best_search_hits(found, None, rows)
    assert [f["id"] for f in out] == [f"h{n}" for n in range(NEIGHBOUR_SOURCES + 1)]
    assert total == NEIGHBOUR_SOURCES + 1


def test_equal_borrowed_scores_keep_the_order_they_were_lent_in_and_limit_cuts():
    found = candidates(*KEPT, ("a", 1.0), ("b", 1.0))
    rows = [("b", 1, make_fact("after-b"), False), ("a", 2, make_fact("after-a-2"), False),
            ("a", -1, make_fact("before-a"), False)]
    assert hit_ids(found, rows) == [*TOP, "a", "b", "before-a", "after-a-2", "after-b"]
    cut, total = best_search_hits(found, NEIGHBOUR_KEEP + 3, rows)
    assert [f["id"] for f in cut] == [*TOP, "a", "b", "before-a"] and total == len(KEPT) + 5


def test_a_hit_that_asks_lends_its_answer_more_than_its_score():
    """A question's words are on the turn that asked; the answer is the next turn, in words of
    its own: it borrows ``ANSWER_SHARE`` of the asking hit's score (not ``NEIGHBOUR_SHARE``),
    enough to pass a hit the ordinary share would leave it below."""
    conf = effective_confidence(make_fact("answer"), NOW, 30.0)
    middling = 2 * NEIGHBOUR_SHARE * conf
    def ranked(asks: bool) -> list[dict[str, Any]]:
        found = candidates(*KEPT, ("asked", 1.0), ("other", middling))
        return best_search_hits(found, None, [("asked", 1, make_fact("answer"), asks)])[0]
    asked = ranked(True)
    assert [f["id"] for f in asked][-1] == "other"
    assert {f["id"]: f["retrieval_score"] for f in asked}["answer"] == pytest.approx(
        ANSWER_SHARE * conf * lender_credit(NEIGHBOUR_KEEP))
    assert [f["id"] for f in ranked(False)] == [*TOP, "asked", "other", "answer"]


def test_a_fact_after_a_hit_that_follows_a_question_is_an_answer_one_before_it_is_not():
    """A fact after the hit that follows a question (the hit's own, or one asked about the
    hit: hit, question, answer) borrows ``ANSWER_SHARE``; one before the hit, or after it
    following no question, the ordinary share; the first hits keep their places."""
    found = candidates(*KEPT, ("hit", 1.0), ("said", 0.9), ("other", 0.5))
    rows = [("hit", -1, make_fact("before"), True), ("hit", 2, make_fact("follow-up"), True),
            ("hit", 1, make_fact("asking"), False), ("said", 1, make_fact("after-said"), False),
            ("top0", 1, make_fact("after-top"), True)]
    out, _ = best_search_hits(found, None, rows)
    assert [f["id"] for f in out][:NEIGHBOUR_KEEP] == TOP
    scores = {f["id"]: f["retrieval_score"] for f in out}
    conf = effective_confidence(make_fact("x"), NOW, 30.0)
    assert scores["after-top"] == pytest.approx(ANSWER_SHARE * 10.0 * conf)
    hit, said = lender_credit(NEIGHBOUR_KEEP), lender_credit(NEIGHBOUR_KEEP + 1)  # places
    assert scores["follow-up"] == pytest.approx(ANSWER_SHARE * 1.0 * conf * hit)
    assert scores["before"] == pytest.approx(NEIGHBOUR_SHARE * 1.0 * conf * hit)
    assert scores["asking"] == pytest.approx(NEIGHBOUR_SHARE * 1.0 * conf * hit)
    assert scores["after-said"] == pytest.approx(NEIGHBOUR_SHARE * 0.9 * conf * said)


def test_a_lenders_credit_falls_with_its_place_half_at_the_constant():
    assert lender_credit(0) == 1.0 and lender_credit(NEIGHBOUR_PLACE_HALF) == 0.5
    credits = [lender_credit(n) for n in range(NEIGHBOUR_SOURCES)]
    assert all(a > b > 0 for a, b in zip(credits, credits[1:]))


def test_a_first_hits_neighbour_passes_a_later_hits_though_their_scores_are_nearly_equal():
    """Fused scores are flat: the first hit's context is better evidence than the
    thirtieth's, whose score is nearly the same, so its neighbour borrows more."""
    late = NEIGHBOUR_SOURCES - 1
    found = candidates(*[(f"h{n}", 1.0 - n / 1000) for n in range(NEIGHBOUR_SOURCES)])
    rows = [(f"h{late}", 1, make_fact("after-late"), False), ("h0", 1, make_fact("after-first"),
                                                                   False)]
    out, _ = best_search_hits(found, None, rows)
    scores = {f["id"]: f["retrieval_score"] for f in out}
    assert scores["after-first"] > scores["after-late"]
    conf = effective_confidence(make_fact("x"), NOW, 30.0)
    assert scores["after-late"] == pytest.approx(
        NEIGHBOUR_SHARE * found.scored[late][0] * conf * lender_credit(late))


def test_an_answer_takes_a_first_place_right_after_its_question_never_before_it():
    """The first places keep direct matches, except that a question's answer may follow its
    question there: counted up to just under the question's score, it never passes it, so
    the first hit stays the best direct match; the limit cuts the same order."""
    found = candidates(("q", 10.0), ("b", 9.0), ("c", 8.0), ("d", 7.0), ("e", 6.0),
                       ("ans", 0.1))
    answer = found.scored[-1][2]
    assert hit_ids(found, [("q", 1, answer, True)]) == ["q", "ans", "b", "c", "d", "e"]
    assert hit_ids(found, [("q", 1, answer, True)], limit=2) == ["q", "ans"]
    out, _ = best_search_hits(found, None, [("q", 1, answer, True)])
    assert 9.0 < out[1]["retrieval_score"] < 10.0
    assert hit_ids(found, [("q", 1, answer, False)]) == ["q", "b", "c", "d", "e", "ans"]
    # an answer asked by a hit after the first places stays after them; so does the answer
    # to a question asked about a hit (two places on), which borrows as much
    assert hit_ids(found, [("e", 1, answer, True)]) == ["q", "b", "c", "d", "e", "ans"]
    assert hit_ids(found, [("q", 2, answer, True)]) == ["q", "b", "c", "d", "e", "ans"]


def test_the_candidates_of_a_lenders_episode_borrow_from_it_however_far_away():
    """The episode where the hits gather is the likelier place of the answer: a candidate of
    it, far from every hit (no neighbour rows), climbs over a lone match of another episode;
    it borrows ``EPISODE_SHARE`` of each of the episode's lenders' scores, times their place
    credit, never its own share; without ``episodes`` nothing is lent."""
    found = candidates(*KEPT, ("a", 1.0), ("b", 0.9), ("lone", 0.3), ("far", 0.2))
    episodes = {"a": "ep-1", "b": "ep-1", "far": "ep-1", "top0": "ep-2"}
    assert hit_ids(found) == [*TOP, "a", "b", "lone", "far"]
    out, total = best_search_hits(found, None, (), episodes)
    assert [f["id"] for f in out] == [*TOP, "a", "b", "far", "lone"] and total == 9
    expected = 0.2 + EPISODE_SHARE * (1.0 * lender_credit(NEIGHBOUR_KEEP)
                                      + 0.9 * lender_credit(NEIGHBOUR_KEEP + 1))
    assert out[NEIGHBOUR_KEEP + 2]["retrieval_score"] == pytest.approx(expected)
    # a lender borrows from the others of its episode ("far" is a lender too), not itself
    assert out[NEIGHBOUR_KEEP]["retrieval_score"] == pytest.approx(
        1.0 + EPISODE_SHARE * (0.9 * lender_credit(NEIGHBOUR_KEEP + 1)
                               + 0.2 * lender_credit(NEIGHBOUR_KEEP + 3)))
    alone, _ = best_search_hits(candidates(("x", 1.0), ("y", 0.5)), None, (), {"y": "ep-1"})
    assert [(f["id"], f["retrieval_score"]) for f in alone] == [("x", 1.0), ("y", 0.5)]


def test_valid_facts_keeps_what_fact_valid_at_keeps_in_order():
    """``valid_facts`` spells ``fact_valid_at``'s test inline (it runs over an entity's
    thousands of facts): the same facts, in the same order, at instants before, at and after
    the ends; forgotten facts out whatever their times."""
    from claimgraph.logic.retrieval import valid_facts
    facts = [{"id": f"f{n}", "t_valid": t_valid, "t_invalid": t_invalid,
              "invalidation_kind": kind}
             for n, (t_valid, t_invalid, kind) in enumerate(
                 (t_valid, t_invalid, kind) for t_valid in (None, 0, 10, 20)
                 for t_invalid in (None, 10, 15, 30) for kind in (None, "superseded",
                                                                   "forgotten"))]
    for at in (-1, 0, 9, 10, 14, 15, 20, 29, 30, 31):
        assert valid_facts(facts, at) == [f for f in facts if fact_valid_at(f, at)]
    assert valid_facts([{"id": "x", "t_valid": 1}], 2) == [{"id": "x", "t_valid": 1}]


def test_a_closed_fact_takes_no_place_and_no_weight_in_the_search_routes():
    """Closed facts (ended, forgotten) in a route are left out before it is ranked: the
    current facts score as if they were not there, in the entity route (its order and its
    specificity), the hop and the trigram route; so another entity's fact cannot overtake
    them on the closed ones' account."""
    current = [make_fact(f"c-{n}", t_valid=T0 + n) for n in range(4)]
    closed = [make_fact(f"x-{n}", t_valid=T0 + 100 + n, t_invalid=NOW - 1, confidence=0.99)
              for n in range(12)]
    forgotten = [make_fact("gone", t_valid=T0 + 200, t_invalid=NOW + 10,
                           invalidation_kind="forgotten", confidence=0.99)]
    other = [make_fact("o-1", t_valid=T0 + 1)]
    routes = {"fts_facts": [*closed[:3], *current[:2]], "hop_facts": [*closed[3:], other[0]]}
    with_closed, _ = top_search_hits(routes["fts_facts"], [], routes["hop_facts"], NOW,
                                     entity_groups=[[*closed, *forgotten, *current], other])
    without, _ = top_search_hits(current[:2], [], other, NOW,
                                 entity_groups=[current, other])
    assert [(h["id"], h["retrieval_score"]) for h in with_closed] == [
        (h["id"], h["retrieval_score"]) for h in without]
    assert {h["id"] for h in with_closed} == {"c-0", "c-1", "c-2", "c-3", "o-1"}
