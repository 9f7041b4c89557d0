"""A correction the agent conceded and then carried out is the person's standing word."""

from __future__ import annotations

from claimgraph.capture.classify.model import Verdict
from claimgraph.capture.extract.corrections import (
    acknowledges, carried_out, corrected_prompts, stems)
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.standing import LEANS_BACK, NEEDS_NOW, task_scoped
from claimgraph.capture.extract.statements import (
    CONVENTION, DECISION, CORRECTION_FLOOR, PREFERS, confirmed_correction)

from .extract_helpers import Session

NEED = "we don't need the coverage job in CI, coverage stays a local check"


def _verdict(score: float, label: str = "request") -> Verdict:
    rest = (1.0 - score) / 3
    probabilities = {"convention": score * 0.2, "decision": score * 0.7,
                     "preference": score * 0.1, "personal": 0.0,
                     "request": rest, "question": rest, "other": rest}
    return Verdict(label, score, False, probabilities)


def test_a_concession_opens_the_reply_in_a_few_languages():
    for reply in ("You're right — the bot validates it already.", "Good point, reverting.",
                  "Fair challenge — let me look again.", "Agreed. Removing it.",
                  "Tu as raison, je retire le job.", "Hai ragione, lo tolgo."):
        assert acknowledges(reply), reply
    for reply in ("Got it, running the tests.", "Sure, I'll add it.", "Done: the job is in CI.",
                  "The right place for it is the workflow."):
        assert not acknowledges(reply), reply


def test_the_words_a_change_must_name_leave_out_words_that_name_nothing():
    assert stems("we should not file issues this way") == {"issue"}
    assert "cover" in stems(NEED) and "should" not in stems(NEED)


def test_carried_out_when_a_change_names_one_of_the_sentences_words():
    assert carried_out(NEED, ["jobs:\n  coverage:\n    runs-on: ubuntu"])
    assert not carried_out(NEED, ["README.md\nHow to install"])
    assert not carried_out("we should not do this way", ["anything at all"])


def test_a_carried_out_correction_above_the_floor_is_stored_as_its_likeliest_durable_class():
    kept = confirmed_correction(_verdict(0.7), NEED, ["coverage: removed"])
    assert kept is not None and kept.kept and kept.label == "decision"


def test_no_correction_below_the_floor_for_a_question_or_without_the_change():
    change = ["coverage: removed"]
    assert confirmed_correction(_verdict(CORRECTION_FLOOR - 0.01), NEED, change) is None
    assert confirmed_correction(_verdict(0.9), NEED + "?", change) is None
    assert confirmed_correction(_verdict(0.9), NEED, ["the README"]) is None
    assert confirmed_correction(_verdict(0.9), "coverage job stays", change) is None  # no rule
    assert confirmed_correction(_verdict(0.9), "great coverage", change) is None  # too short
    for leaning in ("it should not run coverage in CI", "that's not how coverage should run",
                    "no, they should only run coverage locally"):
        assert confirmed_correction(_verdict(0.9), leaning, change) is None, leaning
    assert confirmed_correction(_verdict(0.9), "we should not run coverage this way", change)


def test_the_record_may_answer_two_for_today_checks_and_no_other():
    assert task_scoped(NEED) == NEEDS_NOW
    assert task_scoped(NEED, frozenset({NEEDS_NOW, LEANS_BACK})) is None
    leaning = "that approach is wrong, the base image should follow the stable tag"
    assert task_scoped(leaning) == LEANS_BACK
    assert task_scoped(leaning, frozenset({LEANS_BACK})) is None
    assert task_scoped("we don't need the coverage job right now",
                       frozenset({NEEDS_NOW, LEANS_BACK})) == "tied to now"


def _corrected(reply: str, *, acted: bool = True, undo: str = "coverage") -> Session:
    session = Session()
    session.prompt("make CI stricter")
    if acted:
        session.edit("/repo/.github/workflows/ci.yml", "jobs:\n",
                     "jobs:\n  coverage:\n    runs-on: ubuntu\n")
    session.event("assistant", text="Added a coverage job to CI.")
    session.prompt(NEED)
    session.event("assistant", text=reply)
    session.edit("/repo/.github/workflows/ci.yml", f"  {undo}:\n    runs-on: ubuntu\n", "")
    return session


def _stored(session: Session) -> list[str]:
    return [f["object"] for f in session.extract()
            if f["predicate"] in (CONVENTION, DECISION, PREFERS)]


def test_a_correction_the_agent_conceded_and_undid_is_stored_in_the_users_words():
    session = _corrected("You're right, a CI job adds nothing. Removing it.")
    assert _stored(session) == [NEED]
    view = SessionView.of(session.transcript(), None)
    said = next(e for e in session.events if e.kind == "prompt" and e.text == NEED)
    assert list(corrected_prompts(view)) == [said.line]


def test_no_concession_no_action_before_or_no_change_naming_it_stores_nothing():
    assert _stored(_corrected("Removing it.")) == []
    assert _stored(_corrected("You're right, removing it.", acted=False)) == []
    assert _stored(_corrected("You're right, removing it.", undo="lint")) == []


def test_the_report_says_via_what_a_correction_was_kept():
    from claimgraph.capture.classify import tally

    with tally.collecting() as heard:
        _corrected("Good point, removing the job.").extract()
    kept = [entry for entry in heard if entry["kept"]]
    assert [(e["sentence"], e.get("via")) for e in kept] == [
        (NEED, "a correction the agent conceded and carried out")]
    assert all("via" not in entry for entry in heard if not entry["kept"])
