"""Whether a pick among the agent's options settles the project or only today's turn (pure)."""

from __future__ import annotations

from claimgraph.capture.extract.pick_scope import (
    about_this_turn, artefacts, asks_about_a_thing, carried, decision_text, distinctive,
    interrogative, overridden, picked_labels, someones_step, trimmed, verdict)

CACHE = {"question": "The index is slow to build. Where should the cache live?", "header": "Cache",
         "options": [
             {"label": "Beside the data (Recommended)",
              "description": "Keep it at `.state/cache.db` next to the data. One place to "
                             "back up."},
             {"label": "In the home directory",
              "description": "Use ~/.cache/tool/cache.db, shared by every checkout."}]}
DEPTH = {"question": "How deep should the review go?", "header": "Depth",
         "options": [{"label": "Skim every file", "description": "Read each file_name.py once"},
                     {"label": "Deep-read the hot paths", "description": "Only src/core/*.py"}]}


def test_artefacts_are_names_not_words():
    found = artefacts("Use `make check`, set board_status: false, pin python:3.13, pass "
                      "--public; a low-latency, opt-in, Free-form design with GitHub and API")
    assert {"make check", "board_status", "python:3.13", "--public", "github"} <= found
    assert not {"low-latency", "opt-in", "free-form", "api", "design"} & found


def test_distinctive_artefacts_are_the_ones_no_other_option_names():
    chosen, others = CACHE["options"][:1], CACHE["options"][1:]
    assert distinctive(chosen, others) == {".state/cache.db", "state/cache.db"}
    shared = [{"label": "A", "description": "writes cache.db"}]
    assert distinctive(shared, [{"label": "B", "description": "reads cache.db"}]) == set()


def test_a_choice_is_carried_only_by_work_naming_it_anew():
    tokens = {".state/cache.db"}
    assert carried(tokens, ["CACHE = Path('.state/cache.db')"])
    assert not carried(tokens, ["print('hello')"])
    assert not carried(tokens, ["CACHE = '.state/cache.db'"], ["ls .state/cache.db"])
    assert not carried({"mit"}, ["git commit -m 'fix'"])  # a whole name, not part of a word


def test_a_question_about_the_turn_in_hand():
    assert about_this_turn("How deep should the review go?")
    assert about_this_turn("Want to use the pipeline here?")
    assert about_this_turn("OK to proceed?")
    assert not about_this_turn("Where should the cache live?")
    assert not about_this_turn("Which licence should the project carry (MIT first)?")


def test_an_option_written_as_someones_step():
    assert someones_step({"label": "Update config", "description": "I run the installer again"})
    assert someones_step({"label": "You restart it", "description": "Then it picks it up"})
    assert not someones_step({"label": "Swap the base", "description": "Change both FROM lines"})


def test_a_later_prompt_naming_an_option_not_picked_overrides_the_pick():
    chosen, others = CACHE["options"][:1], CACHE["options"][1:]
    assert overridden(chosen, others, ["actually put it in ~/.cache/tool/cache.db please"])
    assert overridden(chosen, others, ["let's go with in the home directory after all"])
    assert not overridden(chosen, others, ["looks good, thanks"])


def test_the_verdict_keeps_a_project_choice_acted_on_or_asked_about_a_thing():
    work = ["/repo/src/store.py\nCACHE = '.state/cache.db'"]
    acted = verdict(CACHE, ["Beside the data (Recommended)"], work, [])
    assert acted.keep and acted.evidence == "work"
    # nothing carries it, but the question asks where a thing of the project should live
    asked = verdict(CACHE, ["Beside the data (Recommended)"], [], [])
    assert asked.keep and asked.evidence == "question"
    by_us = {**CACHE, "question": "The index is slow. Which cache should we set up?"}
    assert not verdict(by_us, ["Beside the data (Recommended)"], [], []).keep
    assert verdict(by_us, ["Beside the data (Recommended)"], work, []).keep
    assert not verdict(CACHE, ["Beside the data (Recommended)"], work,
                       ["no, use ~/.cache/tool/cache.db"]).keep
    assert verdict(DEPTH, ["Skim every file"], ["file_name.py"], []).reason \
        == "asks about the turn in hand"


def test_a_question_about_a_thing_of_the_project_not_a_persons_doing():
    assert asks_about_a_thing("Where should the details panel appear?")
    assert asks_about_a_thing("Which rig do these beads belong to?")
    assert asks_about_a_thing("Some context first. How should the evidence be published?")
    assert not asks_about_a_thing("Which linters should we set up?")
    assert not asks_about_a_thing("What licence do you want for the release?")
    assert not asks_about_a_thing("Should the step run first, or should it wait for review?")
    assert not asks_about_a_thing("These two files are untracked.")


def test_a_kept_pick_is_written_by_its_content():
    assert decision_text(CACHE, ["Beside the data (Recommended)"]) == (
        "Cache: Beside the data — Keep it at `.state/cache.db` next to the data. One place to "
        'back up (asked "Where should the cache live?")')


def test_descriptions_are_trimmed_to_what_they_decide():
    assert trimmed("Short tag. The second sentence says what is decided here. A third.") \
        == "Short tag. The second sentence says what is decided here"
    assert len(trimmed("word " * 100)) <= 181


def test_only_the_questions_own_interrogative_sentence_is_kept():
    assert interrogative("You asked for X in the db. That locks. How should I store X then?") \
        == "How should I store X then?"
    assert interrogative("Which one?") == ""
    assert interrogative("These two files are untracked.") == ""


def test_labels_holding_a_comma_are_one_pick():
    question = {"options": [{"label": "Yes, use it"}, {"label": "No"}, {"label": "A"},
                            {"label": "B"}]}
    assert picked_labels(question, "Yes, use it") == ["Yes, use it"]
    assert sorted(picked_labels(question, "A, B")) == ["A", "B"]


def _asked(question: str, header: str) -> dict:
    return {"question": question, "header": header,
            "options": [{"label": "Winning the demo", "description": "Ship `demo/` first"},
                        {"label": "Long-term code", "description": "Tests in `tests/` first"}]}


def test_a_question_about_the_tasks_target_depth_voice_or_scope_settles_only_the_task():
    """What to optimize today's work for, how its write-up should sound, how far it reaches:
    the answer steers the task in hand, it is no standing decision of the project."""
    work = ["/repo/demo/app.py\nprint('demo/')"]
    for question, header in [
            ("What should the product optimize for?", "Target"),
            ("Which style should the comparison report use?", "Report Style"),
            ("What tone should the release notes take?", "Voice"),
            ("Which modules should this audit cover?", "Scope"),
            ("Which parts should we prioritize?", "Focus")]:
        found = verdict(_asked(question, header), ["Winning the demo"], work, [])
        assert not found.keep and "task" in found.reason, question
    # a thing of the project that happens to be a target is decided, and stays
    for question, header in [("Where should the built image be pushed?", "Push target"),
                             ("Which Python version should the package target?", "Target")]:
        assert verdict(_asked(question, header), ["Winning the demo"], work, []).keep, question
