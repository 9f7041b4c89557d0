"""A user's request the same person later revised: only their last word is kept (pure logic)."""

from __future__ import annotations

from claimgraph.capture.extract.reconcile import Later, reconcile
from claimgraph.capture.extract.revised import restates, revised_away, same_subject
from claimgraph.logic.revision_cues import CHANGE, RETRACT


def _ask(obj: str, line: int, *, predicate: str = "x/convention",
         source_type: str = "user-assertion", rule: str = "statements") -> dict:
    return {"subject": "shop", "predicate": predicate, "object": obj, "scope": "project",
            "source_type": source_type, "rule": rule,
            "evidence": [f"transcript#L{line}: {obj}"], "epistemic": "commitment",
            "confidence": 0.7}


def test_a_request_turned_around_by_a_later_kept_request_gives_way_to_it():
    first = _ask("`export` should zip the files by default", 4)
    last = _ask("Make zipping a separate `pack` command, `export` stays plain", 30)
    said = [(4, "`export` should zip the files by default."),
            (30, "No, make zipping a separate `pack` command, `export` stays plain.")]
    assert revised_away([first, last], said) == [last]


def test_the_later_request_is_never_the_one_dropped():
    first = _ask("Make zipping a separate `pack` command", 4)
    last = _ask("`export` should zip the files by default, not `pack`", 30)
    said = [(4, "Make zipping a separate `pack` command."),
            (30, "`export` should zip the files by default, not `pack`.")]
    assert revised_away([first, last], said) == [last]


def test_a_change_cue_without_a_kept_later_request_leaves_the_earlier_one():
    first = _ask("`export` should zip the files by default", 4)
    said = [(30, "Maybe zipping could be a separate `pack` command instead?")]
    assert revised_away([first], said) == [first]


def test_an_outright_retraction_is_enough_alone():
    first = _ask("Cache the thumbnails in `thumbs.db`", 4)
    said = [(12, "Never mind the `thumbs.db` cache, we do not need it.")]
    assert revised_away([first], said) == []
    german = [(12, "Vergiss das mit `thumbs.db`.")]
    assert revised_away([first], german) == []


def test_words_on_another_subject_revise_nothing():
    first = _ask("`export` should zip the files by default", 4)
    other = _ask("Use a separate logger for the importer", 30)
    said = [(30, "Actually, use a separate logger for the importer instead.")]
    assert revised_away([first, other], said) == [first, other]


def test_a_restatement_is_not_a_revision():
    first = _ask("Build separate bundles per target, not one shared `index.jsonl`", 7)
    again = _ask("Write one `index.jsonl` per target bundle", 21)
    said = [(21, "- Build separate bundles per target, not one shared `index.jsonl`.\n"
                 "- Write one `index.jsonl` per target bundle.")]
    assert revised_away([first, again], said) == [first, again]


def test_a_flipped_stance_counts_only_when_the_later_one_is_kept():
    first = _ask("Run the `migrate` step on every deploy", 3)
    flipped = "Do not run the `migrate` step on deploys."
    assert revised_away([first], [(9, flipped)]) == [first]
    later = _ask("Do not run the `migrate` step on deploys", 9)
    assert revised_away([first, later], [(9, flipped)]) == [later]
    named_only = _ask("Do not list `index.jsonl` in the README", 9)
    said = [(9, "Do not list `index.jsonl` in the README.")]
    assert revised_away([_ask("Write one `index.jsonl` per bundle", 3), named_only], said)[0][
        "object"] == "Write one `index.jsonl` per bundle"


def test_a_question_revises_nothing():
    first = _ask("`export` should zip the files by default", 4)
    later = _ask("Make zipping a separate `pack` command", 30)
    said = [(30, "Should zipping be a separate `pack` command instead of `export`?")]
    assert revised_away([first, later], said) == [first, later]


def test_only_the_users_own_stances_are_revised_this_way():
    note = _ask("`export` should zip the files by default", 4, source_type="agent-note",
                rule="summaries")
    lesson = _ask("Never mind flaky `export` tests", 4, predicate="x/lesson")
    said = [(12, "Never mind `export` zipping.")]
    assert revised_away([note, lesson], said) == [note, lesson]


def test_subjects_are_tied_by_a_named_thing_or_most_content_words():
    assert same_subject("Use `ruff` for linting", "drop `ruff`")
    assert same_subject("thumbnails cached on disk per album",
                        "thumbnails per album cached in memory")
    assert not same_subject("thumbnails cached on disk per album", "album covers load slowly")
    assert restates("Keep the cache on disk", "Again: keep the cache on disk.")
    assert not restates("Keep the cache on disk", "Do not keep the cache on disk.")


