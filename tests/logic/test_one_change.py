"""A stance of the user's that records one change is told as a dated fact, not a standing
decision (``logic.one_change``, docs/context.md)."""

from __future__ import annotations

from claimgraph.logic import briefing as C
from claimgraph.logic.one_change import one_change, states_a_lasting_property

from .test_briefing import block, fact


def _stance(fid, text, *, source="user-assertion", evidence=(), predicate="x/decided"):
    return fact(fid, "app", "decided", text, literal=True, epistemic="commitment",
                source=source, predicate=predicate, evidence=list(evidence))


def _asked(fid, text):
    return _stance(fid, text, evidence=[f"transcript#L3: {text}",
                                        "transcript#L5: asked and done: view.ts"])


def _sections(text):
    decisions = text.split("### Standing decisions")[1].split("###")[0] \
        if "### Standing decisions" in text else ""
    current = text.split("### Current facts")[1] if "### Current facts" in text else ""
    return decisions, current


def test_a_request_carried_out_that_only_made_a_thing_is_dated_among_current_facts():
    made = _asked("f-1", "I'd like to support the plotter export as well")
    text = block([made])
    decisions, current = _sections(text)
    assert "plotter" not in decisions
    assert ('- app decided "I\'d like to support the plotter export as well" (you asked, '
            'done, as of 2026-02-19)') in current
    assert not C.is_standing(made) and C.told_as_state(made)


def test_a_request_carried_out_that_says_it_lasts_stands():
    for n, text in enumerate(["fold the sidebar by default", "re-run the indexer on every save",
                              "show the last opened file, not an empty page every time",
                              "write the cache under .app/ instead of the home folder",
                              "only sync when the user asks"]):
        lasting = _asked(f"f-{n}", text)
        decisions, _ = _sections(block([lasting]))
        assert text in decisions, text
        assert C.is_standing(lasting), text


def test_a_bare_modal_is_the_request_itself_not_a_lasting_property():
    assert not states_a_lasting_property("The export button should be blue")
    assert not one_change(_stance("f-1", "The export button should be blue"))  # not carried out
    assert one_change(_asked("f-2", "The export button should be blue"))
    assert states_a_lasting_property("The export button should always be blue")
    assert not states_a_lasting_property("make it read-only")  # "only" inside a word


def test_a_relabel_in_the_users_words_is_one_act_unless_it_says_it_lasts():
    relabel = _stance("f-1", 'the tab should appear as "Linked docs", not just "Linked"')
    rule = _stance("f-2", 'errors should always appear as "Error: <reason>"')
    decisions, current = _sections(block([relabel, rule]))
    assert "Linked docs" not in decisions and "Linked docs" in current
    assert "always appear" in decisions


def test_a_project_file_and_an_agents_note_are_not_the_users_change():
    """Only the user's own words are judged here: a file's convention in the same form is
    what the file declares, read as it always was."""
    declared = _stance("f-1", 'commit subjects should read as "type: subject"',
                       source="session-log", predicate="x/convention",
                       evidence=['CONTRIBUTING.md: `commit subjects should read as "type: x"`'])
    assert not one_change(declared) and C.is_standing(declared)


def test_a_plain_stance_of_the_user_still_stands():
    said = _stance("f-1", "use pymodbus for the inverter connection")
    assert not one_change(said) and C.is_standing(said)
    decisions, _ = _sections(block([said]))
    assert "pymodbus" in decisions
