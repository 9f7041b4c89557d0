"""What a session left failing, and what it published, as x/state facts at the session's end
(capture/extract/left_open.py, logic/left_open.py)."""

from __future__ import annotations

from claimgraph.logic import left_open as lo
from claimgraph.logic.git_done import FINISHED

from .extract_helpers import ROOT, Session

PYTEST_RED = ("============ FAILURES ============\n____ test_total ____\nE   assert 7 == 8\n"
              "FAILED tests/test_cart.py::test_total - assert 7 == 8\n"
              "========= 2 failed, 14 passed in 0.52s =========\n")
PYTEST_GREEN = "========= 16 passed in 0.48s =========\n"


def _states(session: Session) -> list[dict]:
    return [c for c in session.extract() if c.get("rule") == "left-open"]


def _failing(session: Session) -> list[str]:
    return [c["object"] for c in _states(session) if not c.get(FINISHED)]


def test_a_check_whose_last_run_failed_is_left_failing_at_the_end():
    session = Session()
    session.bash("pytest tests/test_cart.py", output=PYTEST_GREEN)
    session.edit(f"{ROOT}/shop/cart.py", "a", "b")
    session.bash("pytest tests/test_cart.py", error=True, output=PYTEST_RED)
    [state] = [c for c in _states(session) if not c.get(FINISHED)]
    assert state["predicate"] == "x/state" and state["subject"] == "shop check `pytest`"
    assert state["source_type"] == "session-log"
    assert state["object"] == (  # an undated session (the end-to-end test has dates)
        "Left failing at the end of the session: the last run of `pytest tests/test_cart.py` "
        "failed (2 failed, 14 passed in 0.52s); it was not run again")


def test_an_undated_session_is_not_given_a_date():
    run = lo.CheckRun("pytest", "test", ".", 0, lo.FAILED, "pytest", 1, "1 failed")
    assert lo.describe_failing(run, None, False) == (
        "Left failing at the end of the session: the last run of `pytest` failed (1 failed); "
        "it was not run again")


def test_files_changed_after_the_failure_are_said():
    session = Session()
    session.bash("pytest tests/test_cart.py", error=True, output=PYTEST_RED)
    session.edit(f"{ROOT}/shop/cart.py", "a", "b")
    [text] = _failing(session)
    assert text.endswith("; files were changed after it and it was not run again")


def test_the_red_step_of_a_test_first_loop_that_went_green_is_nothing_left_open():
    session = Session()
    session.bash("pytest tests/test_cart.py", error=True, output=PYTEST_RED)
    session.edit(f"{ROOT}/shop/cart.py", "a", "b")
    session.bash("pytest tests/test_cart.py", output=PYTEST_GREEN)
    assert _failing(session) == []


def test_a_wider_run_that_passed_later_settles_it():
    session = Session()
    session.bash("pytest tests/test_cart.py", error=True, output=PYTEST_RED)
    session.bash("pytest -q", output=PYTEST_GREEN)
    assert _failing(session) == []


def test_a_narrower_run_that_passed_later_leaves_it_unsaid():
    # the failing test may be the one that now passes: the record cannot tell
    session = Session()
    session.bash("pytest", error=True, output=PYTEST_RED)
    session.bash("pytest tests/test_cart.py::test_total", output=PYTEST_GREEN)
    assert _failing(session) == []


def test_a_later_command_that_may_be_the_check_leaves_it_unsaid():
    session = Session()
    session.bash("pytest", error=True, output=PYTEST_RED)
    session.bash("make check-all", output="ok\n")
    assert _failing(session) == []


def test_a_later_run_whose_outcome_is_unknown_leaves_it_unsaid():
    session = Session()
    session.bash("pytest", error=True, output=PYTEST_RED)
    session.tool("Bash", {"command": "pytest"}, answered=False)
    assert _failing(session) == []


