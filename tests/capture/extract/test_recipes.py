"""How a project is worked on, read from recipe files: what one types, what it runs, its role."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimgraph.capture.extract.recipes import (
    MAX_RECIPES, ROLES, SOME_MANAGER, Recipe, parse_recipes, recipe_format, role_of_command)

from .transcript_lines import codex_output, tool_input, tool_result

SUBAGENT = "claude-code/subagent.jsonl"
PORT = "claude-code/python-to-rust-port.jsonl"
SPOTTER_4TE = "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SPOTTER_FUM = "claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
CODEX = "codex/rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl"


def parse(path: str, text: str) -> list[Recipe]:
    """Parse and check the invariants callers rely on: quotes verbatim, roles from ROLES."""
    text = textwrap.dedent(text)
    recipes = parse_recipes(path, text)
    for item in recipes:
        assert item.quote and item.quote in text, item
        assert item.role in ROLES and item.runs and item.invocation
    return recipes


def table(recipes: list[Recipe]) -> dict[str, tuple[str, str, str]]:
    return {r.name: (r.invocation, r.runs, r.role) for r in recipes}


@pytest.mark.parametrize("path, expected", [
    ("Justfile", "justfile"), ("/p/justfile", "justfile"), (".justfile", "justfile"),
    ("tasks.just", "justfile"), ("Makefile", "makefile"), ("GNUmakefile", "makefile"),
    ("rules.mk", "makefile"), ("package.json", "package.json"), ("mix.exs", "mix"),
    ("tox.ini", "tox"), ("noxfile.py", "nox"), (".pre-commit-config.yaml", "pre-commit"),
    ("/p/.github/workflows/ci.yml", "github-actions"),
    (".github/workflows/release.yaml", "github-actions"), ("pyproject.toml", "pyproject"),
    ("Taskfile.yml", "taskfile"), ("taskfile.yaml", "taskfile"),
    ("/p/.github/dependabot.yml", None), ("ci.yml", None), ("Makefile.am.txt", None),
    ("README.md", None), ("", None),
])
def test_recipe_files_are_recognised_by_path(path, expected):
    assert recipe_format(path) == expected


# --- Justfile ---------------------------------------------------------------------------------

def test_justfile_recipes_pair_the_invocation_with_the_body():
    recipes = parse("Justfile", """\
        set shell := ["bash", "-c"]
        alias t := test
        version := "1.0"
        export RUST_LOG := "info"

        # Run all checks
        check:
            cargo llvm-cov --fail-under-lines 100

        test *args:
            cargo test {{args}}

        [private]
        _build target="release":
            @echo building {{target}}
            -cargo build --{{target}}

        ci: check test
    """)
    assert table(recipes) == {
        "check": ("just check", "cargo llvm-cov --fail-under-lines 100", "check"),
        "test": ("just test", "cargo test {{args}}", "test"),
        "_build": ("just _build", "echo building {{target}}; cargo build --{{target}}", "build"),
        "ci": ("just ci", "just check; just test", "check")}
    quotes = {r.name: r.quote for r in recipes}
    assert quotes["check"] == "cargo llvm-cov --fail-under-lines 100"
    assert quotes["ci"] == "ci: check test"


def test_a_justfile_fragment_of_body_lines_alone_yields_no_recipe():
    assert parse("Justfile", "    cargo test\n    cargo clippy\n") == []


# --- Makefile ---------------------------------------------------------------------------------

def test_makefile_targets_skip_pattern_rules_special_targets_and_variables():
    recipes = parse("Makefile", """\
        .PHONY: test lint build
        PYTHON ?= python3
        SRC := src
        CFLAGS = -O2 -I:include
        %.o: %.c
        \t$(CC) -c $< -o $@

        test: build
        \t@$(PYTHON) -m pytest -q \\
        \t  tests/
        lint:
        \t-ruff check .
        \t# a comment
        build dist:
        \tpython -m build
        out/app.o: src/app.c
        \tgcc -c src/app.c
        debug: CFLAGS += -g
        install: ; pip install -e .
        ifeq ($(OS),Windows_NT)
        endif
    """)
    assert table(recipes) == {
        "test": ("make test", "make build; python3 -m pytest -q tests/", "test"),
        "lint": ("make lint", "ruff check .", "lint"),
        "build": ("make build", "python -m build", "build"),
        "dist": ("make dist", "python -m build", "build"),
        "install": ("make install", "pip install -e .", "install")}
    assert {r.name: r.quote for r in recipes}["test"] == "@$(PYTHON) -m pytest -q \\"


def test_a_makefile_target_without_a_body_runs_its_prerequisites():
    [item] = parse("Makefile", ".PHONY: lint test\nall: lint test\n")
    assert (item.runs, item.role, item.quote) == ("make lint; make test", "check", "all: lint test")


def test_a_makefile_prerequisite_no_rule_defines_is_a_file_not_a_target_to_run():
    recipes = parse("Makefile", """\
        .PHONY: check
        build: src vendor
        \tgo build -o app ./cmd
        vendor:
        \tgo mod vendor
        check: build
        \tgo vet ./...
    """)
    assert table(recipes)["build"][1] == "make vendor; go build -o app ./cmd"
    assert table(recipes)["check"][1] == "make build; go vet ./..."
    # a fragment that shows no rule for them: what the prerequisites are is not known
    assert parse("Makefile", "all: lint test\n") == []


def test_a_makefile_help_comment_on_the_rule_line_is_no_prerequisite():
    recipes = parse("Makefile", """\
        .PHONY: types lint
        types: ## strict type check of all modules
        \tmypy src
        gate: lint ## Run all the gates
        \tpytest
        install: ; pip install -e . # a comment the shell reads
    """)
    assert table(recipes) == {
        "types": ("make types", "mypy src", "lint"),
        "gate": ("make gate", "make lint; pytest", "check"),
        "install": ("make install", "pip install -e . # a comment the shell reads", "install")}


def test_a_makefile_variable_set_in_the_file_is_put_in_and_make_reads_make():
    recipes = parse("Makefile", """\
        PY ?= .venv/bin/python
        OUT := $(shell pwd)
        check:
        \t$(PY) -m mypy $(OUT)
        \t$(MAKE) test
        \t${MAKE} lint
    """)
    assert table(recipes)["check"][1] == (
        ".venv/bin/python -m mypy $(OUT); make test; make lint")


@pytest.mark.parametrize(("name", "runs", "expected"), [
    ("all", "make build; make test", True),
    ("default", "just build", True),
    ("package", "pnpm run compile && pnpm run bundle", True),
    ("verify", "bun run build && bun run typecheck && bun run test", False),
    ("check", "make lint; make test", False),
    ("release", "npm run build && npm publish", False),
    ("build", "make clean; go build ./...", False),
    ("docs", "make -C docs html", False),
])
def test_a_recipe_that_only_calls_others_is_told_by_them_unless_it_is_a_gate(name, runs,
                                                                              expected):
    from claimgraph.capture.extract.recipe_common import only_calls_others, recipe
    item = recipe(name, f"make {name}", [runs], runs, "makefile")
    assert item is not None and only_calls_others(item) is expected


# --- package.json scripts ---------------------------------------------------------------------

def test_package_json_scripts_run_through_the_declared_package_manager():
    recipes = parse("package.json", """\
        {
          "packageManager": "yarn@4.5.0",
          "scripts": {
            "dev": "vite",
            "build": "tsc -b && vite build",
            "test": "vitest run",
            "lint": "eslint .",
            "typecheck": "tsc --noEmit",
            "format": "prettier --write ."
          },
          "dependencies": { "react": "^19.0.0" }
        }
    """)
    assert table(recipes) == {
        "dev": ("yarn run dev", "vite", "run"),
        "build": ("yarn run build", "tsc -b && vite build", "build"),
        "test": ("yarn run test", "vitest run", "test"),
        "lint": ("yarn run lint", "eslint .", "lint"),
        "typecheck": ("yarn run typecheck", "tsc --noEmit", "lint"),
        "format": ("yarn run format", "prettier --write .", "format")}


@pytest.mark.parametrize("text, manager", [
    ('{"packageManager": "pnpm@9.1.0", "scripts": {"a": "vitest"}}', "pnpm"),
    ('{"scripts": {"a": "vitest", "b": "pnpm run a"}}', SOME_MANAGER),
    ('{"scripts": {"a": "vitest"}}', SOME_MANAGER),
])
def test_only_the_package_manager_field_names_the_manager_in_the_text(text, manager):
    """The text alone says which manager only by its field; the session's record decides
    the rest (``package_manager``): npm would be a guess."""
    recipes = parse("package.json", text)
    assert recipes[0].invocation == f"{manager} run a"


def test_a_scripts_fragment_without_its_section_key_yields_scripts_not_dependencies():
    recipes = parse("package.json", """\
        "test": "vitest run",
        "vitest": "^3.2.4",
        "name": "assets",
        "@repo/ui": "workspace:*",
    """)
    assert table(recipes) == {"test": (f"{SOME_MANAGER} run test", "vitest run", "test")}
    assert not recipes[0].placed  # which object it sits in, the fragment does not show


# --- mix aliases ------------------------------------------------------------------------------

MIX_ALIASES = """\
    defmodule Shop.MixProject do
      def project do
        [app: :shop, elixir: "~> 1.17", aliases: aliases(), deps: deps()]
      end

      defp aliases do
        [
          setup: ["deps.get", "ecto.setup", "assets.setup"],
          "ecto.reset": ["ecto.drop", "ecto.setup"],
          "assets.build": [
            "tailwind shop",
            "esbuild shop"
          ],
          test: ["ecto.create --quiet", "ecto.migrate --quiet", "test"],
          quality: ["format --check-formatted", "credo --strict", "dialyzer"]
        ]
      end

      defp deps do
        [{:phoenix, "~> 1.7"}]
      end
    end
