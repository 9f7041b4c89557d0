"""tested-by / built-with / depends-on, and the command parsing that decides what succeeded."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.shell import invocations, unwrap
from claimgraph.capture.extract.tooling import (
    command_form, one_form_per_check, packages_added, runner_of)

from .extract_helpers import ROOT, Session, facts

PROJECT = "shop"


@pytest.mark.parametrize("command, expected", [
    ("pytest -q tests/", ("core/tested-by", "pytest")),
    ("python -m pytest tests/test_cart.py -v", ("core/tested-by", "pytest")),
    ("FOO=1 uv run pytest", ("core/tested-by", "pytest")),
    (".venv/bin/python -m pytest", ("core/tested-by", "pytest")),
    ("cargo test", ("core/tested-by", "cargo test")),
    ("npm run test -- --coverage", ("core/tested-by", "npm test")),
    ("npx vitest run", ("core/tested-by", "vitest")),
    ("go test ./...", ("core/tested-by", "go test")),
    ("mix credo --strict", ("core/tested-by", "mix credo")),
    ("tsc --noEmit", ("core/tested-by", "tsc --noEmit")),
    ("make", ("core/built-with", "make")),
    ("cargo build --release", ("core/built-with", "cargo build")),
    ("python -m build", ("core/built-with", "python -m build")),
    ("npm run build", ("core/built-with", "npm run build")),
    ("mix compile --warnings-as-errors", ("core/built-with", "mix compile")),
    ("make install", None), ("make clean", None), ("pytest --version", None),
    ("make -n test", None), ("ruff check --show-settings", None), ("pytest --co -q", None),
    ("tsc --init", None), ("git commit -m test", None), ("./run_tests.sh", None),
])
def test_known_runners_are_recognised(command, expected):
    [invocation] = invocations(command)
    assert runner_of(invocation.argv) == expected


@pytest.mark.parametrize("command, expected", [
    ("pip install requests", ["requests"]),
    ("pip install 'requests[socks]>=2.31' httpx==0.27", ["requests", "httpx"]),
    ("python -m pip install -U rich", ["rich"]),
    ("uv add --group dev pytest", ["pytest"]),
    ("uv pip install fastapi", ["fastapi"]),
    ("poetry add -G dev black", ["black"]),
    ("npm install --save-dev @types/node@20 react@18", ["@types/node", "react"]),
    ("npm i -D vitest", ["vitest"]),
    ("pnpm add zod", ["zod"]),
    ("cargo add serde --features derive", ["serde"]),
    ("go get github.com/spf13/cobra@v1.8.0", ["github.com/spf13/cobra"]),
    ("pip install -r requirements.txt", []), ("pip install -e .", []),
    ("pip install --user httpie", []), ("npm install -g typescript", []),
    ("npm install", []), ("pip install --upgrade pip", []),
    ("pip install ./vendor/pkg", []), ("pip install git+https://github.com/x/y", []),
    ("npm install ../local-lib", []), ("go get ./...", []), ("cargo install ripgrep", []),
    ("pip install dist/shop-1.0.whl", []),
])
def test_package_additions_name_only_real_packages(command, expected):
    [invocation] = invocations(command)
    assert packages_added(invocation.argv) == expected


def test_only_commands_joined_by_and_to_the_end_are_confirmed():
    found = invocations("make lint; cd web && npm test || echo failed")
    assert [(i.argv[0], i.confirmed) for i in found] == [
        ("make", False), ("cd", False), ("npm", False), ("echo", False)]
    found = invocations("cd web && npm install zod && npm test")
    assert [i.confirmed for i in found] == [True, True, True]


def test_a_pipe_and_a_background_run_are_marked():
    [piped] = invocations("pytest 2>&1 | tail -5")
    assert piped.piped and piped.filtered and piped.confirmed
    [grepped] = invocations("pytest | grep FAILED")
    assert grepped.piped and not grepped.filtered
    [background] = invocations("npm run dev &")
    assert not background.confirmed


def test_unreadable_lines_yield_no_commands():
    # a substitution's command is not one the line surely ran: only the words around it are
    assert [run.argv for run in invocations("echo $(pip install evil) && pytest")] == [
        ("echo",), ("pytest",)]
    assert invocations("pytest 'unbalanced") == ()
    assert invocations("pytest \"$(echo unbalanced\"") == ()
    assert invocations("(cd web && npm test)") == ()


def test_cd_changes_the_directory_of_what_follows():
    found = invocations("cd apps/web && pnpm test", cwd="/repo")
    assert found[1].cwd == "/repo/apps/web"


def test_wrappers_are_removed():
    assert unwrap(("sudo", "timeout", "60", "npx", "--yes", "jest")) == ("jest",)
    assert unwrap(("poetry", "run", "python", "-m", "pytest", "-x")) == ("pytest", "-x")


def test_successful_runs_give_project_tooling_facts():
    session = Session()
    session.bash("python -m pytest tests -q", output="5 passed")
    session.bash("npm run build 2>&1 | tail -3")
    session.bash("python -m shop.fetch", error=True,
                 output="ModuleNotFoundError: No module named 'requests'")
    session.bash("uv add requests", output="Resolved 5 packages")
    found = session.extract()
    assert facts(found) == {(PROJECT, "core/tested-by", "python -m pytest"),
                            (PROJECT, "core/built-with", "npm run build"),
                            (PROJECT, "core/depends-on", "requests")}
    dep = next(c for c in found if c["predicate"] == "core/depends-on")
    assert dep["evidence"] == ["transcript#L7: uv add requests"]
    assert (dep["object_type"], dep["subject_type"], dep["source_type"]) == (
        "package", "project", "session-log")


def test_installs_nothing_explained_are_a_glance_at_the_manifest():
    """A venv filled by hand: packages the person never named and no failure asked for."""
    session = Session()
    session.bash("uv add httpx loguru", output="Resolved 3 packages")
    session.prompt("Please use rich for the console output.")
    session.bash("uv add rich", output="Resolved 4 packages")
    session.bash("python -m shop", error=True, output="ModuleNotFoundError: No module named 'yaml'")
    session.bash("uv add pyyaml", output="Resolved 5 packages")
    session.bash("python -m shop", error=True,
                 output="ModuleNotFoundError: No module named 'click'")
    session.bash("uv add click", output="Resolved 6 packages")
    assert {f[2] for f in facts(session.extract()) if f[1] == "core/depends-on"} == {
        "rich", "click"}  # pyyaml's failure named `yaml`, not the package: not established


@pytest.mark.parametrize("result", [
    {"error": True, "output": "Exit code 1\nERROR: No matching distribution found"},
    {"extras": {"exit_code": 2}},
    {"answered": False},
    {"extras": {"backgroundTaskId": "b1"}},
])
def test_failed_unfinished_or_backgrounded_commands_give_nothing(result):
    session = Session()
    session.tool("Bash", {"command": "pytest && pip install requests"}, **result)
    assert session.extract() == []


def test_a_masked_pipe_status_is_enough_for_a_runner_but_not_for_a_package():
    session = Session()
    session.bash("pip install reqests 2>&1 | tail -2")
    session.bash("cargo test --workspace 2>&1 | tail -2")
    assert facts(session.extract()) == {(PROJECT, "core/tested-by", "cargo test --workspace")}


@pytest.mark.parametrize("command, output", [
    ("python3 -m pytest -q 2>&1 | tail -3", "/usr/bin/python3: No module named pytest"),
    ("pytest --cov 2>&1 | tail -3",
     "ERROR: usage: pytest [options] [file_or_dir]\npytest: error: unrecognized arguments: --cov"),
    ("ruff check --strict . 2>&1 | head", "error: unexpected argument '--strict' found"),
    ("npm run typecheck 2>&1 | tail", 'npm error Missing script: "typecheck"'),
    ("make test 2>&1 | tail -2", "make: *** No rule to make target 'test'.  Stop."),
    ("mypy src | tail -1", "bash: mypy: command not found"),
])
def test_a_masked_run_whose_output_says_the_check_never_ran_is_no_check(command, output):
    """A pipe hides the status; the output says the runner refused or was not there."""
    session = Session()
    session.bash(command, output=output)
    assert facts(session.extract()) == set()


def test_a_masked_run_whose_tests_fail_on_an_import_still_ran_the_check():
    session = Session()
    session.bash("python3 -m pytest -q 2>&1 | tail -3",
                 output="E   ModuleNotFoundError: No module named 'requests'\n1 error")
    assert facts(session.extract()) == {(PROJECT, "core/tested-by", "python3 -m pytest")}


@pytest.mark.parametrize("command", [
    "cd /tmp/scratch && tox -e lint", 'cd "$TMPDIR/copy" && uv build --wheel',
])
def test_a_run_after_a_cd_out_of_the_project_or_one_not_followed_is_not_its_check(command):
    session = Session()
    session.bash(command, output="3 passed")
    session.bash("cd tests && pytest -q", output="3 passed")
    assert facts(session.extract()) == {(PROJECT, "core/tested-by", "pytest")}


def test_a_session_placed_away_from_where_it_was_recorded_keeps_its_cd_into_a_subfolder():
    """Capture may place a session at another root than the folder it was recorded in (the
    recording machine's path): a cd into a subfolder of that folder is still the project."""
    session = Session()
    session.bash("cd apps/web && pnpm test", output="3 passed")
    session.bash("cd /tmp/scratch && tox -e lint", output="3 passed")
    assert facts(session.extract(project_root="/elsewhere/shop")) == {
        ("shop", "core/tested-by", "pnpm test")}


def test_gemini_reports_the_exit_code_inside_the_output():
    session = Session(agent="gemini")
    session.prompt("We need rich for the report tables.")
    session.tool("run_shell_command", {"command": "pip install RestrictedPython"},
                 output="Output: bash: pip: command not found\nExit Code: 127\nSignal: 0")
    session.tool("run_shell_command", {"command": "pip3 install rich"},
                 output="Output: Successfully installed rich\nExit Code: 0\nSignal: 0")
    assert facts(session.extract()) == {(PROJECT, "core/depends-on", "rich")}


def test_without_a_project_there_is_no_subject_for_tooling():
    session = Session(cwd=None)
    session.bash("pytest")
    assert session.extract() == []


def test_a_runner_used_many_times_is_one_fact_with_a_few_citations():
    session = Session()
    for _ in range(5):
        session.bash("pytest -q")
    [found] = [c for c in session.extract() if not c.get("finished_state")]
    assert len(found["evidence"]) == 3
    assert found["evidence"][0] == "transcript#L1: pytest -q"


def test_codex_shell_calls_are_read_from_their_argument_list():
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "cargo test --locked"], "workdir": ROOT},
                 extras={"exit_code": 0})
    assert facts(session.extract()) == {(PROJECT, "core/tested-by", "cargo test --locked")}