def test_a_check_that_could_not_run_for_want_of_the_environment_is_not_stored():
    session = Session()
    session.bash("pytest", error=True, output=(
        "ImportError while importing test module\nE   ModuleNotFoundError: No module named "
        "'yaml'\n========= 1 error in 0.10s =========\n"))
    assert _failing(session) == []
    session = Session()
    session.bash("npx vitest run", error=True,
                 output="npm error code EOVERRIDE\nnpm error Override conflicts\n")
    assert _failing(session) == []  # the runner counted nothing: it may never have started


def test_a_failing_check_the_person_said_to_ignore_is_not_stored():
    session = Session()
    session.prompt("The browser tests are flaky on this machine, leave them.")
    session.bash("pytest", error=True, output=PYTEST_RED)
    assert _failing(session) == []


def test_a_rerun_through_grep_showing_failures_keeps_it_failing_with_the_earlier_count():
    session = Session()
    session.bash("bash tests/run_tests.sh", error=True,
                 output="Testing: login... FAIL\nTesting: logout... PASS\nFailed: 1\n")
    session.bash("bash tests/run_tests.sh 2>&1 | grep -E 'PASS|FAIL'",
                 output="Testing: login... FAIL\nTesting: logout... PASS\n")
    [text] = _failing(session)
    assert "`bash tests/run_tests.sh` failed (Failed: 1)" in text


def test_two_test_scripts_are_two_checks():
    session = Session()
    session.bash("bash tests/test_checkout.sh", error=True, output="2 failed\n")
    session.bash("bash tests/test_upgrade.sh", output="3 passed, 0 failed\n")
    [text] = _failing(session)
    assert "`bash tests/test_checkout.sh`" in text


def test_a_check_run_outside_the_project_is_not_its_state():
    session = Session()
    session.bash("cd /tmp/other && pytest", error=True, output=PYTEST_RED)
    assert _failing(session) == []


def test_a_passing_last_run_is_a_finished_state_written_only_to_replace_one():
    session = Session()
    session.bash("pytest", output=PYTEST_GREEN)
    [state] = _states(session)
    assert state[FINISHED] is True
    assert "the last run of `pytest` passed" in state["object"]


NPM_OUT = ("npm notice Publishing to https://registry.npmjs.org/ with tag latest and public "
           "access\n+ @acme/widgets@1.4.0\n")


def test_a_version_the_registry_took_is_published():
    session = Session()
    session.bash("npm publish --access public", output=NPM_OUT)
    [state] = _states(session)
    assert state["subject"] == "@acme/widgets on npm"
    assert state["object"] == (
        "Version 1.4.0 of @acme/widgets was published to npm with tag latest in the session")


def test_a_rehearsal_or_a_refused_publish_is_nothing():
    session = Session()
    session.bash("npm publish --dry-run", output=NPM_OUT)
    session.bash("npm publish", error=True, output="npm error code E403\n")
    assert _states(session) == []


def test_the_last_version_published_is_the_packages_state():
    session = Session()
    for version in ("2.0.0", "2.0.1"):
        session.bash("npx pnpm publish", output=f"npm notice Publishing to "
                     f"https://registry.npmjs.org/ with tag latest\n+ widgets@{version}\n")
    [state] = _states(session)
    assert state["subject"] == "widgets on npm"
    assert state["object"] == (
        "Version 2.0.1 of widgets was published to npm with tag latest in the session")


def test_a_github_release_is_no_state_left_open():
    session = Session()
    session.bash("gh release create v2.0.0 --notes x",
                 output="https://github.com/acme/widgets/releases/tag/v2.0.0\n")
    assert _states(session) == []


def test_the_output_decides_when_a_pipe_hid_the_status():
    assert lo.output_outcome("=== 1 failed, 3 passed in 0.2s ===") == lo.FAILED
    assert lo.output_outcome("--- FAIL: TestParse (0.00s)") == lo.FAILED
    assert lo.output_outcome("=== 4 passed in 0.2s ===") == lo.PASSED
    assert lo.output_outcome("Failed: 0") == lo.PASSED
    assert lo.output_outcome("done") == lo.UNKNOWN