def test_the_cue_lists_read_a_few_languages():
    assert RETRACT.search("let's not do that after all")
    assert RETRACT.search("laisse tomber le cache")
    assert CHANGE.search("mach das stattdessen als eigenes Kommando")
    assert CHANGE.search("it should not run by default")
    assert not RETRACT.search("keep the cache in memory")


def test_reconcile_applies_it_after_the_other_checks():
    first = _ask("`export` should zip the files by default", 4)
    last = _ask("Make zipping a separate `pack` command, `export` stays plain", 30)
    later = Later(user_said=[(4, "`export` should zip the files by default."),
                             (30, "No, make zipping a separate `pack` command, `export` "
                                  "stays plain.")])
    assert reconcile([first, last], later) == [last]


def test_a_word_the_user_quotes_is_a_named_thing():
    assert same_subject("'normalize' should trim the keys", "Drop \"normalize\" for now")
    assert same_subject("normalize should trim the keys by default",
                        "for \u2018normalize\u2019 just add a TODO")
    assert not same_subject("normalize should trim the keys", "don't touch it, it's 'fine'")
    assert not same_subject("the parser's tokens stay lazy", "the users' list is 'sorted'")


def test_a_later_deferral_of_the_same_thing_retires_the_stance_without_a_kept_request():
    first = _ask("'normalize' should trim the keys by default", 4)
    said = [(30, "For 'normalize' just add a TODO; we need a separate command for that. "
                 "Here let's concentrate on the parser.")]
    assert revised_away([first], said) == []
    moved = [(30, "Move \"normalize\" to a separate command.")]
    assert revised_away([first], moved) == []
    parked = [(30, "Let's park `normalize` for now, it is out of scope.")]
    assert revised_away([first], parked) == []


def test_the_deferral_and_the_name_may_sit_in_different_sentences():
    first = _ask("normalize should trim the keys by default", 4)
    said = [(30, "About 'normalize'. Let's leave that for later and concentrate on the "
                 "parser.")]
    assert revised_away([first], said) == []


def test_a_deferral_of_something_else_naming_the_stance_in_passing_retires_nothing():
    first = _ask("'normalize' should trim the keys by default", 4)
    passing = [(30, "Let's park the cache work for now, 'normalize' is fine as it is.")]
    assert revised_away([first], passing) == [first]
    focus = [(30, "For now let's concentrate on 'normalize' and leave the cache for later.")]
    assert revised_away([first], focus) == [first]
    other = [(30, "Add a TODO for the cache. 'normalize' already trims the keys, good.")]
    assert revised_away([first], other) == [first]
    negated = [(30, "Don't make 'normalize' a separate command.")]
    assert revised_away([first], negated) == [first]


def test_a_question_or_a_restatement_about_the_thing_is_no_deferral():
    first = _ask("'normalize' should trim the keys by default", 4)
    asked = [(30, "Should 'normalize' be a separate command later?")]
    assert revised_away([first], asked) == [first]
    again = [(30, "Reminder: 'normalize' should trim the keys by default. The rest can wait "
                  "for a later PR, add a TODO.")]
    assert revised_away([first], again) == [first]


def test_a_question_whether_the_thing_exists_does_not_keep_a_deferred_request():
    first = _ask("'normalize' should trim the keys by default", 4)
    exists = [(30, "Do we have 'normalize' or alike command? Add a TODO and make it a "
                   "separate command.")]
    assert revised_away([first], exists) == []
    is_there = [(30, "Is there a 'normalize' step already? Leave it for later.")]
    assert revised_away([first], is_there) == []
    # a question about putting it off still keeps it; so does a bare existence question
    doubt = [(30, "Should 'normalize' wait for later? Add a TODO for it.")]
    assert revised_away([first], doubt) == [first]
    only_asked = [(30, "Do we have 'normalize' or alike command?")]
    assert revised_away([first], only_asked) == [first]


def test_words_describing_the_todo_itself_do_not_hide_the_deferral():
    first = _ask("'normalize' should trim the keys by default", 4)
    described = [(30, "For 'normalize' just add a high level TODO to work out such command.")]
    assert revised_away([first], described) == []
    # a thing of it, not the TODO's own words, still keeps the request
    other_thing = [(30, "For 'normalize' tests in the legacy suite add a TODO.")]
    assert revised_away([first], other_thing) == [first]


def test_an_existence_question_may_close_a_longer_sentence():
    first = _ask("'normalize' should trim the keys by default", 4)
    closing = [(30, "We need to review the plan -- do we have 'normalize' or alike command? "
                    "For 'normalize' just add a TODO; concentrate on the rename.")]
    assert revised_away([first], closing) == []
    doubting = [(30, "We need to review the plan -- should 'normalize' wait? "
                     "For 'normalize' just add a TODO.")]
    assert revised_away([first], doubting) == [first]