@pytest.mark.parametrize("command", [
    "pytest; echo done", "pytest || true", "pytest | grep -c passed",
    "pip install requests; ls", "npm test &",
])
def test_a_run_whose_own_status_the_line_hides_gives_nothing(command):
    session = Session()
    session.bash(command)
    assert session.extract() == []


def test_a_run_filtered_to_some_tests_is_remembered_as_the_plain_run():
    from claimgraph.capture.extract.tooling import command_form
    assert command_form(("pnpm", "test", "--grep", "Login form")) == "pnpm test"
    assert command_form(("pnpm", "test", "--", "--grep", "Cart|Checkout")) == \
        "pnpm test"
    assert command_form(("go", "test", "./...", "-run", "TestParse")) == "go test ./..."
    # a pattern under one folder picks packages, as a file picks tests: not how it is run
    assert command_form(("go", "test", "./pkg/store/...")) == "go test"


def test_a_scoped_package_is_the_tool_not_a_path():
    """``npx lint`` would fetch and run an unrelated package called "lint"."""
    from claimgraph.capture.extract.tooling import command_form
    assert command_form(("npx", "@biomejs/biome", "lint", "./src")) == "npx @biomejs/biome lint"
    assert command_form(("bunx", "@biomejs/biome@1.9", "check", ".")) == \
        "bunx @biomejs/biome@1.9 check ."
    assert command_form(("npx", "vitest", "run", "@/components/x.test.ts")) == "npx vitest run"
    assert command_form(("npx", "jest", "-t", "renders the header")) == "npx jest"


