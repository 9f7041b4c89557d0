"""A query's words (docs/search.md): what to rank on, identifiers, the developer vocabulary,
and the budget that keeps ranking cheap on a large store."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claimgraph.logic import query_words as QW
from claimgraph.logic.coach import coach_query


def test_question_and_function_words_are_left_out_and_case_is_folded():
    assert QW.content_words("When did Priya go to the chess club meetup?") == [
        "priya", "go", "chess", "club", "meetup"]
    assert QW.content_words("What is it that you did?") == []


def test_numbers_stay_single_letters_go_and_repeats_count_once():
    assert QW.content_words("a sketch from 2022, a 5 k run, sketch maps") == [
        "sketch", "2022", "5", "run", "maps"]


def test_a_lone_identifier_is_no_question_in_words():
    for identifier in ("numpy-74", "module_9.retry", "AuthService", "src/app.py", "v3"):
        assert QW.is_identifier(identifier) and QW.content_words(identifier) == []
    for plain in ("postgres", "Pytest", "which version of numpy-74"):
        assert not QW.is_identifier(plain)
    assert QW.content_words("which version of numpy-74") == ["version", "numpy", "74"]


def test_installing_relates_to_the_package_managers_and_testing_to_the_runners():
    install = QW.related_words(["install", "httpx", "dependency"])
    assert {"pip", "uv", "npm", "pnpm", "yarn", "cargo", "poetry"} <= set(install)
    assert "install" not in install and "dependency" not in install and "httpx" not in install
    assert {"pytest", "jest", "vitest"} <= set(QW.related_words(["test"]))
    assert {"release", "ship"} <= set(QW.related_words(["deploy"]))
    assert {"postgres", "sqlite", "database"} <= set(QW.related_words(["db"]))
    assert QW.related_words(["priya", "sketching"]) == []


def test_a_category_brings_its_members_and_a_member_never_its_category():
    assert {"dog", "cat", "hamster"} <= set(QW.category_members(["pets", "priya"]))
    assert {"violin", "clarinet"} <= set(QW.category_members(["instruments"]))
    assert {"karate", "judo"} <= set(QW.category_members(["martial", "arts"]))
    assert QW.category_members(["dog", "violin", "priya"]) == []
    members = QW.category_members(["pets", "dog"])
    assert "dog" not in members and members == sorted(members)
    # the developer vocabulary stays apart: a category is no related word
    assert QW.related_words(["pets"]) == [] and QW.category_members(["install"]) == []


def test_a_word_in_two_groups_relates_to_both_and_a_category_word_in_two_to_both():
    """Looked up per query word (nothing is tabled at import): a word shared by two groups
    brings the other words of both, sorted, itself never; so does a category word."""
    assert "release" in QW.related_words(["tag"]) and "tag" not in QW.related_words(["tag"])
    for word in sorted(set().union(*QW.DEV_VOCABULARY)):
        groups = [g for g in QW.DEV_VOCABULARY if word in g]
        assert QW.is_vocabulary_word(word)
        assert QW.related_words([word]) == sorted(set().union(*groups) - {word}), word
    assert not QW.is_vocabulary_word("sketching")
    both = QW.category_members(["country", "european"])  # two categories share most members
    assert "czech" in both and "japan" in both and both.index("japan") < both.index("czech")
    assert "boxing" in QW.category_members(["martial"]) and "boxing" in QW.category_members(
        ["sports"])


def test_an_entitys_names_relate_to_each_other():
    assert QW.related_words(["pg"], [["Postgres", "pg"]]) == [
        w for w in QW.related_words(["pg"], [["Postgres", "pg"]]) if w != "pg"]
    assert "postgres" in QW.related_words(["pg"], [["Postgres", "pg"]])


def test_the_budget_keeps_the_rarest_words_that_fit_in_the_given_order():
    counts = [("common", 400), ("rare", 3), ("middle", 120), ("absent", 0), ("huge", 501)]
    assert QW.within_budget(counts, budget=500) == ["rare", "middle"]
    assert QW.within_budget([("huge", 501)], budget=500) == []
    assert QW.within_budget([("a", 10), ("b", 10)], budget=500) == ["a", "b"]


@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 900)), max_size=8,
                unique_by=lambda wc: wc[0]), st.integers(0, 1000))
def test_the_budget_is_never_exceeded_and_a_kept_word_is_never_commoner_than_a_dropped_one(
        counts, budget):
    kept = QW.within_budget(counts, budget)
    by_word = dict(counts)
    assert sum(by_word[w] for w in kept) <= budget
    dropped = [w for w, c in counts if w not in kept and c > 0]
    assert all(by_word[k] <= by_word[d] for k in kept for d in dropped)


def test_the_coach_keeps_a_vocabulary_word_too_common_to_search_alone():
    assert coach_query("add requests to the project") == "add requests project"
    assert coach_query("install httpx as a dependency") == "install httpx dependency"


def test_rarity_is_bm25s_weight_rarer_heavier_and_never_zero():
    import math
    assert QW.rarity(100, 1) == math.log(99.5 / 1.5)
    assert QW.rarity(100, 1) > QW.rarity(100, 10) > QW.rarity(100, 40)
    assert QW.rarity(100, 60) == QW.rarity(100, 100) == QW.rarity(0, 0) == 1e-6
