"""The built-in extractor over every real transcript: it never raises, every candidate is
well formed and screenable, every transcript citation points at a line of the right kind, and
every file quote occurs verbatim in text the session wrote into that file or read from it."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from claimgraph.capture.events import Transcript
from claimgraph.capture.extract import EXTRACTORS, get_extractor
from claimgraph.capture.readers import read_transcript
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.admission import admission_ctx, screen_candidates
from claimgraph.logic.predicates import CAPTURE_PREDICATES, CORE_BY_ID, CORE_PREDICATES

from .extract_helpers import TRANSCRIPTS

FIXTURES = sorted(p for p in TRANSCRIPTS.rglob("*.json*") if p.is_file())
EVIDENCE = re.compile(r"(?s)(\S+?):\s+(.*)")  # the audit's own parse (REFERENCE §17)
TRANSCRIPT_REF = re.compile(r"^transcript#L(\d+)$")
REQUIRED = ("subject", "predicate", "object", "epistemic", "confidence", "scope",
            "source_type", "evidence", "rule")
KNOWN_PREDICATES = {*CORE_BY_ID, *(row["id"] for row in CAPTURE_PREDICATES)}
#: The kinds of line each rule may cite: the user's words, the agent's, or a tool exchange.
CITED_KINDS = {
    "statements": {"human", "meta"}, "answers": {"tool_call", "tool_result", "assistant"},
    "gates": {"meta", "tool_result", "tool_call"}, "lessons": {"tool_call"},
    "summaries": {"assistant", "compaction"}, "tooling": {"tool_call"},
    "packages": {"tool_call"}, "defined-in": {"tool_call"}, "module-index": {"tool_call"},
    "instructions": set(), "manifests": set(), "recipes": set(),
    "dev-server": {"tool_call", "human"}, "git-state": {"tool_call"},
    "requests": {"human", "meta", "tool_result", "tool_call"}, "left-open": {"tool_call"},
}
NUMBERED = re.compile(r"^ *\d+(?:→|\t)", re.MULTILINE)


@lru_cache(maxsize=None)
def _run(path: Path) -> tuple[Transcript, tuple[dict[str, Any], ...]]:
    transcript = read_transcript(path)
    return transcript, tuple(EXTRACTORS["builtin"](transcript, project_root=None))


def _name(path: Path) -> str:
    return str(path.relative_to(TRANSCRIPTS))


def _root(transcript: Transcript) -> str | None:
    return next((e.cwd for e in transcript.events if e.cwd), None)


def test_every_fixture_is_swept():
    assert len(FIXTURES) == 19


@pytest.mark.parametrize("path", FIXTURES, ids=_name)
def test_candidates_are_well_formed_and_screenable(path):
    _, found = _run(path)
    for candidate in found:
        assert all(candidate.get(key) not in (None, "") for key in REQUIRED), candidate
        assert candidate["predicate"] in KNOWN_PREDICATES
        assert candidate["scope"] in ("project", "user")
        assert candidate["epistemic"] in ("observation", "preference", "commitment")
        assert 0.3 <= candidate["confidence"] <= 0.9
        assert candidate["evidence"] and all(isinstance(e, str) for e in candidate["evidence"])
    screened = screen_candidates(list(found),
                                 admission_ctx([], (*CORE_PREDICATES, *CAPTURE_PREDICATES)))
    assert screened["inadmissible"] == []


@pytest.mark.parametrize("path", FIXTURES, ids=_name)
def test_transcript_citations_point_at_lines_of_the_right_kind(path):
    transcript, found = _run(path)
    kinds = {}
    for event in transcript.events:
        kinds.setdefault(event.line, set()).add(
            "human" if event.is_human_prompt else event.kind)
    for candidate in found:
        wanted = CITED_KINDS[candidate["rule"]]
        for evidence in candidate["evidence"]:
            reference, quote = EVIDENCE.fullmatch(evidence).groups()
            line = TRANSCRIPT_REF.match(reference)
            if line:
                assert quote and "\n" not in quote
                assert wanted & kinds.get(int(line[1]), set()), evidence


@pytest.mark.parametrize("path", FIXTURES, ids=_name)
def test_every_file_quote_occurs_in_what_the_session_wrote_or_read(path):
    transcript, found = _run(path)
    seen = _file_texts(transcript)
    cited = 0
    for candidate in found:
        for evidence in candidate["evidence"]:
            reference, quote = EVIDENCE.fullmatch(evidence).groups()
            if TRANSCRIPT_REF.match(reference):
                continue
            assert "/" in reference or "." in reference  # the audit must see a file
            code = re.fullmatch(r"`(.+)`", quote)[1]
            assert any(code in text for text in seen), evidence
            cited += 1
    assert cited >= sum(c["predicate"] == "core/defined-in" for c in found)


def _file_texts(transcript: Transcript) -> list[str]:
    """Independently of the extractor: every text a tool call put into a file, and every
    tool output with a reader's line numbers taken off."""
    texts: list[str] = []
    for event in transcript.events:
        tool_input = event.tool_input or {}
        if event.kind == "tool_call":
            pieces = [tool_input.get("content"), tool_input.get("new_string")]
            pieces += [e.get("new_string") for e in tool_input.get("edits") or []]
            texts.extend(p for p in pieces if isinstance(p, str))
        elif event.kind == "tool_result":
            texts.append(NUMBERED.sub("", event.text))
    return texts