def test_a_failure_summary_is_the_runners_last_count():
    assert lo.failure_summary("x\n==== 3 failed, 1 passed in 1.0s ====\n") == \
        "3 failed, 1 passed in 1.0s"
    assert lo.failure_summary("Traceback\nboom") is None
    assert lo.failure_summary("test a::b ... ok\ntest a::c ... FAILED\nerror: test failed") \
        == "failing: a::c"


def test_publishers_outputs():
    assert lo.published(("cargo", "publish"),
                        "   Uploading tally v0.3.1\n    Published tally v0.3.1 at registry "
                        "`crates-io`\n") == lo.Published("crates-io", "tally", "0.3.1")
    assert lo.published(("uvx", "twine", "upload", "dist/*"),
                        "View at:\nhttps://pypi.org/project/tally/0.3.1/\n") == \
        lo.Published("pypi.org", "tally", "0.3.1")
    assert lo.published(("npm", "publish", "--dry-run"), NPM_OUT) is None
    assert lo.published(("npm", "version", "patch"), NPM_OUT) is None


def test_the_person_telling_to_ignore_a_check():
    assert lo.told_to_ignore(["ignore the lint errors for now"])
    assert lo.told_to_ignore(["those test failures are pre-existing"])
    assert not lo.told_to_ignore(["please make the tests pass"])


# --- reviewa: shapes the open sets do not hold ------------------------------------------

NO_MODULE = ("ImportError while importing test module\nE   ModuleNotFoundError: No module named "
             "'yaml'\n========= 1 error in 0.10s =========\n")


def test_a_chained_check_that_failed_for_want_of_the_environment_is_not_stored():
    # ``&&`` proves which part failed, not why: the same environment reading as a lone run
    session = Session()
    session.bash("ruff check . && pytest", error=True, output="All checks passed!\n" + NO_MODULE)
    assert _failing(session) == []
    session = Session()
    session.bash("uv sync && pytest", error=True, output=NO_MODULE)
    assert _failing(session) == []


def test_an_earlier_count_is_not_lent_to_a_run_of_another_selection():
    # the whole suite's count is not the count of one file's tests
    session = Session()
    session.bash("pytest", error=True, output="=== 5 failed, 100 passed in 3.1s ===\n")
    session.bash("pytest tests/test_cart.py -v 2>&1 | grep FAILED",
                 output="tests/test_cart.py::test_total FAILED\n")
    [text] = _failing(session)
    assert "`pytest tests/test_cart.py -v` failed; it was not run again" in text


def test_a_zero_exit_whose_output_counts_a_failure_is_no_passing_state():
    # a script that swallows its runner's status (``jest; exit 0``): a passing state would
    # replace a failing one an earlier session stored
    session = Session()
    session.bash("npm test", output="FAIL src/cart.test.ts\nTests:       1 failed, 3 passed\n")
    assert _states(session) == []


def test_a_publish_names_the_registry_it_went_to_and_a_local_one_is_nothing():
    added = "+ @acme/widgets@1.4.0\n"
    github = "npm notice Publishing to https://npm.pkg.github.com/ with tag latest\n" + added
    assert lo.published(("npm", "publish"), github) == lo.Published(
        "npm.pkg.github.com", "@acme/widgets", "1.4.0", "with tag latest")
    assert lo.published(("npm", "publish", "--registry", "https://npm.acme.dev/"), added) == \
        lo.Published("npm.acme.dev", "@acme/widgets", "1.4.0")
    # a registry on this machine (verdaccio) is a rehearsal; without a word of where it
    # went, the record cannot say which registry has it
    local = "npm notice Publishing to http://localhost:4873/ with tag latest\n" + added
    assert lo.published(("npm", "publish"), local) is None
    assert lo.published(("npm", "publish", "--registry=http://127.0.0.1:4873"), added) is None
    assert lo.published(("npm", "publish"), added) is None


def test_a_rehearsal_the_output_owns_up_to_is_nothing():
    # ``dry-run=true`` in .npmrc: nothing on the command line says it
    rehearsal = ("npm notice Publishing to https://registry.npmjs.org/ with tag latest and "
                 "default access (dry-run)\n+ @acme/widgets@1.4.0\n")
    assert lo.published(("npm", "publish"), rehearsal) is None


