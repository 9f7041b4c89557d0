"""A Codex message whose item and echo two capture passes cut apart is still read once
(issue 22, codex_cut.py): the pass that ends on one copy hands it to the next, whose first
record pairs with it. Read in passes at every cut, a rollout gives the messages one read of
the whole file gives; the same words really sent twice stay two messages."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from claimgraph.capture.readers import codex
from claimgraph.capture.readers.codex_cut import carried

from .reader_helpers import CODEX

RULE = "Always use uv instead of pip for this project."
ASK = "Run the tests, please."
DONE = "Done: the tests pass with `uv run pytest`."
#: A line that is one copy of a message: an item with a role, or an echo.
_A_COPY = re.compile(rb'"role":|"(?:user|agent)_message"|"(?:User|Agent)Message"')


def _line(kind: str, payload: dict[str, Any], second: int) -> str:
    stamp = f"2026-03-01T10:{second // 60:02d}:{second % 60:02d}.000Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})


def _message(role: str, text: str, second: int) -> str:
    kind = "input_text" if role == "user" else "output_text"
    return _line("response_item", {"type": "message", "role": role,
                                   "content": [{"type": kind, "text": text}]}, second)


def _turn_04x(typed: str, second: int, call: str) -> list[str]:
    """0.4x: the user's item then its echo; the agent's echo, then its item."""
    return [_message("user", typed, second),
            _line("event_msg", {"type": "user_message", "message": typed}, second),
            _line("turn_context", {"cwd": "/home/dev/shop"}, second),
            _line("event_msg", {"type": "token_count"}, second + 1),
            _line("response_item", {"type": "function_call", "name": "shell", "call_id": call,
                                    "arguments": json.dumps({"command": ["uv", "run", "pytest"]})},
                  second + 1),
            _line("response_item", {"type": "function_call_output", "call_id": call,
                                    "output": json.dumps({"output": "3 passed",
                                                          "metadata": {"exit_code": 0}})},
                  second + 2),
            _line("event_msg", {"type": "agent_message", "message": DONE}, second + 3),
            _line("event_msg", {"type": "token_count"}, second + 3),
            _message("assistant", DONE, second + 3)]


def _turn_0171(typed: str, second: int, call: str) -> list[str]:
    """0.171: echoes are ``item_completed`` events."""
    def completed(kind: str, text: str) -> str:
        return _line("event_msg", {"type": "item_completed", "item": {
            "type": kind, "content": [{"type": "text", "text": text}]}}, second + 3)
    return [_message("user", typed, second),
            completed("UserMessage", typed),
            _line("response_item", {"type": "function_call", "name": "exec_command",
                                    "call_id": call,
                                    "arguments": json.dumps({"cmd": "uv run pytest"})},
                  second + 1),
            _line("event_msg", {"type": "item_completed", "item": {
                "type": "CommandExecution", "id": call, "exit_code": 0}}, second + 2),
            _line("response_item", {"type": "function_call_output", "call_id": call,
                                    "output": "Process exited with code 0\nOutput:\n3 passed"},
                  second + 2),
            completed("AgentMessage", DONE),
            _line("token_usage_record", {}, second + 3),
            _message("assistant", DONE, second + 3)]


def _rollout(turn) -> list[str]:
    """Three turns, the third the first's words typed again."""
    head = [_line("session_meta", {"id": "s1", "cwd": "/home/dev/shop"}, 0),
            _message("user", "<environment_context>\n  <cwd>/home/dev/shop</cwd>\n"
                             "</environment_context>", 0)]
    return head + turn(RULE, 10, "c1") + turn(ASK, 100, "c2") + turn(RULE, 200, "c3")


def _passes(path: Path, lines: list[str], cuts: tuple[int, ...]) -> list[Any]:
    """Read ``lines`` in passes, the file growing to each cut, each pass from the last one's
    end with its resume state, as capture does."""
    reads, offset, resume = [], 0, None
    for end in (*cuts, len(lines)):
        path.write_text("".join(line + "\n" for line in lines[:end]))
        transcript = codex.read(str(path), offset, resume=resume)
        reads.append(transcript)
        offset, resume = transcript.end_offset, transcript.resume
    return reads


def _messages(*reads: Any) -> Counter[tuple[str, str]]:
    return Counter((e.kind, e.text) for read in reads for e in read.events
                   if e.kind in ("prompt", "assistant"))


@pytest.mark.parametrize("turn", [_turn_04x, _turn_0171], ids=["0.4x", "0.171"])
def test_every_cut_reads_each_message_as_often_as_one_read_does(tmp_path: Path, turn):
    lines = _rollout(turn)
    whole = _passes(tmp_path / "whole.jsonl", lines, ())
    assert _messages(*whole) == Counter({("prompt", RULE): 2, ("prompt", ASK): 1,
                                         ("assistant", DONE): 3})
    for cut in range(1, len(lines)):
        reads = _passes(tmp_path / f"cut-{cut}.jsonl", lines, (cut,))
        assert _messages(*reads) == _messages(*whole), f"cut after line {cut}"