@pytest.mark.parametrize(("command", "form"), [
    ("tox -e unit", "tox -e unit"),  # a flag's value is kept with it: the whole command
    ("tox -e py3.11", "tox"),  # its value looks like a file: nothing half-said either
    ("jest -u src/x.test.ts", "jest"),  # after a short flag, a file is the run's aim
    ("uv run --group integration pytest tests/integration/test_x.py",
     "uv run --group integration pytest"),  # the wrapper's flag takes its value
])
def test_a_command_is_remembered_whole_or_as_the_plain_run(command, form):
    assert command_form(tuple(command.split())) == form


TESTED, BUILT = "core/tested-by", "core/built-with"


@pytest.mark.parametrize("forms, kept", [
    (["timeout 600 python -m pytest", "python -m pytest"], "python -m pytest"),
    (["cargo test --workspace", "cargo test --workspace --exclude ui"], "cargo test --workspace"),
    (["npx tsc --noEmit --skipLibCheck", "npx tsc --noEmit --strict"], "npx tsc --noEmit --strict"),
    (["dotnet test -c Release --nologo", "dotnet test --nologo"], "dotnet test --nologo"),
    (["go test", "go test -race"], "go test -race"),  # the stricter gate, as before
    (["uv run pytest", "pytest", ".venv/bin/python -m pytest"], "pytest"),
])
def test_variants_of_one_check_are_one_form(forms, kept):
    assert one_form_per_check([(TESTED, form) for form in forms], "") == {(TESTED, kept)}