def _facts(name: str) -> set[tuple[str, str, str]]:
    _, found = _run(TRANSCRIPTS / name)
    return {(c["subject"], c["predicate"], c["object"]) for c in found}


def test_the_python_session_yields_exactly_what_it_did():
    """The Stop hook's rule and how its block was cleared, how tests run, and the function
    the user asked for -- not the files' languages, not add_numbers (nobody mentions it)."""
    assert _facts("claude-code/coverage-test-fix.jsonl") == {
        ("tmpw6sk2trg", "x/convention", "The Stop hook (scripts/hooks/stop.sh) blocks ending "
         "the session: Cannot exit with unstaged changes; Cannot exit with untracked files"),
        ("tmpw6sk2trg", "core/failure-mode", "The Stop hook (scripts/hooks/stop.sh) blocked "
         "(Cannot exit with untracked files); cleared by adding `__pycache__/`, `*.pyc`, "
         "`.coverage` to .gitignore"),
        ("tmpw6sk2trg", "core/tested-by", "python -m pytest"),
        ("multiply_numbers", "core/defined-in", "src/math_utils.py"),
        # where it left the work, from git's own output: the commit, and no push after it
        ("tmpw6sk2trg", "x/state", "Where the session of 2026-01-21 left the work in git: "
         "1 commit on branch `master`: 6322cf4 \"Add multiply_numbers function with "
         "test\"; not pushed; the checkout was on `master` at the end"),
        # a finished state (left_open.py): written only to replace a failing one stored before
        ("tmpw6sk2trg check `pytest`", "x/state", "Passing at the end of the session of "
         "2026-01-21: the last run of `python -m pytest tests/test_math_utils.py -v` passed")}