"""


def test_mix_aliases_are_read_from_the_aliases_function_only():
    recipes = parse("mix.exs", MIX_ALIASES)
    assert table(recipes) == {
        "setup": ("mix setup", "deps.get; ecto.setup; assets.setup", "other"),
        "ecto.reset": ("mix ecto.reset", "ecto.drop; ecto.setup", "other"),
        "assets.build": ("mix assets.build", "tailwind shop; esbuild shop", "build"),
        "test": ("mix test", "ecto.create --quiet; ecto.migrate --quiet; test", "test"),
        "quality": ("mix quality", "format --check-formatted; credo --strict; dialyzer",
                    "check")}


def test_a_mix_fragment_yields_alias_lists_but_not_project_keywords():
    recipes = parse("mix.exs", """\
          quality: ["credo", "dialyzer", "deps.audit"],
          elixir: "~> 1.19",
          extra_applications: [:logger],
          elixirc_paths: ["lib", "test/support"],
          only: [:dev, :test]
    """)
    assert table(recipes) == {"quality": ("mix quality", "credo; dialyzer; deps.audit", "check")}


# --- tox and nox ------------------------------------------------------------------------------

def test_tox_envs_yield_their_commands():
    recipes = parse("tox.ini", """\
        [tox]
        env_list = py311, lint
        [testenv]
        deps = pytest
        commands =
            pytest {posargs:tests}
        [testenv:lint]
        skip_install = true
        commands = ruff check .
            ruff format --check .
        [testenv:docs]
        commands_pre = echo pre
    """)
    assert table(recipes) == {
        "testenv": ("tox", "pytest {posargs:tests}", "test"),
        "lint": ("tox -e lint", "ruff check .; ruff format --check .", "lint")}


def test_nox_sessions_yield_their_session_run_calls():
    recipes = parse("noxfile.py", """\
        import nox

        @nox.session(python=["3.11", "3.12"])
        def tests(session: nox.Session) -> None:
            session.install("-e", ".[test]")
            session.run("pytest", "--cov", *session.posargs)

        @nox.session(name="type-check")
        def typecheck(session):
            session.run(
                "mypy", "src",
            )

        def helper(session):
            session.run("not", "a", "session")
    """)
    assert table(recipes) == {
        "tests": ("nox -s tests", "pytest --cov {posargs}", "test"),
        "type-check": ("nox -s type-check", "mypy src", "lint")}


def test_an_indented_nox_fragment_is_dedented_before_parsing():
    recipes = parse("noxfile.py", """\
            @nox.session
            def lint(session):
                session.run("ruff", "check", ".")
    """)
    assert table(recipes) == {"lint": ("nox -s lint", "ruff check .", "lint")}


# --- pre-commit, GitHub Actions, Taskfile -----------------------------------------------------

def test_pre_commit_hooks_name_their_repo_and_rev_or_their_local_entry():
    recipes = parse(".pre-commit-config.yaml", """\
        repos:
          - repo: https://github.com/astral-sh/ruff-pre-commit
            rev: v0.6.9
            hooks:
              - id: ruff
                args: [--fix, "--exit-non-zero-on-fix"]
              - id: ruff-format
          - repo: local
            hooks:
              - id: pytest
                name: pytest
                entry: .venv/bin/python -m pytest -q
                language: system
                pass_filenames: false
    """)
    assert table(recipes) == {
        "ruff": ("pre-commit run ruff",
                 "ruff --fix --exit-non-zero-on-fix (from astral-sh/ruff-pre-commit v0.6.9)",
                 "lint"),
        "ruff-format": ("pre-commit run ruff-format",
                        "ruff-format (from astral-sh/ruff-pre-commit v0.6.9)", "format"),
        "pytest": ("pre-commit run pytest", ".venv/bin/python -m pytest -q", "test")}
    assert {r.name: r.quote for r in recipes}["ruff"] == "- id: ruff"


WORKFLOW = """\
    name: CI
    on:
      push:
        branches: [main]
    jobs:
      test:
        runs-on: ubuntu-latest
        defaults:
          run:
            shell: bash
        steps:
          - uses: actions/checkout@v4
          - name: Install
            run: uv sync --all-extras
          - name: Run the suite
            run: |
              # fail fast
              uv run pytest -q
              uv run coverage report --fail-under=90
      lint:
        runs-on: ubuntu-latest
        steps:
          - run: uv run ruff check .
          - run: >-
              npx prettier --check .