def test_a_form_the_person_typed_wins_over_a_plainer_one():
    forms = [(TESTED, "pytest"), (TESTED, "uv run pytest")]
    assert one_form_per_check(forms, "run `uv run pytest` before you push") == {
        (TESTED, "uv run pytest")}


def test_different_checks_stay_apart():
    forms = [(TESTED, "tox -e lint"), (TESTED, "tox -e py312"), (TESTED, "pytest"),
             (TESTED, "uv run ruff"), (TESTED, "npx vitest"), (TESTED, "npx tsc --noEmit"),
             (BUILT, "npx tsc")]
    assert one_form_per_check(forms, "") == set(forms)


def test_a_session_running_one_check_in_two_forms_stores_one():
    session = Session()
    session.bash("timeout 900 python -m pytest -q", output="5 passed")
    session.bash("python -m pytest tests/test_cart.py", output="2 passed")
    assert facts(session.extract()) == {(PROJECT, TESTED, "python -m pytest")}


def test_a_check_that_is_only_the_toolchains_default_is_left_out():
    session = Session()
    session.bash("cargo test", output="test result: ok. 5 passed")
    session.bash("cargo build --release", output="Finished release")
    session.bash("cargo clippy -- -D warnings", output="Finished")
    assert facts(session.extract()) == {(PROJECT, TESTED, "cargo clippy -- -D warnings")}


def test_a_shortened_form_is_still_the_same_command():
    """What makes the command the command stays: the words naming the check as typed, a
    package pattern, and ``--`` with what follows it; files, test filters and reporting
    flags go."""
    def form(line: str) -> str:
        return command_form(tuple(line.split()))
    assert form("npm test -- --coverage") == "npm test -- --coverage"
    assert form("npm test -- tests/a.test.ts") == "npm test"
    assert form("cargo clippy --all-targets -- -D warnings") == \
        "cargo clippy --all-targets -- -D warnings"
    assert form("uv run ruff check src tests") == "uv run ruff check"
    assert form("npx vitest run src/a.test.ts") == "npx vitest run"
    assert form("golangci-lint run ./...") == "golangci-lint run ./..."
    assert form("cargo test -p store --lib") == "cargo test -p store --lib"
    assert form("uv run pytest -k parser -q") == "uv run pytest"
    assert form("npm run test:e2e -- --watch") == "npm run test:e2e -- --watch"  # no check


