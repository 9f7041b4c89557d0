"""Task-runner recipes, as the session left the files that define them."""

from __future__ import annotations

import pytest

from .extract_helpers import ROOT, Session, facts, only

OLD = "check:\n    uv run pytest --cov\n\ntest:\n    uv run pytest\n"
NEW = ("check:\n    cargo llvm-cov --fail-under-lines 100\n\n"
       "lint:\n    cargo clippy -- -D warnings\n")


def test_one_fact_per_file_says_what_each_recipe_runs_cited_from_its_file():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/Justfile"}, output=OLD)
    session.write(f"{ROOT}/Justfile", NEW)
    [runs] = only(session.extract(), "x/runs")
    assert (runs["subject"], runs["object"]) == (
        "Justfile", "`just check` runs `cargo llvm-cov --fail-under-lines 100`; "
        "`just lint` runs `cargo clippy -- -D warnings`")
    assert runs["evidence"] == ["./Justfile: `cargo llvm-cov --fail-under-lines 100`",
                                "./Justfile: `cargo clippy -- -D warnings`"]


def test_a_rewritten_file_forgets_the_recipes_it_no_longer_has():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/Justfile"}, output=OLD)
    session.write(f"{ROOT}/Justfile", NEW)
    [runs] = only(session.extract(), "x/runs")
    assert "pytest" not in runs["object"] and "cargo clippy" in runs["object"]


def test_from_a_file_only_read_the_recipes_the_session_ran_count():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "test": "vitest run",\n    "build": "tsc -b",\n'
        '    "release:notes": "node x.js"\n  }\n}\n'))
    assert only(session.extract(), "x/runs") == []  # read: a list a glance gives
    session.bash("npm run test", output="ok")
    assert facts(only(session.extract(), "x/runs")) == {
        ("package.json", "x/runs", "`npm run test` runs `vitest run`")}


def test_a_recipe_file_below_the_root_is_named_by_its_path():
    session = Session()
    session.write(f"{ROOT}/apps/web/package.json", '{\n  "scripts": {\n    "build": "next build"'
                  '\n  }\n}\n')
    session.bash("cd apps/web && npm run build", output="built")
    [recipe] = only(session.extract(), "x/runs")
    assert recipe["subject"] == "apps/web/package.json"


def test_a_recipe_longer_than_one_short_line_of_shell_is_left_out():
    blob = "docker run --rm -v $PWD:/src -w /src " + "-e X=1 " * 12 + "img make test"
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "test": "vitest run",\n    "test:docker": "' + blob + '"\n'
        '  }\n}\n'))
    session.bash("npm run test && npm run test:docker", output="ok")
    [runs] = only(session.extract(), "x/runs")
    assert runs["object"] == "`npm run test` runs `vitest run`"


def test_a_task_file_under_node_modules_is_not_the_projects():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/node_modules/left-pad/package.json"}, output=(
        '{\n  "scripts": {\n    "test": "tape test.js"\n  }\n}\n'))
    assert only(session.extract(), "x/runs") == []


def test_of_runner_files_only_read_the_one_nearest_the_root_speaks_for_the_project():
    scripts = '{\n  "scripts": {\n    "test": "vitest run"\n  }\n}\n'
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=scripts)
    session.tool("Read", {"file_path": f"{ROOT}/packages/sdk/package.json"}, output=scripts)
    session.write(f"{ROOT}/packages/cli/package.json", scripts)
    session.bash("npm run test", output="ok")
    assert {c["subject"] for c in only(session.extract(), "x/runs")} == {
        "package.json", "packages/cli/package.json"}
    alone = Session()
    alone.tool("Read", {"file_path": f"{ROOT}/apps/web/package.json"}, output=scripts)
    alone.bash("npm run test", output="ok")
    assert {c["subject"] for c in only(alone.extract(), "x/runs")} == {"apps/web/package.json"}


