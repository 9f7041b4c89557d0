"""failure-mode lessons: a command failed, something changed, the same command then worked."""

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
    assert lesson["object"] == ("`pytest tests/test_settings.py` failed: KeyError: "
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


def test_a_failure_seen_through_a_pipe_is_read_from_its_output():
    """``pytest 2>&1 | tail -5`` reports tail's status: the output says how pytest did."""
    session = Session()
    session.bash("pytest 2>&1 | tail -5", output=FAILURE)
    session.edit(f"{ROOT}/src/shop/settings.py", "a", "b")
    session.bash("pytest 2>&1 | tail -5", output="3 passed in 0.2s")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"].startswith("`pytest` failed: KeyError: 'SECRET_KEY'")


def test_a_pipe_whose_output_says_nothing_is_no_verdict():
    session = Session()
    session.bash("pytest 2>&1 | tail -5", output=FAILURE)
    session.edit(f"{ROOT}/src/shop/settings.py", "a", "b")
    session.bash("pytest 2>&1 | tail -5", output="")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_bare_exit_code_fixed_by_an_edit_teaches_nothing():
    """"failed with exit code 101; fixed by editing main.rs" names no cause: not kept."""
    session = Session()
    session.bash("cargo build", error=True, output="Exit code 101\n\n", exit_code=101)
    session.edit(f"{ROOT}/src/main.rs", "a", "b")
    session.bash("cargo build")
    assert only(session.extract(), "core/failure-mode") == []


def test_colour_codes_are_stripped_from_the_error_line():
    session = Session()
    session.bash("npx vitest run", error=True,
                 output="\x1b[31m\x1b[1mAssertionError\x1b[22m: expected 1 to be 2\x1b[39m")
    session.edit(f"{ROOT}/src/sum.ts", "a - b", "a + b")
    session.bash("npx vitest run")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert "failed: AssertionError: expected 1 to be 2;" in lesson["object"]


def test_a_command_that_works_from_another_directory_teaches_where_to_run_it():
    session = Session()
    session.bash("node assets/build.js 2>&1", error=True,
                 output='Exit code 1\n✘ [ERROR] Could not resolve "js/app.js"\n\n1 error')
    session.tool("Read", {"file_path": f"{ROOT}/assets/build.js"}, output="const x = 1")
    session.bash(f"cd {ROOT}/assets && node build.js 2>&1", output="built in 40ms")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ('`node assets/build.js` fails when run from the project root: '
                                'Could not resolve "js/app.js"; run it from assets/ '
                                '(`node build.js`)')
    assert lesson["evidence"][0].startswith("transcript#L1: node assets/build.js")


def test_a_command_run_in_between_is_the_fix():
    session = Session()
    session.bash('git add -A && git commit -m "feat: x"', error=True,
                 output="Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\n"
                        "Run 'mix format' to fix.")
    session.bash("mix format")
    session.bash('git add -A && git commit -m "feat: x"', output="[main 1a2b3c] feat: x")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ("`git commit -m …` failed: [FORMAT] Code is not formatted; "
                                "fixed by running `mix format`")


def test_a_changed_flag_that_works_is_the_lesson():
    session = Session()
    session.bash("cargo build --features postgres", error=True,
                 output="error[E0433]: failed to resolve: use of undeclared crate `sqlx`")
    session.bash("cargo build --features sqlite", output="Finished dev")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"].endswith("`cargo build --features sqlite` works")


def test_a_working_form_too_long_to_quote_whole_is_no_lesson():
    """Cut at a length, the form that worked reads like the one that failed: no lesson."""
    long_tail = " ".join(f"--features feature{n}" for n in range(8))
    session = Session()
    session.bash(f"cargo build --features postgres {long_tail}", error=True,
                 output="error[E0433]: failed to resolve: use of undeclared crate `sqlx`")
    session.bash(f"cargo build --features sqlite {long_tail}", output="Finished dev")
    assert only(session.extract(), "core/failure-mode") == []
    fix = "cargo update -p sqlx --precise 0.7.4 " + " ".join(f"--pkg{n}" for n in range(12))
    session = Session()
    session.bash("cargo build", error=True,
                 output="error[E0433]: failed to resolve: use of undeclared crate `sqlx`")
    session.bash(fix, output="Updating crates.io index")
    session.bash("cargo build", output="Finished dev")
    assert not any("…" in c["object"] for c in only(session.extract(), "core/failure-mode"))


def test_a_long_failing_command_fixed_by_an_edit_is_still_a_lesson():
    """Only a command quoted as the fix must be whole; the failing one may be cut."""
    long_run = "python -m pytest " + " ".join(f"tests/unit/test_module_{n}.py" for n in range(6))
    session = Session()
    session.bash(long_run, error=True, output="ModuleNotFoundError: No module named 'shop.cart'")
    session.edit(f"{ROOT}/shop/__init__.py", "", "from . import cart\n")
    session.bash(long_run, output="6 passed")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert "fixed by editing" in lesson["object"]


def test_the_same_command_passing_with_nothing_changed_is_flaky_not_a_lesson():
    session = Session()
    session.bash("npm run build", error=True, output="Error: ECONNRESET")
    session.bash("npm run build", output="built")
    assert only(session.extract(), "core/failure-mode") == []


def test_fixing_the_sessions_own_new_code_is_work_in_progress():
    session = Session()
    session.write(f"{ROOT}/src/shop/tax.py", "def vat(a):\n    return a * 12\n")
    session.bash("pytest", error=True, output="E   AssertionError: assert 12 == 1.2")
    session.edit(f"{ROOT}/src/shop/tax.py", "a * 12", "a * 1.2")
    session.bash("pytest", output="1 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_reading_and_searching_commands_are_not_lessons():
    session = Session()
    session.bash("rg TODO src", error=True, output="", exit_code=1)
    session.edit(f"{ROOT}/src/shop/cart.py", "a", "b")
    session.bash("rg TODO src", output="src/shop/cart.py:1: TODO")
    assert only(session.extract(), "core/failure-mode") == []


def test_an_assistant_hypothesis_refuted_later_is_never_a_fact():
    session = _fixed_session()
    session.event("assistant", text="The failure is caused by a race in the cache layer; "
                                    "we decided to use a lock. Always use locks.")
    session.event("assistant", text="Correction: the cache was fine, it was the env var.")
    found = session.extract()
    assert all("cache" not in c["object"] and "lock" not in c["object"] for c in found)
    assert {c["rule"] for c in found if not c.get("finished_state")} == {"lessons", "tooling"}


def test_a_check_of_a_file_the_session_just_created_is_work_in_progress():
    session = Session()
    session.write(f"{ROOT}/tests/test_tax.py", "def test_vat():\n    assert vat(1) == 1.2\n")
    session.bash("pytest tests/test_tax.py::test_vat", error=True, output="E   NameError: vat")
    session.edit(f"{ROOT}/src/shop/tax.py", "x = 1", "def vat(a):\n    return a * 1.2")
    session.bash("pytest tests/test_tax.py::test_vat")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_check_or_another_failing_command_is_never_the_fix():
    from .extract_helpers import Session

    session = Session()
    for command in ("pnpm run typecheck", "pnpm run test", "pnpm run lint"):
        session.bash(command, error=True, output="Cannot find module 'zod'", exit_code=1)
    session.bash("pnpm install --frozen-lockfile", output="done", exit_code=0)
    for command in ("pnpm run typecheck", "pnpm run test", "pnpm run lint"):
        session.bash(command, output="ok", exit_code=0)
    lessons = [c["object"] for c in session.extract() if c["predicate"] == "core/failure-mode"]
    assert lessons and all(text.endswith("fixed by running `pnpm install --frozen-lockfile`")
                           for text in lessons), lessons


def test_commands_that_failed_alike_and_were_fixed_by_one_step_are_one_lesson():
    session = Session()
    for check in ("pnpm run test", "pnpm run typecheck"):
        session.bash(check, error=True, output="ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL")
    session.bash("pnpm install --frozen-lockfile")
    for check in ("pnpm run test", "pnpm run typecheck"):
        session.bash(check, output="ok")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ("`pnpm run test`, `pnpm run typecheck` failed; fixed by running "
                                "`pnpm install --frozen-lockfile`")
    assert len(lesson["evidence"]) == 3


def test_a_failure_in_a_change_the_session_made_itself_is_not_a_lesson():
    """The session broke its own change and fixed it: a slip in the work at hand, not a
    lesson about the project (the same failure and fix without the earlier edit is one)."""
    session = Session()
    session.edit(f"{ROOT}/src/shop/settings.py", "DEBUG = False", "DEBUG = os.environ['DEBUG']")
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE)
    session.edit(f"{ROOT}/src/shop/settings.py", "os.environ['SECRET_KEY']",
                 "os.environ.get('SECRET_KEY', '')")
    session.bash("pytest tests/test_settings.py", output="1 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_package_scripts_lint_is_a_check_never_the_fix_of_another_failure():
    session = Session()
    session.bash("pnpm test", error=True, output="Error: Cannot find module 'zod'\n1 failed")
    session.bash("pnpm lint", output="done")
    session.bash("pnpm test", output="12 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_run_narrowed_to_fewer_tests_that_passes_fixed_nothing():
    session = Session()
    session.bash("pnpm test", error=True, output="Error: expected 3 got 2\n1 failed")
    session.bash("pnpm test --grep 'Login form'", output="4 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_failed_assertion_fixed_together_with_its_tests_is_not_a_lesson():
    session = Session()
    session.bash("pnpm test", error=True,
                 output="AssertionError [ERR_ASSERTION]: Expected values to be strictly equal\n"
                        "1 failing")
    session.edit(f"{ROOT}/src/parser.ts", "return a", "return b")
    session.edit(f"{ROOT}/src/test/parser.test.ts", "equal(a)", "equal(b)")
    session.bash("pnpm test", output="12 passing")
    assert only(session.extract(), "core/failure-mode") == []
    # the same failure fixed in the code alone is still read as a lesson
    alone = Session()
    alone.bash("pnpm test", error=True,
               output="AssertionError [ERR_ASSERTION]: Expected values to be strictly equal\n"
                      "1 failing")
    alone.edit(f"{ROOT}/src/parser.ts", "return a", "return b")
    alone.bash("pnpm test", output="12 passing")
    assert len(only(alone.extract(), "core/failure-mode")) == 1


def test_a_command_that_got_the_run_past_its_error_is_the_fix():
    session = Session()
    session.bash("python -m pytest tests/ -v", error=True,
                 output="Exit code 1\n/usr/bin/python3: No module named pytest")
    session.bash("python -m pip install -r requirements-dev.txt",
                 output="Successfully installed pytest-8.0")
    session.bash("python -m pytest tests/test_parse.py -v", error=True,
                 output="FAILED tests/test_parse.py::test_x\n1 failed, 31 passed")
    [lesson] = [c for c in session.extract() if c["predicate"] == "core/failure-mode"]
    assert lesson["object"] == ("`python -m pytest tests/ -v` failed: /usr/bin/python3: No module "
                                "named pytest; fixed by running `python -m pip install -r "
                                "requirements-dev.txt`")


def test_the_same_error_again_is_not_getting_past_it():
    session = Session()
    session.bash("python -m pytest", error=True, output="No module named pytest")
    session.bash("pip install pytset", output="Successfully installed pytset-0.1")
    session.bash("python -m pytest", error=True, output="No module named pytest")
    assert [c for c in session.extract() if c["predicate"] == "core/failure-mode"] == []


def test_edits_between_two_failures_are_work_in_progress_not_a_fix():
    session = Session()
    session.bash("cargo build", error=True, output="error[E0425]: cannot find value `x`")
    session.edit(f"{ROOT}/src/lib.rs", "let y = 1;", "let x = 1;")
    session.bash("cargo build", error=True, output="error[E0308]: mismatched types")
    assert [c for c in session.extract() if c["predicate"] == "core/failure-mode"] == []


def test_another_target_with_another_error_is_not_getting_past_it():
    session = Session()
    session.bash("pytest tests/test_a.py", error=True, output="E   KeyError: 'name'")
    session.bash("make fixtures", output="done")
    session.bash("pytest tests/test_b.py", error=True, output="E   ValueError: bad")
    assert [c for c in session.extract() if c["predicate"] == "core/failure-mode"] == []


def test_a_prefix_that_broke_the_command_is_a_lesson():
    session = Session()
    session.bash("wrap bun run test", error=True,
                 output="error: unrecognized subcommand 'bun'\nUsage: wrap <COMMAND>")
    session.bash("bun run test", error=True, output="1273 pass\n1 fail")
    [lesson] = [c for c in session.extract() if c["predicate"] == "core/failure-mode"]
    assert lesson["object"] == ("`wrap bun run test` fails: error: unrecognized subcommand "
                                "'bun'; `bun run test` works")


def test_dropping_a_prefix_after_an_edit_is_not_that_lesson():
    session = Session()
    session.bash("wrap bun run test", error=True, output="error: unrecognized subcommand 'bun'")
    session.edit(f"{ROOT}/src/app.ts", "a", "b")
    session.bash("bun run test", output="12 pass")
    assert [c for c in session.extract() if c["predicate"] == "core/failure-mode"] == []


def test_a_shorter_command_that_fails_the_same_way_is_not_that_lesson():
    session = Session()
    session.bash("wrap bun run test", error=True, output="error: cannot open bunfig.toml")
    session.bash("bun run test", error=True, output="error: cannot open bunfig.toml")
    assert [c for c in session.extract() if c["predicate"] == "core/failure-mode"] == []


def test_the_same_lesson_learned_twice_is_one_lesson():
    session = Session()
    for _ in range(2):
        session.bash("wrap bun run test", error=True, output="error: unrecognized subcommand 'bun'")
        session.bash("bun run test", output="12 pass")
    [lesson] = [c for c in session.extract() if c["predicate"] == "core/failure-mode"]
    assert lesson["object"].startswith("`wrap bun run test` fails")


def test_a_fix_chained_before_the_rerun_in_one_line_is_the_fix():
    """``pip install x && <the failed command>``: the fix is in that line, not in whatever
    unrelated command ran before the next plain success of a similar command."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/requirements.txt"}, output="     1→httpx\n")
    session.bash("python -m app.cli config --show", error=True,
                 output="Traceback …\nModuleNotFoundError: No module named 'click'")
    session.bash("pip install click && python -m app.cli config --show", output="== config ==")
    session.bash("python -m app.cli db init", output="tables created")
    session.bash("python -m app.cli config --check", output="ok")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ("`python -m app.cli config --show` failed: ModuleNotFoundError: "
                                "No module named 'click'; fixed by running `pip install click` "
                                "(`click` must be installed by hand: no manifest of the project "
                                "lists it)")


def test_a_chained_line_with_a_check_or_after_edits_is_no_chained_fix():
    session = Session()
    session.bash("python -m app.cli serve", error=True,
                 output="ModuleNotFoundError: No module named 'click'")
    session.bash("pytest -q && python -m app.cli serve", output="1 passed\nserving")
    assert only(session.extract(), "core/failure-mode") == []
    session = Session()
    session.bash("python -m app.cli serve", error=True,
                 output="ModuleNotFoundError: No module named 'click'")
    session.edit(f"{ROOT}/app/cli.py", "import click", "import argparse")
    session.bash("pip install rich && python -m app.cli serve", output="serving")
    assert all("pip install rich" not in c["object"]
               for c in only(session.extract(), "core/failure-mode"))


def test_the_error_under_a_runners_banner_is_quoted_not_the_banner():
    from claimgraph.capture.extract.lessons import first_error_text
    output = ("==== ERRORS ====\n____ ERROR collecting tests/test_mail.py ____\n"
              "tests/test_mail.py:3: in <module>\n"
              "E   ModuleNotFoundError: No module named 'aiosmtplib'\n")
    assert first_error_text(output) == "ModuleNotFoundError: No module named 'aiosmtplib'"


def test_a_variable_set_in_front_that_made_the_run_work_is_how_to_run_it():
    session = Session()
    session.bash("pytest -q", error=True,
                 output="ImportError while importing test module\n"
                        "E   ModuleNotFoundError: No module named 'shop'")
    session.bash("PYTHONPATH=. pytest -q", output="4 passed")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ("`pytest -q` fails: ModuleNotFoundError: No module named 'shop'; "
                                "`PYTHONPATH=. pytest -q` works")


def test_a_setting_that_was_already_there_or_a_bare_exit_code_teaches_nothing():
    session = Session()
    session.bash("CI=1 pytest -q", error=True, output="E   KeyError: 'x'")
    session.bash("CI=1 pytest -q", output="4 passed")
    assert only(session.extract(), "core/failure-mode") == []
    session = Session()
    session.bash("pytest -q", error=True, output="", exit_code=1)
    session.bash("FORCE_COLOR=1 pytest -q", output="4 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_codex_sandbox_failure_reported_in_plain_text_is_a_failure():
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "pytest -q"], "workdir": ROOT},
                 output="failed in sandbox LinuxSeccomp with execution error: sandbox denied "
                        "exec error, exit code: 2, stdout: E   ModuleNotFoundError: No module "
                        "named 'shop'")
    session.tool("shell", {"command": ["bash", "-lc", "PYTHONPATH=. pytest -q"],
                           "workdir": ROOT}, output="4 passed", extras={"exit_code": 0})
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"].endswith("`PYTHONPATH=. pytest -q` works")


def test_a_new_setting_after_edits_is_the_fix_only_of_a_module_not_found():
    session = Session()
    session.bash("pytest -q", error=True, output="E   ModuleNotFoundError: No module named 'shop'")
    session.edit(f"{ROOT}/src/shop/__init__.py", "", "from .cart import Cart\n")
    session.bash("PYTHONPATH=. pytest -q", output="4 passed")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"].endswith("`PYTHONPATH=. pytest -q` works")
    session = Session()
    session.bash("pytest -q", error=True, output="E   KeyError: 'SECRET_KEY'")
    session.edit(f"{ROOT}/src/shop/settings.py", "os.environ['SECRET_KEY']",
                 "os.environ.get('SECRET_KEY', '')")
    session.bash("SECRET_KEY=x pytest -q", output="4 passed")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_patch_tool_run_through_the_shell_is_no_command_to_learn():
    session = Session(agent="codex")
    for output, code in (("error: patch does not apply", 1), ("Success.", 0)):
        session.tool("shell", {"command": ["apply_patch", "*** Begin Patch\n*** End Patch"],
                               "workdir": ROOT}, output=output, extras={"exit_code": code})
    assert only(session.extract(), "core/failure-mode") == []


def _script_fixed_by(fix: str, error: str) -> list[dict]:
    session = Session()
    session.bash("scripts/setup.sh --json", error=True, output=error, exit_code=127)
    session.bash(fix)
    session.bash("scripts/setup.sh --json", output='{"ok": true}')
    return only(session.extract(), "core/failure-mode")


def test_a_script_with_carriage_returns_ran_and_its_line_endings_failed():
    [lesson] = _script_fixed_by("perl -pi -e 's/\\r$//' scripts/setup.sh",
                                "/usr/bin/env: 'bash\\r': No such file or directory")
    assert lesson["object"] == ("`scripts/setup.sh --json` failed: /usr/bin/env: 'bash\\r': No "
                                "such file or directory; fixed by running "
                                "`perl -pi -e s/\\r$// scripts/setup.sh`")


def test_a_program_not_found_is_still_the_machine_whatever_the_fix():
    assert _script_fixed_by("chmod +x scripts/setup.sh",
                            "bash: scripts/setup.sh: command not found") == []
    assert _script_fixed_by("perl -pi -e 's/a/b/' scripts/setup.sh",
                            "/usr/bin/env: 'node': No such file or directory") == []


def test_a_fix_by_a_script_fed_on_standard_input_says_nothing_of_what_changed():
    assert _script_fixed_by("python3 - <<'PY'\nprint(1)\nPY",
                            "/usr/bin/env: 'bash\\r': No such file or directory") == []


def test_two_scripts_failing_alike_each_fixed_the_same_way_are_one_lesson():
    session = Session()
    for script in ("scripts/a.sh", "scripts/b.sh"):
        session.bash(script, error=True, exit_code=127,
                     output="/usr/bin/env: 'bash\\r': No such file or directory")
        session.bash(f"perl -pi -e 's/\\r$//' {script}")
        session.bash(script, output="done")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"].startswith("`scripts/a.sh`, `scripts/b.sh` failed: ")


def test_two_failures_fixed_in_different_files_stay_two_lessons():
    session = Session()
    for test, code in (("tests/test_a.py", "src/shop/a.py"), ("tests/test_b.py", "src/shop/b.py")):
        session.bash(f"pytest {test}", error=True, output=FAILURE)
        session.edit(f"{ROOT}/{code}", "x = 1", "x = 2")
        session.bash(f"pytest {test}", output="1 passed")
    assert len(only(session.extract(), "core/failure-mode")) == 2


def test_a_change_followed_by_the_same_failure_is_refuted_and_not_the_fix():
    session = Session()
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE)
    session.edit(f"{ROOT}/src/shop/config.py", "a = 1", "a = 2")
    session.bash("pytest tests/test_settings.py", error=True, output=FAILURE)
    session.edit(f"{ROOT}/src/shop/settings.py", "os.environ['SECRET_KEY']",
                 "os.environ.get('SECRET_KEY', '')")
    session.bash("pytest tests/test_settings.py", output="1 passed")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ("`pytest tests/test_settings.py` failed: KeyError: "
                                "'SECRET_KEY'; fixed by editing src/shop/settings.py")


def test_a_task_runners_progress_line_is_not_the_error():
    from claimgraph.capture.extract.lessons import first_error_text
    out = "[STARTED] Backing up original state...\n[FAILED] mdlint --fix [FAILED]\n"
    assert first_error_text(out).startswith("[FAILED] mdlint")


def test_a_git_command_pointed_at_another_repository_teaches_this_project_nothing():
    """git(1): ``-C <path>`` runs git there and ``--git-dir`` names the repository, so a
    hook that refused a commit there is that repository's; the project's own still teaches."""
    for place, found in (("-C /home/dev/other ", 0),
                         ("--git-dir=/home/dev/other/.git --work-tree=/home/dev/other ", 0),
                         ("--git-dir /srv/repos/other.git ", 0), ("", 1)):
        session = Session()
        session.bash(f'git {place}commit -am "feat: x"', error=True,
                     output="Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\n"
                            "Run 'mix format' to fix.")
        session.bash("mix format")
        session.bash(f'git {place}commit -am "feat: x"', output="[main 1a2b3c] feat: x")
        assert len(only(session.extract(), "core/failure-mode")) == found, place
