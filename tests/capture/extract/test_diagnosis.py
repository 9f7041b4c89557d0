"""The cause a session stated is attached to the lesson the record proved: one fact, only the
last settled diagnosis within the lesson's window, only one naming what the failure or the
fix names."""

from __future__ import annotations

from claimgraph.capture.extract.diagnosis import attach_diagnoses
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session

FAILED = "E   ImportError: libfoo.so.1: cannot open shared object file"
CAUSE = ("Root cause: `app/loader.py` imports the `viewer` module at import time, "
         "which needs libfoo.")


def _session(*, said: tuple[str, ...] = (CAUSE,), after: str | None = None,
             fails_again: bool = False) -> Session:
    session = Session()
    session.prompt("The test suite fails, fix it.")
    session.bash("pytest -q", error=True, output=FAILED)
    for text in said:
        session.event("assistant", text=text)
    session.edit(f"{ROOT}/app/loader.py", "import viewer", "viewer = None  # lazy")
    if fails_again:
        session.bash("pytest -q", error=True, output=FAILED)
    session.bash("pytest -q", output="12 passed in 0.4s")
    if after is not None:
        session.event("assistant", text=after)
    return session


def _lessons(session: Session) -> list[dict]:
    return [c for c in session.extract() if c["predicate"] == "core/failure-mode"]


def test_the_cause_is_attached_to_the_proved_lesson_as_one_fact():
    lessons = _lessons(_session())
    assert len(lessons) == 1
    assert lessons[0]["object"].endswith(
        "Cause: `app/loader.py` imports the `viewer` module at import time, which needs libfoo.")
    assert "fixed by editing app/loader.py" in lessons[0]["object"]
    assert lessons[0]["source_type"] == "failure-report"
    assert any(cited.startswith("transcript#L") and "imports the `viewer`" in cited
               for cited in lessons[0]["evidence"])


def test_the_last_diagnosis_before_the_proof_counts_not_an_earlier_guess():
    first = "The loader fails because `app/loader.py` reads a stale cache of libfoo."
    lessons = _lessons(_session(said=(first, CAUSE)))
    assert "imports the `viewer` module" in lessons[0]["object"]
    assert "stale cache" not in lessons[0]["object"]


def test_a_hedged_or_planned_cause_is_not_attached():
    for said in ("It might be that `app/loader.py` imports `viewer` too early.",
                 "I'll change `app/loader.py` because it imports `viewer` too early."):
        assert "Cause:" not in _lessons(_session(said=(said,)))[0]["object"]


def test_a_cause_naming_nothing_the_failure_or_fix_names_is_not_attached():
    other = "The problem is that the documentation build does not include the changelog."
    assert "Cause:" not in _lessons(_session(said=(other,)))[0]["object"]


def test_a_sentence_after_the_proof_is_not_the_diagnosis():
    lessons = _lessons(_session(said=(), after=CAUSE))
    assert "Cause:" not in lessons[0]["object"]


def test_no_lesson_no_cause_when_the_same_failure_came_back():
    assert all("Cause:" not in found["object"] for found in _lessons(_session(fails_again=True)))


def test_a_causes_fact_saying_the_attached_sentence_is_not_kept_twice():
    view = SessionView.of(_session().transcript(), None)
    lesson = {"predicate": "core/failure-mode", "rule": "lessons", "object": "`pytest -q` "
              "failed: ImportError: libfoo.so.1; fixed by editing app/loader.py",
              "evidence": ["transcript#L2: pytest -q", "transcript#L6: pytest -q"]}
    twin = {"predicate": "core/failure-mode", "rule": "causes",
            "object": CAUSE.rstrip("."), "evidence": ["transcript#L3: x"]}
    kept = attach_diagnoses(view, [lesson, twin])
    assert [found["rule"] for found in kept] == ["lessons"]


def test_a_reports_labelled_cause_is_attached_with_the_names_underscores_intact():
    report = ("Fixed the remaining failures.\n\n- argparse conflicts\n"
              "  - Cause: the `viewer` subcommands were registered twice in "
              "`app/__main__.py`, which Python 3.11 rejects.\n"
              "  - Fix: removed the earlier block.")
    session = Session()
    session.bash("pytest -q", error=True,
                 output="E   argparse.ArgumentError: conflicting subparser: viewer")
    session.edit(f"{ROOT}/app/__main__.py", "sub.add_parser('viewer')", "")
    session.bash("pytest -q", output="12 passed in 0.4s")
    session.event("assistant", text=report)
    session.prompt("Thanks, now add a README section.")
    [lesson] = _lessons(session)  # the report came after the proof: it explains nothing
    assert "Cause:" not in lesson["object"]
    session = Session()
    session.bash("pytest -q", error=True,
                 output="E   argparse.ArgumentError: conflicting subparser: viewer")
    session.event("assistant", text=report)
    session.edit(f"{ROOT}/app/__main__.py", "sub.add_parser('viewer')", "")
    session.bash("pytest -q", output="12 passed in 0.4s")
    [lesson] = _lessons(session)
    assert lesson["object"].endswith(
        "Cause: The `viewer` subcommands were registered twice in `app/__main__.py`, which "
        "Python 3.11 rejects.")


def test_a_sentence_that_only_names_the_failure_gives_way_to_the_cause_before_it():
    labelled = ("The problem: `app/loader.py` pulls in the viewer eagerly, and the viewer "
                "needs libfoo.")
    naming = "The bug was an `ImportError` in `app/loader.py`."
    lessons = _lessons(_session(said=(labelled, naming)))
    assert lessons[0]["object"].endswith(
        "Cause: `app/loader.py` pulls in the viewer eagerly, and the viewer needs libfoo.")


def test_a_sentence_that_only_names_the_failure_is_no_cause():
    naming = "The bug was an `ImportError` in `app/loader.py`."
    assert "Cause:" not in _lessons(_session(said=(naming,)))[0]["object"]
