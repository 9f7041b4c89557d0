"""A Codex message the person typed is written twice -- a ``response_item`` and an
``event_msg`` echo -- and the two copies are not always word for word alike: the item wraps
the typed text (an attached image's markup, a file list), or one copy is cut short. Each
typed message is still one prompt (the longer copy, at its own line); two messages really
sent apart stay two."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimgraph.capture.classify import tally
from claimgraph.capture.extract.builtin import extract
from claimgraph.capture.readers import codex

TYPED = "Never commit generated files to the repository."
IMAGE = "<image name=[Image #1]>\n</image>\n"


def _line(kind: str, payload: dict, second: int = 0) -> str:
    stamp = f"2026-03-01T10:{second // 60:02d}:{second % 60:02d}.000Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})


def _meta() -> str:
    return _line("session_meta", {"id": "s1", "cwd": "/home/dev/shop"})


def _item(text: str, second: int = 0) -> str:
    return _line("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]}, second)


def _echo(text: str, second: int = 0) -> str:
    return _line("event_msg", {"type": "user_message", "message": text}, second)


def _item_completed(text: str, second: int = 0) -> str:
    """0.171's echo: an ``item_completed`` UserMessage."""
    return _line("event_msg", {"type": "item_completed", "item": {
        "type": "UserMessage", "content": [{"type": "text", "text": text}]}}, second)


def _reply(text: str, second: int = 0) -> str:
    return _line("response_item", {"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": text}]}, second)


def _read(tmp_path: Path, *lines: str):
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([_meta(), *lines]) + "\n")
    return codex.read(str(path))


def _prompts(transcript) -> list[tuple[int, str]]:
    return [(e.line, e.text) for e in transcript.events if e.kind == "prompt"]


@pytest.mark.parametrize("echo", [_echo, _item_completed], ids=["0.4x", "0.171"])
@pytest.mark.parametrize("order", ["item first", "echo first"])
def test_an_item_wrapping_its_echo_is_one_prompt_the_items(tmp_path: Path, order: str, echo):
    copies = [_item(IMAGE + TYPED), echo(TYPED)]
    transcript = _read(tmp_path, *(copies if order == "item first" else copies[::-1]))
    item_line = 2 if order == "item first" else 3
    assert _prompts(transcript) == [(item_line, IMAGE + TYPED)]
    assert transcript.counts["duplicates"] == 1


def test_an_echo_cut_short_gives_way_to_the_whole_item(tmp_path: Path):
    transcript = _read(tmp_path, _item(TYPED + " Regenerate them in CI."), _echo(TYPED[:30] + "…"))
    assert _prompts(transcript) == [(2, TYPED + " Regenerate them in CI.")]


def test_an_item_cut_short_gives_way_to_the_whole_echo_at_the_echos_line(tmp_path: Path):
    transcript = _read(tmp_path, _item(TYPED[:30] + "..."), _echo(TYPED))
    assert _prompts(transcript) == [(3, TYPED)]
    assert not [e for e in transcript.events if e.kind == "meta"]  # not taken for the harness


@pytest.mark.parametrize("between", ["minutes apart", "a reply between"])
def test_the_same_words_sent_again_later_stay_two_messages(tmp_path: Path, between: str):
    """The first message's echo was never written, the second's item was not: alike, but two
    messages, since they are not written beside each other."""
    later = _echo(TYPED, 300) if between == "minutes apart" else _echo(TYPED)
    gap = [] if between == "minutes apart" else [_reply("Done.")]
    transcript = _read(tmp_path, _item(IMAGE + TYPED), *gap, later)
    assert [text for _, text in _prompts(transcript)] == [IMAGE + TYPED, TYPED]


def test_two_different_messages_side_by_side_are_not_paired(tmp_path: Path):
    other = IMAGE + "Use uv for every install."
    transcript = _read(tmp_path, _item(other), _echo(TYPED))
    assert _prompts(transcript) == [(3, TYPED)]  # the echo is kept whole
    assert [e.text for e in transcript.events if e.line == 2] == [other]  # the item too


def test_the_sentence_tally_reads_a_wrapped_message_once(tmp_path: Path):
    transcript = _read(tmp_path, _item(IMAGE + TYPED), _echo(TYPED))
    with tally.collecting() as heard:
        extract(transcript, project_root="/home/dev/shop")
    assert [entry["sentence"].rstrip(".") for entry in heard] == [TYPED.rstrip(".")]
    assert tally.summary(heard)["read"] == 1
