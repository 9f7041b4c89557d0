"""Task-runner recipes, as the session left the files that define them."""

from __future__ import annotations

from .extract_helpers import ROOT, Session, facts, only

OLD = "check:\n    uv run pytest --cov\n\ntest:\n    uv run pytest\n"
NEW = "check:\n    cargo llvm-cov --fail-under-lines 100\n\nlint:\n    cargo clippy -- -D warnings\n"


def test_a_recipe_says_what_it_runs_cited_from_its_file():
    session = Session()
    session.write(f"{ROOT}/Justfile", NEW)
    found = only(session.extract(), "x/runs")
    assert facts(found) == {("just check", "x/runs", "cargo llvm-cov --fail-under-lines 100"),
                            ("just lint", "x/runs", "cargo clippy -- -D warnings")}
    check = next(c for c in found if c["subject"] == "just check")
    assert check["evidence"] == ["./Justfile: `cargo llvm-cov --fail-under-lines 100`"]


def test_a_rewritten_file_forgets_the_recipes_it_no_longer_has():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/Justfile"}, output=OLD)
    session.write(f"{ROOT}/Justfile", NEW)
    objects = {c["object"] for c in only(session.extract(), "x/runs")}
    assert objects == {"cargo llvm-cov --fail-under-lines 100", "cargo clippy -- -D warnings"}


def test_from_a_file_only_read_the_working_recipes_count():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"}, output=(
        '{\n  "scripts": {\n    "test": "vitest run",\n    "release:notes": "node x.js"\n'
        '  }\n}\n'))
    assert facts(only(session.extract(), "x/runs")) == {("npm run test", "x/runs", "vitest run")}


def test_a_recipe_file_below_the_root_names_its_folder():
    session = Session()
    session.write(f"{ROOT}/apps/web/package.json", '{\n  "scripts": {\n    "build": "next build"'
                  '\n  }\n}\n')
    [recipe] = only(session.extract(), "x/runs")
    assert recipe["subject"] == "npm run build (in apps/web/)"
