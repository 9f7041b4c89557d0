"""A check the project's own rules forbid is not stored as how the project is checked."""

from __future__ import annotations

from claimgraph.capture.extract.forbidden import kinds_of

from .extract_helpers import ROOT, Session, only

CLAUDE_MD = ("# Guide\n\n## E2E\n\n**ALWAYS use `/e2e-runner` when running E2E tests.** Never run "
             "`pnpm test:e2e` directly: its logs bury the results.\n")


def _ran_checks(session: Session) -> None:
    session.bash("pnpm test", output="Tests  12 passed")
    session.bash("PLAYWRIGHT_WORKERS=1 pnpm exec playwright test e2e/login.spec.ts",
                 output="3 passed (4.1s)")


def test_an_e2e_run_the_instruction_file_sends_through_a_skill_is_left_out():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"}, output=CLAUDE_MD)
    _ran_checks(session)
    assert {fact["object"] for fact in only(session.extract(), "core/tested-by")} \
        == {"pnpm test"}


def test_without_the_rule_both_runs_are_kept():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"}, output="# Guide\n\nUse pnpm.\n")
    _ran_checks(session)
    assert {fact["object"] for fact in only(session.extract(), "core/tested-by")} \
        == {"pnpm test", "pnpm exec playwright test"}


def test_someone_elses_instruction_file_forbids_nothing():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/node_modules/x/CLAUDE.md"}, output=CLAUDE_MD)
    _ran_checks(session)
    assert "pnpm exec playwright test" in {
        fact["object"] for fact in only(session.extract(), "core/tested-by")}


def test_the_persons_standing_words_forbid_a_program():
    session = Session()
    session.prompt("We use pnpm here. Don't use npm.")
    session.bash("npm test", output="Tests  12 passed")
    session.bash("pnpm lint", output="0 problems")
    assert {fact["object"] for fact in only(session.extract(), "core/tested-by")} \
        == {"pnpm lint"}


def test_a_runs_fact_loses_only_the_recipe_a_rule_forbids():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"}, output=CLAUDE_MD)
    session.write(f"{ROOT}/Makefile", "test:\n\tpytest -q\ne2e:\n\tpnpm exec playwright test\n")
    session.bash("make test && make e2e", output="ok")
    [runs] = only(session.extract(), "x/runs")
    assert runs["object"] == "`make test` runs `pytest -q`"
    assert runs["evidence"] == ["./Makefile: `pytest -q`"]


def test_a_ci_workflow_step_stays():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"}, output=CLAUDE_MD)
    session.write(f"{ROOT}/.github/workflows/e2e.yml", (
        "name: e2e\non: [push]\njobs:\n  e2e:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: pnpm exec playwright test\n"))
    [runs] = only(session.extract(), "x/runs")
    assert "playwright test" in runs["object"]


def test_which_kind_of_check_a_command_is():
    assert kinds_of(("pnpm", "exec", "playwright", "test")) == {"test", "e2e"}
    assert kinds_of(("pnpm", "test:e2e")) == {"test", "e2e"}
    assert kinds_of(("pytest", "-q")) == {"test", "unit"}
    assert kinds_of(("ruff", "check")) == {"lint"}


def test_what_the_person_asks_for_today_sends_no_kind_of_check_one_way():
    session = Session()
    session.prompt("Use `make unit` to run the tests, then tell me what failed.")
    session.bash("pytest -q", output="3 passed")
    assert {fact["object"] for fact in only(session.extract(), "core/tested-by")} == {"pytest"}
    session.prompt("Always use `make unit` to run the tests.")
    assert only(session.extract(), "core/tested-by") == []