def test_a_config_failure_fixed_by_editing_config_is_a_lesson():
    found = _facts("claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
    assert ("spotter-fum", "core/failure-mode",
            "`mix test` failed: ** (RuntimeError) no :secret_key_base configuration found in "
            "SpotterWeb.Endpoint; fixed by editing config/test.exs, mix.exs, "
            "test/spotter_web/live/session_live_test.exs") in found
    assert ("spotter-fum", "core/failure-mode",
            '`node assets/build.js` fails when run from the project root: Could not resolve '
            '"js/app.js"; run it from assets/ (`node build.js`)') in found


def test_a_test_the_session_just_wrote_failing_then_passing_is_no_lesson():
    """full-session-four writes NavUser.test.tsx, runs it, fixes NavUser.tsx: work in
    progress, not a known failure mode of the project."""
    found = _facts("claude-code/full-session-four.jsonl")
    assert not [f for f in found if f[1] == "core/failure-mode"]
    assert ("agent-workflows-monorepo-v2", "core/tested-by", "pnpm test") in found
    # a product rule stated as a "should": the sentence model calls it a decision or a preference
    sentence = "We should use the initials from the username if name isn't present"
    assert {("agent-workflows-monorepo-v2", predicate, sentence)
            for predicate in ("x/decided", "core/prefers")} & found


def test_the_rust_port_keeps_the_users_decisions_and_its_layout():
    found = _facts("claude-code/python-to-rust-port.jsonl")
    # Since its threshold was chosen for precision, the sentence model does not keep "Create a
    # standalone Rust library (no Python bindings needed)" (score 0.12, under the phrase
    # lists' floor of 0.30): docs/capture.md, "The sentence model", known limits.
    # The order to go on until the port is done is the model's convention, but it lasts only
    # until this task is done ("Standing or for today"): not a standing rule; the coverage bar
    # it names is the gate the session ran, and the Justfile's recipe.
    assert not any(f[2].lower().startswith("don't stop until") for f in found)
    assert ("tmpqwh7888i", "core/tested-by", "cargo llvm-cov --fail-under-lines 100") in found
    assert ("src/lib.rs", "x/role", "declares the modules dict_utils, list_utils, math_utils, "
            "string_utils, validation") in found
    assert ("tmpqwh7888i", "x/decided",
            "Used `Result<T, E>` instead of raising exceptions for `factorial()`") in found
    assert not any(f[1] == "core/defined-in" for f in found)  # nobody asked where
    # `cargo test` is the toolchain's default (the Justfile's fact says `just test` runs it)
    assert ("tmpqwh7888i", "core/tested-by", "cargo test") not in found
    assert not any(f[0] == "fmt" for f in found)  # a trait method, not a top-level item
    # the edition a new Cargo.toml starts with is the template's, not a decision
    assert not any(f[1] == "core/written-in" for f in found)
    assert any(f[0] == "Justfile" and "`just check` runs `cargo llvm-cov --fail-under-lines 100`"
               in f[2] for f in found)
    assert ("tmpqwh7888i", "x/convention", "Cargo.toml sets lints.rust.missing_docs = warn") \
        in found
    assert not any("uv run pytest" in f[2] for f in found)  # the old Justfile was rewritten


def test_answers_to_the_agents_questions_are_decisions():
    found = _facts("claude-code/subagent.jsonl")
    # kept: the plan and the beads the session wrote afterwards name the picked tools as a list
    assert ("spotter", "x/decided", 'Tools: Credo + Dialyxir + mix_audit — Skip Sobelow '
            '(Phoenix security scanner) (asked "Which tools should we set up?")') in found
    # nothing the session wrote carries "No rig", but the question asks about the beads (a
    # thing of the project), not about how someone works: kept
    assert ("spotter", "x/decided", 'Rig prefix: No rig — Don\'t use a rig prefix (asked "Which '
            'rig do these beads belong to?")') in found
    assert ("spotter", "core/decided-against", "Sobelow (Phoenix security scanner)") in found
    assert ("spotter", "core/decided-against", "custom Credo checks") in found
    assert not any("Recommended" in f[2] for f in found)


def test_project_instructions_the_agent_read_become_conventions():
    found = _facts("codex/rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl")
    assert ("spectora-labs-monorepo-v2", "x/convention",
            "Testing: Always set `NODE_ENV=test` when running tests") in found
    assert ("spectora-labs-monorepo-v2", "x/decided",
            "We should start with packages/services") in found
    assert not any("ultrathink" in f[2] for f in found)


def test_a_pre_commit_gate_and_how_it_was_passed():
    found = _facts("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    assert ("spotter-4te", "core/failure-mode", "`git commit -m …` failed: [FORMAT] Code is "
            "not formatted; fixed by running `mix format`") in found
    assert any(f[1] == "x/convention" and f[2].startswith("A pre-commit check blocks commits")
               for f in found)


def test_sessions_with_nothing_durable_yield_at_most_their_dev_server():
    assert _facts("claude-code/short.jsonl") == {
        ("spotter", "x/runs", "its dev server with `mix phx.server`")}
    assert _facts("claude-code/tool_heavy.jsonl") == {
        ("spotter", "x/runs", "its dev server with `mix phx.server`")}


def test_plans_written_outside_the_project_are_not_project_structure():
    found = _facts("claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
    assert not any(".claude/plans" in part for fact in found for part in fact)


def test_an_unknown_extractor_name_is_refused_with_the_known_ones():
    assert get_extractor("builtin") is EXTRACTORS["builtin"]
    with pytest.raises(ClaimgraphError) as refused:
        get_extractor("magic")
    assert refused.value.type == "unknown-extractor" and "builtin" in refused.value.hint


def test_a_manifest_the_agent_only_read_gives_neither_its_language_nor_its_lists():
    found = _facts("claude-code/subagent.jsonl")
    assert not any(f[1] == "core/depends-on" for f in found)  # read, not changed: a glance
    assert not any(f[1] == "core/written-in" for f in found)  # its trivia too
    assert not any(f[1] == "x/runs" for f in found)  # its aliases, never run: a glance too


def test_a_gemini_session_placed_in_its_project_teaches_its_install_lesson():
    """Gemini records no cwd; capture places it by its project hash and passes the root."""
    transcript = read_transcript(TRANSCRIPTS / "gemini" / "session-2025-10-27T19-55-981c87cb.json")
    found = {(c["subject"], c["predicate"], c["object"]) for c in EXTRACTORS["builtin"](
        transcript, project_root="/Users/jnarowski/Dev/playground/src/test-project")}
    assert found == {
        ("test-project", "core/failure-mode", "`pip3 install RestrictedPython` failed: error: "
         "externally-managed-environment; fixed by running `python3 -m venv venv`")}
    # the agent's own pick, installed: nobody named it, no failure asked for it (a glance)
