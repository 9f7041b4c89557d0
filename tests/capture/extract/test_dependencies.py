"""Dependencies, the language version and settings from the manifests a session touched."""

from __future__ import annotations

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


def test_a_manifest_the_session_only_read_gives_its_language_not_its_dependency_list():
    session = Session()
    numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(MIX.splitlines(), 1))
    session.tool("Read", {"file_path": f"{ROOT}/mix.exs"}, output=numbered)
    found = session.extract()
    assert facts(found) == {(PROJECT, "core/written-in", "Elixir ~> 1.19")}
    assert only(found, "core/depends-on") == []


def test_what_the_session_added_to_a_manifest_counts_dev_tools_included():
    session = Session()
    session.edit(f"{ROOT}/mix.exs", '{:phoenix, "~> 1.8"}',
                 '{:phoenix, "~> 1.8"},\n      {:credo, "~> 1.7", only: [:dev, :test], '
                 'runtime: false}')
    found = only(session.extract(), "core/depends-on")
    assert {c["object"] for c in found} == {"phoenix", "credo"}
    credo = next(c for c in found if c["object"] == "credo")
    assert "only: [:dev, :test]" in credo["evidence"][0]  # the constraint travels with it


def test_a_manifest_deleted_later_says_nothing():
    session = Session()
    session.write(f"{ROOT}/pyproject.toml", '[project]\nname = "shop"\n'
                  'dependencies = ["httpx>=0.27"]\n')
    session.bash(f"rm {ROOT}/pyproject.toml")
    assert only(session.extract(), "core/depends-on") == []


def test_a_package_below_the_root_speaks_for_itself():
    session = Session()
    session.write(f"{ROOT}/apps/web/package.json",
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
