"""A cause the agent named is a lesson only when the record proves it: a failed check that
shows what the cause names, a change touching it, the same check passing after, and nothing
refuting it later."""

from __future__ import annotations

from claimgraph.capture.extract.causes import cause_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.cause_cues import names_cause

from .extract_helpers import ROOT, Session

CAUSE = ("The root cause is that `load_rates` reads `rates.csv` with the wrong delimiter, "
         "so every row parses as one column.")
FAILED = "FAILED tests/test_rates.py::test_load - ValueError in load_rates: 1 column, wanted 3"


def _session(*, said: str = CAUSE, change: tuple[str, str, str] | None = None,
             passes: bool = True, fails_again: bool = False, reply: str | None = None,
             failure: str = FAILED) -> Session:
    session = Session()
    session.prompt("The rates test fails, fix it.")
    session.bash("pytest -q tests/test_rates.py", error=True, output=failure)
    session.event("assistant", text=said)
    path, old, new = change or (f"{ROOT}/app/rates.py", "csv.reader(f)",
                                "csv.reader(f, delimiter=';')  # load_rates")
    session.edit(path, old, new)
    if fails_again:
        session.bash("pytest -q tests/test_rates.py", error=True, output=failure)
    if passes:
        session.bash("pytest -q tests/test_rates.py", output="3 passed in 0.2s")
    if reply is not None:
        session.prompt(reply)
    return session


def _causes(session: Session) -> list[str]:
    view = SessionView.of(session.transcript(), None)
    return [found["object"] for found in cause_candidates(view)]


def test_a_cause_proved_by_the_record_is_kept():
    found = _causes(_session())
    assert found == [CAUSE.rstrip(".")]


def test_the_lesson_reaches_the_extracted_candidates_as_a_failure_report():
    """The record's own lesson for the same failure carries the cause (one fact, not two:
    ``diagnosis``), still as an observed failure report."""
    kept = [c for c in _session().extract() if c["predicate"] == "core/failure-mode"]
    assert [c["rule"] for c in kept] == ["lessons"]
    assert [c["source_type"] for c in kept] == ["failure-report"]
    assert kept[0]["object"].endswith("Cause: `load_rates` reads `rates.csv` with the wrong "
                                      "delimiter, so every row parses as one column.")


def test_no_pass_after_the_change_is_no_proof():
    assert _causes(_session(passes=False)) == []


def test_the_same_check_failing_after_the_change_refutes_the_cause():
    assert _causes(_session(fails_again=True)) == []


def test_the_user_saying_it_still_fails_refutes_the_cause():
    assert _causes(_session(reply="It still fails on my machine.")) == []
    assert _causes(_session(reply="Thanks, now add a README.")) == [CAUSE.rstrip(".")]


def test_a_change_that_touches_nothing_the_cause_names_proves_nothing():
    change = (f"{ROOT}/app/views.py", "title = 'x'", "title = 'y'")
    assert _causes(_session(change=change)) == []


def test_a_cause_naming_nothing_the_failure_showed_explains_something_else():
    other = "FAILED tests/test_rates.py::test_total - AssertionError: 4 != 5"
    assert _causes(_session(failure=other)) == []


def test_a_hedged_or_planned_cause_is_no_lesson():
    hedged = "It might be because `load_rates` reads `rates.csv` with the wrong delimiter."
    planned = "I'll fix `load_rates` because `rates.csv` uses a semicolon."
    assert _causes(_session(said=hedged)) == []
    assert _causes(_session(said=planned)) == []


def test_a_sentence_with_no_cause_word_is_no_cause():
    plain = "`load_rates` reads `rates.csv` with the wrong delimiter."
    assert _causes(_session(said=plain)) == []


def test_cause_cues_in_a_few_languages():
    assert names_cause("Le test échoue parce que le fichier est vide.")
    assert names_cause("Der Test schlägt fehl, weil die Datei leer ist.")
    assert names_cause("测试失败是因为文件为空。")
    assert not names_cause("The file is empty.")
    assert not names_cause("Is it because the file is empty?")
