"""Tool arguments: snake or kebab names, blanks as absent, coerced numbers, one clear refusal."""

from __future__ import annotations

import pytest

from claimgraph.errors import ClaimgraphError
from claimgraph.mcp.arguments import Arg, input_schema, parse
from claimgraph.mcp.tools import TOOLS

ARGS = (Arg("entity", "string", "a name", required=True),
        Arg("entity_scope", "string", "a scope"),
        Arg("depth", "integer", "hops", minimum=0, maximum=6),
        Arg("min_confidence", "fraction", "0..1"),
        Arg("include_invalidated", "boolean", "also old"),
        Arg("as_of", "time", "when"),
        Arg("direction", "choice", "which way", choices=("out", "in", "both")))


def refusal(raw: dict) -> ClaimgraphError:
    with pytest.raises(ClaimgraphError) as refused:
        parse(ARGS, raw)
    assert refused.value.type == "invalid-argument"
    return refused.value


def test_snake_and_kebab_names_are_the_same_argument():
    assert parse(ARGS, {"entity": "api", "entity-scope": "user"}) == {
        "entity": "api", "entity_scope": "user"}


def test_giving_one_argument_in_both_spellings_is_refused():
    assert "twice" in refusal({"entity": "a", "entity_scope": "x", "entity-scope": "y"}).message


def test_blank_text_and_null_mean_absent():
    assert parse(ARGS, {"entity": "api", "entity_scope": "  ", "depth": None}) == {"entity": "api"}


def test_a_blank_required_argument_is_missing():
    error = refusal({"entity": " "})
    assert error.message == "missing required argument 'entity'"
    assert error.data == {"argument": "entity"}


@pytest.mark.parametrize(("raw", "want"), [(2, 2), ("3", 3), (4.0, 4), (" 5 ", 5)])
def test_integers_are_coerced_from_numbers_and_numeric_text(raw, want):
    assert parse(ARGS, {"entity": "a", "depth": raw})["depth"] == want


@pytest.mark.parametrize("raw", [2.5, "2.5", "two", True, [2], float("nan"), 7, -1])
def test_an_integer_argument_refuses_fractions_words_and_out_of_range(raw):
    assert refusal({"entity": "a", "depth": raw}).data == {"argument": "depth"}


@pytest.mark.parametrize(("raw", "want"), [(0.5, 0.5), ("0.25", 0.25), (1, 1.0), (0, 0.0)])
def test_fractions_are_numbers_between_zero_and_one(raw, want):
    assert parse(ARGS, {"entity": "a", "min_confidence": raw})["min_confidence"] == want


@pytest.mark.parametrize("raw", [1.5, "-0.1", "high", False])
def test_a_fraction_out_of_range_or_not_a_number_is_refused(raw):
    refusal({"entity": "a", "min_confidence": raw})


@pytest.mark.parametrize(("raw", "want"), [(True, True), ("false", False), ("TRUE", True),
                                           (1, True), (0, False), ("no", False)])
def test_booleans_accept_json_booleans_words_and_one_or_zero(raw, want):
    assert parse(ARGS, {"entity": "a", "include_invalidated": raw})["include_invalidated"] is want


def test_a_time_is_an_iso_date_or_date_time():
    assert parse(ARGS, {"entity": "a", "as_of": "2026-01-01"})["as_of"] == 1767225600000
    assert "ISO" in refusal({"entity": "a", "as_of": "last tuesday"}).hint


def test_a_choice_names_the_allowed_values():
    error = refusal({"entity": "a", "direction": "sideways"})
    assert error.hint == "give direction as one of: out, in, both"


def test_an_unknown_argument_is_refused_with_the_known_ones():
    error = refusal({"entity": "a", "entityScope": "user"})
    assert error.message == "unknown argument 'entityScope'"
    assert error.hint.startswith("this tool takes: entity, entity_scope, depth")


def test_text_arguments_refuse_objects():
    refusal({"entity": {"name": "api"}})


def test_the_schema_lists_each_argument_with_its_type_and_the_required_ones():
    schema = input_schema(ARGS)
    assert schema["required"] == ["entity"]
    assert schema["properties"]["depth"] == {"type": "integer", "description": "hops",
                                             "minimum": 0, "maximum": 6}
    assert schema["properties"]["direction"]["enum"] == ["out", "in", "both"]
    assert schema["properties"]["min_confidence"]["maximum"] == 1


def test_every_tool_has_a_description_saying_when_to_call_it_and_a_valid_schema():
    names = [tool.name for tool in TOOLS]
    assert names == ["memory_search", "memory_recall", "memory_facts", "memory_neighbor",
                     "memory_history", "memory_conflicts", "memory_coach", "memory_assert",
                     "memory_forget"]
    for tool in TOOLS:
        assert "call" in tool.description.lower() or "use it" in tool.description.lower()
        schema = input_schema(tool.args)
        assert schema["type"] == "object"
        assert set(schema.get("required", [])) <= set(schema["properties"])


def test_tool_arguments_are_those_of_the_reference():
    args = {tool.name: [a.name for a in tool.args] for tool in TOOLS}
    assert args["memory_facts"] == ["entity", "entity_scope", "predicate", "direction", "as_of",
                                    "scope", "include_invalidated", "min_confidence"]
    assert args["memory_neighbor"] == ["entity", "entity_scope", "depth", "predicate", "scope",
                                       "as_of", "min_confidence", "query", "budget", "beam"]
    assert args["memory_recall"][:2] == ["query", "min_hits"]
    assert args["memory_history"] == ["subject", "subject_scope", "predicate"]
    assert args["memory_conflicts"] == [] and args["memory_coach"] == ["task"]
    assert args["memory_assert"] == [
        "subject", "subject_type", "subject_scope", "predicate", "object", "object_type",
        "object_scope", "object_kind", "class", "scope", "confidence", "source_type", "episode",
        "on_conflict", "valid_from", "valid_until"]
    assert args["memory_forget"] == ["fact_id", "reason"]


def test_recalls_description_names_the_field_that_says_how_each_fact_was_learned():
    """The agent reads a tool's description before its answers: ``learned`` is how it weighs
    a fact, as the context block's reader weighs the tier word."""
    recall = next(tool for tool in TOOLS if tool.name == "memory_recall")
    assert "learned" in recall.description
