"""Tool outputs held compressed during a capture pass (capture/packed.py): every reader of an
event sees the same strings, and the stored form is the same."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from claimgraph.capture.events import Event
from claimgraph.capture.packed import PACK_MIN_CHARS, PackedEvent, PackedFields, pack, text_head
from claimgraph.capture.segment import event_record

BIG = "  1→line with an arrow, ünïcode and a lone \ud83d surrogate\n" * (PACK_MIN_CHARS // 20)


def _result(text: str, **extras: object) -> Event:
    return Event(kind="tool_result", agent="claude-code", source_file="t.jsonl", line=3,
                 text=text, call_id="c1", extras=dict(extras))


def test_big_output_is_packed_and_reads_back_the_same() -> None:
    plain = _result(BIG, stdout=BIG, exit_code=1, filePath="a.py")
    packed = pack(plain)
    assert isinstance(packed, PackedEvent) and isinstance(packed, Event)
    assert packed.text == BIG and packed.extras["stdout"] == BIG
    assert dict(packed.extras) == {"stdout": BIG, "exit_code": 1, "filePath": "a.py"}
    assert packed.extras.get("exit_code") == 1 and "filePath" in packed.extras
    assert packed.extras.plain() == dict(packed.extras) and type(packed.extras.plain()) is dict
    assert packed == plain and plain == packed
    assert event_record(packed, "t.jsonl") == event_record(plain, "t.jsonl")
    assert packed.to_dict() == plain.to_dict()
    assert type(packed.to_dict()["extras"]) is dict


def test_small_outputs_and_prompts_stay_as_they_are() -> None:
    small = _result("ok", stdout="ok")
    held = pack(small)
    assert not isinstance(held, PackedEvent) and held == small and held.text is small.text
    assert isinstance(held.extras, PackedFields)  # its fields held without a dict table
    assert held.extras._fields["stdout"] is small.extras["stdout"]
    assert pack(_result("ok")) is not None and pack(_result("ok")).extras == {}
    prompt = Event(kind="prompt", agent="claude-code", source_file="t.jsonl", line=1, text=BIG)
    assert pack(prompt) is prompt
    said = Event(kind="assistant", agent="claude-code", source_file="t.jsonl", line=2, text=BIG)
    assert isinstance(pack(said), PackedEvent) and pack(said).text == BIG


def test_what_the_result_repeats_of_its_input_stays_shared() -> None:
    echoed = "x" * (PACK_MIN_CHARS * 2)
    packed = pack(_result(BIG, newString=echoed, stdout=BIG), echoes={id(echoed)})
    assert isinstance(packed.extras, PackedFields)
    assert packed.extras._fields["newString"] is echoed  # not a second, compressed copy
    assert packed.extras["stdout"] == BIG


def test_only_a_big_extra_is_packed() -> None:
    packed = pack(_result("short", stderr=BIG))
    assert isinstance(packed.extras, Mapping) and packed.extras["stderr"] == BIG
    assert packed.text == "short"


def test_a_packed_event_can_still_be_replaced() -> None:
    packed = pack(_result(BIG))
    changed = dataclasses.replace(packed, line=9)
    assert changed.text == BIG and changed.line == 9 and changed != packed
    assert pack(packed) is packed


def test_a_text_head_is_the_start_of_the_text_packed_or_not() -> None:
    """Cuts that fall inside a four-byte character, a lone surrogate and an arrow included."""
    text = ("😀ab→\ud83d" + "é" * 7 + "\n") * 200
    packed = pack(_result(text))
    assert isinstance(packed, PackedEvent)
    for chars in (0, 1, 2, 3, 4, 5, 17, 300, len(text) - 1, len(text), len(text) + 10):
        assert text_head(packed, chars) == text[:chars]
        assert text_head(_result(text), chars) == text[:chars]
    small = pack(_result("short"))
    assert text_head(small, 3) == "sho"

