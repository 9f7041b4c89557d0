"""User directives: only the person's own words, only standing rules, never hedges."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.directives import parse_directive, sentences

from .extract_helpers import ROOT, Session, facts

PROJECT = "shop"


@pytest.mark.parametrize("sentence, expected", [
    ("Always use uv for Python dependencies.",
     {("core/prefers", "uv for Python dependencies")}),
    ("Never commit directly to main.", {("core/decided-against", "commit directly to main")}),
    ("Don't use mocks in the integration tests.",
     {("core/decided-against", "mocks in the integration tests")}),
    ("Do not hardcode API URLs.", {("core/decided-against", "hardcode API URLs")}),
    ("Prefer pytest over unittest.",
     {("core/prefers", "pytest"), ("core/decided-against", "unittest")}),
    ("Use ruff instead of flake8.", {("core/prefers", "ruff"), ("core/decided-against", "flake8")}),
    ("We decided to use PostgreSQL.", {("core/prefers", "PostgreSQL")}),
    ("we decided to go with fly.io", {("core/prefers", "fly.io")}),
    ("We decided against GraphQL.", {("core/decided-against", "GraphQL")}),
    ("We've decided not to use Redux.", {("core/decided-against", "Redux")}),
    ("Remember that we always pin dependencies.", {("core/prefers", "pin dependencies")}),
    ("Please always run the tests before pushing.",
     {("core/prefers", "run the tests before pushing")}),
    ("Always avoid global state.", {("core/decided-against", "global state")}),
    ("Never use print for logging, it hides errors.",
     {("core/decided-against", "print for logging")}),
    ("Always prefer composition over inheritance.",
     {("core/prefers", "composition"), ("core/decided-against", "inheritance")}),
    ("Always use httpx rather than requests.",
     {("core/prefers", "httpx"), ("core/decided-against", "requests")}),
])
def test_a_standing_directive_becomes_a_stance(sentence, expected):
    assert {(p, o) for p, o, _, _ in parse_directive(sentence)} == expected


@pytest.mark.parametrize("sentence", [
    "Should we always use uv?",
    "Do you always use uv",
    "If we use Postgres, never use the ORM.",
    "Maybe always use uv.",
    "I think we should never use mocks.",
    "Don't stop until all functions are ported, tests pass, and you have 100% coverage.",
    "Don't use mocks for now.",
    "Never push this branch until the release.",
    "Don't do that.",
    "Never touch it.",
    "Don't use it here.",
    "Don't worry about the tests.",
    "I never got it to work.",
    "Always the same error when I run it.",
    "Use the helper in utils.",
    "Never use tabs instead of spaces.",
    "We should use the initials from the username if name isn't present",
])
def test_questions_hedges_task_scoped_and_vague_sentences_yield_nothing(sentence):
    assert parse_directive(sentence) == []


def test_a_decision_is_a_commitment_and_a_preference_is_not():
    decided = parse_directive("We decided to use PostgreSQL.")
    preferred = parse_directive("Prefer pytest over unittest.")
    assert {e for _, _, e, _ in decided} == {"commitment"}
    assert {e for _, _, e, _ in preferred} == {"preference"}
    assert parse_directive("Never commit directly to main.")[0][2] == "commitment"


def test_the_project_is_the_subject_of_project_directives():
    session = Session()
    session.prompt("Always use uv. Never commit directly to main.")
    found = session.extract()
    assert facts(found) == {(PROJECT, "core/prefers", "uv"),
                            (PROJECT, "core/decided-against", "commit directly to main")}
    uv = next(c for c in found if c["object"] == "uv")
    assert uv["scope"] == "project" and uv["subject_type"] == "project"
    assert uv["source_type"] == "user-assertion" and uv["confidence"] == pytest.approx(0.8)
    assert uv["object_kind"] == "entity" and uv["rule"] == "directives"


def test_the_user_speaking_about_themselves_is_user_scope():
    session = Session()
    session.prompt("I always use vim. I prefer tabs over spaces.")
    found = session.extract()
    assert facts(found) == {("user", "core/prefers", "vim"), ("user", "core/prefers", "tabs"),
                            ("user", "core/decided-against", "spaces")}
    assert {c["scope"] for c in found} == {"user"}


def test_evidence_cites_the_prompt_line_with_the_sentence():
    session = Session()
    session.prompt("hello")
    session.prompt("Thanks! Never use print for logging.")
    [found] = session.extract()
    assert found["evidence"] == ["transcript#L2: Never use print for logging."]


def test_the_project_root_names_the_project_over_the_session_cwd():
    session = Session(cwd=ROOT + "/apps/web")
    session.prompt("Always use pnpm.")
    assert facts(session.extract(project_root="/home/dev/monorepo")) == {
        ("monorepo", "core/prefers", "pnpm")}


def test_without_a_project_only_the_users_own_preferences_are_kept():
    session = Session(cwd=None)
    session.prompt("Always use pnpm. I always use vim.")
    assert facts(session.extract()) == {("user", "core/prefers", "vim")}


def test_assistant_text_never_yields_a_directive_even_a_refuted_hypothesis():
    session = Session()
    session.prompt("the build is slow")
    session.event("assistant", text="Hypothesis: the cache is broken. We decided to use "
                                    "Redis. Always use uv. Never use webpack.")
    session.event("assistant", text="That hypothesis was wrong: the cache is fine.")
    assert session.extract() == []


@pytest.mark.parametrize("fields", [
    {"kind": "meta", "derived": True},
    {"kind": "compaction", "derived": True},
    {"kind": "prompt", "derived": True},
    {"kind": "prompt", "is_sidechain": True},
    {"kind": "prompt", "subagent_id": "a1b2"},
    {"kind": "tool_result"},
])
def test_injected_derived_and_subagent_text_yields_nothing(fields):
    session = Session()
    kind = fields.pop("kind")
    session.event(kind, text="Always use uv. Never commit directly to main.", **fields)
    assert session.extract() == []


def test_code_quotes_and_the_ide_preamble_are_not_sentences():
    prompt = ("# Context from my IDE setup:\n## Active file: never_use.ts\n"
              "## My request for Codex:\nAlways use uv, never pip.\n"
              "```\nnever use this example\n```\n> Never quote me.\n"
              "const never = () => { always() }\n- Never push to main")
    assert list(sentences(prompt)) == ["Always use uv", "never pip.", "Never push to main"]


def test_the_same_directive_twice_is_one_candidate_with_both_lines():
    session = Session()
    session.prompt("Always use uv.")
    session.prompt("Also, always use uv.")
    [found] = session.extract()
    assert found["evidence"] == ["transcript#L1: Always use uv.",
                                 "transcript#L2: always use uv."]