def test_from_a_ci_workflow_only_read_the_checking_steps_count_unrun():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/.github/workflows/ci.yml"}, output=(
        "jobs:\n  test:\n    steps:\n      - run: pytest -q\n  notify:\n    steps:\n"
        "      - run: echo done\n"))
    [runs] = only(session.extract(), "x/runs")
    assert runs["object"] == "`CI ci.yml job test` runs `pytest -q`"


def test_a_runner_file_only_read_whose_run_recipe_only_serves_tells_nothing():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "dev": "vite",\n    "build": "vite build"\n  }\n}\n'))
    session.bash("npm run dev", output="ready in 300 ms")
    assert only(session.extract(), "x/runs") == []
    session.bash("npm run build", output="built")
    assert "`npm run build` runs `vite build`" in only(session.extract(), "x/runs")[0]["object"]


def test_a_recipe_run_and_told_by_its_file_is_one_fact_not_a_second_tested_by():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "typecheck": "tsc --noEmit",\n    "test": "vitest run"\n'
        '  }\n}\n'))
    session.bash("npm run typecheck", output="ok")
    session.bash("npx vitest run", output="3 passed")
    found = facts(session.extract())
    assert any(fact[1] == "x/runs" and "`npm run typecheck` runs `tsc --noEmit`" in fact[2]
               for fact in found)
    assert not any(fact[2] == "npm run typecheck" for fact in found)
    assert any(fact[1] == "core/tested-by" and "vitest" in fact[2] for fact in found)


def test_a_makefile_target_that_only_calls_others_is_left_out_of_the_fact():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/Makefile"}, output="test:\n\tnose\n")
    session.write(f"{ROOT}/Makefile", "all: lint test ## Build everything\n"
                  "lint:\n\truff check .\ntest:\n\tpytest\n")
    [runs] = only(session.extract(), "x/runs")
    assert runs["object"] == "`make lint` runs `ruff check .`; `make test` runs `pytest`"


def test_a_ci_step_two_workflows_run_is_told_once():
    session = Session()
    for name in ("build.yml", "release.yml"):
        session.tool("Read", {"file_path": f"{ROOT}/.github/workflows/{name}"}, output=(
            "jobs:\n  check:\n    steps:\n      - run: pytest -q\n"
            + ("      - run: ruff check .\n" if name == "release.yml" else "")))
    assert sorted(c["object"] for c in only(session.extract(), "x/runs")) == [
        "`CI build.yml job check` runs `pytest -q`",
        "`CI release.yml job check` runs `ruff check .`"]


def test_a_step_a_release_workflow_repeats_is_told_from_the_gate_even_when_read_first():
    """The release's file read before ``ci.yml``: its ``pytest -q`` is the gate's step,
    told from the workflow every change meets."""
    session = Session()
    for name in ("release.yml", "ci.yml"):
        session.tool("Read", {"file_path": f"{ROOT}/.github/workflows/{name}"}, output=(
            "jobs:\n  check:\n    steps:\n      - run: pytest -q\n"
            + ("      - run: python -m build\n" if name == "release.yml" else "")))
    assert sorted(c["object"] for c in only(session.extract(), "x/runs")) == [
        "`CI ci.yml job check` runs `pytest -q`",
        "`CI release.yml job check` runs `python -m build`"]


MANIFEST = ('{\n  "name": "ext",\n  "version": "0.0.1",\n  "publisher": "someone",\n'
            '  "scripts": {\n    "compile": "tsc -b",\n    "watch": "tsc -b -w",\n'
            '    "lint": "eslint src",\n    "publish:ext": "vsce publish"\n  }\n}\n')


def _told(session: Session) -> str:
    [runs] = only(session.extract(), "x/runs")
    return runs["object"]


