"""A typed sentence that states how a thing of the project is (logic/said.py)."""

from __future__ import annotations

from claimgraph.logic.said import grounded, is_statement, names, subject_of


def test_a_settled_statement_about_a_named_thing_passes():
    for sentence in ("the loader only supports ${VAR} expansion",
                     "parse_row.py must never import the network client",
                     "[mapView.ts](src/mapView.ts) should have nothing to do with routing",
                     "OK, the staging bucket lives in eu-west-1",
                     "but cache.json is not jsonl so it can hold one summary"):
        assert is_statement(sentence), sentence


def test_questions_hedges_reports_and_reactions_do_not_pass():
    for sentence in ("is the loader only supporting ${VAR} expansion?",
                     "maybe the loader only supports ${VAR} expansion",
                     "I think the loader only supports ${VAR} expansion",
                     "the loader was only supporting ${VAR} expansion",
                     "the loader still only supports ${VAR} expansion",
                     "the loader is broken on ${VAR} expansion",
                     "the loader is fine now",
                     "you keep breaking the loader config",
                     "it is only for ${VAR} expansion",
                     "Add a loader that supports ${VAR} expansion",
                     "4.4 After Filament Load is inserted here",
                     "✔ Synced 4 files, loader is up to date",
                     "The PR is https://example.org/pull/12"):
        assert not is_statement(sentence), sentence


def test_a_subject_is_short_and_has_no_clause_list_or_pronoun():
    assert not is_statement("Active handles, branches, and paths are listed in the file")
    assert not is_statement("The only thing it shouldn't do is to resolve the paths")
    assert not is_statement("one two three four five six seven eight is the loader")
    assert subject_of("OK, the staging bucket lives in eu-west-1") == "the staging bucket"
    assert subject_of("nothing of a rule here") == ""


def test_names_are_code_shaped_or_plain_words_that_are_not_generic():
    shaped, plain = names("the `render_map` helper only supports playwright output")
    assert "render_map" in shaped
    assert "playwright" in plain and "output" not in plain and "helper" in plain


def test_grounded_only_when_the_session_names_the_same_thing():
    sentence = "deployment logic is in flop-core"
    assert grounded(sentence, "ls packages/flop-core/src", frozenset())
    assert not grounded(sentence, "ls packages/other/src", frozenset({"packages"}))
    plain = "playwright is what the suite runs on"
    assert grounded(plain, "", frozenset({"playwright"}))
    assert not grounded(plain, "playwright appears in a long file", frozenset())
