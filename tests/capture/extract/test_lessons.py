"""failure-mode lessons: a check failed, the project was edited, the same check passed."""

from __future__ import annotations

from .extract_helpers import ROOT, Session, only

FAILURE = ("Exit code 1\n============ FAILURES ============\n"
           "E   KeyError: 'SECRET_KEY'\nsrc/shop/settings.py:12: KeyError\n1 failed")


def _fixed_session(**failure) -> Session:
    session = Session()
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE, **failure)
    session.edit(f"{ROOT}/src/shop/settings.py", "os.environ['SECRET_KEY']",
                 "os.environ.get('SECRET_KEY', '')")
    session.bash("pytest tests/test_settings.py", output="1 passed")
    return session


def test_a_failure_then_an_edit_then_success_is_a_low_confidence_lesson():
    [lesson] = only(_fixed_session().extract(), "core/failure-mode")
    assert lesson["subject"] == "shop"
    assert lesson["object"] == ("`pytest tests/test_settings.py` failed with KeyError: "
                                "'SECRET_KEY'; fixed by editing src/shop/settings.py")
    assert lesson["confidence"] <= 0.5 and lesson["source_type"] == "failure-report"
    assert lesson["object_kind"] == "literal"
    assert lesson["evidence"] == ["transcript#L1: pytest tests/test_settings.py",
                                  "transcript#L5: pytest tests/test_settings.py"]


def test_no_edit_in_between_is_no_lesson():
    session = Session()
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE)
    session.bash("pytest tests/test_settings.py", output="1 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_different_check_passing_is_no_lesson():
    session = Session()
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE)
    session.edit(f"{ROOT}/src/shop/settings.py", "a", "b")
    session.bash("pytest tests/test_cart.py", output="1 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_fixing_only_the_test_is_not_a_lesson_about_the_project():
    session = Session()
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE)
    session.edit(f"{ROOT}/tests/test_settings.py", "== 2", "== 3")
    session.bash("pytest tests/test_settings.py", output="1 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_missing_program_is_not_fixed_by_an_edit():
    session = Session()
    session.bash("pytest", error=True, output="bash: pytest: command not found",
                 exit_code=127)
    session.edit(f"{ROOT}/pyproject.toml", "a", "b")
    session.bash("pytest")
    assert only(session.extract(), "core/failure-mode") == []


def test_non_check_commands_are_not_lessons():
    session = Session()
    session.bash("git commit -m wip", error=True, output="nothing to commit")
    session.edit(f"{ROOT}/src/shop/cart.py", "a", "b")
    session.bash("git commit -m wip")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_failure_hidden_behind_a_pipe_is_not_a_lesson():
    session = Session()
    session.bash("pytest 2>&1 | tail -5", error=True, output=FAILURE)
    session.edit(f"{ROOT}/src/shop/settings.py", "a", "b")
    session.bash("pytest 2>&1 | tail -5")
    assert only(session.extract(), "core/failure-mode") == []


def test_the_error_line_falls_back_to_the_exit_code():
    session = Session()
    session.bash("cargo build", error=True, output="Exit code 101\n\n", exit_code=101)
    session.edit(f"{ROOT}/src/main.rs", "a", "b")
    session.bash("cargo build")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == "`cargo build` failed with exit code 101; fixed by editing src/main.rs"


def test_colour_codes_are_stripped_from_the_error_line():
    session = Session()
    session.bash("npx vitest run", error=True,
                 output="\x1b[31m\x1b[1mAssertionError\x1b[22m: expected 1 to be 2\x1b[39m")
    session.edit(f"{ROOT}/src/sum.ts", "a - b", "a + b")
    session.bash("npx vitest run")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert "failed with AssertionError: expected 1 to be 2;" in lesson["object"]


def test_an_assistant_hypothesis_refuted_later_is_never_a_fact():
    session = _fixed_session()
    session.event("assistant", text="The failure is caused by a race in the cache layer; "
                                    "we decided to use a lock. Always use locks.")
    session.event("assistant", text="Correction: the cache was fine, it was the env var.")
    found = session.extract()
    assert all("cache" not in c["object"] and "lock" not in c["object"] for c in found)
    assert {c["rule"] for c in found} == {"lessons", "tooling", "written-in"}


def test_a_check_of_a_file_the_session_just_created_is_work_in_progress():
    session = Session()
    session.write(f"{ROOT}/tests/test_tax.py", "def test_vat():\n    assert vat(1) == 1.2\n")
    session.bash("pytest tests/test_tax.py::test_vat", error=True, output="E   NameError: vat")
    session.edit(f"{ROOT}/src/shop/tax.py", "x = 1", "def vat(a):\n    return a * 1.2")
    session.bash("pytest tests/test_tax.py::test_vat")
    assert only(session.extract(), "core/failure-mode") == []
