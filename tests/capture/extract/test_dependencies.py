"""Dependencies, the language version and settings from the manifests a session touched."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.dependencies import established

from .extract_helpers import ROOT, Session, facts, only

PROJECT = "shop"
MIX = '''defmodule Shop.MixProject do
  use Mix.Project

  def project do
    [app: :shop, elixir: "~> 1.19", deps: deps()]
  end

  defp deps do
    [
      {:phoenix, "~> 1.8"},
      {:credo, "~> 1.7", only: [:dev, :test], runtime: false}
    ]
  end
end
'''


def test_a_manifest_the_session_only_read_gives_nothing_neither_language_nor_list():
    session = Session()
    numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(MIX.splitlines(), 1))
    session.tool("Read", {"file_path": f"{ROOT}/mix.exs"}, output=numbered)
    assert session.extract() == []


def test_a_manifest_the_session_wrote_whole_gives_no_language_floor_nor_list():
    """The version a new manifest starts with is the template's, one glance at the file."""
    session = Session()
    session.write(f"{ROOT}/mix.exs", MIX)
    found = session.extract()
    assert only(found, "core/written-in") == []
    assert only(found, "core/depends-on") == []


def test_a_language_version_the_session_moved_is_remembered():
    session = Session()
    session.edit(f"{ROOT}/mix.exs", 'elixir: "~> 1.17"', 'elixir: "~> 1.19"')
    assert (PROJECT, "core/written-in", "Elixir ~> 1.19") in facts(session.extract())


def test_an_edit_elsewhere_in_a_manifest_does_not_restate_its_language():
    session = Session()
    session.write(f"{ROOT}/mix.exs", MIX)
    session.edit(f"{ROOT}/mix.exs", '{:phoenix, "~> 1.8"}', '{:phoenix, "~> 1.8.1"}')
    assert only(session.extract(), "core/written-in") == []


def test_a_new_manifest_lists_the_scaffold_even_what_the_person_named():
    """Asked for a Phoenix app, the session writes a manifest listing phoenix: no news."""
    session = Session()
    session.prompt("Create a Phoenix app with credo for linting.")
    session.write(f"{ROOT}/mix.exs", MIX)
    assert only(session.extract(), "core/depends-on") == []


def test_a_rewrite_repeats_what_the_manifest_already_listed():
    session = Session()
    session.prompt("Keep phoenix, and add credo for linting.")
    numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(
        MIX.replace(',\n      {:credo, "~> 1.7", only: [:dev, :test], runtime: false}', "")
        .splitlines(), 1))
    session.tool("Read", {"file_path": f"{ROOT}/mix.exs"}, output=numbered)
    session.write(f"{ROOT}/mix.exs", MIX)
    assert {c["object"] for c in only(session.extract(), "core/depends-on")} == {"credo"}


def test_a_dependency_the_person_asked_for_counts_dev_tools_included():
    session = Session()
    session.prompt("Add credo to the project for linting.")
    session.edit(f"{ROOT}/mix.exs", '{:phoenix, "~> 1.8"}',
                 '{:phoenix, "~> 1.8"},\n      {:credo, "~> 1.7", only: [:dev, :test], '
                 'runtime: false}')
    found = only(session.extract(), "core/depends-on")
    assert {c["object"] for c in found} == {"credo"}
    assert "only: [:dev, :test]" in found[0]["evidence"][0]  # the constraint travels with it


def test_a_dependency_list_the_session_merely_wrote_is_not_memory():
    session = Session()
    session.prompt("Set up the dev tooling.")
    session.write(f"{ROOT}/requirements-dev.txt",
                  "pytest>=8.0\npytest-cov>=4.1\nblack>=24.1\nflake8>=7.0\nmypy>=1.8\n")
    assert only(session.extract(), "core/depends-on") == []


def test_a_dependency_a_failure_said_was_missing_counts():
    session = Session()
    session.bash("python -m app", error=True,
                 output="Traceback (most recent call last):\n"
                        "ModuleNotFoundError: No module named 'httpx'")
    session.write(f"{ROOT}/requirements.txt", "httpx>=0.27\nrich>=13\n")
    assert {c["object"] for c in only(session.extract(), "core/depends-on")} == {"httpx"}


def test_a_missing_test_tool_is_a_lesson_not_a_dependency_unless_the_person_named_it():
    """``No module named pytest``: the environment lacked the tool the project is tested
    with; its line in a requirements file decides nothing. Named by the person, it counts."""
    session = Session()
    session.bash("python -m pytest", error=True, output="/usr/bin/python3: No module named pytest")
    session.bash("python -m app", error=True, output="No module named 'httpx'")
    session.write(f"{ROOT}/requirements.txt", "httpx>=0.27\npytest>=8.0\n")
    assert {c["object"] for c in only(session.extract(), "core/depends-on")} == {"httpx"}
    named = Session()
    named.prompt("Add pytest to the requirements, please.")
    named.tool("Read", {"file_path": f"{ROOT}/requirements.txt"}, output="httpx>=0.27\n")
    named.edit(f"{ROOT}/requirements.txt", "httpx>=0.27\n", "httpx>=0.27\npytest>=8.0\n")
    assert {c["object"] for c in only(named.extract(), "core/depends-on")} == {"pytest"}