"""


def test_workflow_run_steps_are_named_by_step_or_job_with_roles_from_step_and_body():
    recipes = parse("/p/.github/workflows/ci.yml", WORKFLOW)
    assert [(r.name, r.invocation, r.runs, r.role) for r in recipes] == [
        ("Install", "CI ci.yml job test", "uv sync --all-extras", "install"),
        ("Run the suite", "CI ci.yml job test",
         "uv run pytest -q; uv run coverage report --fail-under=90", "test"),
        ("lint", "CI ci.yml job lint", "uv run ruff check .", "lint"),
        ("lint", "CI ci.yml job lint", "npx prettier --check .", "format")]
    assert recipes[1].quote == "uv run pytest -q"
    assert recipes[2].quote == "- run: uv run ruff check ."


def test_a_workflow_fragment_without_its_job_still_yields_the_step():
    [item] = parse(".github/workflows/ci.yml", "      - name: Test\n        run: go test ./...\n")
    assert (item.name, item.invocation, item.runs, item.role) == (
        "Test", "CI ci.yml", "go test ./...", "test")


def test_taskfile_tasks_yield_cmds_task_calls_and_block_commands():
    recipes = parse("Taskfile.yml", """\
        version: '3'
        vars:
          GREETING: hello
        tasks:
          build:
            desc: Build the binary
            cmds:
              - go build ./...
              - task: lint
          test:
            cmds:
              - cmd: go test -race ./...
          lint: golangci-lint run
          gen:
            cmds:
              - |
                buf generate
                go generate ./...
        includes:
          docs: ./docs
    """)
    assert table(recipes) == {
        "build": ("task build", "go build ./...; task lint", "build"),
        "test": ("task test", "go test -race ./...", "test"),
        "lint": ("task lint", "golangci-lint run", "lint"),
        "gen": ("task gen", "buf generate; go generate ./...", "other")}


# --- pyproject task runners -------------------------------------------------------------------

def test_pyproject_poe_hatch_and_pdm_tasks_are_recipes():
    recipes = parse("pyproject.toml", """\
        [project]
        name = "x"
        [tool.poe.tasks]
        test = "pytest -q"
        check = ["lint", "test"]
        lint = { cmd = "ruff check ." }
        [tool.poe.tasks.serve]
        help = "Run the app"
        cmd = "uvicorn app:app --reload"
        [tool.hatch.envs.default.scripts]
        cov = "pytest --cov"
        [tool.hatch.envs.types.scripts]
        check = ["mypy src", "pyright"]
        [tool.pdm.scripts]
        _.env_file = ".env"
        start = "flask run"
        ci = { composite = ["lint", "pytest tests"] }
    """)
    found = {(r.source, r.name): (r.invocation, r.runs, r.role) for r in recipes}
    assert found == {
        ("poe", "test"): ("poe test", "pytest -q", "test"),
        ("poe", "check"): ("poe check", "poe lint; poe test", "check"),
        ("poe", "lint"): ("poe lint", "ruff check .", "lint"),
        ("poe", "serve"): ("poe serve", "uvicorn app:app --reload", "run"),
        ("hatch", "cov"): ("hatch run cov", "pytest --cov", "test"),
        ("hatch", "check"): ("hatch run types:check", "mypy src; pyright", "check"),
        ("pdm", "start"): ("pdm run start", "flask run", "run"),
        ("pdm", "ci"): ("pdm run ci", "pdm run lint; pytest tests", "check")}
    serve = next(r for r in recipes if r.name == "serve")
    assert serve.quote == 'cmd = "uvicorn app:app --reload"'


# --- roles ------------------------------------------------------------------------------------

@pytest.mark.parametrize("command, role", [
    ("pytest -q", "test"), ("uv run pytest", "test"), (".venv/bin/pytest", "test"),
    ("python -m pytest tests", "test"), ("cargo test", "test"), ("go test ./...", "test"),
    ("mix test", "test"), ("npx vitest run", "test"), ("npm run test", "test"),
    ("turbo run test", "test"), ("ruff format .", "format"), ("cargo fmt", "format"),
    ("pnpm exec turbo run test:unit", "test"), ("npx nx run lint", "lint"),
    ("prettier --write .", "format"), ("ruff check .", "lint"), ("cargo clippy", "lint"),
    ("tsc --noEmit", "lint"), ("mix credo --strict", "lint"), ("eslint .", "lint"),
    ("tsc -b", "build"), ("cargo build --release", "build"), ("python -m build", "build"),
    ("next build", "build"), ("next dev", "run"), ("uvicorn app:app", "run"),
    ("mix phx.server", "run"), ("FOO=1 cargo run", "run"), ("echo hi", None),
    ("git status", None), ("pip install -e .", "install"),
])
def test_a_command_role_is_read_from_its_program_behind_any_wrapper(command, role):
    assert role_of_command(command) == role


@pytest.mark.parametrize("name, runs, role", [
    ("check", "cargo test", "check"), ("test:watch", "vitest", "test"),
    ("check-types", "tsc --noEmit", "lint"), ("format:check", "prettier --check .", "format"),
    ("dev", "vitest", "run"), ("verify", "x", "check"), ("all", "ruff check .; pytest", "check"),
    ("all", "cargo build", "build"), ("deploy", "fly deploy", "other"),
    ("go", "cargo build; cargo run", "run"),
])
def test_a_recipe_name_decides_its_role_before_its_body_does(name, runs, role):
    [item] = parse("Justfile", f"{name}:\n    " + "\n    ".join(runs.split("; ")) + "\n")
    assert item.role == role


# --- real lines from the fixture transcripts --------------------------------------------------

def test_the_justfile_the_rust_port_wrote_says_what_just_check_runs():
    recipes = parse("/tmp/x/Justfile", tool_input(PORT, 58)["content"])
    assert table(recipes) == {
        "check": ("just check", "cargo llvm-cov --fail-under-lines 100", "check"),
        "test": ("just test", "cargo test", "test"),
        "format": ("just format", "cargo fmt", "format"),
        "lint": ("just lint", "cargo clippy -- -D warnings", "lint")}


def test_the_mix_exs_an_agent_read_yields_its_test_alias():
    recipes = parse("/home/marco/projects/spotter/mix.exs", tool_result(SUBAGENT, 26))
    assert table(recipes) == {"test": ("mix test", "ash.setup --quiet; test", "test")}


def test_a_later_read_of_mix_exs_yields_the_quality_alias_the_session_added():
    recipes = parse("mix.exs", tool_result(SPOTTER_4TE, 48))
    assert table(recipes)["quality"] == ("mix quality", "credo; dialyzer; deps.audit", "check")


def test_the_app_package_json_a_codex_session_printed_runs_through_pnpm():
    recipes = table(parse("package.json", codex_output(CODEX, 171)))
    assert recipes["test"] == (f"{SOME_MANAGER} run test", "vitest run", "test")
    assert recipes["check-types"] == (f"{SOME_MANAGER} run check-types", "tsc --noEmit", "lint")
    assert recipes["dev"][2] == "run" and recipes["build"][2] == "build"


def test_the_assets_package_json_read_in_a_claude_session_has_one_npm_script():
    recipes = parse("assets/package.json", tool_result(SPOTTER_FUM, 646))
    assert table(recipes) == {"test": (f"{SOME_MANAGER} run test", "vitest run", "test")}


# --- bounded work -----------------------------------------------------------------------------

@pytest.mark.parametrize("path, recipe_text", [
    ("Justfile", "r{i}:\n    cargo test -p c{i}\n"), ("Makefile", "t{i}:\n\tpytest t{i}\n"),
    ("tox.ini", "[testenv:e{i}]\ncommands = pytest {i}\n"),
    (".pre-commit-config.yaml", "  - id: h{i}\n    entry: ruff {i}\n"),
    ("Taskfile.yml", "  t{i}:\n    cmds:\n      - go test ./p{i}\n"),
    ("noxfile.py", "@nox.session\ndef s{i}(session):\n    session.run('pytest', '{i}')\n"),
])
def test_a_recipe_file_with_more_recipes_than_the_bound_reports_the_first_ones(path,
                                                                              recipe_text):
    text = "".join(recipe_text.format(i=i) for i in range(MAX_RECIPES + 40))
    recipes = parse(path, text)
    assert len(recipes) == MAX_RECIPES
    assert recipes[0].runs.endswith("0") and recipes[-1].runs.endswith(str(MAX_RECIPES - 1))


# --- junk never raises ------------------------------------------------------------------------

RECIPE_PATHS = ["Justfile", "Makefile", "package.json", "mix.exs", "tox.ini", "noxfile.py",
                ".pre-commit-config.yaml", ".github/workflows/ci.yml", "pyproject.toml",
                "Taskfile.yml"]


@pytest.mark.parametrize("path", RECIPE_PATHS)
def test_binary_or_oversized_text_yields_no_recipes(path):
    assert parse_recipes(path, "\x7fELF\x02\x01\x00\x00") == []
    assert parse_recipes(path, "test:\n\tpytest\n" * 200_000) == []


@pytest.mark.parametrize("path", RECIPE_PATHS)
def test_a_large_text_of_noise_parses_without_error(path):
    noise = "".join(f'k{i}: [{{"x": ({i}, ]]] \\ "unterminated\n\t- |\n  @nox.session(\n'
                    for i in range(2000))
    assert all(isinstance(r, Recipe) for r in parse_recipes(path, noise))


@pytest.mark.parametrize("path", RECIPE_PATHS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_any_text_parses_without_error(path, text):
    for item in parse_recipes(path, text):
        assert item.role in ROLES


@pytest.mark.parametrize("path", RECIPE_PATHS)
@settings(max_examples=40, deadline=None)
@given(lines=st.lists(st.sampled_from([
    "test:", "\tpytest", "    cargo test", "jobs:", "  build:", "    steps:", "      - run: |",
    "          make", "tasks:", "  lint:", "    cmds:", "      - ruff", '"scripts": {', "}",
    '"test": "vitest"', "defp aliases do", '  test: ["a", "b"],', "end", "[testenv:lint]",
    "commands = ruff", "@nox.session", "def lint(session):", '    session.run("x")',
    "[tool.poe.tasks]", 'x = "y"', "- id: ruff", "repos:", "\\", "",
]), max_size=30))
def test_shuffled_recipe_lines_parse_without_error(path, lines):
    for item in parse_recipes(path, "\n".join(lines)):
        assert item.role in ROLES


def test_a_package_json_read_from_its_top_shows_fields_not_scripts():
    from claimgraph.capture.extract.recipes import parse_package_scripts

    head = '{\n  "name": "viewer",\n  "displayName": "Viewer",\n  "icon": "media/logo.png",\n'
    assert list(filter(None, parse_package_scripts(head))) == []
    fragment = '    "test": "vitest run",\n    "lint": "eslint src",\n'
    assert [r.name for r in filter(None, parse_package_scripts(fragment))] == ["test", "lint"]