@pytest.mark.parametrize("command", [
    "pytest --co -q", "python -m pytest --collect-only tests", "uv run pytest --fixtures",
    "npx jest --listTests", "npx vitest list", "cargo test -- --list", "go test -list . ./...",
    "npx playwright test --list", "cargo nextest list", "npx mocha --dry-run",
    "tox -l", "nox --list", "npx eslint --print-config src/a.ts", "cargo test --no-run",
])
def test_a_runner_told_to_run_no_check_is_no_way_of_testing(command):
    """Listing, collecting or compiling the tests runs none of them: the command stored as
    how the project is tested would not test it."""
    session = Session()
    session.bash(command, output="collected 12 items")
    assert not [f for f in facts(session.extract()) if f[1] in (TESTED, BUILT)]


def test_an_unscoped_npx_name_needs_the_projects_manifest_to_name_it():
    """``npx <name>`` runs whatever package has that name when the project does not install
    it: stored only when a manifest the session saw lists it."""
    session = Session()
    session.bash("npx markdownlint docs/a.md", output="")
    session.bash("npx @biomejs/biome lint ./src", output="Checked 3 files")
    assert facts(session.extract()) == {(PROJECT, TESTED, "npx @biomejs/biome lint")}
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"},
                 output='{\n  "devDependencies": {\n    "markdownlint-cli": "^0.41.0"\n  }\n}')
    session.bash("npx markdownlint docs/a.md", output="")
    assert facts(session.extract()) == {(PROJECT, TESTED, "npx markdownlint")}
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"},
                 output='{\n  "scripts": {"tsc": "eslint ."},\n'
                        '  "devDependencies": {\n    "eslint": "^9.0.0"\n  }\n}')
    session.bash("npx eslint src", output="")
    session.bash("npx tsc --noEmit", output="")  # "typescript" is not in it: npx fetches "tsc"
    assert facts(session.extract()) == {(PROJECT, TESTED, "npx eslint")}


def test_a_package_put_into_an_environment_is_no_dependency_the_session_gave_the_project():
    """``pip install click`` after "No module named 'click'" cured the environment; the
    manifest, not the session, says what the project depends on (the cure is a lesson).
    Named by the person, or written into the manifest, it is one."""
    session = Session()
    session.bash("python -m shop", error=True,
                 output="ModuleNotFoundError: No module named 'click'")
    session.bash("pip install click", output="Successfully installed click-8.1")
    session.bash("uv pip install click", output="Installed 1 package")
    assert not [f for f in facts(session.extract()) if f[1] == "core/depends-on"]
    session.bash("uv add click", output="Resolved 6 packages")
    assert (PROJECT, "core/depends-on", "click") in facts(session.extract())
    session = Session()
    session.prompt("We need click for the command line.")
    session.bash("pip install click", output="Successfully installed click-8.1")
    assert (PROJECT, "core/depends-on", "click") in facts(session.extract())


def test_a_build_that_stamps_one_releases_values_is_no_way_of_building():
    """A build with a version, date or commit typed into it is that day's release; the plain
    build beside it is how the project builds."""
    s = Session()
    s.bash('go build -trimpath -ldflags "-s -w -X main.version=0.4.1" -o bin/shop ./cmd/shop',
           output="")
    s.bash("cmake -DSHOP_VERSION=2.0.1 -S . -B build && make -C build", output="")
    s.bash("npm run build", output="built in 2.1s")
    assert {f[2] for f in facts(s.extract()) if f[1] == "core/built-with"} == {
        "npm run build", "make -C build"}


@pytest.mark.parametrize("argv, stamps", [
    (("go", "build", "-ldflags", "-X main.version=0.4.1"), True),
    (("cmake", "-DSHOP_VERSION=2.0.1", "-S", "."), True),
    (("gradle", "build", "-PbuildDate=2026-01-31"), True),
    (("mvn", "package", "-Drevision=1.2.0"), True),
    (("vite", "build", "--update=false"), False),  # "update" holds the letters of "date"
    (("webpack", "--validate=strict"), False),
    (("cmake", "-DCMAKE_POLICY_VERSION_MINIMUM=3.5", "-S", "."), False),
    (("uv", "build", "--python=3.12"), False),
])
def test_a_stamp_is_a_setting_named_for_a_version_date_or_commit(argv, stamps):
    from claimgraph.capture.extract.tooling import stamped
    assert stamped(argv) is stamps