def test_an_edit_that_changes_no_recipe_tells_only_what_checks_or_builds():
    """A version bump is no lesson about every script: the watcher and the publish chore it
    left alone are not told, the build and the lint (what the next agent runs) are; the
    edit's context line (``"publisher": …``) is no script."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.edit(f"{ROOT}/package.json", '  "version": "0.0.1",\n  "publisher": "someone",',
                 '  "version": "0.0.2",\n  "publisher": "someone",')
    # nothing in the record names the package manager: the scripts are told by name
    assert _told(session) == "script `compile` runs `tsc -b`; script `lint` runs `eslint src`"


def test_an_edited_file_tells_the_chore_it_changed_first():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.write(f"{ROOT}/package.json", MANIFEST.replace('"vsce publish"',
                                                           '"vsce publish --no-yarn"'))
    assert _told(session) == ("script `publish:ext` runs `vsce publish --no-yarn`; "
                              "script `compile` runs `tsc -b`; script `lint` runs `eslint src`")


def test_an_edited_file_tells_no_less_than_a_file_only_read():
    """The watcher the session ran counts, edited file or not."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.edit(f"{ROOT}/package.json", '"version": "0.0.1"', '"version": "0.0.2"')
    session.bash("npm run watch", output="watching")
    assert "`npm run watch` runs `tsc -b -w`" in _told(session)


def test_a_file_the_session_created_tells_what_it_ran_or_wired_to_its_own_script():
    """A new runner file's scripts are the scaffold's (``tsc -b``, ``eslint src``) until the
    session runs one; a script that runs a file the session wrote is its own tool."""
    session = Session()
    session.write(f"{ROOT}/package.json", MANIFEST)
    assert only(session.extract(), "x/runs") == []
    session.bash("npm run lint", output="ok")
    assert _told(session) == "`npm run lint` runs `eslint src`"
    own = Session()
    own.write(f"{ROOT}/scripts/flow.sh", "#!/bin/sh\ngit checkout -b \"feature/$1\"\n")
    own.write(f"{ROOT}/package.json", MANIFEST.replace(
        '"publish:ext": "vsce publish"', '"flow:start": "bash scripts/flow.sh"'))
    assert _told(own) == "script `flow:start` runs `bash scripts/flow.sh`"


def test_of_an_edited_file_a_check_that_rewrites_or_watches_is_a_chore():
    """A formatter counts only in its check mode; a fixer or a watcher is not told."""
    text = ('{\n  "version": "1.0.0",\n  "scripts": {\n    "format": "prettier --write .",\n'
            '    "fmt": "ruff check --fix . && ruff format .",\n'
            '    "lint:fix": "eslint src --fix",\n    "test:watch": "vitest",\n'
            '    "watch-tests": "tsc -p . -w",\n'
            '    "fmt-check": "prettier --check ."\n  }\n}\n')
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=text)
    session.edit(f"{ROOT}/package.json", '"version": "1.0.0"', '"version": "1.0.1"')
    assert _told(session) == "script `fmt-check` runs `prettier --check .`"


