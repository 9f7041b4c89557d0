"""The checks the session ran together in one line, as its gate (extract/check_chains.py)."""

from __future__ import annotations

from claimgraph.capture.extract.check_chains import chain_of

from .extract_helpers import ROOT, Session

GATE = "uv run ruff check src/ tests/ && uv run mypy src/ && uv run pytest tests/ -v"


def _chains(session: Session) -> list[dict]:
    return [f for f in session.extract() if f["rule"] == "checks"]


def test_a_passing_line_of_checks_is_how_the_project_verifies_a_change():
    s = Session()
    s.prompt("tidy the cart module")
    s.bash(GATE, output="All checks passed!\nSuccess: no issues found\n12 passed in 0.4s")
    [found] = _chains(s)
    assert (found["predicate"], found["object"]) == ("core/tested-by", GATE)
    assert found["source_type"] == "session-log" and found["subject"] == "shop"
    assert found["evidence"][0].startswith("transcript#L2: uv run ruff check")


def test_a_failed_line_proves_nothing():
    s = Session()
    s.bash(GATE, error=True, output="src/cart.py:3: error: Incompatible types")
    assert _chains(s) == []


def test_the_longest_chain_is_kept_and_among_equals_the_last():
    s = Session()
    s.bash("cargo fmt --check && cargo clippy -- -D warnings", output="")
    s.bash("cargo fmt --check && cargo clippy -- -D warnings && cargo test", output="ok")
    s.bash("cargo fmt && cargo clippy", output="")
    [found] = _chains(s)
    assert found["object"] == "cargo fmt --check && cargo clippy -- -D warnings && cargo test"


def test_one_check_alone_is_no_chain():
    assert chain_of("cargo test --workspace", ROOT) is None
    assert chain_of("cd app && pytest -q", ROOT) is None


def test_the_same_check_twice_is_one_check_narrowed_not_a_gate():
    assert chain_of("cargo test test_rebase_colon && cargo test test_rebase_revset", ROOT) \
        is None


def test_a_run_narrowed_to_a_test_or_a_file_is_no_gate():
    assert chain_of("ruff check src/ && pytest -k cart", ROOT) is None
    assert chain_of("ruff format tests/test_cart.py && ruff check tests/test_cart.py", ROOT) \
        is None
    assert chain_of("ruff check src/ && pytest tests/", ROOT) == "ruff check src/ && pytest tests/"


def test_a_run_narrowed_to_a_module_path_is_no_gate():
    """``cargo test -p shop cart::tests::`` runs one module's tests: the line that also runs
    the whole crate after it is a look at one part, then the rest -- the work of the day."""
    assert chain_of("cargo fmt && cargo test -p shop cart::tests:: && cargo test -p shop",
                    ROOT) is None
    assert chain_of("cargo fmt && cargo test -p shop", ROOT) == "cargo fmt && cargo test -p shop"


def test_a_line_that_does_something_else_too_is_another_step():
    assert chain_of("ruff check . && pytest && git commit -m wip", ROOT) is None
    assert chain_of("npm run build && npm test", ROOT) is None  # a build is no check
    assert chain_of("ruff check .; pytest", ROOT) is None  # the first may have failed
    assert chain_of("ruff check . || pytest", ROOT) is None


def test_formatters_alone_tidy_and_verify_nothing():
    assert chain_of("ruff check --fix . && ruff format .", ROOT) is None
    assert chain_of("cargo fmt && cargo clippy", ROOT) == "cargo fmt && cargo clippy"


def test_a_check_hidden_in_a_pipe_is_not_proved_by_the_line():
    assert chain_of("cargo fmt && cargo clippy 2>&1 && cargo test 2>&1 | tail -5", ROOT) is None
    assert chain_of("cargo fmt && cargo clippy 2>&1", ROOT) == "cargo fmt && cargo clippy"


def test_a_cd_before_the_checks_is_allowed_but_not_one_out_of_the_project():
    assert chain_of("cd web && npm run lint && npm test", ROOT) == "npm run lint && npm test"
    s = Session()
    s.bash("cd /opt/other && ruff check . && pytest", output="ok")
    assert _chains(s) == []


def test_a_chain_whose_outcome_is_unknown_is_not_stored():
    s = Session()
    s.bash(GATE, output="12 passed", no_verdict=True)  # a reader saw no outcome reported
    assert _chains(s) == []
    s = Session()
    s.tool("Bash", {"command": GATE, "run_in_background": True}, output="started")
    assert _chains(s) == []