def test_a_failure_that_only_mentions_a_package_proves_nothing():
    session = Session()
    session.bash("pytest", error=True, output="platform linux -- pytest-8.0\n1 failed")
    session.write(f"{ROOT}/requirements-dev.txt", "pytest>=8.0\n")
    assert only(session.extract(), "core/depends-on") == []


def test_a_failure_after_the_dependency_was_added_proves_nothing():
    session = Session()
    session.write(f"{ROOT}/requirements.txt", "httpx>=0.27\n")
    session.bash("python -m app", error=True, output="No module named 'httpx'")
    assert only(session.extract(), "core/depends-on") == []


def test_a_dependency_that_replaced_another_in_one_edit_counts():
    session = Session()
    session.edit(f"{ROOT}/requirements.txt", "requests>=2.31\n", "httpx>=0.27\n")
    assert {c["object"] for c in only(session.extract(), "core/depends-on")} == {"httpx"}


def test_a_version_bump_is_not_a_replacement():
    session = Session()
    session.edit(f"{ROOT}/requirements.txt", "httpx>=0.26\n", "httpx>=0.27\n")
    assert only(session.extract(), "core/depends-on") == []


@pytest.mark.parametrize(("name", "said", "failures", "replaced", "expected"), [
    ("pytest-cov", ["add pytest_cov please"], [], [], True),  # - and _ alike
    ("httpx", ["the httpx-mock plugin"], [], [], False),  # part of another name
    ("httpx", [], [], ["requests"], True),
    ("go", ["go ahead"], [], [], False),  # too short to recognise in prose
    ("zod", [], ["Cannot find module 'zod'"], [], True),
    ("@scope/pkg", ["use @scope/pkg for it"], [], [], True),
    ("rich", [], [], [], False),
    # an ordinary word names the package only set in code or said of a package
    ("markdown", ["these fields are markdown, render them as html?"], [], [], False),
    ("markdown", ["render them with `markdown`"], [], [], True),
    ("markdown", ["is there a markdown library we could use?"], [], [], True),
    ("credo", ["Add credo for linting."], [], [], True),
])
def test_what_establishes_a_dependency(name, said, failures, replaced, expected):
    assert established(name, said, failures, replaced) is expected


def test_a_pasted_log_naming_a_package_is_no_choice_of_the_person():
    """A CI log the person pasted (``No module named 'pytest_asyncio'``) is what a tool said;
    the session's adding the package to a manifest is then nothing the person chose. A name
    with more than letters, which ``names_package`` finds wherever it stands: only leaving
    the paste out of what the person said keeps it out."""
    session = Session()
    session.prompt("CI:\n```\nRun python -m pytest -q\n"
                   "ImportError while loading conftest '/ci/job/tests/conftest.py'.\n"
                   "ModuleNotFoundError: No module named 'pytest_asyncio'\n"
                   "Error: Process completed with exit code 4.\n```")
    session.tool("Read", {"file_path": f"{ROOT}/requirements.txt"}, output="httpx>=0.27\n")
    session.edit(f"{ROOT}/requirements.txt", "httpx>=0.27\n",
                 "httpx>=0.27\npytest-asyncio>=0.23\n")
    assert only(session.extract(), "core/depends-on") == []


def test_a_manifest_deleted_later_says_nothing():
    session = Session()
    session.write(f"{ROOT}/pyproject.toml", '[project]\nname = "shop"\n'
                  'dependencies = ["httpx>=0.27"]\n')
    session.bash(f"rm {ROOT}/pyproject.toml")
    assert only(session.extract(), "core/depends-on") == []


def test_a_package_below_the_root_speaks_for_itself():
    session = Session()
    session.prompt("Use `next` for the web app.")  # an ordinary word: set in code
    session.edit(f"{ROOT}/apps/web/package.json", '{\n  "name": "@shop/web",\n}\n',
                 '{\n  "name": "@shop/web",\n  "dependencies": {\n    "next": "15.5.2"\n  }\n}\n')
    [dep] = only(session.extract(), "core/depends-on")
    assert (dep["subject"], dep["object"]) == ("@shop/web", "next")


def test_a_lint_level_in_a_manifest_is_a_convention():
    session = Session()
    session.edit(f"{ROOT}/Cargo.toml", "[dependencies]",
                 '[dependencies]\n\n[lints.rust]\nmissing_docs = "warn"')
    [rule] = only(session.extract(), "x/convention")
    assert rule["object"] == "Cargo.toml sets lints.rust.missing_docs = warn"
    assert rule["evidence"] == ['Cargo.toml: `missing_docs = "warn"`']