def test_an_edited_recipe_keeps_the_name_the_whole_file_gives_it():
    """An edit's fragment does not show the package manager; the recipe it changes is still
    the one the whole file named, and its last version is the one told."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "build": "bun x tsc -b",\n'
        '    "seed:env": "dotenv -e .env.one -- node seed.js"\n  }\n}\n'))
    session.edit(f"{ROOT}/package.json", '"seed:env": "dotenv -e .env.one -- node seed.js"',
                 '"seed:env": "dotenv -e .env.two -- node seed.js"')
    session.edit(f"{ROOT}/package.json", '"seed:env": "dotenv -e .env.two -- node seed.js"',
                 '"seed:env": "dotenv -e .env.one -- node seed.js --fresh"')
    assert _told(session) == ("`bun run seed:env` runs `dotenv -e .env.one -- node seed.js "
                              "--fresh`; `bun run build` runs `bun x tsc -b`")


def test_a_ci_step_that_gained_a_command_is_a_script_not_a_check():
    """The edit changed the step, but two commands in one step are a script (packing and
    signing), and packing checks nothing: not told."""
    workflow = (".github/workflows/ci.yml", "jobs:\n  build:\n    runs-on: ubuntu-latest\n"
                "    steps:\n      - name: Pack\n        run: |\n          npm pack\n")
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/{workflow[0]}"}, output=workflow[1])
    step = "      - name: Pack\n        run: |\n          npm pack\n"
    session.edit(f"{ROOT}/{workflow[0]}", step, step + "          gpg --sign out.tgz\n")
    assert only(session.extract(), "x/runs") == []


CI_JOB = ("jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
          "      - uses: actions/checkout@v4\n      - run: npm ci\n      - run: npm run lint\n"
          "      - run: npx vitest run\n      - run: sudo chown -R $USER .\n"
          "      - run: |\n          npm run build\n          cp -r dist site\n")


def test_every_unnamed_check_step_of_a_job_is_told_and_only_those():
    """Unnamed steps of one job share its name ("CI ci.yml job test"); each is its own step.
    The lint and the test are told; installing, a privileged chown and a two-command script
    are CI's plumbing."""
    session = Session()
    session.write(f"{ROOT}/.github/workflows/ci.yml", CI_JOB)
    assert _told(session) == ("`CI ci.yml job test` runs `npm run lint`; "
                              "`CI ci.yml job test` runs `npx vitest run`")


def test_a_ci_step_an_edit_replaced_is_gone():
    """An edit that changes a check step's command leaves the new command told, not both."""
    session = Session()
    session.write(f"{ROOT}/.github/workflows/ci.yml", CI_JOB)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "      - run: npx vitest run\n",
                 "      - run: npx vitest run --coverage\n")
    assert _told(session) == ("`CI ci.yml job test` runs `npm run lint`; "
                              "`CI ci.yml job test` runs `npx vitest run --coverage`")


