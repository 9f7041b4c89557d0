"""A guide's line binds this project when it names something of it (logic/binds_project.py)."""

from __future__ import annotations

import pytest

from claimgraph.logic.binds_project import anchor


@pytest.mark.parametrize("line", [
    "Prefer composition over inheritance",
    "Never raise `ValueError` for a missing key",
    "Order the `if`/`else` branches by how likely they are",
    "Prefer `for item in items` over `while True` loops",
    "Write unions as `a | b` rather than `Union[a, b]`",
    "Indentation: Always indent with two spaces",
    "Think before every large change",
    "Prefer list/detail view models over ad-hoc state",  # two words with a slash, in prose
    "No direct network or I/O calls",
    "Build it with Node.js and Vue.js",  # products, not files
    "Read https://example.com/docs/style/guide first",  # another site
    "Write comments in plain English",  # no variety picked
    "Send us spelling fixes as their own pull requests",  # "us", no variety
    "Use `pathlib` instead of `os.path`",  # an API's choice, any guide's
])
def test_advice_any_guide_could_give_names_nothing_of_the_project(line: str) -> None:
    assert anchor(line, "order-desk", ["src", "index.ts"], ["git", "pnpm"],
                  ["src", "tests"]) is None


@pytest.mark.parametrize(("line", "found"), [
    ("Do not hand-edit generated files in `dist/` or `out/`", "dist/"),
    ("Write tests as `*.test.ts` under `src/test/`", "*.test.ts"),
    ("Update docs/api.md when a route changes", "docs/api.md"),
    ("Never edit generated/ by hand", "generated/"),
    ("Update README.md when adding a flag", "README.md"),
    ("**Running Tests**: Run `pnpm test` to compile the tests", "pnpm test"),
    ("Always run `make check` before committing", "make check"),  # told to run it
    ("Always set NODE_ENV=test when running tests", "NODE_ENV=test"),
    ("When changing OrderDesk contracts, check the standards first", "order-desk"),
    ("Keep `core-lib` free of I/O", "core-lib"),
    ("Ledger entries: post them through the ledger helpers", "ledger"),
    ("Write comments and docs in Canadian spelling", "Canadian spelling"),
    ("User-facing strings use en-GB", "en-GB"),
    ("Lists in the docs take no Oxford comma", "Oxford comma"),
    ("Spell words the US English way in the docs", "US English"),
    ('Say "orders" rather than "purchases" in the UI', '"orders" rather than "purchases"'),
])
def test_a_line_naming_a_path_command_setting_or_part_binds_the_project(
        line: str, found: str) -> None:
    assert anchor(line, "order-desk", ["core-lib", "src"], ["git", "pnpm"],
                  ["ledger", "src"]) == found


def test_a_command_counts_only_for_a_program_the_session_ran_unless_told_to_run_it() -> None:
    assert anchor("Use `cargo fmt --check` in CI", "proj", programs=["cargo"]) \
        == "cargo fmt --check"
    assert anchor("Use `cargo fmt --check` in CI", "proj", programs=["git"]) is None


def test_a_short_project_name_is_too_common_a_word_to_tell() -> None:
    assert anchor("Keep the app fast", "app") is None
    assert anchor("Keep the core small", "core") is None


def test_a_folder_counts_as_a_whole_word_only() -> None:
    assert anchor("Use the ledgers pattern", "proj", folders=["ledger"]) is None
    assert anchor("Use the ledger here", "proj", folders=["ledger"]) == "ledger"


def test_two_names_joined_by_a_slash_are_a_path_only_when_one_is_a_folder_seen() -> None:
    assert anchor("Use `async/await` for async operations", "proj", folders=["src"]) is None
    assert anchor("Keep `src/lib` pure", "proj", folders=["src"]) == "src/lib"
    assert anchor("Keep `./lib` pure", "proj") == "./lib"


@pytest.mark.parametrize(("line", "found"), [
    ("Always wrap every outbound call in the `circuit_breaker` helper", "circuit_breaker"),
    ("Do not parse flags with `endsWith('=')` checks", "endsWith"),
])
def test_a_name_made_up_in_code_is_the_projects_or_the_api_its_rule_is_about(
        line: str, found: str) -> None:
    assert anchor(line, "proj") == found
    assert anchor(line.replace("`", ""), "proj") is None  # in prose it is not read as code


def test_a_line_is_said_in_a_request_that_holds_most_of_its_words():
    from claimgraph.logic.binds_project import said_in, said_words
    request = said_words("Add to CONTRIBUTING.md: never push to main, open a pull request.")
    assert said_in("Never push to main", [request])
    assert not said_in("Keep modules cohesive", [request])
    assert not said_in("Never push large files to the main branch without a review first",
                       [request])  # a third of its words: a line about the topic, not theirs
    assert not said_in("Push to main", [request])  # under three words: too little to match
    assert said_in("Zeiten werden immer in UTC gespeichert",
                   [said_words("Bitte notiere: Zeiten werden immer in UTC gespeichert")])


@pytest.mark.parametrize("line", [
    "Never call `print` in library code",
    "Call `super` in every constructor",
])
def test_a_function_the_line_says_to_call_is_no_command(line: str) -> None:
    """"Run `pytest`" gives a command; "call `print`" a function of the language."""
    assert anchor(line, "proj") is None
    assert anchor("Run `pytest` before pushing", "proj") == "pytest"


def test_a_long_request_vouches_only_for_words_it_says_together():
    """A pasted spec holds most words of any line somewhere; the person said a line only
    where its words stand close together."""
    from claimgraph.logic.binds_project import said_in, said_words
    spec = ("Keep the invoice screen as it is. " + "Lorem ipsum dolor sit amet. " * 30
            + "Modules load lazily. " + "Lorem ipsum dolor sit amet. " * 30
            + "The export must stay cohesive with the old one.")
    assert not said_in("Keep modules cohesive", [said_words(spec)])
    assert said_in("Keep modules cohesive",
                   [said_words(spec + " Also: keep our modules cohesive, please.")])
