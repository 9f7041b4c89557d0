"""A step that failed inside a line (``a && b | tail``) and a later line that got past it."""

from __future__ import annotations

from .extract_helpers import Session, only

REFUSED = ("Exit code 1\nerror: system-site-locked\n\n× This interpreter is managed by the "
           "system\n╰─> create a virtual environment first\n")
RAN = "===== 3 passed in 0.20s ====="


def _lessons(session: Session) -> list[str]:
    return [c["object"] for c in only(session.extract(), "core/failure-mode")]


def test_a_step_refused_then_passed_after_entering_an_environment_is_a_lesson():
    session = Session()
    session.bash("pip install pytest -q && python -m pytest tests/ 2>&1 | tail -20",
                 error=True, output=REFUSED)
    session.bash("python3 -m venv .venv && source .venv/bin/activate && pip install -q pytest "
                 "httpx && python -m pytest tests/ 2>&1 | tail -20", output=RAN)
    assert _lessons(session) == [
        "`pip install pytest -q` failed: error: system-site-locked; fixed by running "
        "`python3 -m venv .venv && source .venv/bin/activate`"]


def test_the_last_command_of_a_line_is_not_the_step_when_its_status_is_its_own():
    """``a && b`` failed: a or b failed, nothing says which."""
    session = Session()
    session.bash("pip install pytest -q && python -m pytest tests/", error=True, output=REFUSED)
    session.bash("python3 -m venv .venv && source .venv/bin/activate && pip install -q pytest "
                 "&& python -m pytest tests/ 2>&1 | tail -20", output=RAN)
    assert _lessons(session) == []


def test_two_steps_before_the_filtered_one_say_nothing_of_which_failed():
    session = Session()
    session.bash("npm ci && pip install pytest -q && python -m pytest 2>&1 | tail -5",
                 error=True, output=REFUSED)
    session.bash("python3 -m venv .venv && . .venv/bin/activate && pip install -q pytest "
                 "&& python -m pytest 2>&1 | tail -5", output=RAN)
    assert _lessons(session) == []


def test_a_step_the_session_never_got_past_is_nothing():
    session = Session()
    session.bash("pip install pytest -q && python -m pytest 2>&1 | tail -5", error=True,
                 output=REFUSED)
    session.bash("python3 -m venv .venv && source .venv/bin/activate && pip install -q pytest "
                 "&& python -m pytest 2>&1 | tail -5", error=True, output=REFUSED)
    assert _lessons(session) == []


def test_a_step_passing_with_fewer_words_is_not_the_same_step():
    session = Session()
    session.bash("pip install pytest httpx -q && python -m pytest 2>&1 | tail -5", error=True,
                 output=REFUSED)
    session.bash("python3 -m venv .venv && source .venv/bin/activate && pip install pytest "
                 "&& python -m pytest 2>&1 | tail -5", output=RAN)
    assert _lessons(session) == []


def test_a_pipefail_line_may_have_failed_at_its_last_command():
    session = Session()
    session.bash("set -o pipefail && pip install pytest -q && python -m pytest | tail -5",
                 error=True, output=REFUSED)
    session.bash("python3 -m venv .venv && source .venv/bin/activate && pip install -q pytest "
                 "&& python -m pytest 2>&1 | tail -5", output=RAN)
    assert _lessons(session) == []
