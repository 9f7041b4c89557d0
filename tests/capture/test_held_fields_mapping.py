"""``PackedFields`` (capture/packed.py) stands where a tool call's input and a result's extras
were plain dicts: every way a rule or the segment reads a mapping answers as a dict would,
and a write is refused rather than changing a shape other mappings share."""

from __future__ import annotations

import json

import pytest

from claimgraph.capture import packed
from claimgraph.capture.events import Event
from claimgraph.capture.packed import PackedFields, pack, pack_input
from claimgraph.capture.segment import event_record

BIG = "line of output\n" * 400
NESTED = {"todos": [{"content": "a", "status": "done"}], "options": {"deep": [1, 2]}}


def _inputs() -> list[tuple[dict, PackedFields]]:
    """Plain inputs and their held form: small, big (packed), nested, unhashable, None."""
    plain = [{"command": "ls", "description": "list"},
             {"file_path": "a.py", "content": BIG, "flag": None},
             dict(NESTED, file_path="b.py"),
             {"empty": "", "zero": 0, "none": None, "list": []}]
    held = [pack_input(dict(fields))[0] for fields in plain]
    assert all(isinstance(h, PackedFields) for h in held)
    return list(zip(plain, held))


@pytest.mark.parametrize("case", range(4))
def test_held_fields_read_as_the_dict_they_were(case):
    plain, held = _inputs()[case]
    assert dict(held) == plain and held == plain and plain == held
    assert list(held) == list(plain) and list(held.keys()) == list(plain.keys())
    assert list(held.items()) == list(plain.items())
    assert list(held.values()) == list(plain.values())
    assert len(held) == len(plain) and held.plain() == plain
    for key in plain:
        assert key in held and held[key] == plain[key] and held.get(key, "x") == plain[key]
    assert "missing" not in held and held.get("missing") is None
    assert held.get("missing", 7) == 7
    with pytest.raises(KeyError):
        held["missing"]  # pylint: disable=pointless-statement
    assert json.dumps(held.plain()) == json.dumps(plain)
    assert repr(held) == repr(plain)


def test_a_key_holding_none_or_falsy_is_not_taken_for_missing():
    held, _ = pack_input({"none": None, "zero": 0, "empty": ""})
    assert held.get("none", "default") is None and held.get("zero", 1) == 0
    assert held.get("empty", "x") == "" and "none" in held


def test_the_same_keys_in_another_order_keep_their_order_and_compare_equal():
    first = PackedFields({"a": 1, "b": [2]})
    second = PackedFields({"b": [2], "a": 1})
    assert first == second and list(first) == ["a", "b"] and list(second) == ["b", "a"]
    assert first._keys is not second._keys
    third = PackedFields({"a": 5, "b": 6})  # the first one's shape, other values
    assert third._keys is first._keys and dict(first) == {"a": 1, "b": [2]}


def test_unhashable_keys_are_refused_as_a_dict_refuses_them():
    held, _ = pack_input({"a": 1})
    for probe in (lambda: [1] in held, lambda: held.get([1]), lambda: held[[1]]):
        with pytest.raises(TypeError):
            probe()
    with pytest.raises(TypeError):
        hash(held)  # a dict is not hashable either


def test_a_write_is_refused_and_leaves_the_shared_shape_alone():
    one, _ = pack_input({"command": "ls", "timeout": 5})
    two, _ = pack_input({"command": "pwd", "timeout": 9})
    assert one._keys is two._keys
    with pytest.raises(TypeError):
        one["command"] = "rm"  # type: ignore[index]
    for name in ("setdefault", "update", "pop", "clear", "__setitem__", "__delitem__"):
        assert not hasattr(one, name), name
    copy = one._fields
    copy["command"] = "rm"  # a copy: the held fields do not change
    assert one["command"] == "ls" and two == {"command": "pwd", "timeout": 9}
    assert one._keys[0] == ("command", "timeout")


def test_nested_values_are_the_same_objects_and_compare_equal():
    fields = dict(NESTED)
    held, _ = pack_input(fields)
    assert held["todos"] is fields["todos"] and held["options"] == {"deep": [1, 2]}


def test_an_event_with_held_fields_serialises_as_the_plain_one():
    plain = Event(kind="tool_result", agent="claude-code", source_file="t.jsonl", line=3,
                  text="ok", call_id="c1", extras={"stdout": BIG, "exit_code": 0, **NESTED})
    call = Event(kind="tool_call", agent="claude-code", source_file="t.jsonl", line=2,
                 tool_name="Write", call_id="c1",
                 tool_input={"file_path": "a.py", "content": BIG})
    held_result = pack(plain)
    held_call = Event(**{**{f: getattr(call, f) for f in packed._FIELDS},
                         "tool_input": pack_input(dict(call.tool_input or {}))[0]})
    for held, original in ((held_result, plain), (held_call, call)):
        assert json.dumps(held.to_dict(), sort_keys=True) == \
            json.dumps(original.to_dict(), sort_keys=True)
        assert type(held.to_dict()["extras"]) is dict
        assert event_record(held, "t.jsonl") == event_record(original, "t.jsonl")
        assert held == original


def test_a_shape_of_long_made_up_keys_is_not_kept_past_its_mappings():
    """The shared shapes live as long as the process: a transcript's made-up keys, however
    long, must not stay there after the mappings holding them are gone."""
    long_key = "k" * 100_000
    held = PackedFields({long_key: 1, "b": 2})
    assert held[long_key] == 1 and list(held) == [long_key, "b"]
    assert (long_key, "b") not in packed._SHAPES
    again = PackedFields({"command": "ls", "timeout": 1})
    assert ("command", "timeout") in packed._SHAPES and again._keys is \
        PackedFields({"command": "pwd", "timeout": 2})._keys
