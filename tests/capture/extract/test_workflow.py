"""Task-runner recipes, as the session left the files that define them."""

from __future__ import annotations

from .extract_helpers import ROOT, Session, facts, only

OLD = "check:\n    uv run pytest --cov\n\ntest:\n    uv run pytest\n"
NEW = ("check:\n    cargo llvm-cov --fail-under-lines 100\n\n"
       "lint:\n    cargo clippy -- -D warnings\n")


def test_one_fact_per_file_says_what_each_recipe_runs_cited_from_its_file():
    session = Session()
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


MANIFEST = ('{\n  "name": "ext",\n  "version": "0.0.1",\n  "publisher": "someone",\n'
            '  "scripts": {\n    "compile": "tsc -b",\n    "watch": "tsc -b -w",\n'
            '    "lint": "eslint src"\n  }\n}\n')


def test_an_edit_of_a_runner_file_that_changes_no_recipe_tells_none_of_its_recipes():
    """A version bump in a package.json the session read is no lesson about its scripts: the
    edit's unchanged context line (``"publisher": …``) is no script the session wrote either."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.edit(f"{ROOT}/package.json", '  "version": "0.0.1",\n  "publisher": "someone",',
                 '  "version": "0.0.2",\n  "publisher": "someone",')
    assert only(session.extract(), "x/runs") == []


def test_a_whole_rewrite_tells_only_the_recipes_it_changed_or_added():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.write(f"{ROOT}/package.json", MANIFEST.replace('"lint": "eslint src"',
                                                           '"lint": "eslint src --max-warnings 0"'))
    assert facts(only(session.extract(), "x/runs")) == {
        ("package.json", "x/runs", "`npm run lint` runs `eslint src --max-warnings 0`")}


def test_an_edit_that_adds_a_recipe_tells_that_recipe():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=MANIFEST)
    session.edit(f"{ROOT}/package.json", '    "lint": "eslint src"\n',
                 '    "lint": "eslint src",\n    "test": "vitest run"\n')
    assert facts(only(session.extract(), "x/runs")) == {
        ("package.json", "x/runs", "`npm run test` runs `vitest run`")}


def test_an_edited_recipe_keeps_the_name_the_whole_file_gives_it():
    """An edit's fragment does not show the package manager; the recipe it changes is still
    the one the whole file named, and its last version is the one told."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "build": "bun x tsc -b",\n'
        '    "test:env": "dotenv -e .env.one -- vitest"\n  }\n}\n'))
    session.edit(f"{ROOT}/package.json", '"test:env": "dotenv -e .env.one -- vitest"',
                 '"test:env": "dotenv -e .env.two -- vitest"')
    session.edit(f"{ROOT}/package.json", '"test:env": "dotenv -e .env.two -- vitest"',
                 '"test:env": "dotenv -e .env.one -- vitest --run"')
    assert facts(only(session.extract(), "x/runs")) == {
        ("package.json", "x/runs", "`bun run test:env` runs `dotenv -e .env.one -- vitest --run`")}


def test_a_ci_step_that_gained_a_command_was_changed_by_the_edit():
    workflow = (".github/workflows/ci.yml", "jobs:\n  build:\n    runs-on: ubuntu-latest\n"
                "    steps:\n      - name: Pack\n        run: |\n          npm pack\n")
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/{workflow[0]}"}, output=workflow[1])
    step = "      - name: Pack\n        run: |\n          npm pack\n"
    session.edit(f"{ROOT}/{workflow[0]}", step, step + "          gpg --sign out.tgz\n")
    assert facts(only(session.extract(), "x/runs")) == {
        (workflow[0], "x/runs", "`CI ci.yml job build` runs `npm pack; gpg --sign out.tgz`")}
