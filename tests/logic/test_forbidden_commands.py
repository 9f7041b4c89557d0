"""Rules that forbid a command, read from one sentence, and matched by words."""

from __future__ import annotations

import pytest

from claimgraph.logic.forbidden_commands import (
    Forbidden, commands_of, forbids, normalized, rules_in)

PROGRAMS = frozenset({"npm", "pnpm", "pytest", "make", "just", "uv", "tox"})


def is_program(word: str) -> bool:
    return word in PROGRAMS


def is_command(text: str) -> bool:
    return text.split()[0] in PROGRAMS or text.startswith("./")


def read(sentence: str) -> set[tuple[tuple[str, ...], str, tuple[str, ...]]]:
    return {(rule.words, rule.kind, rule.via)
            for rule in rules_in(sentence, is_command, is_program)}


@pytest.mark.parametrize("sentence, expected", [
    ("Never run `pnpm test:smoke` directly - the logs bury the results.",
     {(("pnpm", "test:smoke"), "", ())}),
    ("Do not use `npm run lint`.", {(("npm", "lint"), "", ())}),
    ("Don't use npm.", {(("npm",), "", ())}),
    ("- Never use `--no-verify`.", {(("--no-verify",), "", ())}),
    ("Use `uv run pytest`, not `pytest`.",
     {(("pytest",), "", ())}),
    ("Use `make test` instead of `tox`.", {(("tox",), "", ())}),
    ("ALWAYS use `/e2e-runner` when running E2E tests.", {((), "e2e", ())}),
    ("Always use the `e2e-runner` skill when running end-to-end tests.", {((), "e2e", ())}),
    ("When running tests, always use `make test`.", {((), "test", ("make", "test"))}),
    ("Use `just lint` for linting.", {((), "lint", ("just", "lint"))}),
    ("Unit tests must be run via `make unit`.", {((), "unit", ("make", "unit"))}),
])
def test_a_rule_names_what_it_forbids(sentence, expected):
    assert read(sentence) == expected


@pytest.mark.parametrize("sentence", [
    "Do not make assumptions.",                      # a verb, not the program
    "Don't use pytest fixtures for setup.",          # the program names a noun's kind
    "Never run `pytest` without `-n 4`.",            # a condition: not forbidden outright
    "Do not run `make deploy` until the review is done.",
    "Don't run `npm test` yet, just write the code.",  # for now, not a standing rule
    "Research workers must not run `npm install`.",  # binds someone else
    "Never use `vi.fn()` in a loop.",                # a code span that is no command
    "Always use `vi.fn()` for tests.",               # how tests are written, not run
    "Always use `--runInBand` when running tests.",  # a flag, not a way to run them
    "Prefer small commits.",
])
def test_a_sentence_that_forbids_no_command_outright_gives_no_rule(sentence):
    assert read(sentence) == set()


def test_commands_match_by_words_not_by_substrings():
    e2e_script = Forbidden(words=("pnpm", "test:e2e"))
    assert forbids(e2e_script, normalized("pnpm run test:e2e".split()), frozenset())
    assert not forbids(e2e_script, normalized("pnpm test".split()), frozenset())
    bare = Forbidden(words=("npm",))
    assert [forbids(bare, command, frozenset()) for command in commands_of("cd web && npm test")] \
        == [False, True]
    assert not forbids(bare, ("pnpm", "test"), frozenset())
    assert not forbids(Forbidden(words=("pytest",)), ("uv", "run", "pytest"), frozenset())
    assert forbids(Forbidden(words=("--no-verify",)), ("git", "commit", "--no-verify"),
                   frozenset())


def test_a_kind_rule_forbids_that_kind_but_its_own_way():
    skill = Forbidden(kind="e2e")
    assert forbids(skill, ("pnpm", "exec", "playwright", "test"), frozenset({"test", "e2e"}))
    assert not forbids(skill, ("pnpm", "test"), frozenset({"test", "unit"}))
    via = Forbidden(kind="test", via=("make", "test"))
    assert not forbids(via, ("make", "test", "ARGS=-x"), frozenset({"test", "unit"}))
    assert forbids(via, ("pytest",), frozenset({"test", "unit"}))
    assert not forbids(via, ("ruff", "check"), frozenset({"lint"}))
