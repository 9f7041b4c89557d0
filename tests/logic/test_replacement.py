"""A later session's stance that plausibly replaces an earlier one (logic.replacement)."""

from __future__ import annotations

from claimgraph.logic.replacement import (REPLACED, replacement_pairs, replaces, stem,
                                          topic_words, turns_around)

DAY = 86_400_000
NOW = 1_800_000_000_000


def stance(fid, text, day, episode, predicate="x/decided", scope="proj", **extra):
    return {"id": fid, "predicate": predicate, "object_kind": "literal", "object_lit": text,
            "scope": scope, "episode": episode, "t_valid": NOW - (10 - day) * DAY,
            "recorded_at": NOW - (10 - day) * DAY, "t_invalid": None, "conflicts": [],
            **extra}


def test_light_stemming_meets_plural_and_verb_forms():
    assert stem("tables") == stem("table")
    assert stem("names") == stem("name")
    assert stem("caching") == stem("cached") == stem("cache")
    assert stem("libraries") == stem("library")
    assert stem("class") == "class"
    assert topic_words("Use the Widgets' labels") == {"widget", "label"}


def test_a_replacement_cue_on_a_shared_topic_replaces():
    assert replaces("Show a spinner instead of the progress bar", "Render a progress bar")
    assert replaces("Log to stderr rather than to a logfile", "Write every log line to a logfile")
    assert replaces("From now on the release notes go in CHANGES.md",
                    "Keep release notes in the wiki")


def test_one_shared_word_is_too_thin_a_topic_even_with_a_cue():
    assert not replaces("Print the summary as a table instead of a list", "Drop the summary")


def test_links_are_not_topic_words():
    assert topic_words("parser bug https://example.org/issues/12") == {"parser", "bug"}
    assert not replaces("Follow https://example.org/guide/style instead",
                        "Read https://example.org/guide/style first")


def test_no_shared_topic_word_never_replaces():
    assert not replaces("Show a spinner instead of the text", "Render a progress bar")
    # generic words ("use", "add") are not a topic
    assert not replaces("Use poetry instead of pip", "Use tabs for indentation")


def test_a_cue_in_both_is_not_evidence_of_replacement():
    assert not replaces("Use bullets instead of numbers in the changelog",
                        "Use dashes instead of bullets in the changelog")


def test_opposite_polarity_alone_is_not_a_replacement():
    assert not replaces("Do not bump the schema version on every migration",
                        "Bump the schema version with each migration")


def test_a_question_replaces_nothing():
    assert not replaces("Should we show a spinner instead of the progress bar?",
                        "Render a progress bar")


def test_the_shared_words_must_be_most_of_the_shorter_statement():
    # two shared of the older's four topic words: half is not enough
    assert not replaces("Show a spinner instead of the progress bar",
                        "Render a progress bar while syncing")


def test_pairs_cross_sessions_only_newer_to_older_in_one_scope():
    old = stance("a", "Render a progress bar", 1, "ep1")
    same_session = stance("b", "Show a spinner instead of the progress bar", 1, "ep1")
    new = stance("c", "Show a spinner instead of the progress bar", 3, "ep2")
    other_scope = stance("d", "Show a spinner instead of the progress bar", 4, "ep3",
                         scope="other")
    pairs = list(replacement_pairs([new, old, same_session, other_scope], NOW))
    assert [(p["fact"]["id"], p["candidate"]["id"], p["reason"]) for p in pairs] == [
        ("c", "a", REPLACED)]


def test_the_older_cue_never_replaces_the_newer():
    old = stance("a", "Show a spinner instead of the progress bar", 1, "ep1")
    new = stance("b", "Render a progress bar", 3, "ep2")
    assert list(replacement_pairs([old, new], NOW)) == []


def test_only_valid_free_text_stances_unlinked_take_part():
    old = stance("a", "Render a progress bar", 1, "ep1")
    new = stance("c", "Show a spinner instead of the progress bar", 3, "ep2")
    lesson = stance("e", "Render a progress bar", 1, "ep1", predicate="x/failure-mode")
    entity = {**old, "id": "f", "object_kind": "entity", "object_lit": None,
              "object_ref": {"id": "e1", "name": "progress bar"}}
    closed = {**old, "id": "g", "t_invalid": NOW - DAY}
    assert [p["candidate"]["id"] for p in replacement_pairs([lesson, entity, closed, new],
                                                            NOW)] == []
    linked = {**new, "conflicts": ["a"]}
    assert list(replacement_pairs([old, linked], NOW)) == []
    assert [p["candidate"]["id"] for p in replacement_pairs([old, new], NOW)] == ["a"]


def test_one_word_of_the_projects_vocabulary_is_not_one_topic():
    # "widget" is shared, but it is one of the newer's four topic words and one of the older's
    # four: different things said about widgets
    assert not replaces("Name each widget in kebab case instead of snake case",
                        "Widget previews should render offline")


def test_the_agents_own_note_never_replaces_a_stance():
    old = stance("a", "Render a progress bar", 1, "ep1", source_type="user-assertion")
    new = stance("c", "Show a spinner instead of the progress bar", 3, "ep2",
                 source_type="agent-note")
    assert list(replacement_pairs([old, new], NOW)) == []
    said = {**new, "source_type": "user-assertion"}
    assert [p["fact"]["id"] for p in replacement_pairs([old, said], NOW)] == ["c"]


def test_a_later_cue_that_puts_in_what_an_older_no_left_out_replaces_it():
    """One shared word is enough when it is the head of what the older said not to put in and
    the newer puts in ("addresses" / "address"), with the newer's cue."""
    newer = 'Instead of writing "Owner" and "Viewer", show the owner address and viewer\'s address'
    assert replaces(newer, "Never show the email addresses")
    assert replaces(newer, "Do not add the email address of the owner")


def test_turning_around_needs_the_cue_the_same_thing_and_a_positive_newer():
    # no cue: a later "use the names" alone retires nothing
    assert not replaces("Show the owner address in the header", "Never show the email addresses")
    # what the cue says was replaced is not what stands
    assert not turns_around("Instead of adding the email addresses, show initials",
                            "Never show the email addresses")
    # the newer says no too
    assert not turns_around("Do not show the addresses instead of avatars",
                            "Never show the email addresses")
    # a different thing put in
    assert not replaces("Use avatars instead of initials", "Never show the email addresses")
    # the older puts the thing in: opposite polarity the other way is not turning around
    assert not turns_around("Instead of the badge, never show the addresses",
                            "Show the email addresses")