def test_a_later_look_at_ci_leaves_a_local_failure_unsaid():
    # the fix may have been proved on CI instead: its checks may be this one
    for look in ("gh run watch 12345 --exit-status", "gh pr checks 7 --watch",
                 "gh run view 12345"):
        session = Session()
        session.bash("pytest", error=True, output=PYTEST_RED)
        session.edit(f"{ROOT}/shop/cart.py", "a", "b")
        session.bash("git push", output="")
        session.bash(look, output="✓ main CI · 12345\n")
        assert _failing(session) == [], look


def test_a_check_pointed_at_another_folder_outside_the_project_is_not_its_state():
    # run from the project, but on another repository's files
    for command in ("pytest /home/dev/other/tests", "npm --prefix ../other test",
                    "make -C /home/dev/other test",
                    "cargo test --manifest-path=../other/Cargo.toml"):
        session = Session()
        session.bash(command, error=True, output=PYTEST_RED)
        assert _failing(session) == [], command


def test_a_check_pointed_at_a_windows_folder_outside_the_project_is_not_its_state():
    session = Session(cwd="C:/Users/dev/shop")
    session.bash(r"pytest C:\Users\dev\other\tests", error=True, output=PYTEST_RED)
    assert _failing(session) == []
    session = Session(cwd="C:/Users/dev/shop")
    session.bash(r"pytest tests\test_cart.py", error=True, output=PYTEST_RED)
    assert len(_failing(session)) == 1  # a relative Windows path stays in the project


def test_a_checkout_moved_under_the_failed_check_leaves_it_unsaid():
    # what failed is no longer the code there: another branch, edits thrown away, a pull
    for moved in ("git checkout main", "git switch main", "git reset --hard HEAD~1",
                  "git stash", "git checkout -- shop/cart.py", "git restore shop/cart.py",
                  "git pull --rebase", "git -C /home/dev/shop stash pop"):
        session = Session()
        session.bash("pytest", error=True, output=PYTEST_RED)
        session.bash(moved, output="")
        assert _failing(session) == [], moved


def test_git_commands_that_leave_the_files_as_they_are_do_not_unsay_it():
    for kept in ("git checkout -b fix-cart", "git switch -c fix-cart", "git commit -am wip",
                 "git push", "git stash list", "git restore --staged shop/cart.py",
                 "git reset HEAD shop/cart.py", "cd /tmp/other && git checkout main",
                 "git pull"):
        session = Session()
        session.bash("pytest", error=True, output=PYTEST_RED)
        session.bash(kept, output="Already up to date.\n" if kept == "git pull" else "")
        assert len(_failing(session)) == 1, kept


def test_tests_that_failed_for_a_browser_or_a_docker_daemon_the_machine_lacks_are_not_stored():
    for missing in ("browserType.launch: Executable doesn't exist at /home/dev/.cache/ms-playw"
                    "right/chromium-1105/chrome-linux/chrome\n  Please run: npx playwright "
                    "install\n", "Cannot connect to the Docker daemon at unix:///var/run/"
                    "docker.sock. Is the docker daemon running?\n"):
        session = Session()
        session.bash("npx playwright test", error=True,
                     output=f"  ✘  1 [chromium] › cart.spec.ts:3:1 › adds (12ms)\n{missing}"
                            "  1 failed\n")
        assert _failing(session) == [], missing


def test_cargo_targets_that_failed_are_a_failure_whatever_the_last_binary_said():
    # ``--no-fail-fast`` runs on after a failing binary; its tail ends with cargo's own count
    tail = ("test result: ok. 4 passed; 0 failed; 0 ignored\n\n"
            "error: 2 targets failed:\n    `-p tally --lib`\n    `-p tally --test parse`\n")
    assert lo.output_outcome(tail) == lo.FAILED
    assert lo.failure_summary(tail) == "error: 2 targets failed:"