def test_of_a_file_only_read_a_recipe_run_that_only_says_its_name_again_is_not_told():
    """``typecheck`` runs ``turbo run typecheck``: the session ran it, and its body adds
    nothing to its name; one whose body says more is told."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "typecheck": "turbo run typecheck",\n'
        '    "changeset": "changeset",\n'
        '    "check:web": "pnpm --filter @acme/web run check",\n'
        '    "lint": "biome check ."\n  }\n}\n'))
    session.bash("pnpm run typecheck && pnpm run changeset && pnpm run check:web", output="ok")
    assert only(session.extract(), "x/runs") == []
    session.bash("pnpm run lint", output="ok")
    assert _told(session) == "`pnpm run lint` runs `biome check .`"


# --- which package manager a script is typed with ----------------------------------------------

def _bumped(session: Session) -> str:
    """The told scripts of MANIFEST after a version bump (compile and lint are told)."""
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.edit(f"{ROOT}/package.json", '"version": "0.0.1"', '"version": "0.0.2"')
    return _told(session)


def test_the_lock_file_a_listing_of_the_project_shows_names_the_manager():
    session = Session()
    session.bash("ls", output="README.md\npackage.json\npnpm-lock.yaml\nsrc\n")
    assert _bumped(session) == "`pnpm run compile` runs `tsc -b`; `pnpm run lint` runs `eslint src`"


def test_a_lock_file_a_search_of_the_project_found_names_the_manager():
    session = Session()
    session.tool("Glob", {"pattern": "**/*.lock", "path": ROOT}, output=f"{ROOT}/yarn.lock\n")
    assert _bumped(session).startswith("`yarn run compile` runs")
    elsewhere = Session()
    elsewhere.tool("Glob", {"pattern": "**/*.lock", "path": "/tmp/other"},
                   output="/tmp/other/yarn.lock\n")
    assert _bumped(elsewhere).startswith("script `compile` runs")


def test_two_lock_files_decide_nothing_and_the_managers_the_session_ran_decide():
    session = Session()
    session.bash("ls", output="package-lock.json\nyarn.lock\n")
    session.bash("bun install", output="installed 120 packages")
    assert _bumped(session).startswith("`bun run compile` runs")


@pytest.mark.parametrize("said, expected", [
    ("We use pnpm in this repo.", "`pnpm run compile` runs"),
    ("Please don't use npm here.", "script `compile` runs"),
    ("First run `npm i -g vsce` on your machine.", "script `compile` runs"),
    ("Looks good, proceed with npm publish.", "script `compile` runs"),
    ("I did run npm login; can I do something similar with bun?", "script `compile` runs"),
    ("Check the latest version using npm view left-pad.", "script `compile` runs"),
    ("Try it once with pnpm dlx create-thing.", "script `compile` runs"),
    ("Run `npm exec eslint` to check.", "script `compile` runs"),
    ("We publish with npm. For the rest we use yarn.", "`yarn run compile` runs"),
])
def test_the_manager_the_person_says_they_use_names_it(said, expected):
    session = Session()
    session.prompt(said)
    assert _bumped(session).startswith(expected)


def test_a_package_run_once_through_a_manager_does_not_name_the_projects_manager():
    session = Session()
    session.bash("npm exec -- prettier --check .", output="ok")
    session.bash("pnpm dlx tsx scripts/x.ts", output="ok")
    assert _bumped(session).startswith("script `compile` runs")


def test_a_failed_run_of_a_manager_or_one_outside_the_project_names_none():
    session = Session()
    session.bash("pnpm install", error=True, output="bash: pnpm: command not found")
    session.bash("cd /tmp/other && yarn install", output="done")
    assert _bumped(session).startswith("script `compile` runs")


# --- only entries of "scripts" are scripts ------------------------------------------------------

JEST_MANIFEST = ('{\n  "name": "shop",\n  "packageManager": "npm@10.2.0",\n'
                 '  "scripts": {\n    "test": "jest",\n    "lint": "eslint src"\n  },\n'
                 '  "jest": {\n    "testEnvironment": "node",\n    "preset": "ts-jest"\n  }\n}\n')


def test_an_edit_inside_a_tools_configuration_is_no_script():
    """The edit's text shows no section; the file read before puts the key under "jest"."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=JEST_MANIFEST)
    session.edit(f"{ROOT}/package.json", '"testEnvironment": "node",',
                 '"testEnvironment": "jsdom",')
    told = _told(session)
    assert "testEnvironment" not in told and "jsdom" not in told
    assert told == "`npm run test` runs `jest`; `npm run lint` runs `eslint src`"


def test_an_edit_among_the_scripts_adds_a_script_without_showing_the_section():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=JEST_MANIFEST)
    session.edit(f"{ROOT}/package.json", '"lint": "eslint src"',
                 '"lint": "eslint src",\n    "typecheck": "tsc --noEmit"')
    assert "`npm run typecheck` runs `tsc --noEmit`" in _told(session)


def test_a_fragment_of_a_file_never_seen_whole_tells_no_script():
    session = Session()
    session.edit(f"{ROOT}/package.json", '"preset": "ts-jest"', '"preset": "ts-jest/presets/js"')
    assert only(session.extract(), "x/runs") == []


def test_a_recipe_counts_as_run_only_by_its_whole_name_not_a_longer_one_it_begins():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "test": "vitest run",\n    "test:unit": "vitest run unit"\n'
        '  }\n}\n'))
    session.tool("Read", {"file_path": f"{ROOT}/Makefile"}, output=(
        "lint:\n\truff check .\n\nlint-fix:\n\truff check --fix .\n"))
    session.bash("pnpm run test:unit && make lint-fix", output="ok")
    told = " ".join(fact["object"] for fact in only(session.extract(), "x/runs"))
    assert "test:unit` runs" in told and "make lint-fix` runs" in told
    assert "run test` runs" not in told and "make lint` runs" not in told


