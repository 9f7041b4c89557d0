"""Issue 22 end to end: real ``claimgraph capture`` processes into a real SQLite store, over a
Codex rollout that grows between two captures, the first ending between a message's item and
its echo. The echo read by the second capture is the message read already: nothing is stored
or reinforced again (the person's own words would otherwise corroborate themselves), and the
store ends as one capture of the whole rollout leaves it. The same words typed again in a
later turn are said twice, and still reinforce."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claimgraph.logic.names import object_name
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars

SESSION = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"
RULE = "Always use uv instead of pip for this project."
REPLY = "Decision: we use `uv` for dependency management instead of `pip`."


def _line(second: int, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": f"2026-03-01T10:{second // 60:02d}:{second % 60:02d}.000Z",
                       "type": kind, "payload": payload})


def _turn(typed: str, second: int) -> list[str]:
    """One 0.4x turn: the user's item then its echo; the agent's echo, then its item."""
    return [
        _line(second, "response_item", {"type": "message", "role": "user",
                                        "content": [{"type": "input_text", "text": typed}]}),
        _line(second, "event_msg", {"type": "user_message", "message": typed}),
        _line(second, "turn_context", {"cwd": "."}),
        _line(second + 1, "event_msg", {"type": "agent_message", "message": REPLY}),
        _line(second + 1, "event_msg", {"type": "token_count"}),
        _line(second + 1, "response_item", {"type": "message", "role": "assistant",
                                            "content": [{"type": "output_text", "text": REPLY}]}),
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "shop"
    path.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for args in (["init", "-q"], ["remote", "add", "origin", "https://github.com/acme/shop.git"]):
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env, capture_output=True)
    return path


def _rollout(project: Path, *turns: list[str]) -> list[str]:
    context = f"<environment_context>\n  <cwd>{project}</cwd>\n</environment_context>"
    head = [_line(0, "session_meta", {"id": SESSION, "cwd": str(project), "cli_version": "0.40.0"}),
            _line(0, "response_item", {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": context}]})]
    return head + [line for turn in turns for line in turn]


def _capture(path: Path, db: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "claimgraph", "capture", str(path),
                           "--no-curate", "--json"], capture_output=True, text=True,
                          env={**os.environ, "CLAIMGRAPH_DB": str(db)}, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _grow(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines))


def _facts(db: Path) -> list[tuple[Any, ...]]:
    """Each fact as one capture or several leave it alike: what, how sure, when last said."""
    store = open_store(db, create=False)
    try:
        return sorted((f["predicate"], str(object_name(f)), f["scope"], round(f["confidence"], 6),
                       tuple(f["evidence"]), f["last_reinforced_at"] == f["recorded_at"])
                      for f in store.all_facts())
    finally:
        store.close()


def _evidence_events(db: Path, report: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in
            Sidecars(db).get_evidence(report["evidence"]).splitlines()[1:]]


@pytest.mark.parametrize("cut, copy", [(3, "item"), (6, "echo")], ids=["user", "assistant"])
def test_a_capture_ending_between_a_message_and_its_echo_leaves_what_one_capture_leaves(
        tmp_path: Path, project: Path, cut: int, copy: str):
    lines = _rollout(project, _turn(RULE, 1))
    whole_db, db = tmp_path / "whole.db", tmp_path / "claims.db"
    path = tmp_path / f"rollout-2026-03-01T10-00-00-{SESSION}.jsonl"
    _grow(path, lines)
    whole = _capture(path, whole_db)
    assert whole["counts"] == {"created": 1}

    _grow(path, lines[:cut])  # the first capture ends on one copy of a message
    first = _capture(path, db)
    store = open_store(db, create=False)
    mark = store.get_mark(f"capture:codex:{SESSION}")
    store.close()
    assert mark["resume"]["offset"] == mark["offset"] and mark["resume"]["open"]["copy"] == copy
    assert RULE not in json.dumps(mark) and REPLY not in json.dumps(mark)  # a digest only
    _grow(path, lines)
    second = _capture(path, db)

    assert first["counts"] == {"created": 1}
    assert "reinforced" not in second["counts"]
    assert _facts(db) == _facts(whole_db)
    messages = [e for e in _evidence_events(db, first) + (
        _evidence_events(db, second) if second["evidence"] else [])
        if e["kind"] in ("prompt", "assistant")]
    assert sorted(e["text"] for e in messages) == sorted([RULE, REPLY])  # each read once


def test_the_same_words_typed_again_after_the_cut_are_said_twice(tmp_path: Path, project: Path):
    """The first capture ends on the first turn's item; the second reads its echo (the
    message read already), then the person typing the same words again: that reinforces."""
    lines = _rollout(project, _turn(RULE, 1), _turn(RULE, 120))
    db = tmp_path / "claims.db"
    path = tmp_path / f"rollout-2026-03-01T10-00-00-{SESSION}.jsonl"
    _grow(path, lines[:3])
    first = _capture(path, db)
    _grow(path, lines)
    second = _capture(path, db)
    assert first["counts"] == {"created": 1}
    assert second["counts"] == {"reinforced": 1}
    prompts = [(e["line"], e["text"]) for e in _evidence_events(db, second)
               if e["kind"] == "prompt"]
    assert prompts == [(9, RULE)]  # the second turn's item; the first turn's echo is not read
