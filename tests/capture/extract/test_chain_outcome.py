"""What a chained line's status and output prove about each check in it (``chain_outcome``),
and the rules that follow one check through a session (``causes``, ``lessons``) seeing it."""

from __future__ import annotations

from claimgraph.capture.extract.causes import cause_candidates
from claimgraph.capture.extract.chain_outcome import chain_outcomes
from claimgraph.capture.extract.session import FAILED, OK, UNKNOWN, SessionView
from claimgraph.capture.extract.shell import invocations

from .extract_helpers import ROOT, Session, only

RUFF_OK = "All checks passed!"
MYPY_OK = "Success: no issues found in 12 source files"
MYPY_BAD = ("src/shop/cart.py:7: error: Incompatible return value type (got \"str\", "
            "expected \"int\")  [return-value]\nFound 1 error in 1 file (checked 12 source files)")
PYTEST_OK = "============ 9 passed in 0.41s ============"
PYTEST_BAD = ("FAILED tests/test_cart.py::test_total - AssertionError\n"
              "============ 1 failed, 8 passed in 0.52s ============")


def _outcomes(command: str, outcome: str, output: str = "") -> list[tuple[str, str]]:
    found = chain_outcomes(invocations(command, ROOT), outcome, output,
                           pipefail="pipefail" in command)
    return [(inv.argv[0], verdict) for inv, verdict in found]


def test_a_chain_that_worked_proves_every_check_passed():
    assert _outcomes("ruff check . && mypy src && pytest -q", OK) == [
        ("ruff", OK), ("mypy", OK), ("pytest", OK)]


def test_setup_before_the_checks_is_no_check():
    assert _outcomes(f"cd {ROOT} && source .venv/bin/activate && mypy src && pytest", OK) == [
        ("mypy", OK), ("pytest", OK)]


def test_a_single_command_is_no_chain():
    assert _outcomes("cd app && pytest -q", OK) == []
    assert _outcomes("pytest -q", FAILED, PYTEST_BAD) == []


def test_the_part_whose_runner_printed_its_failure_failed_and_those_before_passed():
    output = f"{RUFF_OK}\n{MYPY_OK}\n{PYTEST_BAD}"
    assert _outcomes("ruff check . && mypy src && pytest -q", FAILED, output) == [
        ("ruff", OK), ("mypy", OK), ("pytest", FAILED)]
    assert _outcomes("ruff check . && mypy src && pytest -q", FAILED,
                     f"{RUFF_OK}\n{MYPY_BAD}") == [("ruff", OK), ("mypy", FAILED)]


def test_a_failure_no_runner_claims_proves_nothing_about_any_part():
    """The chain failed as a whole: no part is known to have passed (the first may be the one
    that failed, printing something no signature knows)."""
    assert _outcomes("ruff check . && mypy src && pytest -q", FAILED,
                     "Traceback (most recent call last):\nImportError: boom") == []


def test_the_last_part_failed_when_every_part_before_it_printed_its_success():
    assert _outcomes("ruff check . && mypy src && pytest -q", FAILED,
                     f"{RUFF_OK}\n{MYPY_OK}\nImportError while loading conftest") == [
        ("ruff", OK), ("mypy", OK), ("pytest", FAILED)]


def test_a_failure_is_not_pinned_on_one_of_two_runs_of_one_runner():
    assert _outcomes("pytest tests/unit && pytest tests/e2e", FAILED,
                     f"{PYTEST_OK}\n{PYTEST_BAD}") == []


def test_a_failed_part_that_is_no_check_proves_nothing():
    assert _outcomes("npm run build && pytest -q", FAILED, "error TS2304") == []


def test_semicolons_and_or_carry_no_parts_outcome():
    assert _outcomes("ruff check . ; pytest -q", OK) == []
    assert _outcomes("ruff check . || pytest -q", OK) == []
    assert _outcomes("ruff check . && pytest -q ; echo done", OK) == []


def test_a_piped_part_has_its_filters_status_unless_pipefail():
    assert _outcomes("ruff check . && pytest -q | tail -5", OK) == [("ruff", OK)]
    assert _outcomes("ruff check . && pytest -q | tail -5", FAILED, PYTEST_BAD) == []
    assert _outcomes("set -o pipefail; ruff check . && pytest -q | tail -5", FAILED,
                     f"{RUFF_OK}\n{PYTEST_BAD}") == [("ruff", OK), ("pytest", FAILED)]


