"""A mark's stored text is ``json.dumps``'s, byte for byte (``store.sql._MARK_TEXT`` only drops
the check for a value that contains itself): an outbox or a high-water mark written before the
change reads the same after it, and the other way round."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.store.sql import _MARK_TEXT

_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
            | st.text())
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=5)
                       | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_a_marks_text_is_what_json_dumps_writes(value):
    assert _MARK_TEXT(value) == json.dumps(value)


def test_a_value_that_contains_itself_is_still_refused():
    looped: list = []
    looped.append(looped)
    try:
        _MARK_TEXT(looped)
    except (RecursionError, ValueError):
        return
    raise AssertionError("a value that contains itself was encoded")