@pytest.mark.parametrize("turn", [_turn_04x, _turn_0171], ids=["0.4x", "0.171"])
def test_three_passes_at_any_two_cuts_read_each_message_once(tmp_path: Path, turn):
    """A pass that reads only bookkeeping between the copies hands the open copy on."""
    lines = _rollout(turn)
    expected = _messages(*_passes(tmp_path / "whole.jsonl", lines, ()))
    path = tmp_path / "r.jsonl"
    for cuts in itertools.combinations(range(1, len(lines)), 2):
        assert _messages(*_passes(path, lines, cuts)) == expected, f"cuts after {cuts}"


def test_the_echo_after_a_cut_is_counted_a_duplicate_and_the_item_keeps_its_line(tmp_path):
    lines = _rollout(_turn_04x)
    first, second = _passes(tmp_path / "r.jsonl", lines, (3,))  # ends on RULE's item
    assert [(e.kind, e.line) for e in first.events] == [("meta", 2), ("prompt", 3)]
    assert first.resume["offset"] == first.end_offset
    assert first.resume["open"]["copy"] == "item" and RULE not in json.dumps(first.resume)
    assert [e.kind for e in second.events][:1] == ["tool_call"]
    items = [n for n, line in enumerate(lines, 1) if '"input_text"' in line]
    assert [(e.line, e.text) for e in second.events if e.kind == "prompt"] == [
        (items[2], ASK), (items[3], RULE)]  # the third turn's words are its own message
    # the echo across the cut, and the five pairs read whole after it
    assert second.counts["duplicates"] == 6 and not second.resume


def test_an_item_the_pass_took_for_the_harness_leaves_its_echo_to_be_read(tmp_path):
    """The first turn's echo is in the pass, so the second turn's item, its echo not yet
    written, is taken for the harness's: the echo in the next pass is then the message."""
    lines = _rollout(_turn_04x)
    cut = lines.index(_message("user", ASK, 100)) + 1
    first, second = _passes(tmp_path / "r.jsonl", lines, (cut,))
    assert [e.kind for e in first.events if e.text == ASK] == ["meta"]
    assert first.resume["open"]["read"] is False
    assert [(e.kind, e.line) for e in second.events if e.text == ASK] == [("prompt", cut + 1)]


def test_the_same_words_after_the_cut_but_after_another_record_are_another_message(tmp_path):
    """Only the next pass's first message or tool record can be the other copy."""
    path = tmp_path / "r.jsonl"
    lines = [_line("session_meta", {"id": "s1", "cwd": "/home/dev/shop"}, 0),
             _message("user", RULE, 1),
             _message("assistant", "Noted.", 2),
             _line("event_msg", {"type": "user_message", "message": RULE}, 3)]
    first, second = _passes(path, lines, (2,))
    _, after_reply = _passes(path, lines, (3,))
    assert _messages(second) == Counter({("assistant", "Noted."): 1, ("prompt", RULE): 1})
    assert _messages(after_reply) == Counter({("prompt", RULE): 1})


def test_a_copy_written_long_after_is_another_message(tmp_path):
    lines = [_line("session_meta", {"id": "s1", "cwd": "/home/dev/shop"}, 0),
             _message("user", RULE, 1),
             _line("event_msg", {"type": "user_message", "message": RULE}, 600)]
    _, second = _passes(tmp_path / "r.jsonl", lines, (2,))
    assert _messages(second) == Counter({("prompt", RULE): 1})


@pytest.mark.parametrize("state", [
    {"offset": 7, "open": {"role": "user", "digest": "ab", "copy": "item", "stamp": None,
                           "read": True}},  # another offset
    {"offset": 100, "open": {"role": "user", "digest": "ab", "copy": "neither",
                             "stamp": None, "read": True}},
    {"offset": 100, "open": ["user", "ab"]},
    {"offset": 100, "open": {"role": "user", "digest": "ab", "copy": "item", "stamp": "soon",
                             "read": True}},
    "not a mapping",
])
def test_a_state_for_another_offset_or_of_another_shape_is_not_trusted(state):
    assert carried(state, 100) is None


def test_a_state_made_at_the_offset_is_trusted():
    state = {"offset": 100, "open": {"role": "user", "digest": "ab", "copy": "echo",
                                     "stamp": 5, "read": True}}
    assert carried(state, 100) is not None


@pytest.mark.parametrize("source", sorted(CODEX.glob("rollout-*.jsonl")), ids=lambda p: p.name[:30])
def test_real_rollouts_cut_beside_any_message_read_each_message_as_one_read_does(
        tmp_path: Path, source: Path):
    """Recorded rollouts (0.4x and 0.171), cut at every line near a message's copies."""
    lines = source.read_bytes().splitlines(keepends=True)
    copies = [n for n, line in enumerate(lines) if _A_COPY.search(line)]
    cuts = sorted({cut for n in copies for cut in range(n - 2, n + 4) if 0 < cut < len(lines)})
    whole = _messages(codex.read(str(source)))
    path = tmp_path / source.name
    for cut in cuts:
        path.write_bytes(b"".join(lines[:cut]))
        first = codex.read(str(path))
        path.write_bytes(b"".join(lines))
        second = codex.read(str(path), first.end_offset, resume=first.resume)
        assert _messages(first, second) == whole, f"cut after line {cut}"