def test_a_recipe_run_with_more_arguments_or_through_a_wrapper_still_counts_as_run():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/Makefile"}, output=(
        "lint:\n\truff check .\n\ntest:\n\tpytest -q\n"))
    session.bash("make lint V=1; uv run pytest -q tests/unit", output="ok")
    told = only(session.extract(), "x/runs")[0]["object"]
    assert "`make lint` runs" in told and "`make test` runs" in told


def test_a_recipe_named_only_inside_another_commands_words_was_not_run():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/Makefile"}, output="lint:\n\truff check .\n")
    session.bash("git commit -m 'make lint pass' && grep -n \"make lint\" README.md", output="ok")
    assert only(session.extract(), "x/runs") == []


def test_a_recipe_run_behind_a_launcher_counts_as_run():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "packageManager": "pnpm@9.1.0",\n  "scripts": {\n    "typecheck": "tsc --noEmit"'
        '\n  }\n}\n'))
    session.bash("corepack pnpm run typecheck", output="ok")
    assert only(session.extract(), "x/runs")[0]["object"] == (
        "`pnpm run typecheck` runs `tsc --noEmit`")


def test_a_build_for_a_target_only_ci_names_is_its_release_matrix():
    """An edit elsewhere in a workflow: its test and build steps check and build the project;
    its matrix build (a target only CI sets) ships artifacts. A check CI parametrises (a
    shard) is still the gate."""
    text = ("jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: cargo test --workspace\n      - run: cargo build --release\n"
            "      - run: cargo build --release --target \"$TARGET\"\n"
            "      - run: npx playwright test --shard=${{ matrix.shard }}/4\n"
            "      - uses: actions/upload-artifact@v4\n        with:\n          name: old\n")
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/.github/workflows/release.yml"}, output=text)
    session.edit(f"{ROOT}/.github/workflows/release.yml", "          name: old\n",
                 "          name: new\n")
    assert _told(session) == (
        "`CI release.yml job build` runs `cargo test --workspace`; "
        "`CI release.yml job build` runs `cargo build --release`; "
        "`CI release.yml job build` runs `npx playwright test --shard=${{ matrix.shard }}/4`")


def test_a_step_named_by_a_matrix_value_goes_by_its_command():
    """A test step CI names from its matrix (``${{ matrix.suite }}``) is still the gate; a
    step whose whole command is a matrix value says nothing of what it runs."""
    text = ("jobs:\n  unit:\n    name: unit/${{ matrix.suite.name }}\n    steps:\n"
            "      - name: ${{ matrix.suite.name }}\n"
            "        run: pnpm exec turbo run test:unit -- \"${{ matrix.suite.path }}\"\n"
            "      - name: Check ${{ matrix.suite.name }}\n        run: ${{ matrix.command }}\n")
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/.github/workflows/ci.yml"}, output=text)
    assert _told(session) == ("`CI ci.yml job unit` runs `pnpm exec turbo run test:unit -- "
                              "\"${{ matrix.suite.path }}\"`")


@pytest.mark.parametrize(("name", "runs", "role"), [
    ("Build site", "mkdocs build --strict", "build"),
    ("Validate the manifest against its schema", "schemalint manifest.toml", "check"),
    ("Run tests", "./run-suite.sh", "test"),
    ("Create test database", "createdb scratch_db", "other"),
    ("Clean test database", "dropdb scratch_db", "other"),
    ("Lint everything", "npm ci", "install"),  # the command the vocabulary knows decides
    # unnamed, a command the vocabulary does not know: its subcommand says
    ("run", "flutter test", "test"),
    ("run", "./gradlew --no-daemon check", "check"),
    ("run", "sbt test", "test"),
    ("run", "flutter create test_app", "other"),  # a subcommand of creating
    ("run", "scripts/ci.sh test_app", "other"),  # not a plain word
])
def test_a_ci_steps_role_is_its_commands_else_its_names_first_word(name, runs, role):
    from claimgraph.capture.extract.recipe_common import Recipe
    from claimgraph.capture.extract.workflow import ci_role
    step = Recipe(name, "CI ci.yml job x", runs, f"run: {runs}", "other", "github-actions")
    assert ci_role(step) == role


