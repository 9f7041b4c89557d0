"""The reader's depth guard measures a line's bytes before they are decoded, clearing most
lines with a bound found by C-speed passes: whatever the bound clears must really be within
the limit, and a line past it must still be caught, brackets inside strings set aside."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.readers import MAX_JSON_DEPTH, json_depth


def walked_depth(line: bytes) -> int:
    """The depth by the plain walk: every bracket, strings included, as a reference."""
    depth = deepest = 0
    for byte in line:
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


def nested(depth: int, middle: bytes = b'"x"') -> bytes:
    return b"[" * depth + middle + b"]" * depth


BRACKETY = st.text(alphabet='[]{}x"\\', max_size=300).map(str.encode)


@settings(max_examples=400, deadline=None)
@given(BRACKETY, st.integers(0, 2 * MAX_JSON_DEPTH), st.integers(0, 2 * MAX_JSON_DEPTH))
def test_a_line_cleared_as_shallow_never_walks_past_the_limit(noise, opens, closes):
    line = b"{" * opens + noise + b"}" * closes
    if json_depth(line) == 0:
        assert walked_depth(line) <= MAX_JSON_DEPTH


def test_a_line_just_past_the_limit_is_measured_and_one_at_it_passes():
    assert json_depth(nested(MAX_JSON_DEPTH + 1)) == MAX_JSON_DEPTH + 1
    assert json_depth(nested(MAX_JSON_DEPTH)) == 0
    # deep, then shallow again, then deep: the deepest point is what counts
    line = nested(60) + b"," + nested(MAX_JSON_DEPTH + 5) + b"," + nested(3)
    assert json_depth(b"[" + line + b"]") == MAX_JSON_DEPTH + 6


def test_many_shallow_brackets_pass_and_brackets_inside_strings_are_set_aside():
    many = json.dumps({"code": ["{[()]}" for _ in range(500)], "n": [[1], [2], {"a": [3]}]})
    assert json_depth(many.encode()) == 0
    quoted = json.dumps({"text": "[" * (3 * MAX_JSON_DEPTH)}).encode()
    assert json_depth(quoted) <= MAX_JSON_DEPTH  # over the limit only inside a string
    opened = json.dumps({"text": "[" * (3 * MAX_JSON_DEPTH), "v": 1}).encode()
    assert json_depth(nested(MAX_JSON_DEPTH + 1, opened)) > MAX_JSON_DEPTH


def test_non_ascii_and_invalid_utf8_bytes_leave_the_brackets_as_they_are():
    line = nested(MAX_JSON_DEPTH + 2, '"→ é"'.encode() + b'"\xff\xfe["')
    assert json_depth(line) == MAX_JSON_DEPTH + 2  # the "[" inside a string set aside
