"""One command vocabulary: tooling and the recipe readers agree on what a command is."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.commands import KINDS, VOCABULARY, kind_of, kind_of_text
from claimgraph.capture.extract.recipe_common import role_of_command
from claimgraph.capture.extract.shell import invocations
from claimgraph.capture.extract.tooling import runner_of


@pytest.mark.parametrize("command, kind", [
    ("mypy src", "lint"), ("ruff check .", "lint"), ("eslint .", "lint"),
    ("uv run ruff format .", "format"), ("npx playwright test", "test"),
    ("python -m pytest -x", "test"), ("cargo llvm-cov --fail-under-lines 100", "test"),
    ("FOO=1 cargo build --release", "build"), ("make", "build"), ("make test", "test"),
    ("make clean", None), ("pnpm add zod", "install"), ("uv sync", "install"),
    ("next dev --turbopack", "run"), ("git status", None), ("pytest --version", None),
    ("cargo clippy --fix --allow-dirty", "format"), ("eslint --fix .", "format"),
])
def test_a_command_has_one_kind(command, kind):
    found = kind_of_text(command)
    assert (found[0] if found else None) == kind


@pytest.mark.parametrize("command", ["mypy src", "eslint .", "ruff check", "npx playwright test",
                                     "mix credo --strict", "cargo clippy", "go vet ./..."])
def test_tooling_and_recipes_agree_on_checks(command):
    [run] = invocations(command)
    kind = role_of_command(command)
    assert kind in ("test", "lint")
    assert runner_of(run.argv)[0] == "core/tested-by"


def test_every_entry_has_a_known_kind_and_a_runner_name():
    assert all(kind in KINDS and runner for kind, runner in VOCABULARY.values())
    assert kind_of(()) is None


def test_a_package_scripts_conventional_names_are_checks():
    from claimgraph.capture.extract.commands import kind_of
    assert kind_of(("pnpm", "lint")) == ("lint", "pnpm lint")
    assert kind_of(("pnpm", "-s", "lint")) == ("lint", "pnpm lint")
    assert kind_of(("pnpm", "run", "check-types")) == ("lint", "pnpm check-types")
    assert kind_of(("bun", "run", "test")) == ("test", "bun run test")


def test_a_tox_or_nox_environment_that_formats_is_a_format_run():
    from claimgraph.capture.extract.commands import kind_of
    assert kind_of(("tox", "-e", "format")) == ("format", "tox")
    assert kind_of(("nox", "-s", "fmt")) == ("format", "nox")
    assert kind_of(("tox", "-e", "lint")) == ("test", "tox")