def test_an_unknown_outcome_proves_nothing():
    assert _outcomes("ruff check . && pytest -q", UNKNOWN, PYTEST_OK) == []


CAUSE = ("The root cause is that `cart_total` returns the formatted string instead of the "
         "integer amount.")


def _chained_session(*, passed_output: str = f"{RUFF_OK}\n{MYPY_OK}\n{PYTEST_OK}",
                     passed_error: bool = False) -> Session:
    session = Session()
    session.prompt("The checks fail, fix them.")
    named = MYPY_BAD.replace("Incompatible", "cart_total: Incompatible")
    session.bash("ruff check . && mypy src && pytest -q", error=True, output=f"{RUFF_OK}\n{named}")
    session.event("assistant", text=CAUSE)
    session.edit(f"{ROOT}/src/shop/cart.py", "return f\"{total}\"", "return total  # cart_total")
    session.bash("ruff check . && mypy src && pytest -q", error=passed_error,
                 output=passed_output)
    return session


def _causes(session: Session) -> list[str]:
    view = SessionView.of(session.transcript(), None)
    return [found["object"] for found in cause_candidates(view)]


def test_a_cause_is_proved_by_a_chain_of_checks_failing_then_passing():
    assert _causes(_chained_session()) == [CAUSE.rstrip(".")]


def test_a_chain_failing_again_at_the_same_check_proves_no_cause():
    bad = f"{RUFF_OK}\n{MYPY_BAD}"
    assert _causes(_chained_session(passed_output=bad, passed_error=True)) == []


def test_a_chain_failing_at_a_later_check_proves_the_earlier_one_passed():
    """mypy passed, then pytest failed: the cause about mypy's failure is proved."""
    later = f"{RUFF_OK}\n{MYPY_OK}\n{PYTEST_BAD}"
    assert _causes(_chained_session(passed_output=later, passed_error=True)) == [
        CAUSE.rstrip(".")]


def test_a_chain_of_checks_is_followed_by_the_lesson_rule():
    [lesson] = only(_chained_session().extract(), "core/failure-mode")
    assert lesson["object"].startswith("`mypy src` failed: ")
    assert "fixed by editing src/shop/cart.py" in lesson["object"]


def test_a_chain_that_also_installs_is_left_to_the_line_rules():
    session = Session()
    session.bash("ruff check . && mypy src", error=True, output=f"{RUFF_OK}\n{MYPY_BAD}")
    session.edit(f"{ROOT}/src/shop/cart.py", "return f\"{total}\"", "return total")
    session.bash("pip install types-requests && ruff check . && mypy src",
                 output=f"{RUFF_OK}\n{MYPY_OK}")
    assert only(session.extract(), "core/failure-mode") == []


TSC_BAD = ("src/cart.ts(7,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"
           "\nFound 1 error in src/cart.ts:7\n")
CARGO_BAD = ("error[E0308]: mismatched types\n --> src/cart.rs:7:5\n\n"
             "error: could not compile `shop` (bin \"shop\") due to 1 previous error")


def test_a_build_step_whose_tool_printed_its_failure_is_the_failed_part():
    """A build is a part of a ``&&`` chain like any check: tsc's ``error TS…`` and cargo's
    ``could not compile`` are their own words, and the checks before it passed."""
    assert _outcomes("pytest -q && npx tsc", FAILED, f"{PYTEST_OK}\n{TSC_BAD}") == [
        ("pytest", OK), ("npx", FAILED)]
    assert _outcomes("cargo fmt --check && cargo build && cargo test", FAILED, CARGO_BAD) == [
        ("cargo", OK), ("cargo", FAILED)]
    assert _outcomes("cargo build && cargo test", OK) == [("cargo", OK), ("cargo", OK)]


def test_a_build_failure_another_part_may_have_printed_is_unknown():
    """``cargo clippy`` prints the same ``could not compile`` as ``cargo build``."""
    assert _outcomes("cargo clippy && cargo build", FAILED, CARGO_BAD) == []