def test_a_tested_by_whose_form_a_lesson_shows_failing_is_the_lessons():
    """"`pytest -q` fails: …; `PYTHONPATH=. pytest -q` works" beside a tested-by ``pytest``
    (its runs passed with the setting, which a form keeps not): the lesson tells the form
    that works. A lesson whose code was fixed (the same command both times) leaves it."""
    from claimgraph.capture.extract.workflow import one_fact_per_command

    def fact(rule: str, predicate: str, said: str, run: str = "") -> dict:
        return {"rule": rule, "predicate": predicate, "object": said,
                "evidence": [f"transcript#L9: {run or said}"]}
    tested = fact("tooling", "core/tested-by", "pytest", "PYTHONPATH=. pytest -q tests/a.py")
    kept = fact("tooling", "core/tested-by", "ruff check")
    lesson = fact("lessons", "core/failure-mode", "`pytest -q` fails: ModuleNotFoundError: No "
                  "module named 'acme'; `PYTHONPATH=. pytest -q` works")
    assert one_fact_per_command([tested, kept, lesson]) == [kept, lesson]
    fixed = fact("lessons", "core/failure-mode", "`pytest -q` fails: E; `pytest -q` works")
    assert one_fact_per_command([tested, fixed]) == [tested, fixed]
    # a plain run cited behind it passed: the plain form works after all
    plain = fact("tooling", "core/tested-by", "pytest", "cd app && pytest -q")
    assert one_fact_per_command([plain, lesson]) == [plain, lesson]


def test_a_build_step_the_session_wrote_stays_its_own_when_the_file_is_read_again():
    """The session wrote the docs build; a later read of the file does not make it a step
    the session found there."""
    text = ("jobs:\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - name: Build docs\n        run: mkdocs build --strict\n")
    session = Session()
    session.write(f"{ROOT}/.github/workflows/pages.yml", text)
    session.tool("Read", {"file_path": f"{ROOT}/.github/workflows/pages.yml"}, output=text)
    assert _told(session) == "`CI pages.yml job docs` runs `mkdocs build --strict`"


def test_an_unnamed_ci_step_of_another_ecosystem_goes_by_its_subcommand():
    """``flutter test`` is in no vocabulary of commands: unnamed, the step is still the
    project's test gate; fetching packages is CI's plumbing."""
    text = ("jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: flutter pub get\n      - run: flutter test\n")
    session = Session()
    session.write(f"{ROOT}/.github/workflows/ci.yml", text)
    assert _told(session) == "`CI ci.yml job test` runs `flutter test`"


def test_an_unnamed_step_does_not_take_its_jobs_name_for_what_it_does():
    """``parse_recipes`` names an unnamed step by its job ("test"): fetching packages in a
    job called test is not a test."""
    from claimgraph.capture.extract.recipe_common import Recipe
    from claimgraph.capture.extract.workflow import ci_check
    fetch = Recipe("test", "CI ci.yml job test", "./tool/fetch_deps.sh", "- run: x", "other",
                   "github-actions")
    assert not ci_check(fetch)
    named = Recipe("Test", "CI ci.yml job unit", "./tool/run_suite.sh", "run: x", "other",
                   "github-actions")
    assert ci_check(named)


@pytest.mark.parametrize("cited, shipping", [
    (".github/workflows/release.yml", True),
    (".github/workflows/cd.yml", True),
    (".github/workflows/deploy-docs.yml", True),
    (".github/workflows/ci-cd.yml", False),  # the gate that also deploys
    (".github/workflows/ci_cd.yml", False),
    (".github/workflows/ci.yml", False),
])
def test_a_workflow_ships_by_its_name_and_ci_cd_is_the_gate(cited, shipping):
    from claimgraph.capture.extract.workflow import ships
    assert ships(cited) is shipping
