"""The built-in extractor over every real transcript: it never raises, every candidate is
well formed and screenable, every transcript citation points at a line of the right kind, and
every code quote occurs verbatim in text the session itself wrote into that file."""

from __future__ import annotations

import posixpath
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
from claimgraph.logic.predicates import CORE_BY_ID, CORE_PREDICATES

from .extract_helpers import TRANSCRIPTS

FIXTURES = sorted(p for p in TRANSCRIPTS.rglob("*.json*") if p.is_file())
EVIDENCE = re.compile(r"(?s)(\S+?):\s+(.*)")  # the audit's own parse (REFERENCE §17)
TRANSCRIPT_REF = re.compile(r"^transcript#L(\d+)$")
REQUIRED = ("subject", "predicate", "object", "epistemic", "confidence", "scope",
            "source_type", "evidence", "rule")


@lru_cache(maxsize=None)
def _run(path: Path) -> tuple[Transcript, tuple[dict[str, Any], ...]]:
    transcript = read_transcript(path)
    return transcript, tuple(EXTRACTORS["builtin"](transcript, project_root=None))


def _name(path: Path) -> str:
    return str(path.relative_to(TRANSCRIPTS))


def _root(transcript: Transcript) -> str | None:
    return next((e.cwd for e in transcript.events if e.cwd), None)


def test_every_fixture_is_swept():
    assert len(FIXTURES) == 14


@pytest.mark.parametrize("path", FIXTURES, ids=_name)
def test_candidates_are_well_formed_and_screenable(path):
    _, found = _run(path)
    for candidate in found:
        assert all(candidate.get(key) not in (None, "") for key in REQUIRED), candidate
        assert candidate["predicate"] in CORE_BY_ID
        assert candidate["scope"] in ("project", "user")
        assert candidate["epistemic"] in ("observation", "preference", "commitment")
        assert 0.3 <= candidate["confidence"] <= 0.9
        assert candidate["evidence"] and all(isinstance(e, str) for e in candidate["evidence"])
    screened = screen_candidates(list(found), admission_ctx([], CORE_PREDICATES))
    assert screened["inadmissible"] == []


@pytest.mark.parametrize("path", FIXTURES, ids=_name)
def test_transcript_citations_point_at_lines_of_the_right_kind(path):
    transcript, found = _run(path)
    kinds = {}
    for event in transcript.events:
        kinds.setdefault(event.line, set()).add(
            "human" if event.is_human_prompt else event.kind)
    for candidate in found:
        wanted = "human" if candidate["rule"] == "directives" else "tool_call"
        for evidence in candidate["evidence"]:
            reference, quote = EVIDENCE.fullmatch(evidence).groups()
            line = TRANSCRIPT_REF.match(reference)
            if line:
                assert quote and "\n" not in quote
                assert wanted in kinds.get(int(line[1]), set()), evidence


@pytest.mark.parametrize("path", FIXTURES, ids=_name)
def test_every_code_quote_occurs_in_what_the_session_wrote(path):
    transcript, found = _run(path)
    written = _written_texts(transcript)
    root = _root(transcript)
    cited = 0
    for candidate in found:
        for evidence in candidate["evidence"]:
            reference, quote = EVIDENCE.fullmatch(evidence).groups()
            if TRANSCRIPT_REF.match(reference):
                continue
            assert "/" in reference or "." in reference  # the audit must see a file
            code = re.fullmatch(r"`([^`]+)`", quote)[1]
            target = reference if reference.startswith("/") else posixpath.join(root, reference)
            assert any(code in text for text in written.get(posixpath.normpath(target), [])), \
                evidence
            cited += 1
    assert cited == sum(c["predicate"] == "core/defined-in" for c in found)


def _written_texts(transcript: Transcript) -> dict[str, list[str]]:
    """Re-read, independently of the extractor, every text a tool call put into a file."""
    texts: dict[str, list[str]] = {}
    for event in transcript.events:
        tool_input = event.tool_input or {}
        path = tool_input.get("file_path")
        if event.kind != "tool_call" or not isinstance(path, str):
            continue
        pieces = [tool_input.get("content"), tool_input.get("new_string")]
        pieces += [e.get("new_string") for e in tool_input.get("edits") or []]
        texts.setdefault(path, []).extend(p for p in pieces if isinstance(p, str))
    return texts


def _facts(name: str) -> set[tuple[str, str, str]]:
    _, found = _run(TRANSCRIPTS / name)
    return {(c["subject"], c["predicate"], c["object"]) for c in found}


def test_the_python_session_yields_exactly_what_it_did():
    assert _facts("claude-code/coverage-test-fix.jsonl") == {
        ("src/math_utils.py", "core/written-in", "Python"),
        ("add_numbers", "core/defined-in", "src/math_utils.py"),
        ("multiply_numbers", "core/defined-in", "src/math_utils.py"),
        ("tests/test_math_utils.py", "core/written-in", "Python"),
        ("tmpw6sk2trg", "core/tested-by", "pytest")}


def test_a_config_failure_fixed_by_editing_config_is_a_lesson():
    lessons = [f for f in _facts("claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
               if f[1] == "core/failure-mode"]
    assert lessons == [("spotter-fum", "core/failure-mode",
                        "`mix test` failed with ** (RuntimeError) no :secret_key_base "
                        "configuration found in SpotterWeb.Endpoint; fixed by editing "
                        "config/test.exs, mix.exs, test/spotter_web/live/session_live_test.exs")]


def test_a_test_the_session_just_wrote_failing_then_passing_is_no_lesson():
    """full-session-four writes NavUser.test.tsx, runs it, fixes NavUser.tsx: work in
    progress, not a known failure mode of the project."""
    found = _facts("claude-code/full-session-four.jsonl")
    assert not [f for f in found if f[1] == "core/failure-mode"]
    assert ("agent-workflows-monorepo-v2", "core/tested-by", "pnpm test") in found


def test_the_rust_port_reports_rust_files_and_their_public_items():
    found = _facts("claude-code/python-to-rust-port.jsonl")
    assert ("reverse_string", "core/defined-in", "src/string_utils.rs") in found
    assert ("NegativeInputError", "core/defined-in", "src/math_utils.rs") in found
    assert ("tmpqwh7888i", "core/tested-by", "cargo test") in found
    assert not any(f[0] == "fmt" for f in found)  # a trait method, not a top-level item


def test_read_only_and_conversation_only_sessions_yield_nothing():
    for name in ("codex/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl",
                 "claude-code/short.jsonl", "claude-code/tool_heavy.jsonl",
                 "claude-code/06381696-0074-49f8-863e-6ad4fac507f9.jsonl"):
        assert _facts(name) == set(), name


def test_plans_written_outside_the_project_are_not_project_structure():
    found = _facts("claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
    assert not any(".claude/plans" in part for fact in found for part in fact)
    assert ("Spotter.Services.TranscriptRenderer", "core/defined-in",
            "lib/spotter/services/transcript_renderer.ex") in found


def test_an_unknown_extractor_name_is_refused_with_the_known_ones():
    assert get_extractor("builtin") is EXTRACTORS["builtin"]
    with pytest.raises(ClaimgraphError) as refused:
        get_extractor("magic")
    assert refused.value.type == "unknown-extractor" and "builtin" in refused.value.hint