def test_a_deferral_cue_the_stance_holds_itself_is_no_change():
    first = _ask("Put the `migrate` step in a separate command", 4)
    said = [(30, "Yes, `migrate` goes in a separate command, as I said.")]
    assert revised_away([first], said) == [first]


def test_a_deferral_points_back_only_to_a_topic_just_named():
    first = _ask("'normalize' should trim the keys by default", 4)
    said_of_it = [(30, "'normalize' breaks the unicode test. Let's leave that for later.")]
    assert revised_away([first], said_of_it) == [first]
    further_back = [(30, "About 'normalize'. The docs need a rewrite. Let's do that later.")]
    assert revised_away([first], further_back) == [first]
    next_to_it = [(30, "Add a separate command after 'normalize' that lowercases the keys.")]
    assert revised_away([first], next_to_it) == [first]


def test_a_deferral_of_a_part_of_the_thing_retires_nothing():
    first = _ask("'normalize' should trim the keys by default", 4)
    part = [(30, "The 'normalize' tests are out of scope.")]
    assert revised_away([first], part) == [first]
    whole = [(30, "'normalize' can wait for later.")]
    assert revised_away([first], whole) == []


# --- a later refusal to put in a thing the request named ----------------------------------------

def test_a_later_do_not_add_of_a_phrase_the_request_asked_for_narrows_it_away():
    first = _ask("Each row should carry the date of the commit beside the avatar", 4)
    last = _ask("Do not add the full date of the commit as well", 9)
    said = [(4, "Each row should carry the date of the commit beside the avatar."),
            (9, "Do not add the full date of the commit as well.")]
    assert not same_subject(str(first["object"]), str(last["object"]))  # two words only
    assert revised_away([first, last], said) == [last]


def test_a_refusal_sharing_one_word_or_a_use_the_request_never_named_leaves_it():
    first = _ask("Use the session store for tokens", 4)
    one_word = _ask("Do not add a store for avatars", 9)
    other_use = _ask("Do not use the session store for logs", 9)
    other_act = _ask("Do not log the session store", 9)
    for later in (one_word, other_use, other_act):
        said = [(4, "Use the session store for tokens."), (9, str(later["object"]) + ".")]
        assert revised_away([first, later], said) == [first, later]


def test_a_narrowing_refusal_needs_to_be_kept_itself():
    first = _ask("Each row should carry the date of the commit beside the avatar", 4)
    said = [(9, "Do not add the full date of the commit as well.")]
    assert revised_away([first], said) == [first]


def test_a_request_that_already_says_no_is_not_narrowed_by_another_no():
    first = _ask("Never put the date of the commit in the footer", 4)
    last = _ask("Do not add the full date of the commit as well", 9)
    said = [(9, "Do not add the full date of the commit as well.")]
    assert revised_away([first, last], said) == [first, last]


# --- turned away by name, taken back, or called temporary (revised.turned_away) -------------

def test_a_thing_turned_down_by_name_on_the_same_subject_retires_the_stance():
    from claimgraph.capture.extract.revised import sentences, turned_away
    earlier = "Always indent the YAML files with tabs"
    assert turned_away(earlier, sentences("Actually, indent the YAML files with spaces, "
                                          "not tabs."))
    assert turned_away(earlier, sentences("No. Indent YAML with spaces, not tabs."))
    assert turned_away("Queue the emails in Kafka for the mailer",
                       sentences("Forget Kafka. The mailer queues emails in Postgres."))
    assert not turned_away(earlier, sentences("Indent the YAML files with spaces, not tabs."))
    assert not turned_away(earlier, sentences("Actually, are the YAML files not tabs?"))
    assert not turned_away("Never indent the YAML files with tabs",
                           sentences("Actually, indent the YAML files with spaces, not tabs."))
    assert not turned_away("Queue the emails in Kafka for the mailer",
                           sentences("Forget Kafka for the audit log, use a table."))


def test_a_take_back_about_the_topic_or_a_temporary_stance_retires_it():
    from claimgraph.capture.extract.revised import sentences, turned_away
    earlier = "Always seed the demo database with the fixtures"
    assert turned_away(earlier, sentences("Ignore what I said about seeding the demo "
                                          "database."))
    assert not turned_away(earlier, sentences("Ignore what I said about the logo colours."))
    assert turned_away(earlier, sentences("Seeding the demo database with the fixtures was "
                                          "only temporary."))
    assert turned_away(earlier, sentences("The fixtures for the demo database are no longer "
                                          "needed."))
    assert not turned_away(earlier, sentences("The old logo was only temporary."))
