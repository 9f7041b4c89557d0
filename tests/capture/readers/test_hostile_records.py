"""Valid JSON of the wrong shape -- any field of any type -- never breaks a reader, and is
handled by the readers' own checks, not by the last-resort safety net."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimgraph.capture.readers import read_transcript

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["type", "text", "id"]), inner,
                                                 max_size=3)), max_leaves=6)
CLAUDE_KEYS = ["type", "message", "content", "toolUseResult", "isMeta", "isCompactSummary",
               "subtype", "compactMetadata", "sessionId", "timestamp", "agentId", "uuid"]
CODEX_KEYS = ["type", "payload", "role", "content", "arguments", "output", "call_id", "message",
              "git", "id", "name", "timestamp"]
GEMINI_KEYS = ["type", "content", "toolCalls", "id", "timestamp", "args", "result", "status"]


def _records(keys: list[str], types: list[str]) -> st.SearchStrategy[dict]:
    shaped = st.fixed_dictionaries({"type": st.sampled_from(types)},
                                   optional={k: VALUES for k in keys if k != "type"})
    nested = st.dictionaries(st.sampled_from(keys), st.one_of(VALUES, shaped), max_size=6)
    return st.one_of(shaped, st.builds(lambda a, b: {**a, **b}, shaped, nested))


def _read(text: str, name: str, agent: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text)
        transcript = read_transcript(path, agent=agent)
        assert transcript.end_offset <= path.stat().st_size
        assert "unexpected_shape" not in transcript.counts, "the safety net is not the guard"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_records(CLAUDE_KEYS, ["user", "assistant", "system"]), max_size=6))
def test_claude_code_records_of_any_shape_never_raise(records: list[dict]):
    _read("".join(json.dumps(r) + "\n" for r in records), "s.jsonl", "claude-code")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_records(CODEX_KEYS, ["session_meta", "response_item", "event_msg",
                                      "message", "function_call", "function_call_output"]),
                max_size=6))
def test_codex_records_of_any_shape_never_raise(records: list[dict]):
    wrapped = [{"type": r.get("type"), "payload": r} if i % 2 else r for i, r in enumerate(records)]
    _read("".join(json.dumps(r) + "\n" for r in wrapped), "rollout.jsonl", "codex")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_records(GEMINI_KEYS, ["user", "gemini", "info"]), max_size=6), VALUES)
def test_gemini_messages_of_any_shape_never_raise(messages: list[dict], session_id):
    document = {"sessionId": session_id, "messages": messages}
    _read(json.dumps(document, indent=2), "session.json", "gemini")
